"""What every system shares: a prompt in, an answer out, failures as values.

Contract: ``System.answer(prompt, params)`` never raises for a failure of the system itself (a
timeout, an HTTP error, a command that exits non-zero); it returns an ``Answer`` whose ``error``
says why in one line. It may be called from several threads at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Prompt:
    """What a system is asked: ``text`` (the rendered template) for a task ``task_id`` whose own
    English text is ``task_text`` (baselines read that; models read ``text``)."""

    task_id: str
    task_text: str
    text: str


@dataclass(frozen=True)
class Params:
    """Sampling parameters of one attempt (``attempt`` counts from 0). None: the system's default."""

    attempt: int = 0
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class Answer:
    """A system's answer: the text as written (verbatim), token counts when known, wall seconds,
    and ``error`` (one line) when no answer came."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class System(Protocol):
    """Something that answers prompts with flow programs."""

    name: str

    def answer(self, prompt: Prompt, params: Params) -> Answer: ...
