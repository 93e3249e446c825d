"""Real package sources for the package tests: git repositories, source distributions,
wheels, and a PEP 503 "simple" index served on 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import subprocess
import tarfile
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.http_thread import server_thread

REPO = Path(__file__).resolve().parents[4]
EXAMPLE = REPO / "examples" / "packages" / "review-kit"


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    )
    return done.stdout


def git_repo(path: Path, source: Path = EXAMPLE) -> Path:
    """A repository holding a copy of ``source``, one commit, tagged ``v1``."""
    shutil.copytree(source, path)
    git("init", "-q", cwd=path)
    git("add", "-A", cwd=path)
    git("commit", "-qm", "first", cwd=path)
    git("tag", "v1", cwd=path)
    return path


def commit_file(repo: Path, relative: str, text: str) -> None:
    (repo / relative).parent.mkdir(parents=True, exist_ok=True)
    (repo / relative).write_text(text, encoding="utf-8")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", f"add {relative}", cwd=repo)


def sdist(source: Path, out: Path, *, version: str, name: str = "pi-review-kit",
          extra: dict[str, str] | None = None, dependencies: list[str] | None = None) -> Path:
    """A source distribution of ``source`` as setuptools lays it out (``name-version/`` with ``PKG-INFO``)."""
    top = f"{name}-{version}"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        def add(relative: str, data: bytes) -> None:
            info = tarfile.TarInfo(f"{top}/{relative}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))

        for path in sorted(source.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                if path.name == "pyproject.toml":
                    text = data.decode().replace('version = "1.0.0"', f'version = "{version}"')
                    if dependencies is not None:
                        text = text.replace("dependencies = []", f"dependencies = {dependencies!r}".replace("'", '"'))
                    data = text.encode()
                add(path.relative_to(source).as_posix(), data)
        for relative, text in (extra or {}).items():
            add(relative, text.encode())
        add("PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n".encode())
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{top}.tar.gz"
    target.write_bytes(buffer.getvalue())
    return target


def wheel(out: Path, name: str, version: str, module_text: str) -> Path:
    """A pure-Python wheel with one module ``<name>.py``."""
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": module_text.encode(),
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record_lines = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record_lines.append(f"{path},sha256={digest},{len(data)}")
    record_lines.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record_lines) + "\n").encode()
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(target, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return target


def publish(index_root: Path, project: str, files: list[Path], *, bad_hash: bool = False) -> None:
    """Write (or rewrite) ``simple/<project>/index.html`` listing ``files`` with their sha256."""
    folder = index_root / "simple" / project
    folder.mkdir(parents=True, exist_ok=True)
    packages = index_root / "packages"
    packages.mkdir(exist_ok=True)
    links = []
    for file in files:
        shutil.copy(file, packages / file.name)
        digest = "0" * 64 if bad_hash else hashlib.sha256(file.read_bytes()).hexdigest()
        links.append(f'<a href="../../packages/{file.name}#sha256={digest}">{file.name}</a><br/>')
    (folder / "index.html").write_text(
        "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n", encoding="utf-8"
    )


class SimpleIndex:
    """Serves a folder over HTTP on 127.0.0.1 (a PEP 503 index when laid out by ``publish``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        handler = partial(_QuietHandler, directory=str(root))
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = server_thread(self._server)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/simple/"

    def __enter__(self) -> SimpleIndex:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return
