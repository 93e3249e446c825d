"""The rest of ``ctx.ui`` for TypeScript extensions, beside Pi 1.6's TUI (tmux), and in RPC.

``fixtures/ui_api.ts`` (ours) subscribes raw terminal input listeners (``z`` swallowed, ``q``
turned into ``Q``), lists, looks up and switches themes (by name, which saves the setting, and
by the object ``getTheme`` gives, which does not), adds an autocomplete provider for ``#``
issue numbers that delegates everything else to the built-in one, and has a tool whose
renderers draw their own shell (``renderShell: "self"``). The same keys go to ours and to Pi 1.6
(``pi-cli-current``) and the screens must show the same things.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch, theme_document
from tests.pi_coding_agent.app.interactive._tmux import suggestions
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox
from tests.support import oracle
from tests.support.npm_packages import node_cache
from tests.support.scripted_provider import ScriptedProvider

UI_API = Path(__file__).resolve().parent / "fixtures" / "ui_api.ts"
TURNS = [
    {"text": "heard the keys"},
    {"tool_calls": [{"id": "f1", "name": "frame", "arguments": {"label": "north"}}]},
    {"text": "the frame is drawn"},
]


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _line_with(screen: str, text: str) -> str:
    return next(line.strip() for line in screen.split("\n") if text in line)


def _add_theme(sandbox: Sandbox) -> None:
    folder = sandbox.agent_dir / "themes"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.json").write_text(json.dumps(theme_document("mine", "light")), encoding="utf-8")


def _notice(run: Any, command: str, start: str) -> str:
    run.command(command)
    return _line_with(run.pane.wait_for(start), start)


def _scenario(tmp_path: Path, which: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with launch(tmp_path / which, which, TURNS, args=("-e", str(UI_API)), settings={"theme": "light"},
                env={"PI_NODE_CACHE": node_cache()}, before=_add_theme) as run:  # fmt: skip
        pane = run.pane
        seen["themes"] = _notice(run, "/themes", "themes system")
        seen["dark"] = _notice(run, "/theme dark", "theme dark ")
        seen["saved"] = pane_wait_setting(run, "dark")
        seen["nope"] = _notice(run, "/theme nope", "theme nope ")
        seen["object"] = _notice(run, "/theme mine object", "theme mine ")
        seen["kept"] = run.settings_file().get("theme")
        seen["listening"] = _notice(run, "/keys", "keys listening")
        pane.type("azqz")
        screen = pane.wait_until(lambda s: "aQ" in run.editor_text(s), "the typed keys never showed")
        seen["editor"] = run.editor_text(screen).strip()
        pane.send("Enter")
        pane.wait_for("heard the keys")
        user = [m for m in run.provider.requests[-1]["body"]["messages"] if m["role"] == "user"][-1]
        content = user["content"]
        seen["sent"] = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
        seen["off"] = _notice(run, "/keys off", "keys swallowed")
        pane.type("zq")
        seen["after"] = run.editor_text(
            pane.wait_until(lambda s: "zq" in run.editor_text(s), "zq never showed")
        ).strip()
        pane.send("C-u")
        pane.wait_until(lambda s: "zq" not in run.editor_text(s), "the editor kept zq")
        seen["issues"] = _notice(run, "/issues", "issues added")
        pane.type("see #2")
        screen = pane.wait_until(lambda s: "#2753" in s and "#2983" in s, "no #issue completions")
        seen["both"] = suggestions(screen)
        pane.type("9")
        screen = pane.wait_until(lambda s: "#2753" not in s, "#2753 stayed offered")
        seen["one"] = suggestions(screen)
        pane.send("Tab")
        screen = pane.wait_until(
            lambda s: "see #2983" in run.editor_text(s), "the completion was not applied"
        )
        seen["applied"] = run.editor_text(screen).strip()
        pane.send("C-u")
        pane.type("/issu")  # the built-in commands, through the provider's current
        seen["commands"] = suggestions(pane.wait_until(lambda s: "Adds #issue" in s, "no /issu completion"))
        pane.send("Escape")
        pane.wait_until(lambda s: "Adds #issue" not in s, "the command list stayed")
        pane.send("C-u")
        pane.wait_until(lambda s: "/issu" not in run.editor_text(s), "the editor kept /issu")
        run.submit("draw a frame")
        screen = pane.wait_until(
            lambda s: "the frame is drawn" in s and "FRAME RESULT" in s, "no reply or no framed result"
        )
        rows = screen.split("\n")
        call = next(i for i, row in enumerate(rows) if "FRAME CALL" in row)
        seen["frame"] = [
            rows[call - 1],
            rows[call].rstrip(),
            next(r.rstrip() for r in rows if "FRAME RESULT" in r),
        ]
    return seen


def pane_wait_setting(run: Any, name: str) -> str:
    """The ``theme`` setting once it is ``name`` (Pi saves it in the background)."""
    run.pane.wait_until(lambda _s: run.settings_file().get("theme") == name, f"theme {name} never saved")
    return str(run.settings_file().get("theme"))


def test_terminal_input_themes_and_self_shells_work_as_in_pi(tmp_path: Path) -> None:
    ours = _scenario(tmp_path, "ours")
    pi = _scenario(tmp_path, "pi16")
    # The one difference (docs/extensions.md): our built-in themes live in code, not in files.
    assert "dark:dark.json,light:light.json," in pi["themes"]
    pi["themes"] = pi["themes"].replace("dark:dark.json,light:light.json,", "dark:-,light:-,")
    assert ours == pi
    assert ours["themes"] == "themes system:-,dark:-,light:-,mine:mine.json light=function nope=true"
    assert (ours["dark"], ours["saved"]) == ("theme dark set now dark", "dark")
    assert ours["nope"] == "theme nope refused now other"
    assert (ours["object"], ours["kept"]) == ("theme mine set now mine", "dark")
    assert (ours["editor"], ours["sent"], ours["off"]) == ("aQ", "aQ", "keys swallowed 2")
    assert ours["after"] == "zq"
    assert ours["frame"] == ["", "FRAME CALL north", "FRAME RESULT north"]
    assert ours["both"] == ["→ #2983 autocomplete providers", "#2753 stale settings"]
    assert ours["one"] == ["→ #2983 autocomplete providers"] and ours["applied"] == "see #2983"
    assert ours["commands"][0].startswith("→ issues")


def _rpc_notices(command: list[str], box: Sandbox, env: dict[str, str]) -> list[Any]:
    """``/uiapi`` over RPC: the notices until the prompt is answered."""
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--model", OPENAI_MODEL, "-e", str(UI_API)],
        cwd=box.work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"id": "1", "type": "prompt", "message": "/uiapi"}) + "\n")
    process.stdin.flush()
    notices = []
    for line in process.stdout:
        record = json.loads(line)
        if record.get("method") == "notify":
            notices.append(record.get("message"))
        if record.get("type") == "response" and record.get("id") == "1":
            break
    process.stdin.close()
    process.wait(timeout=60)
    return notices


def test_outside_the_terminal_the_calls_do_what_pi_does(tmp_path: Path) -> None:
    """Over RPC and in print mode no listener is subscribed, there are no themes to list or
    get, and switching is refused, as in Pi 1.6."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / "pi-cli-current")])):
        with ScriptedProvider([{"text": "unused"}]) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            out = tmp_path / f"{who}.txt"
            env = {**box.env(), "PI_NODE_CACHE": node_cache(), "UIAPI_OUT": str(out)}
            seen[f"{who} rpc"] = _rpc_notices(command, box, env)
            printed = subprocess.run(
                [*command, "-p", "--model", OPENAI_MODEL, "-e", str(UI_API), "/uiapi"],
                cwd=box.work, env=env, capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            seen[f"{who} print"] = printed.returncode
            seen[f"{who} file"] = out.read_text(encoding="utf-8").splitlines()
    assert seen["ours rpc"] == seen["pi rpc"] == ["uiapi themes=0 light=none set=false"]
    assert seen["ours print"] == seen["pi print"] == 0
    assert (
        seen["ours file"]
        == seen["pi file"]
        == [
            "true uiapi themes=0 light=none set=false",
            "false uiapi themes=0 light=none set=false",
        ]
    )


REPLACES = [("/new", "New session started"), ("/reload", "Reloaded")]


def _hooks_after(tmp_path: Path, which: str) -> dict[str, Any]:
    """Key listeners and the ``#issue`` provider are added, then each of ``REPLACES`` runs in
    turn (``/new`` first: it clears the chat, so the second round's notices are its own): typed
    keys and ``#2`` are the editor's own again after each."""
    seen: dict[str, Any] = {}
    with launch(tmp_path / which, which, TURNS, args=("-e", str(UI_API)),
                env={"PI_NODE_CACHE": node_cache()}) as run:  # fmt: skip
        pane = run.pane
        for replace, done in REPLACES:
            pane.wait_until_gone("keys listening")
            round_seen = seen[replace] = {}
            round_seen["listening"] = _notice(run, "/keys", "keys listening")
            round_seen["issues"] = _notice(run, "/issues", "issues added")
            run.command(replace)
            pane.wait_for(done)
            pane.type("azq")
            round_seen["keys"] = run.editor_text(
                pane.wait_until(lambda s: "azq" in run.editor_text(s), "the listeners still took keys")
            ).strip()
            pane.send("C-u")
            pane.wait_until(lambda s: "azq" not in run.editor_text(s), "the editor kept azq")
            pane.type("see #2")
            pane.wait_until(lambda s: "see #2" in run.editor_text(s), "see #2 never showed")
            pane.send("Tab")  # with the provider still there, Tab would give #2983
            pane.type("x")
            round_seen["tab"] = run.editor_text(
                pane.wait_until(lambda s: "x" in run.editor_text(s), "x never showed")
            ).strip()
            pane.send("C-u")
            pane.wait_until(lambda s: not run.editor_text(s).strip(), "the editor kept its text")
    return seen


def test_a_new_session_or_reload_drops_key_listeners_and_providers(tmp_path: Path) -> None:
    """One run each: ``/new``, then the listeners and provider added again, then ``/reload``."""
    ours = _hooks_after(tmp_path, "ours")
    pi = _hooks_after(tmp_path, "pi16")
    assert ours == pi
    for replace, _ in REPLACES:
        assert (ours[replace]["keys"], ours[replace]["tab"]) == ("azq", "see #2x"), replace


def _applied_by_provider(tmp_path: Path, which: str) -> str:
    """``/issues links``: the provider's own ``applyCompletion`` puts ``#2983`` in as a link."""
    with launch(tmp_path / which, which, TURNS, args=("-e", str(UI_API)),
                env={"PI_NODE_CACHE": node_cache()}) as run:  # fmt: skip
        pane = run.pane
        _notice(run, "/issues links", "issues added")
        pane.type("see #29")
        pane.wait_until(lambda s: "#2983" in suggestions(s)[0] if suggestions(s) else False, "no #29 completion")
        pane.send("Tab")
        pane.wait_until(lambda s: "(issue/2983)" in run.editor_text(s), "the provider's applyCompletion was not used")
        pane.type("x")
        return run.editor_text(pane.wait_until(lambda s: ") x" in run.editor_text(s), "x never showed")).strip()


def test_a_providers_own_apply_completion_is_used(tmp_path: Path) -> None:
    ours = _applied_by_provider(tmp_path, "ours")
    assert ours == _applied_by_provider(tmp_path, "pi16") == "see [#2983](issue/2983) x"


BUILT_RED = "38;2;250;10;10m"


def _built_theme(tmp_path: Path, which: str) -> dict[str, Any]:
    """``/built``: the extension makes a ``Theme`` of its own (the ``light`` colours with every
    foreground red) and sets it: our UI draws with it, the ``theme`` setting stays."""
    from pi_coding_agent.customize.themes import THEME_TOKENS

    document = theme_document("built", "light")
    for token in document["colors"]:
        if not THEME_TOKENS[token].background:
            document["colors"][token] = "#fa0a0a"
    colours = tmp_path / f"{which}-built.json"
    colours.write_text(json.dumps(document), encoding="utf-8")
    with launch(tmp_path / which, which, TURNS, args=("-e", str(UI_API)), settings={"theme": "dark"},
                env={"PI_NODE_CACHE": node_cache(), "BUILT_THEME": str(colours)}) as run:  # fmt: skip
        assert BUILT_RED not in run.pane.styled_screen()
        notice = _notice(run, "/built", "built ")
        run.pane.wait_until(lambda _s: BUILT_RED in run.pane.styled_screen(), "the built theme's red never showed")
        return {"notice": notice, "setting": run.settings_file().get("theme")}


def test_a_theme_the_extension_built_is_drawn_with(tmp_path: Path) -> None:
    ours = _built_theme(tmp_path, "ours")
    assert ours == _built_theme(tmp_path, "pi16") == {"notice": "built set accent=built", "setting": "dark"}


def _own_editor(tmp_path: Path, which: str) -> dict[str, Any]:
    """``/owneditor`` then ``/issues``: the editor component lists the built-in slash commands
    and the provider's ``#issue`` numbers itself (Pi's editor draws the list) and Tab applies."""
    seen: dict[str, Any] = {}
    with launch(tmp_path / which, which, TURNS, args=("-e", str(UI_API)), settings={"autocompleteMaxVisible": 3},
                env={"PI_NODE_CACHE": node_cache()}) as run:  # fmt: skip
        pane = run.pane
        _notice(run, "/owneditor", "own editor set")
        pane.wait_for("OWN EDITOR")
        pane.type("/")
        screen = pane.wait_until(lambda s: "(1/" in s, "no command list in the editor component")
        seen["shown"] = _list_rows(screen)
        pane.send("Escape")
        pane.wait_until(lambda s: "(1/" not in s, "Escape left the command list open")
        pane.send("BSpace")
        pane.wait_until(lambda s: _own_text(s) == "", "the / stayed")
        pane.type("/issu")
        screen = pane.wait_until(lambda s: "Adds #issue" in s, "no /issu completion in the editor component")
        seen["commands"] = [line.strip() for line in screen.split("\n") if "Adds #issue" in line]
        pane.send("Escape")  # closes the list (not our interrupt key first), the text stays
        screen = pane.wait_until(lambda s: "Adds #issue" not in s, "Escape left the command list open")
        seen["escaped"] = _own_text(screen)
        pane.send("C-u")
        pane.wait_until(lambda s: _own_text(s) == "", "Ctrl-U kept /issu")
        pane.type("/issu")
        pane.wait_until(lambda s: "Adds #issue" in s, "no /issu completion the second time")
        pane.send("C-u")  # deletes the line; Pi's editor keeps the list open (no new request)
        screen = pane.wait_until(lambda s: _own_text(s) == "", "Ctrl-U kept /issu")
        seen["ctrl-u list"] = "Adds #issue" in screen
        pane.send("Escape")
        pane.wait_until(lambda s: "Adds #issue" not in s, "Escape left the list open after Ctrl-U")
        _notice(run, "/issues", "issues added")
        pane.type("see #29")
        screen = pane.wait_until(lambda s: "autocomplete providers" in s, "no #29 completion in the editor component")
        seen["issues"] = [line.strip() for line in screen.split("\n") if "#2983" in line]
        pane.send("Tab")
        screen = pane.wait_until(lambda s: "see #2983" in s and "autocomplete providers" not in s, "Tab did not apply")
        seen["applied"] = [line.strip() for line in screen.split("\n") if "see #2983" in line]
    return seen


def _own_text(screen: str) -> str:
    """The text in the editor component's first line (under ``OWN EDITOR`` and its border)."""
    lines = screen.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("OWN EDITOR"))
    return lines[at + 2].strip()


def _list_rows(screen: str) -> int:
    """How many items the completion list under the editor shows (rows above its ``(1/N)``)."""
    lines = screen.split("\n")
    end = next(i for i, line in enumerate(lines) if "(1/" in line)
    start = max(i for i in range(end) if lines[i].strip() and set(lines[i].strip()) == {"─"})
    return end - start - 1


def test_an_editor_component_gets_the_completions(tmp_path: Path) -> None:
    """Also: Escape closes its list (Ctrl-U empties the line and leaves the list, as Pi's does),
    and the list shows ``autocompleteMaxVisible`` rows."""
    ours = _own_editor(tmp_path, "ours")
    pi = _own_editor(tmp_path, "pi16")
    assert ours == pi
    assert ours["applied"] == ["see #2983"]
    assert ours["shown"] == 3 and ours["escaped"] == "/issu"
