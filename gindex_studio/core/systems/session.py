"""A run prepared for ``gindex-studio attempt`` and the studio's File → Run System… alike: the same
system, prompts, settings and log, so either resumes what the other started.

``RunConfig`` holds what the user chose; ``prepare(config)`` reads the curriculum and tasks,
renders the prompts, makes the system, checks the experiment can be written and that the log
beside it (if any) is this system's, and returns a ``Session``. Every refusal is a
``SessionError`` of one line. The API key is read from the variable the config names, inside the
system, and is never part of the config, the settings or a message.
"""
from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from gindex_studio.core.benchmark.experiment import Experiment
from gindex_studio.core.benchmark.validate import ExperimentError
from gindex_studio.core.systems import corpus, prompts, run as runs
from gindex_studio.core.systems.runlog import RunLog, log_path, read_log

SYSTEMS = ("nearest", "empty", "command", "openai")


class SessionError(ValueError):
    """The run cannot start: one line saying why."""


@dataclass
class RunConfig:
    """What the user chose. ``system``: one of ``SYSTEMS``; ``api_key_env``: the NAME of the
    environment variable holding the key ("" for none), never the key. The rest as ``attempt``'s
    options of the same names (``template`` None: the default template; ``samples``: training
    samples per domain, ``default_samples`` for the others, None: each domain's program count)."""

    system: str
    curriculum: Path
    tasks: list[Path]
    output: Path
    attempts: int = 1
    concurrency: int = 1
    base_url: str = ""
    model: str = ""
    api_key_env: str = ""
    stream: bool = False
    command: str = ""
    timeout: float = 120.0
    retries: int = 4
    compute: float = 2.0
    name: str = ""
    priors: float = 1e-4
    profile: str | None = None
    samples: dict[str, int] | None = None
    default_samples: int | None = None
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    price_in: float | None = None
    price_out: float | None = None
    template: Path | None = None
    shots: int = 0
    shots_from: str = "domain"
    library_summary: bool = False


def make_system(kind: str, curriculum, *, base_url: str | None = None, model: str | None = None,
                api_key_env: str | None = None, command: str | None = None, timeout: float = 120.0,
                retries: int = 4, stream: bool = False, command_label: str = "command"):
    """(the system of ``kind``, what the run's settings record of where it is). ``command`` is a
    shell-like line (split, run without a shell); ``command_label`` names it in messages. Raises
    SessionError (one line; never the API key)."""
    from gindex_studio.core.systems import baselines

    if kind == "nearest":
        return baselines.Nearest(curriculum), {}
    if kind == "empty":
        return baselines.Empty(), {}
    if kind == "command":
        from gindex_studio.core.systems.command import Command

        try:
            argv = shlex.split(command or "")
        except ValueError as e:
            raise SessionError(f"{command_label}: {e}") from None
        if not argv:
            raise SessionError(f"{command_label}: the command is empty")
        return Command(argv, timeout), {"command": argv}
    if kind != "openai":
        raise SessionError(f"no system {kind!r} (one of {', '.join(SYSTEMS)})")
    from gindex_studio.core.systems.openai_compat import Endpoint, OpenAICompatible, SetupError

    try:
        system = OpenAICompatible(Endpoint(base_url, model, api_key_env or None, timeout, retries, stream=stream))
    except SetupError as e:
        raise SessionError(str(e)) from None
    return system, {"base_url": base_url, "model": model, "api_key_env": api_key_env, "stream": stream}


