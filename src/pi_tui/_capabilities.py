"""What the terminal can show besides text: 24-bit colour and ``OSC 8`` hyperlinks.

Judged from the environment as Pi 1.6 judges them: ``PI_TRUE_COLOR`` / ``PI_HYPERLINKS``
(``1`` or ``0``; anything else: detect) win over detection, and the settings
``terminal.trueColor`` / ``terminal.hyperlinks`` (``true`` or ``false``; ``"auto"``: detect)
win over both (``set_capability_overrides``). Detection: a multiplexer forwards hyperlinks
only when tmux says its client has the ``hyperlinks`` feature (screen never); terminals known
to draw them (kitty, Ghostty, WezTerm, iTerm2, Warp, Windows Terminal, Alacritty, VS Code,
Zed, ...) get both, an unknown terminal neither but what ``COLORTERM`` / a ``-direct``
``TERM`` says of colour, so a link's address is printed as text there rather than lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping

_OVERRIDES: dict[str, bool] = {}
_CACHE: dict[str, bool] = {}

# TERM_PROGRAM values (lower case) of terminals with 24-bit colour and OSC 8, and the
# variables that name them when TERM_PROGRAM does not.
_CAPABLE_PROGRAMS = (
    "rex",
    "kitty",
    "ghostty",
    "wezterm",
    "warpterminal",
    "iterm.app",
    "alacritty",
    "vscode",
    "zed",
)
_CAPABLE_VARIABLES = ("KITTY_WINDOW_ID", "GHOSTTY_RESOURCES_DIR", "WEZTERM_PANE", "WARP_SESSION_ID",
                      "WARP_TERMINAL_SESSION_UUID", "ITERM_SESSION_ID", "WT_SESSION", "ALACRITTY_WINDOW_ID")  # fmt: skip


def _tmux_forwards_hyperlinks() -> bool:
    """tmux re-emits OSC 8 only to a client whose ``client_termfeatures`` lists them."""
    try:
        features = subprocess.run(
            ["tmux", "display-message", "-p", "#{client_termfeatures}"],
            capture_output=True, text=True, timeout=0.25, check=False,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return "hyperlinks" in (part.strip() for part in features.split(","))


def _detect(env: Mapping[str, str], tmux_hyperlinks: Callable[[], bool]) -> dict[str, bool]:
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    hinted = env.get("COLORTERM", "").lower() in ("truecolor", "24bit") or term.endswith("-direct")
    if env.get("TMUX") or term.startswith("tmux"):
        return {"true_color": hinted, "hyperlinks": tmux_hyperlinks()}
    if term.startswith("screen"):
        return {"true_color": hinted, "hyperlinks": False}
    if program == "herdr":
        return {"true_color": hinted, "hyperlinks": True}
    capable = (
        program in _CAPABLE_PROGRAMS
        or (program == "orca" and env.get("ORCA_IMAGE_PROTOCOL") == "kitty")
        or "ghostty" in term
        or term.startswith("alacritty")
        or any(env.get(name) for name in _CAPABLE_VARIABLES)
    )
    if capable:
        return {"true_color": True, "hyperlinks": True}
    if env.get("TERMINAL_EMULATOR", "").lower() == "jetbrains-jediterm" or sys.platform == "win32":
        return {"true_color": True, "hyperlinks": False}
    return {"true_color": hinted, "hyperlinks": False}


def _forced(value: str | None) -> bool | None:
    return True if value == "1" else False if value == "0" else None


def detect_capabilities(
    env: Mapping[str, str] | None = None, tmux_hyperlinks: Callable[[], bool] = _tmux_forwards_hyperlinks
) -> dict[str, bool]:
    """``{"true_color": ..., "hyperlinks": ...}`` from the environment, ``PI_*`` overrides applied."""
    env = os.environ if env is None else env
    found = _detect(env, tmux_hyperlinks if _forced(env.get("PI_HYPERLINKS")) is None else lambda: False)
    for name, variable in (("hyperlinks", "PI_HYPERLINKS"), ("true_color", "PI_TRUE_COLOR")):
        forced = _forced(env.get(variable))
        if forced is not None:
            found[name] = forced
    return found


def set_capability_overrides(*, true_color: object = None, hyperlinks: object = None) -> None:
    """The settings' word: a boolean decides, anything else (``"auto"``, unset) leaves detection,
    which is done anew on next use (a UI starting again may run in another environment)."""
    _OVERRIDES.clear()
    _OVERRIDES.update({key: value for key, value in (("true_color", true_color), ("hyperlinks", hyperlinks))
                       if isinstance(value, bool)})  # fmt: skip
    _CACHE.clear()


def _never() -> bool:
    return False


def _capability(name: str) -> bool:
    """Detected once per capability: asking for colour depth never starts the tmux query that
    only hyperlinks need (a subprocess of up to 0.25 s when themes load at start)."""
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    if name not in _CACHE:
        probe = _tmux_forwards_hyperlinks if name == "hyperlinks" else _never
        _CACHE[name] = detect_capabilities(tmux_hyperlinks=probe)[name]
    return _CACHE[name]


def supports_true_color() -> bool:
    return _capability("true_color")


def supports_hyperlinks() -> bool:
    return _capability("hyperlinks")


def hyperlink(text: str, url: str) -> str:
    """``text`` linked to ``url`` with ``OSC 8`` (our own links only: model text never reaches
    the terminal as one, see ``terminal_safe``). Control characters are dropped from the
    address, so it cannot end the sequence early."""
    url = "".join(ch for ch in url if ch >= " " and ch != "\x7f")
    return f"\x1b]8;;{url}\x1b\\{text}\x1b]8;;\x1b\\"
