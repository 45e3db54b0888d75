"""Scoring: node similarity, the exact common-subgraph search, Δ and its report."""
