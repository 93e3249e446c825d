"""Which runtime a machine gets: the prebuilt llama.cpp where its wheel fits, else the source build."""

from __future__ import annotations

import platform

import pytest

from pi_coding_agent.core.local_model import (
    PrebuiltSpec,
    RuntimeSpec,
    _prebuilt,
    prebuilt_misfit,
    runtime_spec,
)


def test_this_machine_and_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_LOCAL_RUNTIME", raising=False)
    flags = _prebuilt._cpu_flags()
    fits = platform.machine() == "x86_64" and {"avx2", "fma", "f16c"} <= flags
    assert (prebuilt_misfit() is None) == fits
    assert isinstance(runtime_spec(), PrebuiltSpec if fits else RuntimeSpec)
    monkeypatch.setenv("PI_LOCAL_RUNTIME", "source")
    assert prebuilt_misfit() == "PI_LOCAL_RUNTIME=source"
    assert isinstance(runtime_spec(), RuntimeSpec)


def test_a_cpu_without_avx2_gets_the_source_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_LOCAL_RUNTIME", raising=False)
    monkeypatch.setattr(_prebuilt.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(_prebuilt.sys, "platform", "linux")
    monkeypatch.setattr(_prebuilt, "_cpu_flags", lambda: {"sse4_2", "avx", "fma"})
    assert prebuilt_misfit() == "the CPU lacks avx2, f16c"
    assert isinstance(runtime_spec(), RuntimeSpec)
    monkeypatch.setattr(_prebuilt.platform, "machine", lambda: "aarch64")
    assert prebuilt_misfit() == "no prebuilt llama.cpp for linux on aarch64"
