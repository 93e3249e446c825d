"""Session commands: ``/new``, ``/name``, ``/session``, ``/resume``, ``/fork``, ``/clone``,
``/tree``, ``/compact``, ``/export``, ``/import``, ``/copy``, ``/share`` (Pi's wording)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Coroutine
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pi_coding_agent.app.interactive._clipboard import ClipboardError, copy_to_clipboard
from pi_coding_agent.app.interactive.commands._radius_share import (
    RADIUS_PROVIDER,
    RadiusShareError,
    share_entry,
    upload_artifact,
)
from pi_coding_agent.app.interactive.selectors import ForkSelector, LoaderDialog, SessionPicker, TreeSelector
from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.runtime.agent_session import CompactionError, SessionError
from pi_tui import Spacer, Text

if TYPE_CHECKING:
    from pi_coding_agent.app.interactive._indicators import StatusIndicators
    from pi_coding_agent.app.interactive._parts import EditorComponent, Notices, Spawn
    from pi_coding_agent.app.interactive._queue import MessageQueue
    from pi_coding_agent.app.interactive._themes import ThemeChoice
    from pi_coding_agent.app.interactive._ui import InteractiveUI
    from pi_coding_agent.app.interactive.components import Footer
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession, AgentSessionRuntime
    from pi_tui import Terminal


class SessionCommandHost(Protocol):
    """What the session commands use: the runtime that replaces sessions, the screen rebuilt
    for the new one, dialogs, the transcript's notices."""

    @property
    def runtime(self) -> AgentSessionRuntime: ...
    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Notices: ...
    @property
    def ui(self) -> InteractiveUI: ...
    @property
    def editor(self) -> EditorComponent: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def indicators(self) -> StatusIndicators: ...
    @property
    def queue(self) -> MessageQueue: ...
    @property
    def terminal(self) -> Terminal: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def themes(self) -> ThemeChoice: ...
    @property
    def spawn(self) -> Spawn: ...

    escape_override: Callable[[], None] | None

    def rebind(self) -> None: ...
    def render_session(self) -> None: ...


SUMMARY_CHOICES = ["No summary", "Summarize", "Summarize with custom prompt"]
SHARE_VIEWER = "https://pi.dev/session/"
T = TypeVar("T")


async def new_session(host: SessionCommandHost, _: str) -> None:
    host.indicators.clear()
    await host.runtime.new_session()
    host.rebind()
    host.transcript.add(Spacer(1))
    host.transcript.add(Text(host.theme.fg("accent", "✓ New session started"), 1, 1))


async def name(host: SessionCommandHost, arguments: str) -> None:
    manager = host.session.session_manager
    if not arguments:
        current = manager.get_session_name()
        if current:
            host.transcript.add(Spacer(1))
            host.transcript.add(Text(host.theme.fg("dim", f"Session name: {current}"), 1, 0))
        else:
            host.transcript.warning("Usage: /name <name>")
        return
    host.session.set_session_name(arguments)
    stored = manager.get_session_name()
    if stored != arguments:
        host.transcript.warning(
            f"Session name was normalized from {json.dumps(arguments)} to {json.dumps(stored)}"
        )
    host.transcript.add(Spacer(1))
    host.transcript.add(Text(host.theme.fg("dim", f"Session name set: {stored or arguments}"), 1, 0))
    host.footer.invalidate()


async def session_info(host: SessionCommandHost, _: str) -> None:
    theme = host.theme
    stats = host.session.get_session_stats()
    name_ = host.session.session_manager.get_session_name()

    def row(label: str, value: object) -> str:
        return f"{theme.fg('dim', label)} {value}\n"

    info = f"{theme.bold('Session Info')}\n\n"
    if name_:
        info += row("Name:", name_)
    info += row("File:", stats.session_file or "In-memory") + row("ID:", stats.session_id) + "\n"
    info += (
        f"{theme.bold('Messages')}\n"
        + row("Total:", stats.total_messages)
        + row("User:", stats.user_messages)
    )
    info += row("Assistant:", stats.assistant_messages)
    info += row("Tools:", f"{stats.tool_calls} calls, {stats.tool_results} results") + "\n"
    tokens = stats.tokens
    prompt = tokens.input + tokens.cache_read + tokens.cache_write
    info += f"{theme.bold('Tokens')}\n" + row("Input:", f"{prompt:,}")
    if prompt and (tokens.cache_read or tokens.cache_write):
        info += f"  {row('Cached:', f'{tokens.cache_read:,} ' + theme.fg('dim', f'({tokens.cache_read / prompt * 100:.1f}%)'))}"
        written = (
            f" {theme.fg('dim', f'({tokens.cache_write:,} written to cache)')}" if tokens.cache_write else ""
        )
        info += f"  {row('Uncached:', f'{tokens.input + tokens.cache_write:,}{written}')}"
    info += row("Output:", f"{tokens.output:,}") + row("Total:", f"{tokens.total:,}")
    if stats.cost > 0:
        info += f"\n{theme.bold('Cost')}\n{theme.fg('dim', 'Total:')} ${stats.cost:.3f}"
    host.transcript.add(Spacer(1))
    host.transcript.add(Text(info, 1, 0))


