"""Working copies of tasks, and the diff each task leaves behind.

A ``repo`` task gets a scratch worktree at its revision: the repository is first cloned bare
into ``STATE/repos/`` (objects shared with a local repository, so that is cheap), and
worktrees are added from that clone, so the user's repository is never touched. A ``cwd``
task works in its directory as it is.

The diff is taken between two snapshots of the working copy (the revision, or for a ``cwd``
task the state when the task first started) and what it holds at the end: tracked and new
files, ``.gitignore`` respected. Snapshots are tree objects written through a temporary index,
so neither the real index nor the files are disturbed. Outside git there is no diff.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass

from pi_coding_agent.app.batch._layout import BatchLayout, task_key
from pi_coding_agent.app.batch._task import BatchTask

_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


class WorkspaceError(Exception):
    """A working copy that cannot be prepared; the task ends with status ``error``."""


@dataclass
class Workspace:
    cwd: str
    root: str | None
    """Top of the git working tree holding ``cwd``; ``None`` outside git."""
    base: str | None
    """Tree-ish the diff starts from."""
    scratch_of: str | None = None
    """The bare clone a scratch worktree belongs to (removed after the task)."""


async def git(*args: str, cwd: str, env: dict[str, str] | None = None) -> str:
    process = await asyncio.create_subprocess_exec(
        "git",
        *args,
        cwd=cwd,
        env={**os.environ, **_GIT_ENV, **(env or {})},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines() or [f"exit status {process.returncode}"]
        raise WorkspaceError(f"git {args[0]} failed in {cwd}: {lines[-1]}")
    return out.decode("utf-8", "replace")


async def snapshot(root: str) -> str:
    """A tree object of everything git would add in ``root`` now (index and files untouched)."""
    index_path = (await git("rev-parse", "--path-format=absolute", "--git-path", "index", cwd=root)).strip()
    with tempfile.TemporaryDirectory(prefix="pi-batch-index-") as folder:
        temporary = os.path.join(folder, "index")
        if _exists(index_path):
            # Its stat cache spares rehashing unchanged files. The copy keeps the index's own
            # mtime: git trusts a cached entry only for files older than the index, so a fresh
            # mtime would hide an edit that kept the size within the second of the checkout.
            shutil.copy2(index_path, temporary)
        env = {"GIT_INDEX_FILE": temporary}
        await git("add", "-A", "--", ".", cwd=root, env=env)
        return (await git("write-tree", cwd=root, env=env)).strip()


async def task_diff(workspace: Workspace) -> str | None:
    if workspace.root is None or workspace.base is None:
        return None
    end = await snapshot(workspace.root)
    return await git(
        "diff",
        "--binary",
        "--no-color",
        "--no-ext-diff",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        workspace.base,
        end,
        cwd=workspace.root,
    )


async def _git_root(directory: str) -> str | None:
    try:
        return (await git("rev-parse", "--show-toplevel", cwd=directory)).strip() or None
    except WorkspaceError:
        return None


async def directory_workspace(directory: str, recorded_base: str | None, outside_git: set[str]) -> Workspace:
    """A task's own directory; ``recorded_base`` is the snapshot of its first attempt, if any.

    ``outside_git`` remembers directories found not to be in a git working tree: tasks often
    share one, and asking git costs a process each time (bench/batch_throughput.py).
    """
    if not _is_dir(directory):
        raise WorkspaceError(f"working directory {directory} does not exist")
    root = None if directory in outside_git else await _git_root(directory)
    if root is None:
        outside_git.add(directory)
    if root is None:
        return Workspace(directory, None, None)
    return Workspace(directory, root, recorded_base or await snapshot(root))


async def scratch_workspace(task: BatchTask, layout: BatchLayout, *, fresh: bool) -> Workspace:
    """The task's worktree at ``rev``: made anew when ``fresh`` or missing, else reused as it is."""
    assert task.repo is not None
    clone = await _bare_clone(task.repo, layout)
    path = layout.worktree(task.id)
    rev = task.rev or "HEAD"
    async with _locked(clone + ".lock"):
        commit = (
            await git("rev-parse", "--verify", "--end-of-options", rev + "^{commit}", cwd=clone)
        ).strip()
        if fresh or not _is_dir(path):
            await _remove_worktree(clone, path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            await git("worktree", "add", "--detach", "--force", path, commit, cwd=clone)
    return Workspace(path, path, commit, scratch_of=clone)


async def release_workspace(workspace: Workspace) -> None:
    if workspace.scratch_of is not None:
        async with _locked(workspace.scratch_of + ".lock"):
            await _remove_worktree(workspace.scratch_of, workspace.cwd)


async def release_leftover_worktree(task: BatchTask, layout: BatchLayout) -> None:
    """Remove the worktree an attempt left when it was cut off between recording its result
    and removing the worktree."""
    path = layout.worktree(task.id)
    if task.repo is not None and _is_dir(path):
        await release_workspace(Workspace(path, path, None, scratch_of=_clone_path(task.repo, layout)))


async def _remove_worktree(clone: str, path: str) -> None:
    if _is_dir(path):
        with contextlib.suppress(WorkspaceError):
            await git("worktree", "remove", "--force", "--force", path, cwd=clone)
        shutil.rmtree(path, ignore_errors=True)
    await git("worktree", "prune", cwd=clone)


def _clone_path(repo: str, layout: BatchLayout) -> str:
    name = (
        task_key(os.path.basename(repo.rstrip("/")) or "repo")
        + "-"
        + hashlib.sha256(repo.encode()).hexdigest()[:10]
    )
    return os.path.join(layout.state_dir, "repos", name + ".git")


async def _bare_clone(repo: str, layout: BatchLayout) -> str:
    clone = _clone_path(repo, layout)
    if _is_dir(os.path.join(clone, "objects")):
        return clone
    os.makedirs(os.path.dirname(clone), exist_ok=True)
    async with _locked(clone + ".lock"):
        if not _is_dir(os.path.join(clone, "objects")):
            local = _is_dir(repo)
            if local and await _git_root(repo) is None and not _is_dir(os.path.join(repo, "objects")):
                raise WorkspaceError(f"repo {repo} is not a git repository")
            temporary = clone + ".partial"
            shutil.rmtree(temporary, ignore_errors=True)
            shared = ["--shared"] if local else []
            await git(
                "clone", "--bare", "--quiet", *shared, "--", repo, temporary, cwd=os.path.dirname(clone)
            )
            os.rename(temporary, clone)
    return clone


def _is_dir(path: str) -> bool:
    """A stat call; cheap enough to make on the event loop."""
    return os.path.isdir(path)


def _exists(path: str) -> bool:
    return os.path.exists(path)


@contextlib.asynccontextmanager
async def _locked(path: str) -> AsyncIterator[None]:
    """An exclusive ``flock`` on ``path`` (other processes and other tasks of this one wait)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(0.02)
        yield
    finally:
        os.close(fd)
