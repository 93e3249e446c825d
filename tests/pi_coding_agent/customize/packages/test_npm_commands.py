"""``pi list`` and ``pi update`` with npm sources, as Pi 1.6 treats them (issue 25 item 3).

The published ``pi-aliases`` 1.0.7 (fetched from npm once into the test cache) is placed in
Pi's layout, ``<agent dir>/npm/node_modules/pi-aliases``, and configured as ``npm:`` sources.
Compared with Pi 1.6's CLI, which runs offline (``PI_OFFLINE=1``): ``pi list`` and the offline
``pi update``. Online updates go through ``npmCommand``, here a stand-in script on the test's
side that answers ``npm view`` and logs every call, so no registry is reached.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.npm_packages import npm_package


def _box(root: Path, settings: dict[str, object] | None = None) -> Sandbox:
    box = Sandbox.create(root, "http://127.0.0.1:9", {"packages": ["npm:pi-aliases"], **(settings or {})})
    modules = box.agent_dir / "npm" / "node_modules"
    modules.mkdir(parents=True)
    shutil.copytree(npm_package("pi-aliases", "1.0.7"), modules / "pi-aliases")
    (box.agent_dir / "npm" / "package.json").write_text(
        '{"name": "pi-extensions", "private": true}\n', encoding="utf-8"
    )
    return box


def _both(tmp_path: Path, *args: str) -> dict[str, Completed]:
    oracle.require_live_oracle(current=True)
    done = {}
    for who in ("ours", "pi"):
        box = _box(tmp_path / who)
        if who == "ours":
            done[who] = run_ours(box, *args, timeout=120, PI_OFFLINE="1")
        else:
            done[who] = run_pi(box, *args, timeout=120, current=True)
    return done


def _shown(done: Completed, box_root: Path) -> tuple[int, str, str]:
    return done.returncode, done.stdout.replace(str(box_root), "<box>"), done.stderr.strip()


def test_list_shows_npm_packages_as_pi_does(tmp_path: Path) -> None:
    done = _both(tmp_path, "list")
    ours, pi = _shown(done["ours"], tmp_path / "ours"), _shown(done["pi"], tmp_path / "pi")
    assert ours == pi
    assert "npm:pi-aliases" in ours[1] and "/npm/node_modules/pi-aliases" in ours[1]


def test_update_offline_skips_npm_packages_as_pi_does(tmp_path: Path) -> None:
    """``PI_OFFLINE``: nothing is updated, one line says so; an unconfigured source is still an error."""
    shown = {}
    for args in (("update", "--extensions"), ("update", "npm:pi-aliases"), ("update", "npm:not-configured")):
        done = _both(tmp_path / args[-1].replace(":", "_"), *args)
        shown[args[-1]] = (done["ours"].returncode, done["ours"].stdout)
        assert shown[args[-1]] == (done["pi"].returncode, done["pi"].stdout), args
    assert shown["--extensions"] == (0, "Skipped package updates (offline mode)\n")
    assert shown["npm:not-configured"][0] == 1


def _stand_in_npm(folder: Path, latest: str) -> tuple[Path, Path]:
    """``npm view`` answers ``latest``; ``install`` and anything else only log."""
    log = folder / "npm-calls.log"
    script = folder / "npm-stand-in.sh"
    script.write_text(
        f'#!/bin/sh\necho "$*" >> {log}\nif [ "$1" = view ]; then echo \'"{latest}"\'; fi\nexit 0\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script, log


def _calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_update_asks_npm_first_and_installs_latest_only_when_newer(tmp_path: Path) -> None:
    """Pi 1.6's order through ``npmCommand``: ``view <name> version --json``, then
    ``install <name>@latest`` into the npm project with Pi's flags only when the registry's
    version is newer than the installed 1.0.7."""
    for latest, installs in (("1.0.7", False), ("1.2.0", True)):
        folder = tmp_path / latest
        folder.mkdir()
        script, log = _stand_in_npm(folder, latest)
        box = _box(folder / "box", {"npmCommand": [str(script)]})
        done = run_ours(box, "update", "--extensions", timeout=120)
        assert done.returncode == 0, done.stderr
        calls = _calls(log)
        assert calls[0] == "view pi-aliases version --json"
        project = (box.agent_dir / "npm").resolve()
        expected = [f"install pi-aliases@latest --prefix {project} --legacy-peer-deps --no-audit --no-fund"]
        assert calls[1:] == (expected if installs else []), calls


def test_a_pinned_npm_package_is_not_updated(tmp_path: Path) -> None:
    script, log = _stand_in_npm(tmp_path, "9.9.9")
    box = _box(tmp_path / "box", {"npmCommand": [str(script)]})
    settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
    settings["packages"] = ["npm:pi-aliases@1.0.7"]
    (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    done = run_ours(box, "update", "--extensions", timeout=120)
    assert done.returncode == 0, done.stderr
    assert _calls(log) == []