@dataclass
class Session:
    """A prepared run: the system, the tasks and their prompts, the experiment's setup, the
    settings its log records and the run's parameters. ``close()`` ends the system."""

    config: RunConfig
    system: object
    tasks: list
    asked: dict
    setup: runs.Setup
    settings: dict
    spec: runs.RunSpec
    log_file: Path
    _closed: bool = field(default=False, repr=False)

    @property
    def total(self) -> int:
        return len(self.tasks) * self.config.attempts

    def answered(self) -> dict[tuple[str, int], dict]:
        """(task id, attempt) → its answer record, as the log holds them now: this run's attempts
        only (a log written with more attempts, or for tasks since removed, holds others)."""
        ours = {(t.id, i) for t in self.tasks for i in range(self.config.attempts)}
        return {k: r for k, r in read_log(self.log_file)[1].items() if k in ours}

    def pending(self) -> list[runs.Job]:
        """The attempts the log holds no successful answer for (what a run or a resume asks)."""
        return runs.pending(self.tasks, self.asked, self.config.attempts, self.answered())

    def open_log(self) -> RunLog:
        """The log, opened for appending, with this run's record written first."""
        log = RunLog(self.log_file)
        log.append({"kind": "run", **self.settings, "time": time.time()})
        return log

    def placeholder(self) -> Experiment:
        """The experiment with every attempt unanswered (not written): its tasks' references and
        curriculum are those of the experiment the run writes (what Ω is computed on)."""
        return runs.placeholder_experiment(self.setup, self.config.output, self.tasks)

    def write(self) -> Experiment:
        """Write the experiment from the log (every attempt answered). Raises ExperimentError."""
        self.setup.settings = self.settings
        return runs.write_experiment(self.setup, self.config.output, self.tasks, self.asked, self.config.attempts,
                                     self.answered())

    def close(self) -> None:
        if not self._closed and hasattr(self.system, "close"):
            self._closed = True
            self.system.close()


def prepare(cfg: RunConfig, who: str = "running a system", command_label: str = "command",
            other_log: str = "choose another experiment file, or remove the log") -> Session:
    """Everything a run needs before it asks anything (see the module's docstring). Raises
    SessionError. ``who``, ``command_label`` and ``other_log`` word the messages for the caller
    (the command line names its options)."""
    for module in ("jinja2", "bm25s") + (("httpx",) if cfg.system == "openai" else ()):
        try:
            __import__(module)
        except ImportError:
            raise SessionError(f"{who} needs {module}, which is not installed: "
                               "pip install 'gindex-studio[models]'") from None
    out = Path(cfg.output)
    try:
        curriculum = corpus.read_curriculum(Path(cfg.curriculum))
        tasks = corpus.read_tasks([Path(t) for t in cfg.tasks])
        spec = prompts.PromptSpec(Path(cfg.template) if cfg.template else prompts.DEFAULT_TEMPLATE, cfg.shots,
                                  cfg.shots_from == "nearest", cfg.library_summary)
        maker = prompts.PromptMaker(spec, curriculum)
        asked = {t.id: maker.prompt(t) for t in tasks}
    except ExperimentError as e:
        raise SessionError(str(e)) from None
    system, where = make_system(cfg.system, curriculum, base_url=cfg.base_url, model=cfg.model,
                                api_key_env=cfg.api_key_env or None, command=cfg.command, timeout=cfg.timeout,
                                retries=cfg.retries, stream=cfg.stream, command_label=command_label)
    try:
        setup = runs.Setup(Path(cfg.curriculum), [Path(t) for t in cfg.tasks], cfg.compute, system.name, cfg.name,
                           cfg.priors, cfg.profile, cfg.samples, cfg.default_samples)
        runs.check_setup(setup, out, tasks)
        settings = {"system": cfg.system, "name": system.name, **where, "attempts": cfg.attempts,
                    "temperature": cfg.temperature, "seed": cfg.seed, "max_tokens": cfg.max_tokens,
                    "price_in": cfg.price_in, "price_out": cfg.price_out, "template": str(spec.template),
                    "template_sha256": maker.template_sha256, "shots": cfg.shots, "shots_from": cfg.shots_from,
                    "library": cfg.library_summary}
        log_file = log_path(out)
        try:
            runs_logged = read_log(log_file)[0]
        except OSError as e:
            raise SessionError(f"cannot read {log_file}: {e.strerror or e}") from None
        mine = {k: settings[k] for k in ("system", "name", "base_url", "command") if k in settings}
        for r in runs_logged:
            theirs = {k: r.get(k) for k in mine}
            if theirs != mine:
                raise SessionError(f"{log_file}: written by another system ({theirs}); {other_log}")
    except BaseException as e:  # the system ends with the refusal (a command's process, a client)
        _close(system)
        if isinstance(e, ExperimentError):
            raise SessionError(str(e)) from None
        raise
    rs = runs.RunSpec(cfg.attempts, cfg.temperature, cfg.seed, cfg.max_tokens, cfg.concurrency,
                      cfg.price_in, cfg.price_out)
    return Session(cfg, system, tasks, asked, setup, settings, rs, log_file)


def _close(system) -> None:
    if hasattr(system, "close"):
        system.close()
