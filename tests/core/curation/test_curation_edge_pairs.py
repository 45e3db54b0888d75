"""Curation's edge counts (``engine._edge_pairs``) of a sparse Graph are read from its edge array:
its bitsets are not built (n² bits for a chain: 50 MB for a 20,000-node flow, issue 36) and the
counts, degrees and pair ids are those read from the bitsets."""
import random

from gindex_studio.core.curation.engine import _edge_pairs
from gindex_studio.core.scoring import matching as M
from gindex_studio.core.scoring.similarity import Signature


def _graphs(seed: int):
    """The same random graph (several ports, self-loops, repeated pairs) with bitsets and sparse."""
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    sigs = [Signature(rng.choice("abc"), frozenset(), frozenset(), {}) for _ in range(n)]
    edges = [(rng.randrange(n), rng.randrange(3), rng.randrange(n)) for _ in range(rng.randint(0, 3 * n))]
    ids = [f"n{i}" for i in range(n)]
    dense = M.build_graph(ids, sigs, edges)
    sparse = M.sparse_graph(ids, sigs, edges, dense.selfloop)
    return dense, sparse


def test_a_sparse_graph_gives_the_counts_of_its_bitsets_without_building_them():
    for seed in range(200):
        dense, sparse = _graphs(seed)
        assert sparse.sparse and not dense.sparse
        ids_dense, ids_sparse = {}, {}
        assert _edge_pairs(sparse, ids_sparse) == _edge_pairs(dense, ids_dense)
        assert list(ids_sparse.items()) == list(ids_dense.items())  # the same ids, in the same order
        assert sparse.sparse
