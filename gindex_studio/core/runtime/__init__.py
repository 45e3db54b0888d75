"""Running long work: limits, garbage-collector pauses, the Dask path, warning summaries."""
