"""How the studio reaches a Node-RED's HTTP server: over TCP (a Node-RED the user runs) or over a
unix socket (the studio's private runtime, which has no host network at all).

A :class:`Transport` answers one HTTP request at a time (:meth:`Transport.http`, used for the
admin API and for the flow's own ``http in`` endpoints alike) and opens websockets
(:meth:`Transport.websocket`, for ``/comms``). Every failure to connect or read is an ``OSError``;
callers turn it into a one-line message.
"""
from __future__ import annotations

import http.client
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import websocket  # websocket-client (see pyproject)

#: the most bytes of one response body kept (a flow's endpoint may answer without end)
MAX_BODY = 64 * 1024 * 1024


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes


class _UnixConnection(http.client.HTTPConnection):
    """An HTTP/1.1 connection over a unix socket (the Host header says ``localhost``)."""

    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            s.connect(self._path)
        except OSError:
            s.close()
            raise
        self.sock = s


class Transport:
    """Where a Node-RED's HTTP server is (see the module's docstring)."""

    #: for messages: where the runtime is, as a user would name it
    where: str = ""

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        raise NotImplementedError

    def _socket(self, timeout: float) -> socket.socket:
        raise NotImplementedError

    def _prefix(self) -> str:
        return ""

    def http(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
             timeout: float = 10.0, limit: int = MAX_BODY) -> Response:
        """One request; the body read up to ``limit`` bytes. OSError (or ``http.client``'s
        exceptions, which are OSErrors or HTTPExceptions) when it cannot be made or read."""
        conn = self._connection(timeout)
        try:
            conn.request(method, self._prefix() + path, body=body, headers=headers or {})
            r = conn.getresponse()
            return Response(r.status, r.getheader("Content-Type", "") or "", r.read(limit))
        except http.client.HTTPException as e:
            raise OSError(f"bad HTTP answer ({type(e).__name__})") from None
        finally:
            conn.close()

    def websocket(self, path: str, timeout: float) -> websocket.WebSocket:
        """A websocket to ``path`` (e.g. ``/comms``). OSError or WebSocketException on failure."""
        sock = self._socket(timeout)
        try:
            return websocket.create_connection(self._ws_url(path), timeout=timeout, socket=sock)
        except BaseException:
            sock.close()
            raise

    def _ws_url(self, path: str) -> str:
        return "ws://localhost" + path


class TcpTransport(Transport):
    """A Node-RED at an ``http://`` or ``https://`` URL (its admin root)."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// or https:// URL")
        self._parts = parts
        self.where = self.url

    def _prefix(self) -> str:
        return self._parts.path

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return cls(self._parts.hostname, self._parts.port, timeout=timeout)

    def _socket(self, timeout: float) -> socket.socket:
        default = 443 if self._parts.scheme == "https" else 80
        return socket.create_connection((self._parts.hostname, self._parts.port or default), timeout=timeout)

    def websocket(self, path: str, timeout: float) -> websocket.WebSocket:
        scheme = "wss" if self._parts.scheme == "https" else "ws"
        return websocket.create_connection(f"{scheme}://{self._parts.netloc}{self._parts.path}{path}",
                                           timeout=timeout)


class UnixTransport(Transport):
    """A Node-RED behind a unix socket at ``path`` on this machine."""

    def __init__(self, path: str, where: str = "the private Node-RED"):
        self.path = path
        self.where = where

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        return _UnixConnection(self.path, timeout)

    def _socket(self, timeout: float) -> socket.socket:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.path)
        except OSError:
            s.close()
            raise
        return s
