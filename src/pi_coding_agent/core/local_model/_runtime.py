"""The inference runtime: llama.cpp as a shared library that ``pi_ai``'s own binding loads.

Two ways to get it. The default (``_prebuilt``): the ``xllamacpp`` wheel from PyPI, which carries a
prebuilt manylinux llama.cpp with its C API exported; installed in seconds. The fallback, for
machines that wheel does not fit (another OS or CPU architecture, an x86-64 CPU without AVX2, an
old glibc): llama-cpp-python, built once from its sdist into a wheel cache we own, as below; its
``libllama.so`` is what is loaded. Tests and the bench also use that build for llama-cpp-python's
server. docs/decisions/0010-prebuilt-local-runtime.md has the measurements.

Why not ``pip install llama-cpp-python``: PyPI ships only the sdist, the default ``-march=native``
build enables AMX instructions that some VMs report but cannot execute (SIGILL on the first matrix
multiply), and pip's own wheel cache ignores ``CMAKE_ARGS``, so a wheel built with other flags would be
reused silently. So we run ``pip wheel --no-cache-dir`` with our flags, keep the wheel under a key made
of version, flags and Python tag, and install it (with its few pure dependencies) into a private
``--target`` folder that is put on ``sys.path`` only when the local model is used.

Interrupted builds and installs restart cleanly: work happens in a ``.partial`` folder that is moved
into place only when complete; a rerun removes leftovers (and stops a build process group an earlier,
killed run left behind) before starting again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._paths import cache_root
from pi_coding_agent.core.local_model._progress import Progress
from pi_coding_agent.core.paths import exclusive

PACKAGE = "llama-cpp-python"
VERSION = "0.3.36"
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"
_NINJA_STEP = re.compile(rb"\[(\d+)/(\d+)\]")
_COMPLETE = "complete"


@dataclass(frozen=True)
class RuntimeSpec:
    """Which llama-cpp-python to build and how; ``key`` names its cache entries."""

    version: str = VERSION
    cmake_args: str = CMAKE_ARGS
    package: str = PACKAGE

    @property
    def key(self) -> str:
        flags = hashlib.sha256(self.cmake_args.encode()).hexdigest()[:10]
        return f"{self.package}-{self.version}-{flags}-cp{sys.version_info.major}{sys.version_info.minor}"

    def wheel_dir(self) -> Path:
        return cache_root() / "wheels" / self.key

    def site_dir(self) -> Path:
        return cache_root() / "runtime" / self.key

    def library(self, runtime: Path) -> Path:
        """The llama.cpp shared library inside an installed runtime folder."""
        return runtime / "first" / "llama_cpp" / "lib" / "libllama.so"

    def install(self, progress: Progress) -> Path:
        return install_runtime(self, progress)


def pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]


def kill_session(session: int) -> None:
    """SIGKILL every process of ``session``: the build runs in a session of its own, and ninja puts
    each compiler in a process group of its own, so only the session id reaches them all (it
    survives the death of pip, the session leader)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[3] == str(session):
            with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                os.kill(int(stat.parent.name), signal.SIGKILL)


def _stop_leftover_build(partial: Path) -> None:
    """A killed ``pi`` cannot stop its build; the next run does, from the session id it recorded."""
    try:
        session = int((partial / "session").read_text())
    except (OSError, ValueError):
        return
    kill_session(session)


def clear_partials(parent: Path, name: str) -> None:
    for leftover in parent.glob(f"{name}.partial*"):
        _stop_leftover_build(leftover)
        shutil.rmtree(leftover, ignore_errors=True)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminations_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt for a while, so a build is stopped, not orphaned."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _interrupt) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def run_logged(command: list[str], *, env: dict[str, str], log: Path, progress: Progress, unit: str) -> int:
    """Run ``command`` in a session of its own, output to ``log``, reporting ninja's ``[n/m]`` steps."""
    with log.open("wb") as sink, _terminations_interrupt():
        child = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        (log.parent / "session").write_text(str(child.pid))
        assert child.stdout is not None
        try:
            for line in child.stdout:
                sink.write(line)
                step = _NINJA_STEP.search(line)
                if step:
                    progress.advance(int(step.group(1)), int(step.group(2)), unit)
            return child.wait()
        except BaseException:
            kill_session(child.pid)
            child.wait()
            raise


