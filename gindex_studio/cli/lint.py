"""``gindex-studio lint FLOW... [--json] [--rules R]``: nrlint's rules (the nrlint installed with the
studio's Node-RED, run by Node.js) on each flow, one line per finding and node. Exit 0 when no rule
found anything, 1 otherwise (or with one line when nrlint cannot run)."""
from __future__ import annotations

import argparse

from gindex_studio.cli.common import add_json


RULES_HELP = ("nrlint rules: 'default', 'all', 'none', or a comma list (name adds, -name removes; a list "
              "starting with + or - starts from the default set)")


def add_parsers(sub) -> None:
    p = sub.add_parser("lint", help="nrlint's rules on flows (the nrlint installed with Node-RED)",
                       description="Lint flows with nrlint (Node.js 18+ needed; installed with the pinned Node-RED "
                                   "into the user data folder on first use). Results are cached per flow content.")
    p.add_argument("flows", nargs="+", metavar="FLOW", help="flow files (JSON)")
    add_json(p)
    p.add_argument("--rules", default="default", metavar="R", help=RULES_HELP + "; default: %(default)s")
    p.add_argument("--max-nodes", type=int, default=None, metavar="N",
                   help="lint flows of up to N nodes (default: 500; nrlint takes 5-10 ms per Function node)")


def check_usage(args, parser) -> None:
    from gindex_studio.core.nodered.lint import parse_rules

    try:
        args.rule_set = parse_rules(args.rules)
    except ValueError as e:
        parser.error(f"--rules: {e}")
    if args.max_nodes is not None and not 1 <= args.max_nodes <= 1_000_000:
        parser.error(f"--max-nodes: {args.max_nodes} is not between 1 and 1000000")


def lint_problems(flows, rule_set, max_nodes=None, names=None):
    """nrlint's findings for each flow object, or InputError (one line; a flow over the node limit
    is named by ``names[k]`` when given)."""
    from gindex_studio.cli.common import InputError
    from gindex_studio.cli.run import install_progress
    from gindex_studio.core.nodered.lint import MAX_NODES, FlowTooLarge, LintError, lint_flows

    try:
        return lint_flows(flows, rule_set, progress=install_progress(), max_nodes=max_nodes or MAX_NODES)
    except FlowTooLarge as e:
        if names is None:
            raise InputError(str(e)) from None
        raise InputError(f"{names[e.index]}: {e.nodes:,} nodes; lint runs nrlint on flows of at most {e.limit:,} "
                         f"(--max-nodes raises it; nrlint takes 5-10 ms per Function node)") from None
    except LintError as e:
        raise InputError(str(e)) from None


def read_lintable(path: str):
    """The flow of ``path`` read leniently (as a model's output: ``LenientRead``), or InputError
    (one line) when not one node was read from it: ``/etc/passwd``, ``[1, 2, 3]`` or ``[]`` hold
    no flow to lint (nrlint would call them clean)."""
    from gindex_studio.cli.common import InputError, read_generated

    read = read_generated(path)
    if read.flow.nodes:
        return read
    s = read.syntax
    why = (f"no node could be read (line {s.line}, column {s.column}: {s.message})" if s else
           "it holds no Node-RED node (a JSON array of objects with a string id and type)")
    raise InputError(f"{path}: not a flow to lint: {why}")


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.common import json_out

    flows = [read_lintable(f) for f in args.flows]
    found = lint_problems(flows, args.rule_set, args.max_nodes, args.flows)
    if args.json:
        json_out({"rules": sorted(args.rule_set), "clean": not any(found),
                   "flows": [{"flow": f, "problems": [p.to_dict() for p in ps]} for f, ps in zip(args.flows, found)]})
    else:
        for f, ps in zip(args.flows, found):
            for p in ps:
                print(f"{f}: {p.line()}")
        if not any(found):
            print(f"no findings ({len(args.flows)} flow(s); rules: {', '.join(sorted(args.rule_set)) or 'none'})")
    return 1 if any(found) else 0
