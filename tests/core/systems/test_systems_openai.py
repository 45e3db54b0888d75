"""The OpenAI-compatible system against a real HTTP server on 127.0.0.1: answers, token counts,
retries on 429 (honouring Retry-After) and 5xx, the timeout, a reply with no flow, a 10 MB flow,
the size bound, and the API key kept out of every error."""
from __future__ import annotations

import json
import time

import pytest

from fake_chat_server import FLOW, ChatServer, completion, fenced, serve
from gindex_studio.core.flows.reading import read_generated_text
from gindex_studio.core.systems.base import Params, Prompt
from gindex_studio.core.systems.openai_compat import Endpoint, OpenAICompatible, SetupError, retry_after

KEY = "sk-test-very-secret-0123456789"
PROMPT = Prompt("t1", "Inject then debug", "Write the flow: Inject then debug")


def system(url, sleeps=None, **kw):
    kw.setdefault("api_key_env", "GINDEX_TEST_KEY")
    return OpenAICompatible(Endpoint(url, "tiny-model", **kw), sleep=(sleeps.append if sleeps is not None else time.sleep))


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("GINDEX_TEST_KEY", KEY)


def scripted(*replies):
    """A server giving ``replies`` in order, then the last one again."""
    return ChatServer(lambda body, n: replies[min(n, len(replies) - 1)])


def test_an_answer_carries_the_text_tokens_and_the_request_its_parameters():
    s = ChatServer()
    with serve(s) as url:
        a = system(url).answer(PROMPT, Params(2, temperature=0.7, seed=5, max_tokens=300))
    assert a.ok and a.text == fenced(FLOW) and (a.prompt_tokens, a.completion_tokens) == (11, 7) and a.seconds > 0
    body = s.requests[0]
    assert body["model"] == "tiny-model" and body["messages"] == [{"role": "user", "content": PROMPT.text}]
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.7, 5, 300)
    assert s.headers[0]["Authorization"] == f"Bearer {KEY}"
    assert len(read_generated_text(a.text).flow.nodes) == 2


def test_unset_parameters_are_not_sent_and_no_key_sends_no_header():
    s = ChatServer()
    with serve(s) as url:
        assert system(url, api_key_env=None).answer(PROMPT, Params()).ok
    assert set(s.requests[0]) == {"model", "messages"} and "Authorization" not in s.headers[0]


def test_429_waits_what_retry_after_says_then_answers():
    sleeps = []
    s = scripted((429, {"Retry-After": "7"}, b"{}", 0), (200, {}, completion("[]"), 0))
    with serve(s) as url:
        a = system(url, sleeps).answer(PROMPT, Params())
    assert a.ok and a.text == "[]" and s.count == 2 and sleeps == [7.0]


def test_500s_back_off_exponentially_then_answer():
    sleeps = []
    s = scripted((500, {}, b"oops", 0), (503, {}, b"busy", 0), (200, {}, completion("[]"), 0))
    with serve(s) as url:
        a = system(url, sleeps, backoff=0.5).answer(PROMPT, Params())
    assert a.ok and s.count == 3 and sleeps == [0.5, 1.0]


def test_500s_past_the_retries_are_an_error_value():
    sleeps = []
    s = scripted((500, {}, f"echo {KEY}".encode(), 0))
    with serve(s) as url:
        a = system(url, sleeps, retries=2).answer(PROMPT, Params())
    assert not a.ok and a.text == "" and a.error == "HTTP 500 (after 3 tries)" and s.count == 3


@pytest.mark.slow
def test_a_slow_answer_past_the_timeout_is_an_error_and_is_retried():
    sleeps = []
    s = scripted((200, {}, completion("[]"), 2.0), (200, {}, completion("[]"), 0))
    with serve(s) as url:
        start = time.monotonic()
        slow = system(url, sleeps, timeout=0.3, retries=0).answer(PROMPT, Params())
        assert time.monotonic() - start < 1.5
        assert slow.error == "no answer within 0.3 s (after 1 try)"
        s.requests.clear()
        s.reply = lambda body, n: [(200, {}, completion("[]"), 2.0), (200, {}, completion("[]"), 0)][min(n, 1)]
        again = system(url, sleeps, timeout=0.3, retries=1).answer(PROMPT, Params())
    assert again.ok and s.count == 2


