"""A tiny npm registry on 127.0.0.1 for tests: it serves the packages it was given (packument and
tarball, as registry.npmjs.org does) and answers 404 for every other name. Point npm at it with
``npm_config_registry`` (see :func:`serve`)."""
from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
import urllib.parse
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def tarball(package_json: dict, files: dict[str, str]) -> bytes:
    """An npm package tarball: ``package/package.json`` and the given files under ``package/``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in {"package.json": json.dumps(package_json), **files}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


class Registry:
    """Packages by name (``add``); ``requests``: every path asked for, in order."""

    def __init__(self):
        self.packages: dict[str, tuple[dict, bytes]] = {}
        self.requests: list[str] = []
        self.url = ""

    def add(self, package_json: dict, files: dict[str, str]) -> None:
        self.packages[package_json["name"]] = (package_json, tarball(package_json, files))

    def packument(self, name: str) -> dict:
        meta, data = self.packages[name]
        version = meta["version"]
        dist = {"tarball": f"{self.url}{name}/-/{name.split('/')[-1]}-{version}.tgz",
                "shasum": hashlib.sha1(data).hexdigest(),
                "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}
        return {"name": name, "dist-tags": {"latest": version}, "versions": {version: {**meta, "dist": dist}}}


@contextmanager
def serve(registry: Registry):
    """Serve ``registry`` on a free port of 127.0.0.1 until the block ends; sets ``registry.url``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            path = urllib.parse.unquote(self.path.lstrip("/"))
            registry.requests.append(path)
            if "/-/" in path:
                name = path.split("/-/")[0]
                body = registry.packages[name][1] if name in registry.packages else None
                kind = "application/octet-stream"
            else:
                body = json.dumps(registry.packument(path)).encode() if path in registry.packages else None
                kind = "application/json"
            if body is None:
                body, kind = b'{"error":"Not found"}', "application/json"
                self.send_response(404)
            else:
                self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    registry.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield registry
    finally:
        server.shutdown()
        server.server_close()
