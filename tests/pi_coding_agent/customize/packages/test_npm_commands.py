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
import subprocess
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
        # The stand-in's install changes nothing: Pi 1.6's warning and closing line.
        assert done.stdout.splitlines() == (
            [
                "Updating npm:pi-aliases...",
                "npm:pi-aliases is still 1.0.7 (registry reports 1.2.0); npm registry metadata may be stale, "
                "try again in a few minutes",
                "No packages were updated, see the warnings above",
            ]
            if installs
            else ["Packages are already up to date"]
        )


def test_a_pinned_npm_package_is_not_updated(tmp_path: Path) -> None:
    script, log = _stand_in_npm(tmp_path, "9.9.9")
    box = _box(tmp_path / "box", {"npmCommand": [str(script)]})
    settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
    settings["packages"] = ["npm:pi-aliases@1.0.7"]
    (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    done = run_ours(box, "update", "--extensions", timeout=120)
    assert done.returncode == 0, done.stderr
    assert _calls(log) == []


def _newer_tarball(folder: Path, version: str) -> Path:
    """pi-aliases as published, with ``version`` in its manifest, packed by npm (no registry)."""
    copy = folder / "pi-aliases-src"
    shutil.copytree(npm_package("pi-aliases", "1.0.7"), copy)
    manifest = json.loads((copy / "package.json").read_text(encoding="utf-8"))
    (copy / "package.json").write_text(json.dumps({**manifest, "version": version}), encoding="utf-8")
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed for this test"
    subprocess.run(
        [npm, "pack", "--ignore-scripts", "--pack-destination", str(folder)],
        cwd=copy, check=True, capture_output=True, timeout=120,
    )
    return folder / f"pi-aliases-{version}.tgz"


def _registry_stand_in(folder: Path, latest: str, tarball: Path) -> Path:
    """``npmCommand``: ``view`` answers ``latest``; ``install <spec> ...`` is the real npm
    installing the local ``tarball`` with the same flags."""
    npm = shutil.which("npm")
    script = folder / "npm-registry-stand-in.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"if [ \"$1\" = view ]; then echo '\"{latest}\"'; exit 0; fi\n"
        f"if [ \"$1\" = install ]; then shift 2; exec {npm} install {tarball} \"$@\"; fi\n"
        "exit 1\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def test_update_prints_pi_16s_summary_of_what_changed(tmp_path: Path) -> None:
    """A newer pi-aliases (1.2.0, a local tarball behind a registry stand-in) replaces the
    installed 1.0.7; ``pi update`` closes with Pi 1.6's lines: the count, then
    ``<source> <from> -> <to>``; run again, the package is already up to date. (Pi 1.6's CLI
    runs only offline here, so these lines are Pi's words, not a side-by-side run.)"""
    script = _registry_stand_in(tmp_path, "1.2.0", _newer_tarball(tmp_path, "1.2.0"))
    box = _box(tmp_path / "box", {"npmCommand": [str(script)]})
    done = run_ours(box, "update", "--extensions", timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Updating npm:pi-aliases...",
        "Updated 1 package:",
        "  npm:pi-aliases 1.0.7 -> 1.2.0",
    ]
    manifest = box.agent_dir / "npm" / "node_modules" / "pi-aliases" / "package.json"
    assert json.loads(manifest.read_text(encoding="utf-8"))["version"] == "1.2.0"
    again = run_ours(box, "update", "npm:pi-aliases", timeout=120)
    assert (again.returncode, again.stdout) == (0, "npm:pi-aliases is already up to date\n"), again.stderr
