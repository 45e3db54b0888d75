"""Baselines, so every table has a floor: ``nearest`` answers with the curriculum program whose
task text is closest to the task's (what pure copying scores), ``empty`` answers nothing."""
from __future__ import annotations

from gindex_studio.core.systems.base import Answer, Params, Prompt
from gindex_studio.core.systems.corpus import Entry
from gindex_studio.core.systems.retrieval import Retriever


class Nearest:
    """The closest curriculum program (BM25 over task texts), its file's text verbatim."""

    name = "nearest"

    def __init__(self, curriculum: list[Entry]):
        self._index = Retriever(curriculum)

    def answer(self, prompt: Prompt, params: Params) -> Answer:
        return Answer(self._index.nearest(prompt.task_text)[0].source, 0, 0)


class Empty:
    """The empty program ``[]`` for every task: Δ = 1, the lowest θ."""

    name = "empty"

    def answer(self, prompt: Prompt, params: Params) -> Answer:
        return Answer("[]", 0, 0)
