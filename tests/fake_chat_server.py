"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests. A request with
``"stream": true`` gets a 200 reply as server-sent events (the content in ``STREAM_PIECE``-character
deltas, the usage in the last event, then ``[DONE]``).

``ChatServer(reply)``: ``reply(body, n)`` gets the request's JSON body and how many requests came
before it, and returns ``(status, headers, body bytes, delay seconds)``; the default answers
``answer_for(prompt)`` with status 200. ``requests`` holds every body and ``headers`` every
request's headers, in order; ``count`` is how many came."""
from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FLOW = [{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}]


def completion(text: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> bytes:
    """A chat-completions reply carrying ``text``."""
    return json.dumps({"id": "x", "object": "chat.completion", "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                 "total_tokens": prompt_tokens + completion_tokens}}).encode()


STREAM_PIECE = 4096


def events(reply: bytes) -> bytes:
    """A non-streamed reply as the server-sent events a streaming server sends."""
    value = json.loads(reply)
    text = value["choices"][0]["message"]["content"]
    out = []
    for i in range(0, len(text), STREAM_PIECE):
        out.append({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text[i:i + STREAM_PIECE]}}]})
    out.append({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": value.get("usage")})
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in out) + b"data: [DONE]\n\n"


def fenced(flow) -> str:
    return "Here is the flow:\n```json\n" + json.dumps(flow) + "\n```\n"


class ChatServer:
    def __init__(self, reply=None):
        self.reply = reply or (lambda body, n: (200, {}, completion(fenced(FLOW)), 0.0))
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        return len(self.requests)

    def handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else the body waits for a delayed ACK: 40 ms a request

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with server._lock:
                    n = len(server.requests)
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                status, headers, data, delay = server.reply(body, n)
                if body.get("stream") and status == 200:
                    headers, data = {**headers, "Content-Type": "text/event-stream"}, events(data)
                time.sleep(delay)
                try:
                    self.send_response(status)
                    for k, v in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                    pass

        return Handler


@contextmanager
def serve(server: ChatServer):
    """Run ``server`` on 127.0.0.1; yields the base URL (…/v1)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), server.handler())
    httpd.daemon_threads = True
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
