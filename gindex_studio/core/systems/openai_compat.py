"""Any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server, Ollama, LM Studio,
hosted APIs) through ``httpx`` (the ``[models]`` extra).

Contracts: the API key is read from the environment variable the user names and goes only into the
``Authorization`` header: never into an answer, an error line or a log (error text has it masked
in case a server echoes it). Each request has a timeout; 429, 5xx, timeouts and lost connections
are retried with exponential back-off, waiting ``Retry-After`` (seconds or an HTTP date, capped)
when the server gives it. A reply larger than ``max_bytes`` is refused, and so is one that takes
longer than the timeout in all (a server trickling bytes). ``stream=True`` asks for server-sent
events and joins their deltas: the same answer, for servers that answer faster that way.
"""
from __future__ import annotations

import email.utils
import os
import time
from dataclasses import dataclass

import orjson

from gindex_studio.core.systems.base import Answer, Params, Prompt

#: The longest wait a ``Retry-After`` may ask for (seconds).
MAX_RETRY_AFTER = 120.0


class SetupError(ValueError):
    """The system cannot be set up (no httpx, no key in the named variable): one line."""


@dataclass
class Endpoint:
    """Where and how to ask: ``base_url`` (…/v1), ``model``, the name of the key's variable (None:
    no key), seconds per request, retries after the first try, the first back-off in seconds."""

    base_url: str
    model: str
    api_key_env: str | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    max_bytes: int = 64 * 2**20
    stream: bool = False


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date), capped at
    ``MAX_RETRY_AFTER``; None when absent or unreadable."""
    if not value:
        return None
    try:
        secs = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value).timestamp()
        except (TypeError, ValueError):
            return None
        secs = when - (time.time() if now is None else now)
    return min(max(secs, 0.0), MAX_RETRY_AFTER)


class _Retry(Exception):
    def __init__(self, why: str, wait: float | None = None):
        super().__init__(why)
        self.wait = wait


class OpenAICompatible:
    """A chat-completions endpoint as a ``System`` (thread-safe: one pooled ``httpx.Client``)."""

    def __init__(self, endpoint: Endpoint, sleep=time.sleep):
        try:
            import httpx
        except ImportError:
            raise SetupError("the openai system needs httpx: pip install 'gindex-studio[models]'") from None
        self.endpoint = endpoint
        self.name = endpoint.model
        self._key = None
        if endpoint.api_key_env:
            self._key = os.environ.get(endpoint.api_key_env)
            if not self._key:
                raise SetupError(f"the environment variable {endpoint.api_key_env} holds no API key")
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        self._url = endpoint.base_url.rstrip("/") + "/chat/completions"
        self._client = httpx.Client(headers=headers, timeout=endpoint.timeout,
                                    limits=httpx.Limits(max_connections=64, max_keepalive_connections=64))
        self._httpx = httpx
        self._sleep = sleep

    def close(self) -> None:
        self._client.close()

    def _mask(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    def body(self, prompt: Prompt, params: Params) -> dict:
        """The request's JSON body."""
        body = {"model": self.endpoint.model, "messages": [{"role": "user", "content": prompt.text}]}
        for key, value in (("temperature", params.temperature), ("seed", params.seed), ("max_tokens", params.max_tokens)):
            if value is not None:
                body[key] = value
        if self.endpoint.stream:
            body["stream"] = True
        return body

    def _once(self, body: bytes) -> dict:
        httpx = self._httpx
        try:
            with self._client.stream("POST", self._url, content=body,
                                     headers={"Content-Type": "application/json"}) as r:
                chunks, size, start = [], 0, time.monotonic()
                for chunk in r.iter_bytes():
                    size += len(chunk)
                    if size > self.endpoint.max_bytes:
                        raise ValueError(f"the reply is larger than {self.endpoint.max_bytes:,} bytes")
                    if time.monotonic() - start > self.endpoint.timeout:
                        raise httpx.ReadTimeout("past the timeout in all")
                    chunks.append(chunk)
                data = b"".join(chunks)
        except httpx.TimeoutException:
            raise _Retry(f"no answer within {self.endpoint.timeout:g} s") from None
        except httpx.TransportError as e:
            raise _Retry(f"connection failed ({type(e).__name__})") from None
        if r.status_code == 429 or r.status_code >= 500:
            raise _Retry(f"HTTP {r.status_code}", retry_after(r.headers.get("Retry-After")))
        if r.status_code >= 400:
            raise ValueError(f"HTTP {r.status_code}: {data[:200].decode('utf-8', 'replace')}")
        if self.endpoint.stream and r.headers.get("content-type", "").startswith("text/event-stream"):
            return joined_events(data)
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise ValueError("the reply is not JSON") from None

    def answer(self, prompt: Prompt, params: Params) -> Answer:
        start = time.monotonic()
        body = orjson.dumps(self.body(prompt, params))
        why = ""
        for attempt in range(self.endpoint.retries + 1):
            try:
                reply = self._once(body)
                break
            except _Retry as e:
                why = str(e)
                if attempt < self.endpoint.retries:
                    self._sleep(e.wait if e.wait is not None else self.endpoint.backoff * 2**attempt)
            except ValueError as e:
                return Answer("", seconds=time.monotonic() - start, error=self._mask(" ".join(str(e).split())))
        else:
            tries = self.endpoint.retries + 1
            return Answer("", seconds=time.monotonic() - start,
                          error=self._mask(f"{why} (after {tries} tr{'y' if tries == 1 else 'ies'})"))
        return _answer(reply, time.monotonic() - start)


def joined_events(data: bytes) -> dict:
    """A streamed reply (server-sent events of ``chat.completion.chunk``) as one non-streamed reply:
    the first choice's content deltas joined, the last usage given. Raises ValueError for an event
    that is not JSON or carries an error."""
    parts, usage = [], None
    for line in data.splitlines():
        if not line.startswith(b"data:"):
            continue
        payload = line[5:].strip()
        if payload == b"[DONE]":
            break
        try:
            event = orjson.loads(payload)
        except orjson.JSONDecodeError:
            raise ValueError("an event of the stream is not JSON") from None
        if not isinstance(event, dict):
            raise ValueError("an event of the stream is not a JSON object")
        if "error" in event:
            raise ValueError(f"the stream reports an error: {str(event['error'])[:200]}")
        usage = event.get("usage") or usage
        for choice in event.get("choices") or ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                parts.append((choice.get("delta") or {}).get("content") or "")
    return {"choices": [{"message": {"content": "".join(parts)}}], "usage": usage}


def _answer(reply: dict, seconds: float) -> Answer:
    """The first choice's message of a chat-completions reply, with its usage."""
    try:
        text = reply["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        return Answer("", seconds=seconds, error="the reply holds no choices[0].message.content")
    usage = reply.get("usage") if isinstance(reply.get("usage"), dict) else {}
    return Answer(text, usage.get("prompt_tokens"), usage.get("completion_tokens"), seconds)
