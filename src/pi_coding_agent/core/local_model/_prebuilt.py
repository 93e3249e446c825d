"""The default runtime: llama.cpp prebuilt, from the ``xllamacpp`` wheel on PyPI.

That wheel (manylinux2014, x86-64, CPython abi3) links llama.cpp statically into one shared
library that exports llama.cpp's C API; ``pi_ai``'s binding loads it directly (xllamacpp's own
Python layer is not used). It is compiled for AVX2/FMA/F16C, so it fits only x86-64 Linux CPUs
with those and a glibc of at least 2.17; elsewhere the source build is the runtime
(``_runtime``). ``PI_LOCAL_RUNTIME=source`` chooses the source build anyway.

It is installed with ``jinja2`` (chat templates) by ``pip install --target`` into a private
folder, in a ``.partial`` folder moved into place when complete, like the source build.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._paths import cache_root
from pi_coding_agent.core.local_model._progress import Progress
from pi_coding_agent.core.local_model._runtime import (
    RuntimeSpec,
    clear_partials,
    pip,
    run_logged,
    split_runtime,
)
from pi_coding_agent.core.paths import exclusive

PACKAGE = "xllamacpp"
VERSION = "2026.10.11549"
WHEEL_SIZE = "33 MB"
RUNTIME_ENV = "PI_LOCAL_RUNTIME"
CPU_FLAGS = ("avx2", "fma", "f16c")
"""What the prebuilt library was compiled for (its ``llama_print_system_info``)."""
MIN_GLIBC = (2, 17)


@dataclass(frozen=True)
class PrebuiltSpec:
    """Which prebuilt wheel to install; ``key`` names its cache folder."""

    version: str = VERSION
    package: str = PACKAGE
    companions: tuple[str, ...] = ("jinja2>=3",)
    """Installed beside it: jinja2 renders the models' chat templates."""

    @property
    def key(self) -> str:
        return f"{self.package}-{self.version}-cp{sys.version_info.major}{sys.version_info.minor}"

    def site_dir(self) -> Path:
        return cache_root() / "runtime" / self.key

    def library(self, runtime: Path) -> Path:
        return runtime / "first" / "xllamacpp" / "xllamacpp.abi3.so"

    def install(self, progress: Progress) -> Path:
        return install_prebuilt(self, progress)


def _glibc() -> tuple[int, ...]:
    try:
        name = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        return ()
    parts = name.split()[-1].split(".") if name.startswith("glibc") else []
    return tuple(int(part) for part in parts if part.isdigit())


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def prebuilt_misfit() -> str | None:
    """Why the prebuilt wheel does not fit this machine, or None when it does."""
    if os.environ.get(RUNTIME_ENV, "").strip() == "source":
        return f"{RUNTIME_ENV}=source"
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"no prebuilt llama.cpp for {sys.platform} on {platform.machine()}"
    if _glibc() < MIN_GLIBC:
        return "the C library is older than glibc 2.17"
    missing = [flag for flag in CPU_FLAGS if flag not in _cpu_flags()]
    if missing:
        return f"the CPU lacks {', '.join(missing)}"
    return None


def runtime_spec() -> PrebuiltSpec | RuntimeSpec:
    """The runtime for this machine: the prebuilt wheel where it fits, else the source build."""
    return PrebuiltSpec() if prebuilt_misfit() is None else RuntimeSpec()


def install_prebuilt(spec: PrebuiltSpec, progress: Progress) -> Path:
    """Return the private runtime folder (``first/`` and ``deps/``), installing it if needed."""
    final = spec.site_dir()
    if (final / "complete").exists():
        return final
    with exclusive(final.parent / f"{spec.key}.lock"):
        if (final / "complete").exists():
            return final
        clear_partials(final.parent, spec.key)
        partial = final.parent / f"{spec.key}.partial"
        partial.mkdir(parents=True)
        progress.stage(f"installing the llama.cpp runtime ({spec.package} {spec.version}, {WHEEL_SIZE})")
        requirement = f"{spec.package}=={spec.version}"
        command = pip(
            "install", "-q", "--no-warn-script-location", "--only-binary=:all:", "--target", str(partial / "site"),
            requirement, *spec.companions,
        )
        status = run_logged(command, env=dict(os.environ), log=partial / "install.log", progress=progress, unit="")
        if status != 0:
            kept = final.parent / f"{spec.key}.failed.log"
            shutil.copyfile(partial / "install.log", kept)
            shutil.rmtree(partial, ignore_errors=True)
            raise SetupError(f"installing {requirement} failed (exit {status}); log: {kept}")
        split_runtime(partial, spec.package.replace("-", "_"))
        shutil.rmtree(final, ignore_errors=True)
        partial.rename(final)
        (final / "complete").write_text(requirement + "\n")
        progress.finish("done")
        return final