async def resume(host: SessionCommandHost, _: str) -> None:
    from pi_coding_agent.core.session import SessionManager

    manager = host.session.session_manager
    directory = None if manager.uses_default_session_dir() else manager.get_session_dir()

    def rename(path: str, new_name: str) -> None:
        with SessionManager.open(path) as other:
            other.append_session_info(new_name)

    def build(done: Callable[[], None]) -> SessionPicker:
        def chosen(path: str) -> None:
            done()
            host.spawn(switch_to(host, path))

        return SessionPicker(
            host.ui.context(),
            lambda: SessionManager.list(manager.get_cwd(), manager.get_session_dir()),
            lambda: SessionManager.list_all(directory),
            chosen,
            done,
            current_file=manager.get_session_file(),
            rename=rename,
        )

    host.ui.open(build)


async def switch_to(host: SessionCommandHost, path: str, status: str = "Resumed session") -> bool:
    host.indicators.clear()
    try:
        await host.runtime.switch_session(path)
    except (SessionError, OSError) as error:
        host.transcript.error(f"Failed to resume session: {error}")
        return False
    host.rebind()
    host.transcript.status(status)
    return True


async def fork(host: SessionCommandHost, _: str) -> None:
    points = host.session.get_user_messages_for_forking()
    if not points:
        host.transcript.status("No messages to fork from")
        return

    def build(done: Callable[[], None]) -> ForkSelector:
        def chosen(entry_id: str) -> None:
            done()
            host.spawn(_fork_at(host, entry_id))

        return ForkSelector(host.ui.context(), [(p.entry_id, p.text) for p in points], chosen, done)

    host.ui.open(build)


async def _fork_at(host: SessionCommandHost, entry_id: str) -> None:
    try:
        result = await host.runtime.fork(entry_id)
    except SessionError as error:
        host.transcript.error(str(error))
        return
    host.rebind()
    host.editor.set_text(result.selected_text or "")
    host.transcript.status("Forked to new session")


async def clone(host: SessionCommandHost, _: str) -> None:
    if not host.session.session_manager.get_leaf_id():
        host.transcript.status("Nothing to clone yet")
        return
    try:
        await host.runtime.clone()
    except SessionError as error:
        host.transcript.error(str(error))
        return
    host.rebind()
    host.editor.set_text("")
    host.transcript.status("Cloned to new session")


async def tree(host: SessionCommandHost, _: str, selected_id: str | None = None) -> None:
    manager = host.session.session_manager
    roots = manager.get_tree()
    if not roots:
        host.transcript.status("No entries in session")
        return

    def copy(text: str | None) -> None:
        _copy_text(host, text, "Selected entry has no text to copy", "Copied selected message to clipboard")

    filter_mode = host.session.settings.get("treeFilterMode")

    def build(done: Callable[[], None]) -> TreeSelector:
        def chosen(entry_id: str) -> None:
            done()
            host.spawn(_navigate(host, entry_id))

        selector = TreeSelector(
            host.ui.context(), roots, manager.get_leaf_id(), on_select=chosen, on_cancel=done,
            on_label=host.session.set_label, terminal_rows=host.terminal.rows, selected_id=selected_id,
            filter_mode=filter_mode if isinstance(filter_mode, str) else "default",
        )  # fmt: skip
        selector.tree.on_copy = copy
        return selector

    host.ui.open(build)


async def _summary_choice(host: SessionCommandHost) -> tuple[bool, str | None] | None:
    """Whether to summarize the branch left behind (and with which instructions); ``None``: back to the tree."""
    if host.session.settings.branch_summary_skip_prompt:
        return False, None
    while True:
        choice = await host.ui.select("Summarize branch?", SUMMARY_CHOICES)
        if choice is None:
            return None
        if choice != "Summarize with custom prompt":
            return choice == "Summarize", None
        instructions = await host.ui.editor("Custom summarization instructions")
        if instructions is not None:
            return True, instructions


