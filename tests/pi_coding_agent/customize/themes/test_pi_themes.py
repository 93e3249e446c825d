"""Our themes against Pi 1.6's own code (``pi_themes.mjs``), asked once for everything.

Colours: the same RGB and the same SGR sequences (24-bit and 256-colour) for every form a
theme may use. Theme files: Pi 1.6's built-in ``dark.json`` and ``light.json`` read from its
install, a theme shaped like the published Catppuccin ones (no optional tokens, ``$schema``,
``export``) and broken files: the same SGR per token and appearance, or both refuse. Our
built-in ``dark`` and ``light`` (our own table, not Pi's files): what Pi 1.6 draws for its own. The
``system`` theme: the same colours for the backgrounds, foregrounds and palettes terminals
report, and for a terminal that reports nothing.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.customize.themes import (
    THEME_TOKENS,
    Theme,
    ThemeError,
    appearance_from_env,
    builtin_theme,
    export_palette,
    generate_system_colors,
    load_theme_file,
    system_theme,
    terminal_appearance,
)
from pi_tui import ColorError, TerminalColors, color_sgr, color_to_hex, parse_color
from tests.pi_coding_agent.customize.themes._pi import ask_pi, pi_themes_dir


def _colour_values() -> list[Any]:
    """A sweep of every form, with edge cases and values Pi refuses."""
    values: list[Any] = []
    for hue, sat, light in itertools.product(range(0, 360, 29), range(0, 101, 13), range(0, 101, 7)):
        values.append(f"okhsl({hue} {sat}% {light}%)")
    for light, chroma, hue in itertools.product(
        range(0, 101, 9), (0, 0.03, 0.1, 0.2, 0.37), range(0, 360, 47)
    ):
        values.append(f"oklch({light}% {chroma} {hue})")
    values += [f"#{r:x}{g:x}{b:x}" for r, g, b in itertools.product(range(0, 16, 5), repeat=3)]
    values += [f"#{value:06x}" for value in range(0, 0xFFFFFF, 0x0F3A17)]
    values += [*range(0, 256, 7), 255]
    values += [
        "OKHSL(250deg 0.6 0.55)", "okhsl( -30 60% 55% )", "okhsl(725 60 % 55%)", "oklch(0.62 0.1 200deg)",
        "oklch(100% 0.3 150)", "oklch(62% 0.1 -90)", "oklch(.5 .1 1e2)", "okhsl(250 120% 55%)",
        "okhsl(250 60% 101%)", "oklch(120% 0.1 200)", "oklch(50% -0.1 200)", "okhsl(250, 60%, 55%)",
        "#12345", "#ggg", "rgb(1 2 3)", "red", 256, -1,
    ]  # fmt: skip
    return values


def _theme(name: str, **changes: Any) -> dict[str, Any]:
    """A complete theme of hex colours (every token, optional ones left out), then ``changes``."""
    colors = {token: f"#{index * 4:02x}{(255 - index * 4):02x}80" for index, token in enumerate(THEME_TOKENS)}
    for token, info in THEME_TOKENS.items():
        if info.fallback is not None:
            del colors[token]
    data: dict[str, Any] = {"name": name, "colors": colors}
    for key, value in changes.items():
        if key == "colors":
            data["colors"] = {**colors, **value}
        elif value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def _theme_files(folder: Path) -> list[Path]:
    catppuccin_like = _theme(
        "catppuccin-like",
        **{"$schema": "https://example.invalid/theme-schema.json"},
        vars={"base": "#1e1e2e", "mauve": "#cba6f7", "text": "#cdd6f4", "surface0": "#313244"},
        colors={
            "accent": "mauve",
            "text": "",
            "userMessageText": "",
            "selectedBg": "surface0",
            "toolTitle": "",
        },
        export={"pageBg": "base", "cardBg": "surface0", "infoBg": "surface0"},
    )
    without_name = _theme("x")
    del without_name["name"]
    documents: dict[str, Any] = {
        "catppuccin-like": catppuccin_like,
        "every-form": _theme(
            "every-form",
            appearance="light",
            vars={"a": "b", "b": "okhsl(120 40% 60%)", "idx": 200, "float": 39.0},
            colors={
                "accent": "a",
                "border": "#0af",
                "error": "oklch(62% 0.1 200)",
                "muted": "idx",
                "dim": "float",
                "thinkingMax": "okhsl(20 99% 63%)",
                "scrollbarTrack": 240,
                "searchMatchBg": "#102030",
            },
        ),
        "export-forms": _theme(
            "export-forms",
            vars={"page": "deep", "deep": "okhsl(262 14% 16%)"},
            export={"pageBg": "page", "cardBg": "oklch(30% 0.37 300)", "infoBg": 236},
        ),
        "export-partial": _theme("export-partial", export={"pageBg": "#0af", "cardBg": ""}),
        "export-unusable": _theme("export-unusable", export={"pageBg": "#123456", "cardBg": "nowhere"}),
        "indexed-only": _theme("indexed-only", colors={token: 3 for token in THEME_TOKENS}),
        "terminal-defaults": _theme("terminal-defaults", colors={token: "" for token in THEME_TOKENS}),
        "bad-missing": _theme("bad-missing", colors={}) | {"colors": {"accent": "#ffffff"}},
        "bad-extra-top": _theme("bad-extra-top", author="someone"),
        "bad-extra-token": _theme("bad-extra-token", colors={"myColor": "#ffffff"}),
        "bad-value": _theme("bad-value", colors={"accent": "okhsl(1 2 3"}),
        "bad-saturation": _theme("bad-saturation", colors={"accent": "okhsl(250 120% 55%)"}),
        "bad-circular": _theme("bad-circular", vars={"a": "b", "b": "a"}, colors={"accent": "a"}),
        "bad-unknown-var": _theme("bad-unknown-var", colors={"accent": "nowhere"}),
        "bad-slash": _theme("bad/slash"),
        "bad-appearance": _theme("bad-appearance", appearance="dim"),
        "bad-index": _theme("bad-index", colors={"accent": 300}),
        "bad-float": _theme("bad-float", colors={"accent": 39.5}),
        "bad-bool": _theme("bad-bool", colors={"accent": True}),
        "bad-export": _theme("bad-export", export={"pageBg": "#000", "footerBg": "#111"}),
        "bad-no-name": without_name,
    }
    paths = [pi_themes_dir() / "dark.json", pi_themes_dir() / "light.json"]
    for name, document in documents.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(document, indent=2), encoding="utf-8")
        paths.append(path)
    not_json = folder / "bad-json.json"
    not_json.write_text('{"name": "x",\n "colors": {,}}', encoding="utf-8")
    return [*paths, not_json]


_PALETTES = {
    "xterm": [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
              (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
              (255, 0, 255), (0, 255, 255), (255, 255, 255)],
    "pastel": [(81, 87, 109), (231, 130, 132), (166, 209, 137), (229, 200, 144), (140, 170, 238), (244, 184, 228),
               (129, 200, 190), (181, 191, 226), (98, 104, 128), (231, 130, 132), (166, 209, 137), (229, 200, 144),
               (140, 170, 238), (244, 184, 228), (129, 200, 190), (165, 173, 206)],
}  # fmt: skip


def _system_inputs() -> list[dict[str, Any]]:
    inputs: list[dict[str, Any]] = [{}, {"saturation": 0}, {"appearanceHint": "light"}]
    backgrounds = [(0, 0, 0), (30, 30, 46), (48, 52, 70), (118, 118, 118), (128, 128, 128), (160, 150, 140),
                   (239, 241, 245), (255, 255, 255), (253, 246, 227)]  # fmt: skip
    foregrounds = [None, (229, 229, 229), (76, 79, 105), (200, 200, 200)]
    for index, (background, foreground) in enumerate(itertools.product(backgrounds, foregrounds)):
        case: dict[str, Any] = {"background": _rgb(background)}
        if foreground is not None:
            case["foreground"] = _rgb(foreground)
        palette = list(_PALETTES.values())[index % 3] if index % 3 < 2 else None
        if palette is not None:
            case["palette"] = [_rgb(color) for color in palette]
        if index % 5 == 4:
            case["saturation"] = 0
        inputs.append(case)
    return inputs


def _rgb(color: tuple[int, int, int]) -> dict[str, int]:
    return {"r": color[0], "g": color[1], "b": color[2]}


def _triple(color: dict[str, int] | None) -> tuple[int, int, int] | None:
    return None if color is None else (color["r"], color["g"], color["b"])


def _export_inputs(files: list[Path]) -> list[dict[str, Any]]:
    """Built-in themes, ``system`` on silent and reporting terminals, and theme files with
    ``export`` sections and terminal-default (``""``) tokens."""
    dark_terminal = {"background": _rgb((30, 30, 46)), "foreground": _rgb((205, 214, 244))}
    inputs: list[dict[str, Any]] = [{"name": "dark"}, {"name": "light", "colorfgbg": "15;0"}]
    for colorfgbg in (None, "0;15", "15;0"):
        inputs.append({"name": "system"} | ({} if colorfgbg is None else {"colorfgbg": colorfgbg}))
    inputs.append({"name": "system", "terminal": dark_terminal})
    inputs.append({"name": "system", "terminal": {"background": _rgb((250, 250, 250))}})
    by_name = {path.stem: str(path) for path in files}
    for name in ("catppuccin-like", "every-form", "export-forms", "export-partial", "export-unusable"):
        inputs.append({"path": by_name[name]})
    for terminal in ({}, dark_terminal):
        for colorfgbg in (None, "0;15"):
            case = {"path": by_name["terminal-defaults"], "terminal": terminal}
            inputs.append(case | ({} if colorfgbg is None else {"colorfgbg": colorfgbg}))
    return inputs


@pytest.fixture(scope="module")
def pi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    files = _theme_files(tmp_path_factory.mktemp("themes"))
    request = {
        "colors": _colour_values(),
        "files": [str(path) for path in files],
        "system": _system_inputs(),
        "exports": _export_inputs(files),
    }
    return {"request": request, "answer": ask_pi(request)}


def _our_colour(value: Any) -> dict[str, Any]:
    try:
        color = parse_color(value)
    except ColorError as error:
        return {"error": str(error)}
    return {
        "hex": color_to_hex(color),
        "fg": {"truecolor": color_sgr(color, False, True), "256color": color_sgr(color, False, False)},
        "bg": {"truecolor": color_sgr(color, True, True), "256color": color_sgr(color, True, False)},
    }


def test_every_colour_form_gives_pis_rgb_and_escape_sequences(pi: dict[str, Any]) -> None:
    values, answers = pi["request"]["colors"], pi["answer"]["colors"]
    assert len(values) > 1500
    differences = []
    for value, theirs in zip(values, answers, strict=True):
        ours = _our_colour(value)
        if "error" in theirs or "error" in ours:
            if ("error" in theirs) != ("error" in ours):
                differences.append((value, ours, theirs))
        elif ours != theirs:
            differences.append((value, ours, theirs))
    assert differences == []


def _drawn(themes: dict[str, Theme]) -> dict[str, Any]:
    """Name, appearance and each token's SGR of a theme loaded for ``truecolor`` and ``256color``,
    in the shape of ``pi_themes.mjs``'s answer."""
    answer: dict[str, Any] = {}
    for mode, theme in themes.items():
        # No colour of its own to judge by: the terminal's appearance, dark in Pi's test run.
        answer["name"], answer["appearance"] = theme.name, theme.appearance or "dark"
        answer[mode] = {
            "fg": {token: theme.sgr(token) for token, info in THEME_TOKENS.items() if not info.background},
            "bg": {token: theme.sgr(token) for token, info in THEME_TOKENS.items() if info.background},
        }
    return answer


