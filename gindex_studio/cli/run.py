"""``gindex-studio run FLOW [--json] [--node-red URL [--token - | --token-file F]] [--no-inputs] [--lint [R]]
[--install-missing]``: deploy a flow in a
real Node-RED (the studio's private one, installed on first use, or the user's: then as a tab that
is removed afterwards), fire every inject node and request every ``http in`` endpoint once, and
print what Node-RED reports per node (with ``--lint``, nrlint's findings too; with
``--install-missing``, the npm modules providing missing node types are installed into the private
runtime first). Exit 0 when it deployed and ran cleanly, 1 with one line per
problem otherwise."""
from __future__ import annotations

import argparse
import sys



def add_runtime_options(p: argparse.ArgumentParser) -> None:
    from gindex_studio.cli.token import add_token_options

    p.add_argument("--node-red", metavar="URL", help="use this running Node-RED (admin API URL) instead of the "
                                                    "studio's private one; the flow is added as a tab and removed")
    add_token_options(p)
    p.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds each input may take (default 5)")


def add_parsers(sub) -> None:
    p = sub.add_parser("run", help="deploy a flow in the real Node-RED and report per-node problems",
                       description="Deploy FLOW in Node-RED (Node.js 18+ needed; the pinned Node-RED 4 is installed "
                                   "into the user data folder on first use), exercise it and report per node.")
    p.add_argument("flow", metavar="FLOW", help="flow file (JSON)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--no-inputs", action="store_true", help="only deploy: fire no inject node, request no endpoint")
    p.add_argument("--lint", nargs="?", const="default", metavar="R",
                   help="also report nrlint's findings (R: the rules, as for `gindex-studio lint --rules`)")
    p.add_argument("--install-missing", action="store_true",
                   help="install the npm module of each missing node type into the private runtime first (plain "
                        "npm names the registry knows, without running their install scripts)")
    add_runtime_options(p)


def check_usage(args, parser) -> None:
    from gindex_studio.core.nodered.lint import parse_rules

    args.rule_set = None
    if args.lint is not None:
        try:
            args.rule_set = parse_rules(args.lint)
        except ValueError as e:
            parser.error(f"--lint: {e}")
    if args.install_missing and args.node_red:
        parser.error("--install-missing installs into the studio's private Node-RED, not into --node-red's")


def install_progress():
    """A progress callback printing install steps on stderr (never on stdout)."""
    shown = {"last": -1}

    def show(fraction, text):
        if fraction is None:
            return
        step = int(fraction * 10)
        if step != shown["last"]:
            shown["last"] = step
            print(text, file=sys.stderr, flush=True)
    return show


def open_session(args):
    """(runtime, session) for the command's options; InputError (one line) on failure."""
    from gindex_studio.cli.common import InputError
    from gindex_studio.cli.token import token_from
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.install import InstallError
    from gindex_studio.core.nodered.runtime import NodeRedError, connect

    if args.timeout <= 0:
        raise InputError(f"--timeout {args.timeout:g}: give a positive number of seconds")
    token = token_from(args)
    try:
        rt = connect(args.node_red, token, install_progress())
    except (InstallError, NodeRedError) as e:
        raise InputError(str(e)) from None
    try:
        return rt, Session(rt)
    except NodeRedError as e:
        rt.stop()
        raise InputError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.common import InputError, json_out, read_generated
    from gindex_studio.core.nodered.deploy import node_dicts
    from gindex_studio.core.nodered.probe import default_probes, observe
    from gindex_studio.core.nodered.runtime import NodeRedError

    nodes = node_dicts(read_generated(args.flow))
    if not nodes:
        raise InputError(f"{args.flow}: no nodes to run")
    installed = _install_missing(nodes) if args.install_missing else []
    lint_found = []
    if args.rule_set:
        from gindex_studio.core.nodered.lint import LintError, lint_flows

        try:
            found = lint_flows([nodes], args.rule_set, progress=install_progress())[0]
        except LintError as e:
            raise InputError(str(e)) from None
        lint_found = [lint_problem(p, nodes) for p in found]
    rt, session = open_session(args)
    try:
        result = session.deploy(nodes)
        problems = list(result.problems)
        if not args.no_inputs and not any(p.kind in ("deploy-error", "runtime-crash") for p in problems):
            for probe in default_probes(nodes, timeout=args.timeout):
                obs = observe(session, probe, nodes)
                if obs.note and "no matching" not in obs.note:
                    problems.append(_note_problem(probe, obs.note, nodes))
            problems += [p for p in session.problems() if p not in problems]
    except NodeRedError as e:
        raise InputError(str(e)) from None
    finally:
        session.close()
        rt.stop()
    problems += lint_found
    if args.json:
        json_out({"flow": args.flow, "runtime": args.node_red or "private", "clean": not problems,
                   "installed": installed, "problems": [p.to_dict() for p in problems]})
    elif problems:
        for p in problems:
            print(p.line())
    else:
        print(f"{args.flow}: deployed and ran with no problems ({len(nodes)} nodes)")
    for mod in installed:
        print(f"installed {mod} into the private Node-RED", file=sys.stderr)
    return 1 if problems else 0


def _note_problem(probe, note, nodes):
    from gindex_studio.core.nodered.deploy import RunProblem

    node = probe.inject
    if node is None:
        node = next((n["id"] for n in nodes if n["type"] == "http in" and probe.path and
                     probe.path.rstrip("/") == "/" + str(n.get("url", "")).lstrip("/").rstrip("/")), None)
    kind = "timeout" if "within" in note or "busy" in note else "runtime-error"
    ntype = next((n["type"] for n in nodes if n["id"] == node), None)
    return RunProblem(kind, f"{probe.name}: {note}", node, ntype)


def lint_problem(p, nodes):
    """A nrlint finding as a per-node run problem (kind ``lint``)."""
    from gindex_studio.core.nodered.deploy import RunProblem

    ntype = next((n["type"] for n in nodes if n["id"] == p.node_id), None)
    return RunProblem("lint", f"{p.rule}: {p.message}", p.node_id, ntype)


def _install_missing(nodes) -> list[str]:
    """Install the npm modules of the node types the private runtime lacks (plain registry names
    only, without their install scripts: core.nodered.modules); their names."""
    from gindex_studio.cli.common import InputError
    from gindex_studio.core.nodered.modules import ModuleError, install_modules, missing_modules

    try:
        mods = missing_modules(nodes)
        if mods:
            install_modules(mods, install_progress())
    except ModuleError as e:
        raise InputError(str(e)) from None
    return mods
