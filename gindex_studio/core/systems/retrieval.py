"""BM25 over task texts (the ``bm25s`` library: small, numpy only): which curriculum programs'
texts are closest to a task's. Ties go to the earlier program, so answers are reproducible."""
from __future__ import annotations

import numpy as np

from gindex_studio.core.systems.corpus import Entry


def _tokens(texts: list[str]) -> list[list[str]]:
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


class Retriever:
    """An index of ``entries`` by their task text."""

    def __init__(self, entries: list[Entry]):
        import bm25s

        self.entries = list(entries)
        self._bm25 = bm25s.BM25()
        self._bm25.index(_tokens([e.text for e in self.entries]), show_progress=False)

    def nearest(self, text: str, k: int = 1) -> list[Entry]:
        """The ``k`` entries whose texts score highest for ``text`` (BM25), best first; among equal
        scores the earlier entry first (with no shared word: the first entries)."""
        scores = np.asarray(self._bm25.get_scores(_tokens([text])[0]), dtype=float)
        order = np.lexsort((np.arange(len(scores)), -scores))
        return [self.entries[i] for i in order[:k]]
