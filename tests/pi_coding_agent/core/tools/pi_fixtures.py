"""Shared by the recorded-output tests and ``tools/gen_pi_tool_outputs.py``.

A case describes a directory to build (files, a git repository or not), a tool call and
how to compare. ``build`` makes the directory; ``normalize`` turns a tool answer (Pi's,
recorded by the generator, or ours) into a comparable form: the case directory becomes
``<CWD>``, temp file names become ``<TMPFILE>``, long strings become a digest, and the
files the case wants checked are read back.
"""

from __future__ import annotations

import base64
import hashlib
import re
import subprocess
from pathlib import Path
from typing import Any

LONG_STRING = 4000
_TMPFILE = re.compile(r"/[^\s\]]*/pi-bash-[0-9a-f]{16}\.log")


def _content(spec: Any) -> bytes:
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if "base64" in spec:
        return base64.b64decode(str(spec["base64"]))
    if "lines" in spec:
        width = spec.get("width", 0)
        prefix = spec.get("prefix", "line ")
        lines = [f"{prefix}{i}".ljust(width, "x") for i in range(1, spec["lines"] + 1)]
        text = "\n".join(lines) + ("\n" if spec.get("trailing_newline", True) else "")
        return text.encode("utf-8")
    if "concat" in spec:
        return b"".join(_content(part) for part in spec["concat"])
    if "repeat" in spec:
        return (str(spec["repeat"]) * int(spec["count"])).encode("utf-8")
    raise ValueError(f"unknown file spec {spec!r}")


def build(case: dict[str, Any], root: Path) -> Path:
    """Create the case's files under ``root``; returns the tool's cwd."""
    if case.get("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, spec in case.get("files", {}).items():
        path = root / name
        if isinstance(spec, dict) and spec.get("dir"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, dict) and "symlink" in spec:
            path.symlink_to(spec["symlink"])
            continue
        path.write_bytes(_content(spec))
    return root / case["cwd"] if "cwd" in case else root


def _digest(text: str) -> dict[str, Any]:
    data = text.encode("utf-8", "surrogatepass")
    return {
        "sha256": hashlib.sha256(data).hexdigest(),
        "length": len(text),
        "head": text[:200],
        "tail": text[-200:],
    }


def _read_temp_output(path: str) -> dict[str, Any]:
    """Digest of a run's full-output temp file, which is then deleted (it belongs to the run)."""
    file = Path(path)
    try:
        return _digest(file.read_text("utf-8", "replace"))
    finally:
        file.unlink(missing_ok=True)


def _scrub(value: Any, root: str) -> Any:
    if isinstance(value, str):
        text = _TMPFILE.sub("<TMPFILE>", value.replace(root, "<CWD>"))
        return _digest(text) if len(text) > LONG_STRING else text
    if isinstance(value, list):
        return [_scrub(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _scrub(item, root) for key, item in value.items()}
    return value


def _unordered(text: str, mode: object) -> str:
    """Search programs return files in any order: compare sorted lines, or only their count."""
    body, sep, notice = text.partition("\n\n[")
    lines = body.split("\n")
    shown = f"<{len(lines)} lines>" if mode == "count" else "\n".join(sorted(lines))
    return shown + sep + notice


def normalize(case: dict[str, Any], answer: dict[str, Any], root: Path) -> dict[str, Any]:
    """``answer`` is ``{"result": {content, details?}}`` or ``{"error": text}``."""
    out: dict[str, Any] = {}
    if "error" in answer:
        out["error"] = answer["error"]
        saved = _TMPFILE.search(answer["error"])
        if saved:
            out["fullOutputFile"] = _read_temp_output(saved.group(0))
    else:
        result = answer["result"]
        content = [dict(block) for block in result.get("content", [])]
        for block in content:
            if block.get("type") == "image" and case.get("image_data") == "ignore":
                block["data"] = "<IMAGE>"
            if block.get("type") == "text" and case.get("unordered"):
                block["text"] = _unordered(block["text"], case["unordered"])
        out["content"] = content
        details = result.get("details")
        if details is not None:
            full = details.get("fullOutputPath") if isinstance(details, dict) else None
            if full:
                out["fullOutputFile"] = _read_temp_output(full)
            out["details"] = details
    for name in case.get("check_files", []):
        path = root / name
        out.setdefault("files", {})[name] = (
            base64.b64encode(path.read_bytes()).decode("ascii") if path.exists() else None
        )
    scrubbed: dict[str, Any] = _scrub(out, str(root))
    return scrubbed


def case_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.json"))


def normalize_user_bash(answer: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """A user-bash result (``{"result": BashResult}`` or ``{"error"}``), with the full output file read."""
    out = dict(answer)
    result = out.get("result")
    if isinstance(result, dict) and result.get("fullOutputPath"):
        result = dict(result)
        result["fullOutputFile"] = _read_temp_output(result["fullOutputPath"])
        out["result"] = result
    scrubbed: dict[str, Any] = _scrub(out, str(cwd))
    return scrubbed
