"""What ``pi`` says about resources in one-shot runs, and packages it installs on its own."""

from __future__ import annotations

from pathlib import Path

from tests.pi_coding_agent.customize.packages._support import git_repo
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider


def _skill(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_problems_with_resources_are_left_to_the_terminal_ui(tmp_path: Path) -> None:
    """Bad, broken and colliding skills, a missing ``--skill`` and ``--prompt-template``: Pi lists
    them in its TUI's header ([Skill conflicts]...) and says nothing about them in a one-shot
    run; neither do we (an over-long description used to warn on every ``-p`` run)."""
    with ScriptedProvider([{"text": "ok"}, {"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        _skill(box.agent_dir, "skills/Bad_Name/SKILL.md", "---\ndescription: d\n---\nx\n")
        _skill(box.agent_dir, "skills/broken/SKILL.md", "---\ndescription: a: b\n---\nx\n")
        _skill(box.agent_dir, "skills/long/SKILL.md", f"---\ndescription: {'x' * 1100}\n---\nx\n")
        _skill(box.agent_dir, "skills/one/SKILL.md", "---\nname: same\ndescription: d\n---\nx\n")
        _skill(box.agent_dir, "skills/two/SKILL.md", "---\nname: same\ndescription: d\n---\nx\n")
        args = ("--model", OPENAI_MODEL, "--skill", "nowhere", "--prompt-template", "gone.md", "-p", "hi")
        ours, pis = run_ours(box, *args), run_pi(box, *args)
    assert (
        (ours.returncode, ours.stdout, ours.stderr)
        == (pis.returncode, pis.stdout, pis.stderr)
        == (0, "ok\n", "")
    )


def test_packages_in_settings_are_installed_at_startup(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url, {"packages": [f"git:file://{repo}"]})
        offline = run_ours(box, "--model", OPENAI_MODEL, "-p", "/review x.py", PI_OFFLINE="1")
        assert offline.returncode == 0
        assert f"Warning: package git:file://{repo} is not installed (run: pi install git:file://{repo})" in (
            offline.stderr.splitlines()
        )
        # Text-only content goes to a server on 127.0.0.1 as a string (docs/providers/local-servers.md).
        assert provider.requests[-1]["body"]["messages"][-1]["content"] == "/review x.py"
        done = run_ours(box, "--model", OPENAI_MODEL, "-p", "/review x.py")
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == [f"Installing git:file://{repo}..."]
        user = provider.requests[-1]["body"]["messages"][-1]["content"]
        assert user.startswith("Review x.py using the code-review skill.")
    assert (box.agent_dir / "git" / "file" / str(repo).lstrip("/") / "skills").is_dir()


def test_a_remote_e_source_offline_is_one_warning(tmp_path: Path) -> None:
    """Remote ``-e`` sources are installed for the run (``packages/test_temporary.py``); offline
    nothing is fetched and the run goes on without it."""
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        done = run_ours(
            box, "--model", OPENAI_MODEL, "-e", "git:github.com/user/repo", "-p", "hi", PI_OFFLINE="1"
        )
    assert done.returncode == 0
    assert (
        "Warning: -e git:github.com/user/repo: the package could not be installed for this run"
    ) in done.stderr.splitlines()