async def _navigate(host: SessionCommandHost, entry_id: str) -> None:
    session = host.session
    if entry_id == session.session_manager.get_leaf_id():
        host.transcript.status("Already at this point")
        return
    choice = await _summary_choice(host)
    if choice is None:
        await tree(host, "", entry_id)
        return
    summarize, instructions = choice
    if session.is_streaming:
        host.queue.take_back()
        await session.abort()
    if summarize:
        host.escape_override = session.abort_branch_summary
        host.indicators.summarizing()
    try:
        result = await session.navigate_tree(entry_id, summarize=summarize, custom_instructions=instructions)
    except SessionError as error:
        host.transcript.error(str(error))
        return
    finally:
        host.indicators.clear("branchSummary")
        host.escape_override = None
    if result.aborted:
        host.transcript.status("Branch summarization cancelled")
        await tree(host, "", entry_id)
        return
    if result.cancelled:
        host.transcript.status("Navigation cancelled")
        return
    host.render_session()
    host.footer.refresh()
    if result.editor_text and not host.editor.get_text().strip():
        host.editor.set_text(result.editor_text)
    host.transcript.status("Navigated to selected point")
    await host.queue.flush_held()


async def compact(host: SessionCommandHost, arguments: str) -> None:
    host.indicators.clear()
    with contextlib.suppress(CompactionError, SessionError):  # shown from the compaction_end event
        await host.session.compact(arguments or None)


def path_argument(arguments: str) -> str | None:
    """The first argument, which may be quoted (``/export "my file.html"``)."""
    arguments = arguments.strip()
    if not arguments:
        return None
    if arguments[0] in "\"'":
        end = arguments.find(arguments[0], 1)
        return arguments[1:end] if end > 0 else None
    return arguments.split()[0]


def export_jsonl(
    host: SessionCommandHost,
    output: str | None,
    trailing: Callable[[str | None, str], list[dict[str, Any]]] | None = None,
) -> str:
    """The current branch as a session file of its own (Pi's ``/export x.jsonl``); ``trailing``
    makes entries written after it from the last entry's id and the export's timestamp."""
    from datetime import datetime

    manager = host.session.session_manager
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    path = resolve_path(output or f"session-{stamp.replace(':', '-').replace('.', '-')}.jsonl", os.getcwd())
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    header = {"type": "session", "version": 3, "id": manager.get_session_id(), "timestamp": stamp,
              "cwd": manager.get_cwd()}  # fmt: skip
    lines = [json.dumps(header, ensure_ascii=False, separators=(",", ":"))]
    by_id = {entry["id"]: entry for entry in manager.get_entries_data() if isinstance(entry.get("id"), str)}
    parent: str | None = None
    for entry in manager.get_branch():
        data: dict[str, Any] = dict(by_id.get(str(entry.id), {}))
        data["parentId"] = parent
        lines.append(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        parent = str(entry.id)
    for extra in trailing(parent, stamp) if trailing else []:
        lines.append(json.dumps(extra, ensure_ascii=False, separators=(",", ":")))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def export(host: SessionCommandHost, arguments: str) -> None:
    output = path_argument(arguments)
    try:
        path = (
            export_jsonl(host, output)
            if output and output.endswith(".jsonl")
            else await host.session.export_to_html(output, palette=host.themes.export_palette(host.theme))
        )
    except Exception as error:
        host.transcript.error(f"Failed to export session: {error}")
        return
    host.transcript.status(f"Session exported to: {path}")


async def import_session(host: SessionCommandHost, arguments: str) -> None:
    source = path_argument(arguments)
    if not source:
        host.transcript.error("Usage: /import <path.jsonl>")
        return
    if not await host.ui.confirm("Import session", f"Replace current session with {source}?"):
        host.transcript.status("Import cancelled")
        return
    resolved = resolve_path(source, os.getcwd())
    try:
        target = _store_copy(resolved, Path(host.session.session_manager.get_session_dir()))
    except FileNotFoundError:
        host.transcript.error(f"Failed to import session: File not found: {resolved}")
        return
    except OSError as error:
        host.transcript.error(f"Failed to import session: {error}")
        return
    await switch_to(host, target, f"Session imported from: {source}")


def _store_copy(source: str, directory: Path) -> str:
    """``source`` copied into the session folder under a free name (kept as is when already there)."""
    if not os.path.exists(source):
        raise FileNotFoundError(source)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / os.path.basename(source)
    if target.resolve() == Path(source).resolve():
        return str(target)
    counter = 1
    while target.exists():
        target = directory / f"{Path(source).stem}-{counter}{Path(source).suffix}"
        counter += 1
    shutil.copyfile(source, target)
    return str(target)


async def copy(host: SessionCommandHost, _: str) -> None:
    text = host.session.get_last_assistant_text()
    _copy_text(host, text, "No agent messages to copy yet.", "Copied last agent message to clipboard")


def _copy_text(host: SessionCommandHost, text: str | None, nothing: str, done: str) -> None:
    """``text`` to the clipboard, then ``done`` as a status; ``nothing`` as an error without text."""
    if not text:
        host.transcript.error(nothing)
        return
    try:
        copy_to_clipboard(text, host.terminal.write)
    except ClipboardError as error:
        host.transcript.error(str(error))
        return
    host.transcript.status(done)


async def share(host: SessionCommandHost, _: str) -> None:
    """Radius first when the ``radius`` provider has a token, else a secret GitHub gist of the
    HTML export through the GitHub CLI (``gh``), as Pi does."""
    with tempfile.TemporaryDirectory(prefix="pi-share-") as folder:
        session = host.session
        tools = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in session.agent.state.tools
        ]
        jsonl = os.path.join(folder, "session.jsonl")
        try:
            export_jsonl(host, jsonl, share_entry(session.system_prompt, tools))
        except Exception as error:
            host.transcript.error(f"Failed to export session: {error}")
            return
        if await _share_via_radius(host, Path(jsonl)):
            return
        await _share_via_gist(host, os.path.join(folder, "session.html"))


