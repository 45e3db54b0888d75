"""What ``gindex`` does for each experiment, one or several: the experiment as the options ask
(what-if edits, scoring options, the size check), its g-index with progress on stderr, and the
warnings about edits."""
from __future__ import annotations

from gindex_studio.cli.cluster import workers_read_files
from gindex_studio.cli.options import options, refuse_experiment_too_big, scoring_given

#: under the task table of a companion experiment, whose leak column is "?" on every row
COMPANION_LEAK_NOTE = ("leak ?: the companion's experiment files hold per-domain results, not each task's "
                       "program, so no task can be checked against the curriculum programs")


def ready(exp, args):
    """(experiment, ids of its tasks holding what-if edits, ScoreOptions or None) as the options
    ask (``--use-edited``, scoring options), refused before any search when it cannot fit."""
    from gindex_studio.core.benchmark import experiment as ex

    edited = [exp.tasks[j].id for j in ex.edited_tasks(exp)]
    if args.use_edited:
        exp = ex.with_edits(exp)
    opts = options(args) if scoring_given(args) else None
    refuse_experiment_too_big(exp, opts or exp.options, args)
    return exp, edited, opts


def scored(exp, opts, args, client, shared=None):
    """``compute_gindex`` of ``exp`` as the options ask, with progress on stderr when wanted."""
    from gindex_studio.cli import progress
    from gindex_studio.core.benchmark import gindex as gi

    read_by_workers = workers_read_files(args, opts.profile if opts else exp.profile)
    extra = {"leak_threshold": args.leak_threshold} if args.leak_threshold is not None else {}
    listener = Progress() if progress.wanted(args) else None
    result = gi.compute_gindex(exp, options=opts, workers=args.workers, client=client,
                               workers_read_files=read_by_workers, listener=listener,
                               leave_self_out=args.leave_self_out, shared=shared, **extra)
    if listener is not None:
        listener.done()
    return result


class Progress:
    """``gindex`` progress on stderr: the stage and its count, at most every 0.2 s."""

    WORDS = {"delta": "Δ of the tasks", "curriculum": "preparing the curriculum", "omega": "Ω of the tasks"}

    def __init__(self):
        self.last, self.shown = 0.0, False

    def stage(self, name, done, total):
        import time

        now = time.monotonic()
        if done == total or now - self.last >= 0.2:
            self.last, self.shown = now, True
            from gindex_studio.cli import progress

            progress.say(f"{self.WORDS.get(name, name)}: {done:,} of {total:,}")

    def delta(self, index, reports):
        pass

    def task(self, result):
        pass

    def done(self):
        from gindex_studio.cli import progress

        if self.shown:
            progress.say("")


def warn_about_edits(result, edited: list[str], use_edited: bool) -> None:
    """Say which outputs the g-index was computed from when what-if edits are present (or asked for)."""
    if not (edited or use_edited):
        return
    names = ", ".join(edited[:5]) + (", …" if len(edited) > 5 else "")
    if use_edited and edited:
        line = f"scored on the what-if edits of {len(edited)} tasks ({names}), not the model's own outputs"
    elif use_edited:
        line = "--use-edited: no task holds a what-if edit; this is the g-index of the model's own outputs"
    else:
        line = (f"{len(edited)} tasks hold what-if edits ({names}): this is the g-index of the model's own "
                "outputs; --use-edited scores the edits")
    result.warnings.append(line)
