"""Node-RED's editor websocket (``/comms``): debug messages, node status and runtime notices.

:class:`Comms` connects (authenticating with the admin token), subscribes to ``debug``,
``status/#`` and ``notification/#``, and keeps every event in order in a list that callers read
from a position (``events_since``) or wait on (``wait_for``); listeners are called on the reader
thread. The debug node's encoding of values is undone by :func:`decode_debug`.

What a runtime sends is a flow's output, so its memory is bounded: a websocket frame over
:data:`MAX_FRAME` bytes (one batch of events: e.g. a 100 MB debug message) is skipped unread, and
once :data:`MAX_KEPT` bytes of events are kept, later debug messages keep their node but not their
value. Either is said once, as an error event without a node (a ``runtime-error`` problem).
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import websocket  # websocket-client: a small synchronous client with timeouts (see pyproject)

from gindex_studio.core.nodered.runtime import NodeRedError, Runtime

#: debug events carrying a log record: Node-RED's log levels
ERROR, WARN = 20, 30
#: the largest websocket frame read (bytes); a larger one is skipped and reported
MAX_FRAME = 16 * 1024 * 1024
#: the most bytes of events kept per connection; past it debug messages lose their value
MAX_KEPT = 128 * 1024 * 1024
_OPCODE_CONT = 0


@dataclass
class Event:
    """One thing the runtime said. kind: ``debug`` (a debug node's message, or with ``level`` a
    node's logged error/warning), ``status`` or ``notification``. ``node_id`` as deployed."""

    seq: int
    kind: str
    node_id: str | None
    data: dict[str, Any] = field(default_factory=dict)
    time: float = 0.0

    @property
    def level(self) -> int | None:
        lv = self.data.get("level")
        return lv if isinstance(lv, int) else None

    @property
    def value(self) -> Any:
        """The decoded message value of a debug event."""
        return decode_debug(self.data)


def decode_debug(data: dict) -> Any:
    """Undo the debug node's encoding (``msg`` text + ``format``) into a plain value."""
    msg, fmt = data.get("msg"), str(data.get("format") or "")
    if not isinstance(msg, str):
        return msg
    if fmt.startswith("string"):
        return msg
    if fmt == "number":
        try:
            return int(msg)
        except ValueError:
            try:
                return float(msg)
            except ValueError:
                return msg
    if fmt == "boolean":
        return msg == "true"
    if fmt == "null":
        return None
    if fmt == "undefined":
        return "<undefined>"
    try:
        return json.loads(msg)
    except ValueError:
        return msg


class Comms:
    """A connection to ``<runtime>/comms`` (see the module's docstring)."""

    def __init__(self, runtime: Runtime, timeout: float = 10.0):
        self.events: list[Event] = []
        self.listeners: list[Callable[[Event], None]] = []
        self._cond = threading.Condition()
        self._closed = False
        try:
            self.ws = runtime.transport.websocket("/comms", timeout)
            if runtime.token:
                self.ws.send(json.dumps({"auth": runtime.token}))
                reply = json.loads(self.ws.recv())
                if reply != {"auth": "ok"}:
                    raise NodeRedError(f"Node-RED at {runtime.where} refused the admin token on /comms")
            for topic in ("debug", "status/#", "notification/#"):
                self.ws.send(json.dumps({"subscribe": topic}))
        except (OSError, websocket.WebSocketException, ValueError) as e:
            raise NodeRedError(f"cannot open the /comms websocket of Node-RED at {runtime.where}: {e}") from None
        self.ws.settimeout(0.5)
        self._kept = 0
        self._fragments = 0
        #: a websocket frame is being read (or skipped): the flow's output is still arriving, though
        #: the runtime itself may already be idle (a 95 MB message takes seconds to come in under load)
        self.receiving = False
        self._said: set[str] = set()
        self._guard_frames()
        self._thread = threading.Thread(target=self._read, name="nodered-comms", daemon=True)
        self._thread.start()

    def _guard_frames(self) -> None:
        """Make the websocket skip (read and drop) frames, or fragmented messages, over
        :data:`MAX_FRAME` bytes instead of holding them in memory."""
        fb = self.ws.frame_buffer
        read_length = fb.recv_length

        def recv_length() -> None:
            read_length()
            self.receiving = True
            fin, opcode = fb.header[0], fb.header[4]
            self._fragments = fb.length + (self._fragments if opcode == _OPCODE_CONT else 0)
            if fb.length <= MAX_FRAME and self._fragments <= MAX_FRAME:
                if fin:
                    self._fragments = 0
                return
            length, fb.length = fb.length, 0  # websocket-client reads an empty payload
            self._drain(fb, length)
            self._say("frame", f"the runtime sent a message of {self._fragments / 2**20:.0f} MB (over the "
                               f"{MAX_FRAME // 2**20} MB limit): skipped")
        fb.recv_length = recv_length

    def _drain(self, fb, length: int) -> None:
        sock = self.ws.sock
        keep = sock.gettimeout()
        sock.settimeout(10)
        try:
            while length:
                length -= len(fb.recv_strict(min(length, 1 << 16)))
        except websocket.WebSocketTimeoutException:
            raise websocket.WebSocketProtocolException("a skipped frame did not arrive") from None
        finally:
            sock.settimeout(keep)

    def _say(self, key: str, text: str) -> None:
        """One error event without a node, once per ``key``."""
        if key not in self._said:
            self._said.add(key)
            self._add("debug", {"level": ERROR, "msg": text, "format": "string"})

    def _read(self) -> None:
        while not self._closed:
            try:
                raw = self.ws.recv()
            except websocket.WebSocketTimeoutException:
                self.receiving = False
                continue
            except (OSError, websocket.WebSocketException):
                self.receiving = False
                break
            self.receiving = False
            try:
                batch = json.loads(raw)
            except ValueError:
                continue
            items = [i for i in (batch if isinstance(batch, list) else [batch]) if isinstance(i, dict) and "topic" in i]
            share = len(raw) // max(1, len(items))
            for item in items:
                self._kept += share + 200
                data = item.get("data")
                if self._kept > MAX_KEPT and item["topic"] == "debug" and isinstance(data, dict) \
                        and data.get("level") is None:
                    data = {"id": data.get("id"), "msg": "<dropped>", "format": "string"}
                    self._say("kept", f"the runtime sent over {MAX_KEPT // 2**20} MB of messages: later values dropped")
                self._add(item["topic"], data)
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _add(self, topic: str, data: Any) -> None:
        data = data if isinstance(data, dict) else {"value": data}
        if topic == "debug":
            kind, node = "debug", data.get("id")
        elif topic.startswith("status/"):
            kind, node = "status", topic[len("status/"):]
        else:
            kind, node = "notification", None
            data = dict(data, topic=topic)
        with self._cond:
            ev = Event(len(self.events), kind, node if isinstance(node, str) else None, data, time.monotonic())
            self.events.append(ev)
            self._cond.notify_all()
        for fn in list(self.listeners):
            fn(ev)

    @property
    def position(self) -> int:
        with self._cond:
            return len(self.events)

    def events_since(self, pos: int) -> list[Event]:
        with self._cond:
            return self.events[pos:]

    def wait_quiet(self, pos: int, quiet: float, timeout: float, busy: Callable[[], bool] = lambda: False) -> bool:
        """Wait until no event arrived for ``quiet`` seconds (and ``busy()`` is false), at most
        ``timeout`` seconds after the call. True when it went quiet, False on the timeout."""
        end = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            with self._cond:
                last = self.events[-1].time if len(self.events) > pos else None
            since = now - last if last is not None else None
            if not busy() and (since is None or since >= quiet):
                # nothing yet: still give the flow ``quiet`` seconds from the call
                if since is not None or now >= end - timeout + quiet:
                    return True
            if now >= end:
                return False
            with self._cond:
                self._cond.wait(0.05)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        try:
            self.ws.close()
        except (OSError, websocket.WebSocketException):
            pass
        self._thread.join(2)
