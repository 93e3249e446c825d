"""An embedded model's GGUF file from its publisher on Hugging Face, through ``huggingface_hub``.

The file is fetched at the catalog's pinned commit into the Hugging Face cache (``$HF_HUB_CACHE``,
else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``, in the cache's own layout) from
``$HF_ENDPOINT`` (default https://huggingface.co), with ``HF_TOKEN`` when set, so a model another
tool already fetched costs nothing. The bytes are trusted only once their sha256 matches the pin;
anything else is refused and removed.

``huggingface_hub`` does the requests (metadata, redirects, headers, the streamed ``GET`` with
its retries and progress); we drive its ``http_get`` rather than ``hf_hub_download`` because the
latter, since 2.x, downloads to a file unique to the process and deletes it on failure, so a
download cut short by Ctrl-C or a closed terminal starts again from zero. Ours appends to
``blobs/<sha256>.incomplete``, which the next run resumes with a ``Range`` request.

Any failure (``huggingface_hub`` not installed, ``HF_HUB_OFFLINE`` with nothing cached, the hub
not answering within ``CONNECT_SECONDS``, a refused file) is a ``HubUnavailable`` whose message
says why; the caller then takes the PyPI parts. The first request is a single ``HEAD`` without
retries, so an unreachable hub costs at most a few seconds.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pi_coding_agent.core.local_model._catalog import HubFile, LocalModelSpec

if TYPE_CHECKING:
    from pi_coding_agent.core.local_model._progress import Progress

CONNECT_SECONDS = 5.0
"""How long the first request to the hub may take; ``HF_HUB_ETAG_TIMEOUT`` overrides it."""
EXTRA = "local"
"""The extra of pi-for-python that brings ``huggingface_hub``."""
_CHUNK = 8 << 20


class HubUnavailable(Exception):
    """The hub did not give the pinned file; the message says why in a few words."""


def hub_label(spec: LocalModelSpec) -> str:
    """``Qwen/...-GGUF@f86cb2c`` for messages."""
    hub = _hub(spec)
    return f"{hub.repo}@{hub.revision[:7]}"


def _hub(spec: LocalModelSpec) -> HubFile:
    if spec.hub is None:
        raise HubUnavailable(f"{spec.id} has no Hugging Face source")
    return spec.hub


def _timeout() -> float:
    configured = os.environ.get("HF_HUB_ETAG_TIMEOUT", "").strip()
    return float(configured) if configured.isdigit() and int(configured) > 0 else CONNECT_SECONDS


def _reason(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 160 else text[:159] + "…"


def fetch_from_hub(spec: LocalModelSpec, progress: Progress) -> Path:
    """The pinned file in the Hugging Face cache, downloaded (or its download resumed) first when
    needed, its sha256 checked; raises ``HubUnavailable``."""
    hub = _hub(spec)
    try:  # all we use, so that an older huggingface_hub (1.x has no httpx2) is told apart here
        import httpx2  # noqa: F401
        from huggingface_hub import constants, try_to_load_from_cache
        from huggingface_hub.file_download import http_get, repo_folder_name  # noqa: F401
    except ImportError as error:
        raise HubUnavailable(
            f"huggingface_hub 2.x is not installed (the '{EXTRA}' extra of pi-for-python): {_reason(error)}"
        ) from error
    cached = try_to_load_from_cache(hub.repo, spec.hub_file, revision=hub.revision)
    if isinstance(cached, str):
        path = Path(cached)
        try:
            _verify(spec, path, progress, remove=(path, path.resolve()))
            return path
        except HubUnavailable as damaged:
            progress.note(f"{damaged}; downloading it again")
    if constants.HF_HUB_OFFLINE:
        raise HubUnavailable("HF_HUB_OFFLINE is set and the file is not in the Hugging Face cache")
    location = _location(spec, hub)
    try:
        return _download(spec, hub, location, progress)
    except OSError as error:  # the cache folder cannot be written
        raise HubUnavailable(f"the Hugging Face cache {constants.HF_HUB_CACHE}: {_reason(error)}") from error


def _location(spec: LocalModelSpec, hub: HubFile) -> str:
    """One quick ``HEAD`` without retries: the hub answers, announces the pinned sha256 and size,
    and says where the bytes are (a CDN for large files)."""
    import httpx2
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(hub.repo, spec.hub_file, revision=hub.revision)
    try:
        metadata = get_hf_file_metadata(url, timeout=_timeout())
    except (httpx2.TransportError, ConnectionError, TimeoutError) as error:
        raise HubUnavailable(f"{constants.ENDPOINT} did not answer: {_reason(error)}") from error
    except httpx2.HTTPError as error:
        raise HubUnavailable(f"{constants.ENDPOINT} answered with an error: {_reason(error)}") from error
    except OSError as error:  # a token file that cannot be read, say
        raise HubUnavailable(f"asking {constants.ENDPOINT}: {_reason(error)}") from error
    if metadata.etag != spec.sha256 or metadata.size != spec.size:
        raise HubUnavailable(
            f"refused {hub_label(spec)}/{spec.hub_file}: the hub announces sha256 {metadata.etag} "
            f"and {metadata.size} bytes, pinned {spec.sha256} and {spec.size}"
        )
    return str(metadata.location)


def _download(spec: LocalModelSpec, hub: HubFile, location: str, progress: Progress) -> Path:
    """Into the cache's layout: ``blobs/<sha256>.incomplete`` (appended to, so a later run resumes
    it with a ``Range`` request), checked, renamed to ``blobs/<sha256>``, and linked from
    ``snapshots/<revision>/<file>`` as ``huggingface_hub`` links its own downloads."""
    import httpx2
    from huggingface_hub import constants
    from huggingface_hub.file_download import http_get, repo_folder_name
    from huggingface_hub.utils import WeakFileLock, build_hf_headers

    storage = Path(constants.HF_HUB_CACHE) / repo_folder_name(repo_id=hub.repo, repo_type="model")
    blob = storage / "blobs" / spec.sha256
    partial = blob.with_name(blob.name + ".incomplete")
    lock = Path(constants.HF_HUB_CACHE) / ".locks" / storage.name / f"{spec.sha256}.lock"
    for folder in (blob.parent, lock.parent):
        folder.mkdir(parents=True, exist_ok=True)
    with WeakFileLock(lock):
        if not blob.exists():
            have = partial.stat().st_size if partial.exists() else 0
            if have > spec.size:
                partial.unlink()
                have = 0
            progress.stage(f"downloading {spec.name} from Hugging Face ({hub.repo}, {spec.size >> 20} MB)")
            headers = build_hf_headers()
            if urlsplit(location).netloc != urlsplit(constants.ENDPOINT).netloc:
                headers.pop("authorization", None)  # the token stays on the hub, as huggingface_hub does
            try:
                with partial.open("ab") as sink:
                    http_get(location, sink, resume_size=have, headers=headers, expected_size=spec.size,
                             tqdm_class=_bar_class(progress))  # fmt: skip
            except (OSError, httpx2.HTTPError) as error:
                raise HubUnavailable(
                    f"downloading from {constants.ENDPOINT} failed: {_reason(error)}"
                ) from error
            progress.finish("done")
            _verify(spec, partial, progress, remove=(partial,))
            partial.replace(blob)
        else:
            _verify(spec, blob, progress, remove=(blob,))
    return _pointer(storage, hub.revision, spec.hub_file, blob)


def _pointer(storage: Path, revision: str, file: str, blob: Path) -> Path:
    pointer = storage / "snapshots" / revision / file
    pointer.parent.mkdir(parents=True, exist_ok=True)
    if not pointer.exists():
        pointer.unlink(missing_ok=True)  # a dangling link
        try:
            pointer.symlink_to(os.path.relpath(blob, pointer.parent))
        except OSError:
            return blob  # no symlinks here: the blob itself serves
    return pointer


def _verify(spec: LocalModelSpec, path: Path, progress: Progress, *, remove: tuple[Path, ...]) -> None:
    """Hash the file; on a mismatch the files in ``remove`` are deleted (the next run downloads
    anew) and ``HubUnavailable`` raised."""
    progress.stage(f"checking {spec.file} (sha256)")
    digest = hashlib.sha256()
    done = 0
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
            done += len(chunk)
            progress.advance(done, spec.size, "B")
    actual = digest.hexdigest()
    if actual == spec.sha256:
        progress.finish("sha256 ok")
        return
    progress.finish("sha256 mismatch")
    for doomed in remove:
        doomed.unlink(missing_ok=True)
    raise HubUnavailable(
        f"refused {hub_label(spec)}/{spec.hub_file}: its sha256 is {actual}, pinned {spec.sha256}; "
        "removed from the cache"
    )


def _bar_class(progress: Progress) -> type[Any]:
    """A ``tqdm`` that draws nothing itself and reports the bytes on pi's progress line."""
    from tqdm.auto import tqdm

    class Bar(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "disable": True})
            self.received = int(kwargs.get("initial") or 0)
            self.expected = kwargs.get("total")

        def update(self, n: float | None = 1) -> bool | None:
            self.received += int(n or 0)
            progress.advance(self.received, self.expected, "B")
            return True

    return Bar