def _our_file(path: str) -> dict[str, Any]:
    try:
        return _drawn(
            {mode: load_theme_file(Path(path), mode == "truecolor") for mode in ("truecolor", "256color")}
        )
    except ThemeError as error:
        return {"error": str(error)}


@pytest.mark.parametrize("name", ["dark", "light"])
def test_our_builtin_themes_draw_as_pi_16s_own(pi: dict[str, Any], name: str) -> None:
    theirs = pi["answer"]["files"][pi["request"]["files"].index(str(pi_themes_dir() / f"{name}.json"))]
    ours = _drawn({mode: builtin_theme(name, mode == "truecolor") for mode in ("truecolor", "256color")})
    assert ours == theirs


def test_theme_files_draw_as_in_pi_or_are_refused_by_both(pi: dict[str, Any]) -> None:
    for path, theirs in zip(pi["request"]["files"], pi["answer"]["files"], strict=True):
        ours = _our_file(path)
        if "error" in theirs:
            assert "error" in ours, (path, theirs["error"])
            assert ours["error"].startswith(path) and "\n" not in ours["error"]
        else:
            assert ours == theirs, path
    loaded = [
        Path(path).stem for path, theirs in zip(pi["request"]["files"], pi["answer"]["files"], strict=True)
    ]
    refused = [name for name, theirs in zip(loaded, pi["answer"]["files"], strict=True) if "error" in theirs]
    assert refused == [name for name in loaded if name.startswith("bad-")]  # the cases test what they say