async def _share_via_radius(host: SessionCommandHost, jsonl: Path) -> bool:
    """Upload to Radius; ``False`` when there is no ``radius`` token (then the gist is made)."""
    credentials = host.session.catalog.credentials
    try:
        if credentials.needs_refresh(RADIUS_PROVIDER, 5 * 60_000):
            await credentials.refresh(RADIUS_PROVIDER, 5 * 60_000)
        token = credentials.api_key(RADIUS_PROVIDER)
    except Exception as error:
        host.transcript.error(f"Failed to upload Radius artifact: {error}")
        return True
    if not token:
        return False

    async def upload() -> str:
        return await upload_artifact(await asyncio.to_thread(jsonl.read_bytes), token)

    try:
        finished, url = await _with_loader(host, "Uploading to Radius...", upload())
    except RadiusShareError as error:
        host.transcript.error(f"Failed to upload Radius artifact: {error}")
        return True
    if finished:
        host.transcript.status(f"Share URL: {url}")
    return True


async def _share_via_gist(host: SessionCommandHost, html: str) -> None:
    if shutil.which("gh") is None:
        host.transcript.error("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")
        return
    if (await _run(["gh", "auth", "status"])).returncode != 0:
        host.transcript.error("GitHub CLI is not logged in. Run 'gh auth login' first.")
        return
    try:
        await host.session.export_to_html(html, palette=host.themes.export_palette(host.theme))
    except Exception as error:
        host.transcript.error(f"Failed to export session: {error}")
        return
    finished, done = await _with_loader(
        host, "Creating gist...", _run_killable(["gh", "gist", "create", "--public=false", html])
    )
    if not finished or done is None:
        return
    if done.returncode != 0:
        host.transcript.error(f"Failed to create gist: {done.stderr.strip() or 'Unknown error'}")
        return
    url = done.stdout.strip()
    gist_id = url.rsplit("/", 1)[-1]
    if not gist_id:
        host.transcript.error("Failed to parse gist ID from gh output")
        return
    viewer = os.environ.get("PI_SHARE_VIEWER_URL") or SHARE_VIEWER
    host.transcript.status(f"Share URL: {viewer}#{gist_id}\nGist: {url}")


async def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True, check=False)


async def _run_killable(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv``'s output; the process is killed when the task is cancelled (Escape)."""
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        out, err = await process.communicate()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise
    code = process.returncode if process.returncode is not None else -1
    return subprocess.CompletedProcess(argv, code, out.decode(errors="replace"), err.decode(errors="replace"))


async def _with_loader(host: SessionCommandHost, message: str, work: Coroutine[Any, Any, T]) -> tuple[bool, T | None]:
    """``work`` with Pi's bordered loader in the editor's place: ``(True, result)``, or
    ``(False, None)`` when Escape cancelled it (``Share cancelled``, as Pi says). Errors pass
    through, the editor back first."""
    task = asyncio.ensure_future(work)
    cancelled = False

    def cancel() -> None:
        nonlocal cancelled
        cancelled = True
        task.cancel()

    done = host.ui.show_selector(LoaderDialog(host.ui.context(), message, cancel))
    try:
        return True, await task
    except asyncio.CancelledError:
        if not cancelled:
            raise
        done()
        host.transcript.status("Share cancelled")
        return False, None
    finally:
        done()


HANDLERS = {
    "new": new_session, "name": name, "session": session_info, "resume": resume, "fork": fork, "clone": clone,
    "tree": tree, "compact": compact, "export": export, "import": import_session, "copy": copy, "share": share,
}  # fmt: skip
