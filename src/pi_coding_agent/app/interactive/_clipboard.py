"""The system clipboard: ``/copy`` and Ctrl+X write to it, Ctrl+V reads an image (or text) from it.

Writing uses the platform's tool (``pbcopy``, ``clip``, ``termux-clipboard-set``,
``wl-copy`` on Wayland, ``xclip``/``xsel`` on X11); over SSH, or when no tool worked, the
text also goes out as an ``OSC 52`` sequence, which the terminal (and tmux) turns into a
clipboard write. Reading an image asks ``wl-paste`` or ``xclip`` for the first image type
the clipboard offers (PNG, JPEG, WebP, GIF), as Pi does on Linux.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from collections.abc import Callable

MAX_OSC52_LENGTH = 100_000
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


class ClipboardError(Exception):
    pass


def _run(argv: list[str], data: bytes | None = None, timeout: float = 5) -> bytes | None:
    """The command's output, or ``None`` when it is missing, fails or times out.

    With ``data`` (a write) the output is not read: clipboard owners such as ``wl-copy``
    stay in the background holding it open.
    """
    if shutil.which(argv[0]) is None:
        return None
    output = subprocess.DEVNULL if data is not None else subprocess.PIPE
    try:
        done = subprocess.run(
            argv, input=data, stdout=output, stderr=subprocess.DEVNULL, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout if data is None else b""


def _wayland() -> bool:
    return bool(os.environ.get("WAYLAND_DISPLAY")) or os.environ.get("XDG_SESSION_TYPE") == "wayland"


def _remote() -> bool:
    return any(os.environ.get(name) for name in ("SSH_CONNECTION", "SSH_CLIENT", "MOSH_CONNECTION"))


def _write_with_tool(text: str) -> bool:
    data = text.encode("utf-8")
    if sys.platform == "darwin":
        candidates = [["pbcopy"]]
    elif sys.platform == "win32":
        candidates = [["clip"]]
    else:
        candidates = []
        if os.environ.get("TERMUX_VERSION"):
            candidates.append(["termux-clipboard-set"])
        if _wayland() and os.environ.get("WAYLAND_DISPLAY"):
            candidates.append(["wl-copy"])
        if os.environ.get("DISPLAY"):
            candidates += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    return any(_run(argv, data) is not None for argv in candidates)


def copy_to_clipboard(text: str, write_terminal: Callable[[str], None]) -> None:
    """Put ``text`` on the clipboard; ``ClipboardError`` when no way worked."""
    copied = _write_with_tool(text)
    if _remote() or not copied:
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        if len(encoded) <= MAX_OSC52_LENGTH:
            write_terminal(f"\x1b]52;c;{encoded}\x07")
            copied = True
    if not copied:
        raise ClipboardError("Failed to copy to clipboard")


def _preferred(types: list[str]) -> str | None:
    bases = {t.split(";")[0].strip().lower(): t for t in types if t.strip()}
    for wanted in IMAGE_TYPES:
        if wanted in bases:
            return bases[wanted]
    return next((t for base, t in bases.items() if base.startswith("image/")), None)


def _image_via_wl_paste() -> tuple[bytes, str] | None:
    listing = _run(["wl-paste", "--list-types"], timeout=1)
    chosen = _preferred(listing.decode("utf-8", "replace").splitlines()) if listing else None
    if chosen is None:
        return None
    data = _run(["wl-paste", "--type", chosen, "--no-newline"], timeout=3)
    return (data, chosen.split(";")[0].strip().lower()) if data else None


def _image_via_xclip() -> tuple[bytes, str] | None:
    listing = _run(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], timeout=1)
    chosen = _preferred(listing.decode("utf-8", "replace").splitlines()) if listing else None
    for mime in ([chosen] if chosen else []) + list(IMAGE_TYPES):
        data = _run(["xclip", "-selection", "clipboard", "-t", mime, "-o"], timeout=3)
        if data:
            return data, mime.split(";")[0].strip().lower()
    return None


def read_clipboard_image() -> tuple[bytes, str] | None:
    """``(bytes, mime type)`` of the image on the clipboard, or ``None``."""
    if os.environ.get("TERMUX_VERSION") or not sys.platform.startswith("linux"):
        return None
    image = _image_via_wl_paste() if _wayland() else None
    image = image or _image_via_xclip()
    if image is None or image[1] not in EXTENSIONS:
        return None
    return image


def read_clipboard_text() -> str | None:
    if _wayland() and os.environ.get("WAYLAND_DISPLAY"):
        data = _run(["wl-paste", "--no-newline", "--type", "text"])
    else:
        data = _run(["xclip", "-selection", "clipboard", "-o"]) or _run(["xsel", "--clipboard", "--output"])
    return data.decode("utf-8", "replace") if data else None
