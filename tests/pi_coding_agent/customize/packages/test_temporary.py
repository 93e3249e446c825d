"""``pi -e <package>``: a git repository (``git:file://``) or an index package (a PEP 503
index on 127.0.0.1) installed for one run into Pi's temporary cache
(``<agent dir>/tmp/extensions``), never recorded in settings; its extension, skills and
prompt templates are used by that run against a scripted provider."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.customize.packages._support import EXAMPLE, SimpleIndex, git_repo, publish, sdist
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, models_json, run_ours
from tests.support.scripted_provider import ScriptedProvider

MARKER = '''
def setup(pi):
    pi.on("before_agent_start", lambda event, ctx: {"system_prompt": event.system_prompt + "\\nMARKER-FROM-PACKAGE"})
'''


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _ask(box: Sandbox, prompt: str, *flags: str) -> tuple[str, str, str]:
    """(system prompt, user message, stderr) of one ``-p`` run in ``box``."""
    with ScriptedProvider([{"text": "ok"}]) as provider:
        (box.agent_dir / "models.json").write_text(json.dumps(models_json(provider.base_url)), encoding="utf-8")
        done = run_ours(box, *flags, "--no-session", "--model", OPENAI_MODEL, "-p", prompt, timeout=120)
        assert done.returncode == 0, done.stderr
        messages = provider.requests[0]["body"]["messages"]
    return _text(messages[0]["content"]), _text(messages[-1]["content"]), done.stderr


def _package(folder: Path) -> Path:
    (folder / "extensions").mkdir(parents=True)
    (folder / "extensions" / "marker.py").write_text(MARKER, encoding="utf-8")
    (folder / "prompts").mkdir()
    (folder / "prompts" / "hello.md").write_text("Hello $1\n", encoding="utf-8")
    return folder


def test_a_git_package_given_with_e_is_installed_for_the_run_only(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repos" / "tmp-kit", source=_package(tmp_path / "pkg"))
    box = Sandbox.create(tmp_path / "box", "http://127.0.0.1:9")
    system, user, stderr = _ask(box, "/hello world", "-e", f"git:file://{repo}")
    assert "MARKER-FROM-PACKAGE" in system and user == "Hello world\n"
    assert f"Installing git:file://{repo}..." in stderr
    agent = box.agent_dir
    settings = json.loads((agent / "settings.json").read_text(encoding="utf-8"))
    assert "packages" not in settings  # nothing recorded
    assert not (agent / "git").exists()  # not a user install
    [cached] = (agent / "tmp" / "extensions").glob("git-file/*/" + str(repo).lstrip("/"))
    assert (cached / "extensions" / "marker.py").is_file()
    # the next run finds it in the cache (the repository is gone now)
    shutil.rmtree(repo)
    system, _, stderr = _ask(box, "hi", "-e", f"git:file://{repo}")
    assert "MARKER-FROM-PACKAGE" in system and "Installing" not in stderr


def test_an_index_package_given_with_e_is_installed_for_the_run_only(tmp_path: Path) -> None:
    with SimpleIndex(tmp_path / "index") as index:
        publish(index.root, "pi-review-kit", [sdist(EXAMPLE, tmp_path / "dist", version="1.0.0")])
        box = Sandbox.create(tmp_path / "box", "http://127.0.0.1:9", {"packageIndexUrl": index.url})
        _, user, _ = _ask(box, "/review a.py", "-e", "pypi:pi-review-kit")
    assert user.startswith("Review a.py using the code-review skill.")
    agent = box.agent_dir
    assert "packages" not in json.loads((agent / "settings.json").read_text(encoding="utf-8"))
    assert [p.name for p in (agent / "tmp" / "extensions" / "pypi").glob("*/*") if p.is_dir()] == ["pi-review-kit"]


def test_an_e_package_that_cannot_be_installed_is_one_warning(tmp_path: Path) -> None:
    _, user, stderr = _ask(Sandbox.create(tmp_path / "box", "http://127.0.0.1:9"), "hi", "-e", f"git:file://{tmp_path}/no-such-repo")
    assert user == "hi"
    assert f"Warning: -e git:file://{tmp_path}/no-such-repo: the package could not be installed for this run" in stderr