def test_the_system_theme_matches_pi_for_what_terminals_report(pi: dict[str, Any]) -> None:
    for case, theirs in zip(pi["request"]["system"], pi["answer"]["system"], strict=True):
        ours = generate_system_colors(
            background=_triple(case.get("background")),
            foreground=_triple(case.get("foreground")),
            palette=[(c["r"], c["g"], c["b"]) for c in case["palette"]] if "palette" in case else None,
            saturation=case.get("saturation", 1),
            appearance_hint=case.get("appearanceHint"),
        )
        assert {"colors": ours.colors, "dim": list(ours.dim), "appearance": ours.appearance} == {
            "colors": theirs["colors"],
            "dim": theirs["dim"],
            "appearance": theirs.get("appearance"),
        }, case


def _our_export(case: dict[str, Any]) -> dict[str, Any]:
    """Our export colours for one of ``_export_inputs``, in the shape of Pi's answer."""
    reported = case.get("terminal", {})
    terminal = TerminalColors(_triple(reported.get("foreground")), _triple(reported.get("background")))
    env = {} if "colorfgbg" not in case else {"COLORFGBG": case["colorfgbg"]}
    if terminal.background is not None:
        appearance = terminal_appearance(terminal.background, terminal.foreground)
    else:
        appearance = appearance_from_env(env) or "dark"
    if "path" in case:
        theme = load_theme_file(Path(case["path"]))
    elif case["name"] == "system":
        theme = system_theme(terminal, appearance_hint=appearance)
    else:
        theme = builtin_theme(case["name"])
    palette = export_palette(theme, terminal, appearance)
    own = {key: palette[f"export{key[0].upper()}{key[1:]}"] for key in theme.export}
    return {"colors": {token: palette[token] for token in THEME_TOKENS}, "export": own}


def test_the_export_colours_are_pis(pi: dict[str, Any]) -> None:
    """Every token as Pi 1.6's page gets it (terminal defaults and faint tokens included), and
    the theme's own ``export`` colours in any colour form (a section with a missing var is
    ignored by both)."""
    cases, answers = pi["request"]["exports"], pi["answer"]["exports"]
    for case, theirs in zip(cases, answers, strict=True):
        assert _our_export(case) == theirs, case
    given = [answer["export"] for answer in answers]
    assert {"pageBg", "cardBg", "infoBg"} in [set(own) for own in given] and {} in given
