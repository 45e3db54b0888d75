"""The scoring core as a library: Δ, Ω and the g-index from a notebook or a training loop.

Import it as ``import gindex_studio as gs``; every name here is re-exported there. Inputs are
taken in whatever form a researcher has at hand: a file path, JSON text (raw model output for a
generated program), a Python list of node dicts, or the studio's own :class:`~gindex_studio.core.flows.flow.Flow`.
Results are dataclasses with a plain-data ``.to_dict()``. Nothing here imports Qt.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

from gindex_studio.core.scoring.divergence import ScoreOptions, ScoreResult
from gindex_studio.core.benchmark.experiment import Experiment, ExperimentError
from gindex_studio.core.flows.flow import Flow, FlowError
from gindex_studio.core.benchmark.gindex import GIndexResult

FlowLike = Union[Flow, str, bytes, os.PathLike, Sequence[Mapping[str, Any]], Mapping[str, Any]]

__all__ = [
    "Flow", "FlowError", "FlowLike", "ScoreOptions", "ScoreResult", "OmegaResult", "GIndexResult",
    "Experiment", "ExperimentError",
    "read_flow", "read_curriculum", "score", "omega", "gindex", "load_experiment",
    "curate", "CurationResult", "read_flatland", "draw_flatland",
]


def _looks_like_json(text: str) -> bool:
    """A string is text, not a file path, when it holds a JSON bracket, a fence or a line break."""
    return any(c in text for c in "[{`\n")


def read_flow(source: FlowLike, *, lenient: bool = False) -> Flow:
    """Read a flow program from a path, JSON text, a list of node dicts or a ``Flow``.

    Parameters
    ----------
    source : Flow, str, bytes, os.PathLike, list of dict or dict
        A ``Flow`` is returned as it is. A string holding ``[``, ``{``, a backtick or a line
        break, and ``bytes``, are text; any other string or path-like is a file path. A list holds
        node dicts (a Node-RED array); a dict is a dataset task (``{"flow": [...]}``), a
        ``{"flows": [...]}`` object or a single node.
    lenient : bool, default False
        Read text as model output: code fences, prose, trailing commas and truncation are
        recovered from instead of raising (the reading of a *generated* program).

    Returns
    -------
    Flow

    Raises
    ------
    FlowError
        The file is missing or unreadable, or (when not ``lenient``) the text is not a flow.

    Examples
    --------
    >>> import gindex_studio as gs
    >>> flow = gs.read_flow([{"id": "a", "type": "inject", "wires": [["b"]]},
    ...                      {"id": "b", "type": "debug", "wires": []}])
    >>> [n.type for n in flow.nodes]
    ['inject', 'debug']
    >>> len(gs.read_flow('Here it is: [{"id": "a", "type": "inject"}, {"id": "b"', lenient=True).nodes)
    1
    >>> gs.read_flow('[{"id": "a"', lenient=False)
    Traceback (most recent call last):
    ...
    gindex_studio.core.flows.flow.FlowError: not valid JSON: ...
    """
    from gindex_studio.core.flows.flow import flow_from_value, read_flow_bytes, read_user_file
    from gindex_studio.core.flows.lenient import read_model_output

    if isinstance(source, Flow):
        return source
    if isinstance(source, (list, tuple, Mapping)):
        return flow_from_value(list(source) if isinstance(source, tuple) else source)
    if isinstance(source, str) and _looks_like_json(source) or isinstance(source, bytes):
        text = source
    elif isinstance(source, (str, os.PathLike)):
        text = read_user_file(source)
        if not lenient:
            try:
                return read_flow_bytes(text)
            except FlowError as e:
                raise FlowError(f"{Path(source)}: {e}") from None
    else:
        raise TypeError(f"cannot read a flow from {type(source).__name__}")
    return read_model_output(text).flow if lenient else read_flow_bytes(text)


def _options(options: ScoreOptions | None, kwargs: dict) -> ScoreOptions:
    if options is not None and kwargs:
        raise TypeError("give either options= or keyword options, not both")
    return options if options is not None else ScoreOptions(**kwargs)


def score(reference: FlowLike, generated: FlowLike, *, options: ScoreOptions | None = None,
          **option_kwargs) -> ScoreResult:
    """Δ of a generated program against its reference, with the mapping and the error kinds.

    The reference is read strictly; the generated program leniently (raw model output is fine:
    a syntax problem is reported in ``result.errors["syntax"]``, and what could be recovered is
    scored).

    Parameters
    ----------
    reference, generated : FlowLike
        See :func:`read_flow`.
    options : ScoreOptions, optional
        How Δ is computed; or give its fields as keywords: ``profile`` (a registered profile's
        name, ``profiles.names()``, or the ``Profile``; default: the paper's), ``ignore_types``,
        ``port_aware``, ``fill_defaults``, ``deadline``. ``options.profile`` is the ``Profile``;
        ``to_dict()`` writes its name.

    Returns
    -------
    ScoreResult
        ``delta``, ``theta``, ``exact``, ``mapping``, ``missing_nodes`` … and ``to_dict()``.

    Examples
    --------
    >>> import gindex_studio as gs
    >>> ref = [{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}]
    >>> gs.score(ref, ref).delta
    0.0
    >>> r = gs.score(ref, '[{"id": "x", "type": "inject", "wires": []}]')
    >>> r.delta, r.missing_nodes
    (0.5, ['b'])
    >>> gs.score(ref, ref, profile="companion").to_dict()["profile"]
    'companion'
    """
    from gindex_studio.core.scoring.divergence import score as _score
    from gindex_studio.core.flows.reading import read_generated_file, read_generated_text

    opts = _options(options, option_kwargs)
    ref = read_flow(reference)
    syntax = None
    if isinstance(generated, Flow) or isinstance(generated, (list, tuple, Mapping)):
        gen = read_flow(generated)
    else:
        if isinstance(generated, bytes) or isinstance(generated, str) and _looks_like_json(generated):
            read = read_generated_text(generated)
        else:
            read = read_generated_file(generated)
        gen, syntax = read.flow, read.syntax
    return _score(ref, gen, opts, syntax=syntax)


@dataclass
class OmegaResult:
    """Ω of one task: the Δ to its nearest curriculum program, overall and per domain.

    ``nearest`` is the nearest program's label (None for an empty curriculum); ``exact`` is false
    only when a deadline cut a search that might have gone lower (the true Ω then lies in
    ``[omega_lower, omega]``)."""

    omega: float
    nearest: str | None
    exact: bool
    omega_lower: float
    domains: dict[str, dict] = field(default_factory=dict)
    searched: int = 0
    skipped: int = 0

    def to_dict(self) -> dict:
        return {"omega": self.omega, "nearest": self.nearest, "exact": self.exact,
                "omega_lower": self.omega_lower, "domains": {d: dict(v) for d, v in self.domains.items()},
                "searched": self.searched, "skipped": self.skipped}


def read_curriculum(source: str | os.PathLike | Mapping[str, Iterable[FlowLike]], *,
                    options: ScoreOptions | None = None, **option_kwargs):
    """A :class:`~gindex_studio.core.benchmark.curriculum.Curriculum` from a folder or a dict of domains.

    Parameters
    ----------
    source : path or dict
        A folder of ``.json`` programs, one sub-folder per domain (files directly in the folder
        take their domain from the dataset ``"name"``), or a dict ``{domain: [program, ...]}``
        whose programs are anything :func:`read_flow` reads.
    options : ScoreOptions, optional
        Or its fields as keywords (see :func:`score`).

    Examples
    --------
    >>> import gindex_studio as gs
    >>> cur = gs.read_curriculum({"log": [[{"id": "a", "type": "debug"}]]})
    >>> len(cur), cur.domains
    (1, ['log'])
    """
    from gindex_studio.core.benchmark.curriculum import Curriculum
    from gindex_studio.core.benchmark.curriculum_files import read_curriculum_folder

    opts = _options(options, option_kwargs)
    if isinstance(source, Mapping):
        flows, domains, labels = [], [], []
        for domain, programs in source.items():
            for k, p in enumerate(programs):
                flows.append(read_flow(p))
                domains.append(str(domain))
                labels.append(p if isinstance(p, str) and not _looks_like_json(p) else f"{domain}/{k}")
        return Curriculum.from_flows(flows, domains, [str(x) for x in labels], opts)
    flows, domains, labels = read_curriculum_folder(Path(source))
    return Curriculum.from_flows(flows, domains, labels, opts)


def omega(task: FlowLike, curriculum, *, options: ScoreOptions | None = None, **option_kwargs) -> OmegaResult:
    """Ω of a task: the smallest Δ from its reference program to any curriculum program.

    Parameters
    ----------
    task : FlowLike
        The task's reference program (read strictly).
    curriculum : Curriculum, path or dict
        A ``Curriculum`` (its own scoring options are used), or what :func:`read_curriculum`
        reads.
    options : ScoreOptions, optional
        Or its fields as keywords; only when ``curriculum`` is not already a ``Curriculum``.

    Returns
    -------
    OmegaResult

    Examples
    --------
    >>> import gindex_studio as gs
    >>> prog = [{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}]
    >>> other = [{"id": "c", "type": "http in", "wires": []}]
    >>> r = gs.omega(prog, {"same": [prog], "other": [other]})
    >>> r.omega, r.nearest
    (0.0, 'same/0')
    >>> r.domains["other"]["omega"]
    1.0
    """
    from gindex_studio.core.benchmark.curriculum import Curriculum, overall
    from gindex_studio.core.scoring.divergence import prepare

    cur = curriculum if isinstance(curriculum, Curriculum) else read_curriculum(
        curriculum, options=options, **option_kwargs)
    per = cur.nearest_by_domain(prepare(read_flow(task), cur.options), cur.options.deadline)
    best = overall(per)
    label = (lambda i: cur.labels[i] if i is not None else None)
    return OmegaResult(
        omega=best.omega, nearest=label(best.index), exact=best.exact,
        omega_lower=best.omega_lower if best.omega_lower is not None else best.omega,
        domains={d: {"omega": n.omega, "nearest": label(n.index), "exact": n.exact} for d, n in per.items()},
        searched=best.searched, skipped=best.skipped,
    )


def load_experiment(path: str | os.PathLike) -> Experiment:
    """Read an experiment file (the studio's format, ``docs/experiment-format.md``).

    Raises
    ------
    ExperimentError
        With a one-line reason naming the field at fault.

    Examples
    --------
    >>> import gindex_studio as gs
    >>> from gindex_studio.paths import DEMO_DIR
    >>> exp = gs.load_experiment(DEMO_DIR / "experiment.json")
    >>> len(exp.tasks)
    16
    """
    from gindex_studio.core.benchmark.experiment import load_experiment as _load

    return _load(path)


def gindex(experiment: Experiment | str | os.PathLike | Mapping[str, Any], *, workers: int | None = 1,
           client=None, options: ScoreOptions | None = None, **option_kwargs) -> GIndexResult:
    """The g-index of an experiment, with θ, Ω, GD and the contribution of every task.

    Parameters
    ----------
    experiment : Experiment, path or dict
        An ``Experiment``, an experiment file, or its parsed JSON value (relative paths inside a
        dict are resolved against the working directory).
    workers : int or None, default 1
        Processes for Ω (None: all cores). One keeps a notebook free of child processes.
    client : distributed.Client, optional
        Compute Ω on this Dask cluster instead (``pip install 'gindex-studio[dask]'``).
    options : ScoreOptions, optional
        Override the experiment's own scoring options (or give them as keywords).

    Returns
    -------
    GIndexResult
        ``g_index``, ``tasks`` (each a ``TaskResult``), ``theta_mean`` … and ``to_dict()``.

    Examples
    --------
    >>> import gindex_studio as gs
    >>> from gindex_studio.paths import DEMO_DIR
    >>> round(gs.gindex(DEMO_DIR / "experiment.json").g_index, 3)
    7099.722
    """
    from gindex_studio.core.benchmark.experiment import experiment_from_value
    from gindex_studio.core.benchmark.gindex import compute_gindex

    if isinstance(experiment, Mapping):
        exp = experiment_from_value(dict(experiment), Path.cwd() / "experiment.json")
    elif isinstance(experiment, Experiment):
        exp = experiment
    else:
        exp = load_experiment(experiment)
    opts = _options(options, option_kwargs) if (options is not None or option_kwargs) else None
    return compute_gindex(exp, options=opts, workers=workers, client=client)


def curate(source: str | os.PathLike, tasks: Iterable[str | os.PathLike] = (), *, duplicates: float = 0.05,
           leaks: float = 0.05, outliers: float = 0.5, client=None, options: ScoreOptions | None = None,
           **option_kwargs):
    """Curation report of a folder of programs (one sub-folder per domain), an experiment, or a
    curriculum folder plus ``tasks``: near-duplicate groups, Ω and leaks of the test programs,
    neighbours, likely mislabels, outliers and per-domain coverage (exact Δ, as ``curate``).

    Parameters
    ----------
    source, tasks : paths, as for the ``curate`` command.
    duplicates, leaks, outliers : the thresholds (Δ ≤ duplicates, Ω ≤ leaks, nearest own-domain
        program at Δ ≥ outliers).
    client : a ``distributed.Client``: the searches run on its cluster (same values).
    options, **option_kwargs : scoring options (default: the experiment's, else the paper profile).

    Returns
    -------
    CurationResult
        ``.report`` (a ``CurationReport``: indices refer to ``.workspace.items``, each with
        ``label``, ``domain``, ``role``) and ``.to_dict()``, the ``curate --json`` data.

    Examples
    --------
    >>> from gindex_studio.paths import DEMO_DIR
    >>> res = curate(DEMO_DIR / "programs")
    >>> len(res.workspace.items), res.to_dict()["leaks"] == []
    (64, True)
    """
    from fractions import Fraction

    from gindex_studio.core.curation.report import analyse, engine_for
    from gindex_studio.core.curation.workspace import load_workspace

    ws = load_workspace(source, list(tasks))
    if options is not None or option_kwargs:
        ws.options = _options(options if options is not None else ws.options, option_kwargs)
    rep = analyse(ws, engine_for(ws, client=client), Fraction(str(duplicates)), Fraction(str(leaks)),
                  Fraction(str(outliers)))
    return CurationResult(ws, rep)


@dataclass
class CurationResult:
    """What ``curate`` found: the workspace (programs, domains, roles) and the report."""

    workspace: Any
    report: Any

    def to_dict(self) -> dict:
        """Plain data, as ``gindex-studio curate --json`` prints it."""
        from gindex_studio.core.curation.report import report_value

        return report_value(self.workspace, self.report)


def read_flatland(source: str | os.PathLike, *, library: str | os.PathLike | None = None):
    """A Flatland program (``.fbp``, ``.lisp`` or the flat JSON), resolved into one flat program
    of start / move / turn / loop nodes; sub-flows are included from ``library`` (default: the
    bundled Flatland library). A path, or the program's text.

    Examples
    --------
    >>> from gindex_studio.paths import RESOURCES
    >>> car = read_flatland(RESOURCES / "flatland" / "car.fbp")
    >>> score(car.to_flow(), car.to_flow(), profile="flatland").delta
    0.0
    """
    from gindex_studio.core.flatland.resolve import load_file, load_text

    text = os.fspath(source) if not isinstance(source, os.PathLike) else None
    if text is not None and ("\n" in text or text.lstrip().startswith(("(", "[", "{"))):
        return load_text(text, library=library)
    return load_file(source, library=library)


def draw_flatland(program):
    """The 128×128 boolean drawing (numpy) of a Flatland program (see ``read_flatland``).

    Examples
    --------
    >>> from gindex_studio.paths import RESOURCES
    >>> img = draw_flatland(read_flatland(RESOURCES / "flatland" / "square.fbp"))
    >>> img.shape, bool(img.any())
    ((128, 128), True)
    """
    from gindex_studio.core.flatland.score import draw

    return draw(program)
