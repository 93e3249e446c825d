"""``pi install/remove/update/list/config`` through the real ``pi`` command, with real sources:
a local folder, a git repository in a temp folder (``git:file://``), and a PEP 503 index
served on 127.0.0.1. Installed resources are then used by a run against a scripted provider."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.customize.packages._support import (
    EXAMPLE,
    SimpleIndex,
    commit_file,
    git,
    git_repo,
    publish,
    sdist,
    wheel,
)
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Completed, Sandbox, run_ours
from tests.support.scripted_provider import ScriptedProvider


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    return Sandbox.create(tmp_path, "http://127.0.0.1:9")


def _settings(box: Sandbox, project: bool = False) -> dict[str, Any]:
    path = box.work / ".pi" / "settings.json" if project else box.agent_dir / "settings.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _pi(box: Sandbox, *args: str) -> Completed:
    return run_ours(box, *args, timeout=120)


def _ok(done: Completed) -> Completed:
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _ask(box: Sandbox, prompt: str, *flags: str) -> tuple[str, str]:
    """(system prompt, user message) the model receives for ``prompt``."""
    with ScriptedProvider([{"text": "ok"}]) as provider:
        models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
        for entry in models["providers"].values():
            entry["baseUrl"] = entry["baseUrl"].replace("http://127.0.0.1:9", provider.base_url)
        (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        done = run_ours(box, *flags, "--no-session", "--model", OPENAI_MODEL, "-p", prompt)
        assert done.returncode == 0, done.stderr
        messages = provider.requests[0]["body"]["messages"]
        (box.agent_dir / "models.json").write_text(
            (box.agent_dir / "models.json").read_text(encoding="utf-8").replace(provider.base_url, "http://127.0.0.1:9"),
            encoding="utf-8",
        )
    return _text(messages[0]["content"]), _text(messages[-1]["content"])


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def test_local_folder_install_use_list_remove(box: Sandbox) -> None:
    package = box.root / "review-kit"
    shutil.copytree(EXAMPLE, package)
    done = _ok(_pi(box, "install", "../review-kit"))
    assert done.stdout.splitlines() == ["Installing ../review-kit...", "Installed ../review-kit"]
    # Recorded relative to the settings file's folder; nothing copied.
    assert _settings(box)["packages"] == ["../../../review-kit"]
    assert not (box.agent_dir / "git").exists() and not (box.agent_dir / "pypi").exists()

    system, user = _ask(box, "/review src/app.py")
    assert user == (
        "Review src/app.py using the code-review skill. Focus on correctness and error handling.\n"
        "List each finding with its line number."
    )
    assert f"<location>{package}/skills/code-review/SKILL.md</location>" in system
    assert "<name>changelog</name>" not in system  # disable-model-invocation
    _, skill = _ask(box, "/skill:changelog for 2.0")
    assert skill.startswith(f'<skill name="changelog" location="{package}/skills/changelog/SKILL.md">')
    assert skill.endswith("</skill>\n\nfor 2.0")

    listed = _ok(_pi(box, "list")).stdout
    assert listed == f"User packages:\n  ../../../review-kit\n    {package}\n"
    # The same package again: settings unchanged.
    _ok(_pi(box, "install", str(package)))
    assert _settings(box)["packages"] == ["../../../review-kit"]

    assert _ok(_pi(box, "remove", "../review-kit")).stdout.splitlines()[-1] == "Removed ../review-kit"
    assert _settings(box)["packages"] == []
    assert (package / "skills").is_dir()  # a local folder is never deleted
    missing = _pi(box, "remove", "../review-kit")
    assert (missing.returncode, missing.stderr) == (1, "No matching package found for ../review-kit\n")


def test_git_install_update_pin_and_remove(box: Sandbox) -> None:
    repo = git_repo(box.root / "repos" / "review-kit")
    source = f"git:file://{repo}"
    _ok(_pi(box, "install", source))
    clone = box.agent_dir / "git" / "file" / str(repo).lstrip("/")
    assert (clone / "skills" / "code-review" / "SKILL.md").is_file()
    assert _settings(box)["packages"] == [source]
    assert not [p.name for p in clone.parent.iterdir() if p.name.startswith(".")]  # no staging left over

    commit_file(repo, "prompts/summary.md", "Summarize $@\n")
    assert _ask(box, "/summary x")[1] == "/summary x"
    before = git("rev-parse", "HEAD", cwd=clone)[:7]
    shown = _ok(_pi(box, "update", source)).stdout.splitlines()
    after = git("rev-parse", "HEAD", cwd=clone)[:7]
    assert shown == [f"Updating {source}...", "Updated 1 package:", f"  {source} {before} -> {after}"]  # Pi 1.6's lines
    assert _ok(_pi(box, "update", source)).stdout.splitlines()[-1] == f"{source} is already up to date"
    assert _ask(box, "/summary the diff")[1] == "Summarize the diff\n"  # no frontmatter: the body as written

    # Pinned to a tag: moved there, and update does not move it on.
    _ok(_pi(box, "install", f"{source}@v1"))
    assert _settings(box)["packages"] == [f"{source}@v1"]
    assert not (clone / "prompts" / "summary.md").exists()
    commit_file(repo, "prompts/later.md", "later\n")
    _ok(_pi(box, "update", "--extensions"))
    assert not (clone / "prompts" / "later.md").exists()
    assert git("rev-parse", "HEAD", cwd=clone) == git("rev-parse", "v1", cwd=repo)

    _ok(_pi(box, "remove", source))
    assert _installed_files(box.agent_dir / "git") == []
    assert (box.agent_dir / "git" / ".gitignore").read_text(encoding="utf-8") == "*\n!.gitignore\n"
    assert _settings(box)["packages"] == []


def test_index_install_update_and_pin(box: Sandbox) -> None:
    with SimpleIndex(box.root / "index") as index:
        dist = box.root / "dist"
        publish(index.root, "pi-review-kit", [sdist(EXAMPLE, dist, version="1.0.0")])
        settings = {**_settings(box), "packageIndexUrl": index.url}
        (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

        _ok(_pi(box, "install", "pypi:pi-review-kit"))
        installed = box.agent_dir / "pypi" / "pi-review-kit"
        assert "Version: 1.0.0" in (installed / "PKG-INFO").read_text(encoding="utf-8")
        assert _ask(box, "/review a.py")[1].startswith("Review a.py using the code-review skill.")
        assert f"{installed}/skills/code-review/SKILL.md" in _ask(box, "hi")[0]

        publish(index.root, "pi-review-kit", [
            sdist(EXAMPLE, dist, version="1.0.0"),
            sdist(EXAMPLE, dist, version="1.1.0", extra={"prompts/triage.md": "Triage $1\n"}),
            sdist(EXAMPLE, dist, version="2.0.0rc1"),
        ])
        _ok(_pi(box, "update", "--extensions"))
        assert "Version: 1.1.0" in (installed / "PKG-INFO").read_text(encoding="utf-8")  # not the pre-release
        assert _ask(box, "/triage bug-12")[1] == "Triage bug-12\n"

        _ok(_pi(box, "install", "pypi:pi-review-kit==1.0.0"))
        assert "Version: 1.0.0" in (installed / "PKG-INFO").read_text(encoding="utf-8")
        _ok(_pi(box, "update", "--extensions"))
        assert "Version: 1.0.0" in (installed / "PKG-INFO").read_text(encoding="utf-8")
        assert _settings(box)["packages"] == ["pypi:pi-review-kit==1.0.0"]
        assert _ok(_pi(box, "list")).stdout == f"User packages:\n  pypi:pi-review-kit==1.0.0\n    {installed}\n"


def test_index_package_dependencies_stay_inside_the_package(box: Sandbox) -> None:
    with SimpleIndex(box.root / "index") as index:
        dist = box.root / "dist"
        publish(index.root, "pi-review-kit", [sdist(EXAMPLE, dist, version="1.0.0", dependencies=["tinydep"])])
        publish(index.root, "tinydep", [wheel(dist, "tinydep", "0.1", "VALUE = 42\n")])
        settings = {**_settings(box), "packageIndexUrl": index.url}
        (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        _ok(_pi(box, "install", "pypi:pi-review-kit"))
    target = box.agent_dir / "pypi" / "pi-review-kit" / ".pi-site-packages"
    assert (target / "tinydep.py").read_text(encoding="utf-8") == "VALUE = 42\n"


def _installed_files(folder: Path) -> list[Path]:
    """Files under an install folder, besides the ``.gitignore`` that keeps them out of git."""
    return sorted(p for p in folder.rglob("*") if p != folder / ".gitignore") if folder.exists() else []


def _nothing_installed(box: Sandbox, before: dict[str, Any]) -> None:
    assert _settings(box) == before
    for folder in ("git", "pypi"):
        assert _installed_files(box.agent_dir / folder) == []


def test_failed_installs_leave_nothing_behind(box: Sandbox) -> None:
    before = _settings(box)
    done = _pi(box, "install", f"git:file://{box.root}/no-such-repo")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: git clone file://") and done.stderr.count("\n") == 1
    _nothing_installed(box, before)

    with SimpleIndex(box.root / "index") as index:
        dist = box.root / "dist"
        (box.agent_dir / "settings.json").write_text(json.dumps({**before, "packageIndexUrl": index.url}), encoding="utf-8")
        before = _settings(box)
        publish(index.root, "pi-review-kit", [sdist(EXAMPLE, dist, version="1.0.0")], bad_hash=True)
        done = _pi(box, "install", "pypi:pi-review-kit")
        assert done.returncode == 1 and "sha256 does not match" in done.stderr
        _nothing_installed(box, before)

        publish(index.root, "pi-review-kit", [sdist(EXAMPLE, dist, version="1.0.0", dependencies=["missing-dep"])])
        done = _pi(box, "install", "pypi:pi-review-kit")
        assert done.returncode == 1 and "missing-dep" in done.stderr
        _nothing_installed(box, before)

        done = _pi(box, "install", "pypi:not-published")
        assert done.returncode == 1 and "no project" in done.stderr
        _nothing_installed(box, before)

    # npm's registry is one on 127.0.0.1 that refuses at once: the test stays off the network.
    done = run_ours(box, "install", "npm:@pi-for-python-tests/not-published", timeout=120,
                    npm_config_registry="http://127.0.0.1:9/", npm_config_fetch_retries="0")  # fmt: skip
    assert done.returncode == 1 and "npm install @pi-for-python-tests/not-published" in done.stderr
    done = _pi(box, "install", "./not-here")
    assert done.returncode == 1 and done.stderr == f"Error: Path does not exist: {box.work}/not-here\n"
    _nothing_installed(box, before)


def test_project_install_needs_trust(box: Sandbox) -> None:
    package = box.root / "review-kit"
    shutil.copytree(EXAMPLE, package)
    # A project with nothing of its own needs no trust (as in Pi); one with .pi settings does.
    (box.work / ".pi").mkdir()
    (box.work / ".pi" / "settings.json").write_text("{}", encoding="utf-8")
    refused = _pi(box, "install", "-l", "../review-kit")
    assert refused.returncode == 1
    assert refused.stderr == "Project is not trusted. Use --approve to modify local package config.\n"
    repo = git_repo(box.root / "repos" / "kit")
    _ok(_pi(box, "install", "-l", f"git:file://{repo}", "--approve"))
    assert _settings(box, project=True)["packages"] == [f"git:file://{repo}"]
    assert (box.work / ".pi" / "git" / "file" / str(repo).lstrip("/") / "skills").is_dir()
    listed = _ok(_pi(box, "list", "--approve")).stdout
    assert listed.startswith("Project packages:\n")
    # Without trust the project's packages are not listed, and not used.
    assert _ok(_pi(box, "list", "--no-approve")).stdout == "No packages installed.\n"


def test_config_lists_and_switches_resources(box: Sandbox) -> None:
    package = box.root / "review-kit"
    shutil.copytree(EXAMPLE, package)
    _ok(_pi(box, "install", str(package)))
    listed = _ok(_pi(box, "config")).stdout
    skill = f"{package}/skills/code-review/SKILL.md"
    assert f"[x]   2  {skill}  (user, package ../../../review-kit)" in listed
    assert "Prompt templates" in listed and "Themes" in listed

    _ok(_pi(box, "config", "disable", skill))
    assert _settings(box)["packages"] == [{"source": "../../../review-kit", "skills": ["-skills/code-review/SKILL.md"]}]
    assert f"[ ]   2  {skill}" in _ok(_pi(box, "config")).stdout
    assert "<name>code-review</name>" not in _ask(box, "hi")[0]

    _ok(_pi(box, "config", "enable", "2"))
    assert _settings(box)["packages"] == [{"source": "../../../review-kit", "skills": ["+skills/code-review/SKILL.md"]}]
    assert "<name>code-review</name>" in _ask(box, "hi")[0]

    # A skill of the agent dir: a pattern in the "skills" setting.
    (box.agent_dir / "skills" / "mine").mkdir(parents=True)
    (box.agent_dir / "skills" / "mine" / "SKILL.md").write_text("---\ndescription: mine\n---\nx\n", encoding="utf-8")
    _ok(_pi(box, "config", "disable", str(box.agent_dir / "skills" / "mine" / "SKILL.md")))
    assert _settings(box)["skills"] == ["-skills/mine/SKILL.md"]
    assert "<name>mine</name>" not in _ask(box, "hi")[0]

    bad = _pi(box, "config", "disable", "99")
    assert bad.returncode == 1 and "no resource 99" in bad.stderr


def test_help_and_usage_errors(box: Sandbox) -> None:
    assert _ok(_pi(box, "install", "--help")).stdout.startswith("Usage:\n  pi install <source> [-l]")
    done = _pi(box, "install")
    assert (done.returncode, done.stderr.splitlines()[0]) == (1, "Missing install source.")
    done = _pi(box, "list", "-l")
    assert (done.returncode, done.stderr.splitlines()[0]) == (1, 'Unknown option -l for "list".')
    done = _pi(box, "install", "a", "b")
    assert (done.returncode, done.stderr.splitlines()[0]) == (1, "Unexpected argument b.")
    plain = _ok(_pi(box, "update"))
    assert plain.stdout.splitlines()[0] == "Extensions are skipped. Run pi update --extensions to update extensions."
    for args, problem in (  # Pi's words (pi update --models refreshes catalogs: e2e/test_radius_cli.py)
        (("--models", "--self"), "--models cannot be combined with --self, --extensions, --all, or --extension"),
        (("--models", "foo"), "--models cannot be combined with a positional source"),
        (("--all", "--models"), "--all cannot be combined with --self, --extensions, --models, or --extension"),
    ):
        done = _pi(box, "update", *args)
        assert (done.returncode, done.stderr.splitlines()[0]) == (1, problem)


def test_broken_settings_file_is_never_overwritten(box: Sandbox) -> None:
    (box.agent_dir / "settings.json").write_text('{"packages": [', encoding="utf-8")
    package = box.root / "review-kit"
    shutil.copytree(EXAMPLE, package)
    done = _pi(box, "install", str(package))
    assert done.returncode == 1 and "invalid JSON at line 1" in done.stderr and "left unchanged" in done.stderr
    assert (box.agent_dir / "settings.json").read_text(encoding="utf-8") == '{"packages": ['


def test_config_project_override_of_a_user_package(box: Sandbox) -> None:
    package = box.root / "review-kit"
    shutil.copytree(EXAMPLE, package)
    _ok(_pi(box, "install", str(package)))
    (box.work / ".pi").mkdir()
    (box.work / ".pi" / "settings.json").write_text("{}", encoding="utf-8")
    skill = f"{package}/skills/code-review/SKILL.md"
    refused = _pi(box, "config", "-l", "disable", skill)
    assert (refused.returncode, refused.stderr) == (1, "Project is not trusted. Use --approve to modify local resource config.\n")
    _ok(_pi(box, "config", "-l", "--approve", "disable", skill))
    assert _settings(box, project=True)["packages"] == [
        {"source": "../../review-kit", "autoload": False, "skills": ["-skills/code-review/SKILL.md"]}
    ]
    assert _settings(box)["packages"] == ["../../../review-kit"]  # the user's entry is untouched
    # The override applies only where the project is trusted.
    assert "<name>code-review</name>" not in _ask(box, "hi", "--approve")[0]
    assert "<name>code-review</name>" in _ask(box, "hi", "--no-approve")[0]

