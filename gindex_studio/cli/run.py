"""``gindex-studio run FLOW [--json] [--node-red URL --trust-flows [--token - | --token-file F]] [--no-sandbox]
[--timeout S] [--settle S] [--no-inputs] [--lint [R]] [--install-missing]``: deploy a flow in a
real Node-RED (the studio's private one, installed on first use, in its OS sandbox; or the user's,
with ``--trust-flows``: then as a tab that is removed afterwards), fire every inject node and
request every ``http in`` endpoint once (each input is over when the flow has been quiet for
``--settle`` seconds), and print what Node-RED reports per node (with ``--lint``, nrlint's
findings too; with ``--install-missing``, the npm modules providing missing node types are
installed into the private runtime first). The whole run is bounded by ``--timeout`` (default
60 s). Exit 0 when it deployed and ran cleanly, 1 with one line per problem otherwise (or one
line saying why it could not run: no sandbox here, no runtime)."""
from __future__ import annotations

import argparse
import sys

from gindex_studio.cli.common import add_json

#: said once on stderr when flows run without the sandbox
UNSANDBOXED = ("warning: --no-sandbox: the flow runs with your own rights (your files, your network, "
               "your programs)")
TRUSTED = "note: --trust-flows: the flow runs unsandboxed in your Node-RED at {url}, with its rights"


def seconds_option(text: str) -> float:
    """An option's positive, finite number of seconds (argparse type: exit 2 otherwise)."""
    from gindex_studio.core.nodered.probe import seconds

    try:
        return seconds(text, "it")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).replace("it must be", "must be")) from None


def add_runtime_options(p: argparse.ArgumentParser) -> None:
    from gindex_studio.cli.token import add_token_options

    p.add_argument("--node-red", metavar="URL", help="use this running Node-RED (admin API URL) instead of the "
                                                    "studio's private one; the flow is added as a tab and removed. "
                                                    "Needs --trust-flows: the flow runs there unsandboxed")
    add_token_options(p)
    p.add_argument("--trust-flows", action="store_true",
                   help="with --node-red: run the model's flows in that Node-RED, outside any sandbox")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run the private Node-RED without its OS sandbox (flows get your rights); only where "
                        "no sandbox can be made")
    p.add_argument("--timeout", type=seconds_option, default=60.0, metavar="S",
                   help="seconds one program's run (deploy and every input) may take (default 60)")
    p.add_argument("--settle", type=seconds_option, default=2.0, metavar="S",
                   help="an input is over when the flow has been quiet this many seconds (no message, no "
                        "pending timer; default 2)")


def check_runtime_usage(args, parser) -> None:
    """Usage errors (exit 2) of the runtime options: the user's Node-RED only with --trust-flows."""
    if args.node_red and not args.trust_flows:
        parser.error(f"--node-red {args.node_red}: a model's flow would run there unsandboxed, with that "
                     "Node-RED's rights (files, network, programs); add --trust-flows to allow it")
    if args.trust_flows and not args.node_red:
        parser.error("--trust-flows goes with --node-red (the private Node-RED runs flows in its sandbox)")
    if args.no_sandbox and args.node_red:
        parser.error("--no-sandbox is for the studio's private Node-RED, not for --node-red")


def add_parsers(sub) -> None:
    p = sub.add_parser("run", help="deploy a flow in the real Node-RED and report per-node problems",
                       description="Deploy FLOW in Node-RED (Node.js 18+ needed; the pinned Node-RED 4 is installed "
                                   "into the user data folder on first use), exercise it and report per node.")
    p.add_argument("flow", metavar="FLOW", help="flow file (JSON)")
    add_json(p)
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
    check_runtime_usage(args, parser)


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
    """(runtime, session) for the command's options, saying on stderr (once) when flows run
    outside the sandbox; InputError (one line) on failure, e.g. when no sandbox can be made here
    (the message says how to enable one)."""
    return session_maker(args)()


def session_maker(args):
    """A function that opens one more (runtime, session) for the command's options each time it
    is called (:func:`open_session`'s errors). The admin token is read and the notice about flows
    running outside the sandbox printed once, here."""
    from gindex_studio.cli.common import InputError
    from gindex_studio.cli.token import token_from
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.install import InstallError
    from gindex_studio.core.nodered.runtime import NodeRedError, connect
    from gindex_studio.core.nodered.sandbox import SandboxUnavailable

    token = token_from(args)  # a bad token file is the one line, before any notice
    if args.node_red:
        print(TRUSTED.format(url=args.node_red), file=sys.stderr)
    elif args.no_sandbox:
        print(UNSANDBOXED, file=sys.stderr)

    def make():
        try:
            rt = connect(args.node_red, token, install_progress(), sandboxed=not args.no_sandbox)
        except (InstallError, NodeRedError, SandboxUnavailable) as e:
            raise InputError(str(e)) from None
        try:
            return rt, Session(rt)
        except NodeRedError as e:
            rt.stop()
            raise InputError(str(e)) from None
    return make


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.common import InputError, json_out, read_generated
    from gindex_studio.core.nodered.deploy import node_dicts
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
        problems = exercise(session, nodes, args)
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


def exercise(session, nodes: list[dict], args) -> list:
    """Deploy ``nodes`` (injects fire only when fired here), give every input once (unless
    ``--no-inputs``) and return the problems, all within ``--timeout`` seconds: inputs left when
    the limit is reached are one ``timeout`` problem; a runtime that stopped ends the run."""
    import time

    from gindex_studio.core.nodered.deploy import RunProblem
    from gindex_studio.core.nodered.probe import STOPPED, STUCK, default_probes, observe

    deadline = time.monotonic() + args.timeout
    result = session.deploy(nodes, quiet_injects=not args.no_inputs, timeout=args.timeout)
    problems = list(result.problems)
    stopped = any(p.kind in ("deploy-error", "runtime-crash") for p in problems)
    probes = [] if args.no_inputs or stopped else default_probes(nodes)
    for k, probe in enumerate(probes):
        if time.monotonic() >= deadline:
            problems.append(RunProblem("timeout", f"the run's limit of {args.timeout:g} s was reached with "
                                                  f"{len(probes) - k} of {len(probes)} inputs not given"))
            break
        obs = observe(session, probe, nodes, args.settle, deadline)
        if obs.ended == STOPPED:
            break  # the runtime's end is reported below, on its node when the watchdog named one
        if obs.note and obs.ended:
            problems.append(_note_problem(probe, obs.note, nodes))
        if obs.ended == STUCK:
            break
    wait = max(0.0, min(13.0, deadline - time.monotonic()))
    problems += [p for p in session.problems(wait=wait) if p not in problems]
    return problems


def _note_problem(probe, note, nodes):
    from gindex_studio.core.nodered.deploy import RunProblem

    node = probe.inject
    if node is None:
        node = next((n["id"] for n in nodes if n["type"] == "http in" and probe.path and
                     probe.path.rstrip("/") == "/" + str(n.get("url", "")).lstrip("/").rstrip("/")), None)
    kind = "timeout" if "within" in note or "busy" in note or "answering" in note else "runtime-error"
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
