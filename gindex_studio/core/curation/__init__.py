"""Curriculum curation (issue 9): near-duplicates, leaks, neighbours, coverage, the split.

- ``workspace``: programs with roles and domains, loading and saving the split;
- ``engine``: exact Δ between them with bound-based pruning;
- ``analysis``: duplicate groups, Ω and leaks, neighbours, mislabels, outliers, coverage, the
  clustering order and the 2-D map;
- ``report``: one pass of all of it; ``cache``: Δ values on disk.
"""
