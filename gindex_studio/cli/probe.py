"""``gindex-studio probe REF GEN [--json]``: run both programs in a real Node-RED on the same inputs
(the reference task's ``probes``, else: fire every inject node once, request every ``http in``
endpoint) and report, probe by probe, whether the generated program behaves as the reference does,
beside Δ (which stays the structural measure; behaviour is never folded into it)."""
from __future__ import annotations

import argparse



def add_parsers(sub) -> None:
    from gindex_studio.cli.run import add_runtime_options

    p = sub.add_parser("probe", help="does the generated program behave like the reference (real Node-RED)?",
                       description="Run REF and GEN in Node-RED on the same probes and compare what they do.")
    p.add_argument("reference", metavar="REF", help="reference flow (a task file may carry \"probes\")")
    p.add_argument("generated", metavar="GEN", help="generated flow (read leniently)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_runtime_options(p)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.common import InputError, json_out, read_generated, read_strict
    from gindex_studio.cli.run import open_session
    from gindex_studio.core.nodered.deploy import node_dicts
    from gindex_studio.core.nodered.behaviour import behaviour, probes_for
    from gindex_studio.core.nodered.runtime import NodeRedError

    ref_flow, gen_flow = read_strict(args.reference), read_generated(args.generated)
    ref, gen = node_dicts(ref_flow), node_dicts(gen_flow)
    try:
        probes = probes_for(ref_flow, timeout=args.timeout)
    except ValueError as e:
        raise InputError(f"{args.reference}: {e}") from None
    if not probes:
        raise InputError(f"{args.reference}: nothing to probe (no inject node, no http in endpoint, no \"probes\")")
    for p in probes:
        p.timeout = min(p.timeout, args.timeout) if args.timeout != 5.0 else p.timeout
    from gindex_studio.api import score

    delta = score(args.reference, args.generated).delta
    rt, session = open_session(args)
    try:
        b = behaviour(session, ref, gen, probes)
    except NodeRedError as e:
        raise InputError(str(e)) from None
    finally:
        session.close()
        rt.stop()
    if args.json:
        json_out({"reference": args.reference, "generated": args.generated, "delta": float(delta), **b.to_dict()})
        return 0
    print(f"Δ = {float(delta):.6f} · {b.summary()}")
    for o in b.outcomes:
        if o.agrees:
            print(f"  same  {o.probe.name}: {o.reference.summary()}")
        else:
            print(f"  DIFF  {o.probe.name}: reference {o.reference.summary()} | generated {o.generated.summary()}")
    for label, found in (("reference", b.reference_problems), ("generated", b.generated_problems)):
        for p in found:
            print(f"  {label}: {p.line()}")
    return 0
