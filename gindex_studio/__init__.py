"""gindex-studio: measure general machine intelligence with the g-index.

The scoring core is a library: ``import gindex_studio as gs`` gives ``gs.score``, ``gs.omega``,
``gs.gindex``, ``gs.read_flow``, ``gs.read_curriculum``, ``gs.load_experiment``, ``gs.curate``,
``gs.read_flatland`` and ``gs.draw_flatland`` (see
:mod:`gindex_studio.api` and ``docs/python-api.md``). The names load on first use, so importing
the package stays cheap, and nothing here imports Qt.

>>> import gindex_studio as gs
>>> gs.score([{"id": "a", "type": "debug"}], [{"id": "b", "type": "debug"}]).theta
1.0
"""
__version__ = "0.1.0"

#: The public names, stable across releases (re-exported from :mod:`gindex_studio.api`).
__all__ = [
    "Flow", "FlowError", "ScoreOptions", "ScoreResult", "OmegaResult", "GIndexResult",
    "Experiment", "ExperimentError",
    "read_flow", "read_curriculum", "score", "omega", "gindex", "load_experiment",
    "curate", "CurationResult", "read_flatland", "draw_flatland",
    "__version__",
]


def __getattr__(name: str):
    if name in __all__:
        from gindex_studio import api

        return getattr(api, name)
    raise AttributeError(f"module 'gindex_studio' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