def test_a_4xx_is_not_retried_and_the_key_a_server_echoes_is_masked():
    s = scripted((401, {}, json.dumps({"error": f"bad key Bearer {KEY}"}).encode(), 0))
    with serve(s) as url:
        a = system(url, []).answer(PROMPT, Params())
    assert s.count == 1 and a.error.startswith("HTTP 401: ") and KEY not in a.error and "***" in a.error


def test_an_answer_with_no_flow_is_kept_verbatim():
    text = "I am sorry, I cannot write Node-RED flows."
    with serve(scripted((200, {}, completion(text), 0))) as url:
        a = system(url).answer(PROMPT, Params())
    assert a.ok and a.text == text
    read = read_generated_text(a.text)
    assert read.flow.nodes == [] and read.syntax is not None


def test_a_10_mb_flow_arrives_whole_and_reads():
    big = [{"id": f"n{i}", "type": "function", "func": "x" * 1000, "wires": [[f"n{i + 1}"]]} for i in range(10_000)]
    text = fenced(big)
    assert len(text) > 10_000_000
    with serve(scripted((200, {}, completion(text), 0))) as url:
        a = system(url).answer(PROMPT, Params())
        capped = system(url, max_bytes=2**20).answer(PROMPT, Params())
    assert a.ok and a.text == text and len(read_generated_text(a.text).flow.nodes) == 10_000
    assert capped.error == f"the reply is larger than {2**20:,} bytes"


@pytest.mark.slow
def test_a_reply_without_choices_or_not_json_is_an_error():
    with serve(scripted((200, {}, b'{"choices": []}', 0))) as url:
        assert system(url).answer(PROMPT, Params()).error == "the reply holds no choices[0].message.content"
    with serve(scripted((200, {}, b"<html>", 0))) as url:
        assert system(url).answer(PROMPT, Params()).error == "the reply is not JSON"


def test_no_server_is_an_error_after_the_retries():
    sleeps = []
    a = system("http://127.0.0.1:9/v1", sleeps, retries=1, timeout=2).answer(PROMPT, Params())
    assert a.error == "connection failed (ConnectError) (after 2 tries)" and len(sleeps) == 1


def test_a_missing_key_names_the_variable_only(monkeypatch):
    monkeypatch.delenv("GINDEX_TEST_KEY")
    with pytest.raises(SetupError, match="^the environment variable GINDEX_TEST_KEY holds no API key$"):
        system("http://127.0.0.1:9/v1")


def test_retry_after_reads_seconds_and_dates_and_caps_them():
    assert retry_after("3") == 3.0 and retry_after(None) is None and retry_after("soon") is None
    assert retry_after("Sun, 29 Nov 2026 02:00:10 GMT", now=1795917600.0) == 10.0
    assert retry_after("100000") == 120.0 and retry_after("-5") == 0.0


@pytest.mark.parametrize("size", [10, 10_000_000])
def test_a_streamed_answer_is_the_same_answer(size):
    text = fenced([{"id": "a", "type": "function", "func": "x" * size, "wires": []}])
    s = scripted((200, {}, completion(text, 5, 9), 0))
    with serve(s) as url:
        plain = system(url).answer(PROMPT, Params())
        streamed = system(url, stream=True).answer(PROMPT, Params(seed=1))
    assert s.requests[1]["stream"] is True and "stream" not in s.requests[0]
    assert streamed.ok and streamed.text == plain.text == text
    assert (streamed.prompt_tokens, streamed.completion_tokens) == (5, 9)


def test_a_streamed_error_or_broken_event_is_an_error_value():
    from gindex_studio.core.systems.openai_compat import joined_events

    with pytest.raises(ValueError, match="reports an error"):
        joined_events(b'data: {"error": {"message": "overloaded"}}\n\n')
    with pytest.raises(ValueError, match="not JSON"):
        joined_events(b"data: {nope\n\n")
    assert joined_events(b": keep-alive\n\ndata: [DONE]\n\n")["choices"][0]["message"]["content"] == ""


def test_a_server_trickling_bytes_is_cut_at_the_timeout_in_all():
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()

    def trickle():
        conn, _ = srv.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        try:
            for _ in range(100):
                conn.sendall(b" " * 10)
                time.sleep(0.05)
        except OSError:
            pass
        conn.close()

    threading.Thread(target=trickle, daemon=True).start()
    start = time.monotonic()
    a = system(f"http://127.0.0.1:{srv.getsockname()[1]}/v1", [], timeout=0.5, retries=0).answer(PROMPT, Params())
    srv.close()
    assert a.error == "no answer within 0.5 s (after 1 try)" and time.monotonic() - start < 2
