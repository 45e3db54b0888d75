"""``gindex-studio score REFERENCE GENERATED``: Δ and θ of one generated program against its
reference, the mapping, what is missing and extra, and the errors found.

Kept light: this path imports the reader and the search, never numpy or Qt (startup matters
here; ``tests/cli/test_cli_score.py`` lists what must stay out).
"""
from __future__ import annotations

import argparse

from gindex_studio.cli import bounded
from gindex_studio.cli.common import InputError, add_pair, json_out, read_generated, read_strict, table
from gindex_studio.cli.options import add_scoring, options



def add_parsers(sub) -> None:
    p = sub.add_parser("score", help="Δ of a generated program against its reference",
                       description="The divergence Δ of a generated program from its reference (1 − S² / "
                                   "(|V'|·|V''|), S the weight of the best node mapping) and θ = 1 − Δ, "
                                   "with the mapping, missing and extra nodes and edges, and the errors "
                                   "found in the generated program.")
    add_pair(p, "reference flow file", "generated flow file (read leniently: raw model output is fine)")
    add_scoring(p)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.core.support.budget import Budget

    budget = Budget.after(args.deadline)  # --deadline counts from here: reading and setup included
    if bounded.wanted([args.reference, args.generated]):
        # reading inputs this large is one call nothing interrupts: in a child the deadline or Ctrl-C stops
        return bounded.run_bounded(lambda: _collected_off(args, budget), budget, lambda: _unread(args, budget),
                                   grace=LATE_MARGIN_S)
    return _collected_off(args, budget)


#: seconds past the deadline the parent gives a child still reading before it answers alone
LATE_MARGIN_S = 0.5
#: ``dispatch`` leaves this command's large inputs to ``run`` (read in a child it stops at the deadline)
BOUNDS_ITS_READING = True


def _collected_off(args: argparse.Namespace, budget) -> int:
    from gindex_studio.core.support.gcpause import collector_off

    with collector_off():  # a third of the CPU of a large flow otherwise (gcpause)
        return _run(args, budget)


def _since_start(deadline: float, budget) -> float:
    """Seconds since the command's ``budget``, ``deadline`` seconds long, was made."""
    from gindex_studio.core.support.budget import clock

    return clock() - (budget.stop_at - deadline)


def _unread(args: argparse.Namespace, budget) -> int:
    """The answer when the deadline passed before the flows were read: nothing is known."""
    from gindex_studio.core.scoring.divergence import unsearched

    result = unsearched(None, None, options(args), f"the {args.deadline:g} s deadline passed while the files were "
                                                   f"read, {_since_start(args.deadline, budget):.2f} s after the start")
    return _show(args, result)


def _run(args: argparse.Namespace, budget) -> int:
    from gindex_studio.cli import progress

    ref = read_strict(args.reference, args.profile)
    read = read_generated(args.generated, args.profile)
    result = _score_with_progress(ref, read, options(args), progress.wanted(args), budget)
    return _show(args, result)


def _show(args: argparse.Namespace, result) -> int:
    """Print ``result`` as text or JSON (``--json``); 0."""
    if args.json:
        json_out(result.json_value())
        return 0
    exact = "exact" if result.exact else f"not exact: true Δ in [{result.delta_lower:.6f}, {result.delta:.6f}]"
    print(f"Δ = {result.delta:.6f}   θ = {result.theta:.6f}   ({result.profile} profile, {exact})")
    if result.mapping is None:  # no search ran (divergence.unsearched): no report to show
        if result.n_reference is not None:
            print(f"|V'| = {result.n_reference}, |V''| = {result.n_generated}")
        for w in result.warnings:
            print(f"warning: {w}")
        return 0
    if result.n_reference and result.n_generated:
        print(f"S = {result.s_exact} over |V'| = {result.n_reference}, |V''| = {result.n_generated}:  "
              f"Δ = 1 − {result.s:.6g}² / ({result.n_reference}·{result.n_generated})")
    else:
        empty = "reference" if not result.n_reference else "generated program"
        print(f"Δ = 1 because the {empty} has no nodes (|V'| = {result.n_reference}, |V''| = {result.n_generated})")
    print(f"edge divergence Δ_E = {result.edge_delta:.6f}   "
          f"matched edges {len(result.matched_edges)}, missing {len(result.missing_edges)}, extra {len(result.extra_edges)}")
    if result.mapping:
        print()
        rows = [(p.reference, p.generated, p.w_exact, ", ".join(p.differing_keys)) for p in result.mapping]
        print(table(rows, ("reference", "generated", "w", "differing keys")))
    if result.missing_nodes:
        print(f"\nmissing nodes (reference only): {', '.join(result.missing_nodes)}")
    if result.extra_nodes:
        print(f"extra nodes (generated only): {', '.join(result.extra_nodes)}")
    e = result.errors
    print(f"\nerrors: syntax {'yes' if e['syntax'] else 'no'}, function {len(e['function'])}, dataflow {len(e['dataflow'])}")
    if e["syntax"]:
        s = e["syntax"]
        print(f"syntax: line {s['line']}, column {s['column']}: {s['message']}")
    for w in result.warnings:
        print(f"warning: {w}")
    return 0


def _score_with_progress(ref, read, options, show: bool, budget):
    """Score, refusing a pair that cannot fit in memory before any work. With ``show``: a quick
    anytime pass first (its proven interval), then the exact search with a live node count. One
    ``budget`` (the command's) bounds reading, the reduction of both flows (cut where it stands
    when the deadline passes: ``divergence.unsearched``) and the search, which receives it (or,
    for the quick pass, a one-second child of it) as it is."""
    from gindex_studio.cli import progress
    from gindex_studio.core.support.limits import scoring_too_big
    from gindex_studio.core.scoring.divergence import DeadlinePassed, prepare, score_prepared, unsearched, vertex_count

    too_big = scoring_too_big(ref, read.flow, options.ignore_types)
    if too_big:
        raise InputError(f"{too_big}; nothing was computed")
    deadline = options.deadline
    try:
        p1 = prepare(ref, options, budget=budget)
        p2 = prepare(read.flow, options, budget=budget)
    except DeadlinePassed:
        return unsearched(vertex_count(ref, options), vertex_count(read.flow, options), options,
                          f"the {deadline:g} s deadline passed while the flows were read and reduced, "
                          f"{_since_start(deadline, budget):.2f} s after the start")

    if not show or (deadline is not None and deadline <= 1.0):
        return score_prepared(p1, p2, options, syntax=read.syntax, budget=budget)
    quick = score_prepared(p1, p2, options, syntax=read.syntax, budget=budget.child(1.0))
    if quick.exact:
        return quick
    hint = "" if options.deadline else "; --deadline SECONDS gives the best mapping found by then"
    progress.say(f"after 1 s: Δ ≤ {quick.delta:.6f}, proven ≥ {quick.delta_lower:.6f}; searching for the exact "
                 f"value{hint}", final=True)
    ticker = progress.Ticker("exact search", hint)
    try:
        warm = [(p.reference, p.generated) for p in quick.mapping]
        return score_prepared(p1, p2, options, syntax=read.syntax, warm=warm, budget=budget.child(None, poll=ticker))
    finally:
        ticker.done()
