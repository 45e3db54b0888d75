"""``gindex-studio probe REF GEN [--json] [runtime options]``: run both programs in a real Node-RED
on the same inputs (the reference task's ``probes``, else: fire every inject node once, request
every ``http in`` endpoint) and report, probe by probe, whether the generated program behaves as
the reference does, beside Δ (which stays the structural measure; behaviour is never folded
into it). Each probe is over when the flow has been quiet for ``--settle`` seconds; each program's
run is bounded by ``--timeout``.

Exit status, as ``diff``'s: 0 the programs behave alike on every probe, 1 they differ (the
generated program answers differently, does not run, crashes or times out), 3 the comparison
could not be made (no runtime or sandbox, unreadable input, nothing to probe, or the reference
itself does not run to its end); 2 usage errors. ``--json`` carries the same as ``"exit"``.
"""
from __future__ import annotations

import argparse
import sys

from gindex_studio.cli.common import add_json, add_pair

SAME, DIFFERENT, USAGE, COULD_NOT_RUN = 0, 1, 2, 3


def add_parsers(sub) -> None:
    from gindex_studio.cli.run import add_runtime_options

    p = sub.add_parser("probe", help="does the generated program behave like the reference (real Node-RED)?",
                       description="Run REF and GEN in Node-RED on the same probes and compare what they do. "
                                   "Exit 0: same behaviour; 1: different; 3: could not run; 2: usage error.")
    add_pair(p, "reference flow (a task file may carry \"probes\")", "generated flow (read leniently)")
    add_json(p)
    add_runtime_options(p)


def check_usage(args, parser) -> None:
    from gindex_studio.cli.run import check_runtime_usage

    check_runtime_usage(args, parser)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.common import InputError

    try:
        return _probe(args)
    except InputError as e:
        print(f"gindex-studio: {e}", file=sys.stderr)
        return COULD_NOT_RUN


def _probe(args: argparse.Namespace) -> int:
    from gindex_studio.cli.common import InputError, json_out, read_generated, read_strict
    from gindex_studio.cli.run import open_session
    from gindex_studio.core.nodered.behaviour import behaviour, probes_for
    from gindex_studio.core.nodered.deploy import node_dicts
    from gindex_studio.core.nodered.runtime import NodeRedError

    ref_flow, gen_flow = read_strict(args.reference), read_generated(args.generated)
    ref, gen = node_dicts(ref_flow), node_dicts(gen_flow)
    try:
        probes = probes_for(ref_flow)
    except ValueError as e:
        raise InputError(f"{args.reference}: {e}") from None
    if not probes:
        raise InputError(f"{args.reference}: nothing to probe (no inject node, no http in endpoint, no \"probes\")")
    from gindex_studio.api import score

    delta = score(args.reference, args.generated).delta
    rt, session = open_session(args)
    try:
        b = behaviour(session, ref, gen, probes, settle=args.settle, timeout=args.timeout)
    except NodeRedError as e:
        raise InputError(str(e)) from None
    finally:
        session.close()
        session.runtime.stop()
        rt.stop()
    code = COULD_NOT_RUN if not b.reference_ran else SAME if b.same else DIFFERENT
    if code == COULD_NOT_RUN:
        print(f"gindex-studio: the reference {b.reference_verdict}: the programs could not be compared",
              file=sys.stderr)
    if args.json:
        json_out({"reference": args.reference, "generated": args.generated, "delta": float(delta), "exit": code,
                  **b.to_dict()})
        return code
    print(f"Δ = {float(delta):.6f} · {b.summary()}")
    for o in b.outcomes:
        if o.agrees:
            print(f"  same  {o.probe.name}: {o.reference.summary()}")
        else:
            print(f"  DIFF  {o.probe.name}: reference {o.reference.summary()} | generated {o.generated.summary()}")
    for label, found in (("reference", b.reference_problems), ("generated", b.generated_problems)):
        for p in found:
            print(f"  {label}: {p.line()}")
    return code
