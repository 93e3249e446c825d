"""How the header names TypeScript extensions given as folders, ours in-process against Pi 1.6's
TUI in tmux: a folder's ``index.ts`` (or ``index.js``) is left out of its name, in the compact
``[Extensions]`` line and in the paths Ctrl+O expands, so ``tools/alpha/index.ts`` reads ``alpha``
(``tools/alpha`` once expanded) beside a single-file extension that keeps its file name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.customize.extensions.test_interactive_header import section
from tests.support.npm_packages import node_cache

EXTENSION = (
    'export default function (pi) {{ pi.registerCommand("{name}", {{ handler: async () => {{}} }}); }}\n'
)


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


def _extensions(root: Path) -> list[str]:
    """Two folder extensions (``index.ts``, ``index.js``) and a one-file one; their ``-e`` args."""
    files = {"tools/alpha/index.ts": "alpha", "beta/index.js": "beta", "gamma.ts": "gamma"}
    args = []
    for relative, name in files.items():
        path = root / "exts" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(EXTENSION.format(name=name), encoding="utf-8")
        args += ["-e", str(path.parent if path.name.startswith("index.") else path)]
    return args


def test_folder_extensions_are_named_without_their_index_file_as_in_pi(tmp_path: Path) -> None:
    seen: dict[str, list[list[str]]] = {}
    for which in ("ours", "pi16"):
        folder = tmp_path / which
        folder.mkdir()
        root = str(folder / "exts")

        async def scenario(app: Driven, which: str = which, root: str = root) -> None:
            history = await app.wait_for("[Extensions]", everywhere=True)
            compact = section(history, "[Extensions]", ".ts")
            await app.send("C-o")
            await app.wait_for("Tool output: expanded")
            expanded = [
                line.replace(root, "<exts>") for line in section(app.history(), "[Extensions]", ".ts")
            ]
            seen[which] = [compact, expanded]
            await app.quit()

        play(
            folder, which, [], scenario, args=tuple(_extensions(folder)), env={"PI_NODE_CACHE": node_cache()}
        )
    assert seen["ours"] == seen["pi16"]
    assert seen["ours"][0] == ["[Extensions]", "  alpha, beta, gamma.EXT"]