def build_wheel(spec: RuntimeSpec, progress: Progress) -> Path:
    """Return the cached wheel for ``spec``, building it first if needed (minutes, shown as progress)."""
    final = spec.wheel_dir()
    with exclusive(final.parent / f"{spec.key}.lock"):
        if (final / _COMPLETE).exists():
            return final / (final / _COMPLETE).read_text().strip()
        clear_partials(final.parent, spec.key)
        partial = final.parent / f"{spec.key}.partial"
        partial.mkdir(parents=True)
        progress.stage(f"building {spec.package} {spec.version} from source (one time, several minutes)")
        env = {**os.environ, "CMAKE_ARGS": spec.cmake_args, "PIP_NO_CACHE_DIR": "1"}
        command = pip("wheel", "--no-cache-dir", "--no-deps", "-v", "-w", str(partial / "dist"))
        status = run_logged(
            [*command, f"{spec.package}=={spec.version}"], env=env, log=partial / "build.log", progress=progress,
            unit="steps",
        )
        wheels = sorted((partial / "dist").glob("*.whl"))
        if status != 0 or not wheels:
            kept = final.parent / f"{spec.key}.failed.log"
            shutil.copyfile(partial / "build.log", kept)
            shutil.rmtree(partial, ignore_errors=True)
            raise SetupError(f"building {spec.package} {spec.version} failed (exit {status}); log: {kept}")
        shutil.rmtree(final, ignore_errors=True)
        final.mkdir(parents=True)
        wheel = final / wheels[0].name
        shutil.move(str(wheels[0]), wheel)
        (final / _COMPLETE).write_text(wheel.name + "\n")
        shutil.rmtree(partial, ignore_errors=True)
        progress.finish(f"built {wheel.name}")
        return wheel


def split_runtime(partial: Path, package: str = "llama_cpp") -> None:
    """``first/`` gets ``package`` itself (put before everything on ``sys.path``, so no other build of
    it can shadow ours); ``deps/`` its dependencies (put last, so the host's own numpy or jinja2 win)."""
    first = partial / "first"
    first.mkdir()
    for entry in (partial / "site").glob(f"{package}*"):
        entry.rename(first / entry.name)
    (partial / "site").rename(partial / "deps")
    for leftover in ("install.log", "session"):
        (partial / leftover).unlink(missing_ok=True)


def install_runtime(spec: RuntimeSpec, progress: Progress) -> Path:
    """Return the private runtime folder (``first/`` and ``deps/``), building and installing it if needed."""
    final = spec.site_dir()
    if (final / _COMPLETE).exists():
        return final
    wheel = build_wheel(spec, progress)
    with exclusive(final.parent / f"{spec.key}.lock"):
        if (final / _COMPLETE).exists():
            return final
        clear_partials(final.parent, spec.key)
        partial = final.parent / f"{spec.key}.partial"
        partial.mkdir(parents=True)
        progress.stage(f"installing {wheel.name} and its dependencies into {final}")
        command = pip("install", "-q", "--no-warn-script-location", "--target", str(partial / "site"), str(wheel))
        status = run_logged(command, env=dict(os.environ), log=partial / "install.log", progress=progress, unit="")
        if status != 0:
            kept = final.parent / f"{spec.key}.failed.log"
            shutil.copyfile(partial / "install.log", kept)
            shutil.rmtree(partial, ignore_errors=True)
            raise SetupError(f"installing {wheel.name} failed (exit {status}); log: {kept}")
        split_runtime(partial)
        shutil.rmtree(final, ignore_errors=True)
        partial.rename(final)
        (final / _COMPLETE).write_text(wheel.name + "\n")
        progress.finish("done")
        return final
