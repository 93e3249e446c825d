"""A package index on 127.0.0.1 (PEP 503 "simple" pages) for the setup tests, with wheels and sdists
the tests make, a log of what was fetched, and a way to stall one file mid-download."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support.http_thread import server_thread


def data_wheel(folder: Path, name: str, version: str, payload: bytes) -> Path:
    """A wheel like the model part packages: ``<pkg>/data/part.bin`` plus metadata."""
    module = name.replace("-", "_")
    path = folder / f"{module}-{version}-py3-none-any.whl"
    info = f"{module}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "")
        archive.writestr(f"{module}/data/part.bin", payload)
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return path


_BACKEND = '''
import os, subprocess, sys, time, zipfile

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    print("[1/2] compiling", flush=True)
    stall = os.environ.get("PI_TEST_STALL_BUILD")
    if stall and not os.path.exists(stall):
        # A "compiler" in a process group of its own, as ninja starts them.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], process_group=0)
        with open(stall, "w") as marker:
            marker.write(str(child.pid))
        child.wait()
    print("[2/2] linking", flush=True)
    name = "NAME-VERSION-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as archive:
        archive.writestr("MODULE/__init__.py", "BUILT = True\\n")
        info = "MODULE-VERSION.dist-info"
        archive.writestr(info + "/METADATA", "Metadata-Version: 2.1\\nName: DIST\\nVersion: VERSION\\n")
        archive.writestr(info + "/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        archive.writestr(info + "/RECORD", "")
    return name
'''


def slow_sdist(folder: Path, name: str, version: str) -> Path:
    """An sdist whose build prints ninja-style steps and, while ``PI_TEST_STALL_BUILD`` names a file
    that does not exist yet, starts a long-running child (recording its pid there) and waits."""
    module = name.replace("-", "_")
    root = f"{module}-{version}"
    files = {
        "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
        "backend.py": _BACKEND.replace("NAME", module).replace("MODULE", module).replace("DIST", name).replace(
            "VERSION", version
        ),
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
    }
    path = folder / f"{root}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for file_name, text in files.items():
            data = text.encode()
            entry = tarfile.TarInfo(f"{root}/{file_name}")
            entry.size = len(data)
            archive.addfile(entry, io.BytesIO(data))
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class PackageIndex:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.fetched: list[str] = []
        self.stall: set[str] = set()
        self.stalled = threading.Event()
        self._release = threading.Event()
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:
                index._serve(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        server_thread(self._server).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/simple/"

    def pip_env(self) -> dict[str, str]:
        """pip pointed at this index only (the machine's own pip configuration ignored)."""
        return {
            **os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": self.url, "PIP_NO_CACHE_DIR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }

    def release(self) -> None:
        self.stall.clear()
        self._release.set()

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        parts = [part for part in handler.path.split("/") if part]
        if len(parts) == 2 and parts[0] == "simple":
            project = parts[1].lower().replace("_", "-")
            links = "".join(
                f'<a href="/files/{path.name}#sha256={sha256(path)}">{path.name}</a>\n'
                for path in sorted(self.folder.iterdir())
                if path.name.lower().replace("_", "-").startswith(project + "-")
            )
            body = f"<html><body>\n{links}</body></html>\n".encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        if len(parts) == 2 and parts[0] == "files" and (self.folder / parts[1]).is_file():
            name = parts[1]
            self.fetched.append(name)
            data = (self.folder / name).read_bytes()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/octet-stream")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            if name in self.stall:
                handler.wfile.write(data[: len(data) // 2])
                handler.wfile.flush()
                self.stalled.set()
                self._release.wait(120)
                return  # the client was killed meanwhile: the body stays short
            handler.wfile.write(data)
            return
        handler.send_error(404)
