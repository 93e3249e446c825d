"""``load_models_json``: the coding agent reads ``models.json`` (comments allowed) and hands the
data to pi_ai; a file it cannot use is reported by name and leaves the built-in models."""

from __future__ import annotations

import json
from pathlib import Path

from pi_coding_agent.core.model_registry import load_models_json


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "models.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_comments_and_byte_order_mark_are_accepted(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """\ufeff{
          // local servers
          "providers": {
            /* one server, "quoted // not a comment" */
            "ollama": {
              "baseUrl": "http://localhost:11434/v1", // trailing comment
              "api": "openai-completions",
              "models": [{"id": "qwen3:8b", "name": "a // b /* c */"}]
            }
          }
        }""",
    )
    registry = load_models_json(path)
    assert registry.error is None
    model = registry.model("ollama", "qwen3:8b")
    assert model is not None and model.name == "a // b /* c */"


def test_no_file_means_the_builtin_models(tmp_path: Path) -> None:
    registry = load_models_json(tmp_path / "missing.json")
    assert registry.error is None
    assert registry.model("anthropic", "claude-sonnet-4-5") is not None


def test_json_errors_name_the_file_and_line(tmp_path: Path) -> None:
    broken = _write(tmp_path, '{"providers": {\n  /* a\n comment */ "x": {"baseUrl": "u",,}\n}}')
    registry = load_models_json(broken)
    assert registry.error is not None
    assert registry.error.startswith("Failed to parse models.json:")
    assert "line 3" in registry.error and registry.error.endswith(f"File: {broken}")
    assert registry.model("anthropic", "claude-sonnet-4-5") is not None  # built-ins survive


def test_comments_and_trailing_commas_are_allowed_as_in_pi_1_6(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"providers": {"x": {"baseUrl": "http://h/v1", "api": "openai-completions", // comment\n'
        '"models": [{"id": "m", "name": "a,}b",},],},},}',
    )
    registry = load_models_json(path)
    assert registry.error is None
    model = registry.model("x", "m")
    assert model is not None and model.name == "a,}b"


def test_schema_and_definition_errors_name_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps({"providers": {"x": {"models": [{"id": 3}]}}}))
    error = load_models_json(path).error
    assert error is not None and error.startswith("Invalid models.json schema:")
    assert "providers.x.models[0].id" in error and error.endswith(f"\n\nFile: {path}")
    path = _write(
        tmp_path, json.dumps({"providers": {"x": {"baseUrl": "http://h", "models": [{"id": "m"}]}}})
    )
    error = load_models_json(path).error
    assert error is not None and 'no "api" specified' in error and error.endswith(f"File: {path}")


def test_unreadable_or_undecodable_files_are_reported(tmp_path: Path) -> None:
    not_utf8 = _write(tmp_path, b'{"providers": {"\xff": {}}}')
    error = load_models_json(not_utf8).error
    assert error is not None and error.startswith("Failed to load models.json:") and str(not_utf8) in error
    folder = tmp_path / "folder.json"
    folder.mkdir()
    error = load_models_json(folder).error
    assert error is not None and error.startswith("Failed to load models.json:")
