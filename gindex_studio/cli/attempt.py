"""``gindex-studio attempt``: ask a system (an OpenAI-compatible endpoint, a local command, or a
baseline) for every task's flow, ``--attempts`` times, and write the experiment (core.systems).

Progress goes to stderr; every request and answer is logged beside the experiment
(``EXP.log.jsonl``) as it arrives, so Ctrl-C (or a kill) keeps what was answered and the same
command run again asks only the rest. The log must come from the same system: another one is
refused (give another ``-o``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gindex_studio.cli.common import FILES_OR_DIRS, SECONDS, SEED, InputError, int_range, json_out, number
from gindex_studio.cli.options import flow_json_profiles

SYSTEMS = ("openai", "command", "nearest", "empty")
_NONNEG = number("a number >= 0", lambda v: v >= 0)


def add_parsers(sub) -> None:
    p = sub.add_parser("attempt", help="ask a system for every task and write the experiment",
                       description="Ask a system for every task's flow program and write an ordinary experiment "
                                   "file; the JSONL log beside it makes a rerun resume.")
    g = p.add_argument_group("the system")
    g.add_argument("--system", required=True, choices=SYSTEMS, help="openai: an OpenAI-compatible endpoint; command: "
                   "a local program (prompt on stdin, answer on stdout); nearest, empty: baselines")
    g.add_argument("--base-url", metavar="URL", help="openai: the endpoint's base URL (…/v1)")
    g.add_argument("--model", metavar="NAME", help="openai: the model name")
    g.add_argument("--api-key-env", metavar="VAR", help="openai: the environment variable holding the API key")
    g.add_argument("--stream", action="store_true", help="openai: ask for a streamed answer (server-sent events)")
    g.add_argument("--command", dest="program", metavar='"PROG ARGS"', help="command: the program and its arguments (split like a shell, run without one)")
    g.add_argument("--timeout", type=SECONDS, default=120.0, help="seconds per request (default 120)")
    g.add_argument("--retries", type=int_range(0, 20), default=4, help="openai: retries on 429, 5xx and timeouts (default 4)")
    d = p.add_argument_group("the data")
    d.add_argument("--curriculum", required=True, metavar="DIR", help="one subfolder of .json programs per domain")
    d.add_argument("--tasks", required=True, nargs="+", metavar=FILES_OR_DIRS, help="reference task files or folders (id = file name)")
    d.add_argument("-o", "--output", required=True, metavar="EXPERIMENT", help="experiment file to write (its log: EXPERIMENT.log.jsonl)")
    d.add_argument("--compute", type=number("a positive number", lambda v: v > 0), default=2.0,
                   help="the system's training compute as you state it (default 2: E = 1)")
    d.add_argument("--samples", action="append", metavar="N|DOMAIN=N", help="training samples of every domain, or of one (default: its number of programs)")
    d.add_argument("--name", default="", help="experiment name")
    d.add_argument("--priors", type=_NONNEG, default=1e-4, help="ρ (default 1e-4)")
    d.add_argument("--profile", choices=flow_json_profiles(), help="scoring profile recorded (default: the default profile)")
    r = p.add_argument_group("the run")
    r.add_argument("--attempts", type=int_range(1, 1000), default=1, metavar="K", help="attempts per task (default 1)")
    r.add_argument("--concurrency", type=int_range(1, 256), default=1, metavar="N", help="requests at once (default 1)")
    r.add_argument("--temperature", type=_NONNEG, help="sampling temperature")
    r.add_argument("--seed", type=SEED, metavar="N", help="seed of attempt 0 (attempt i: seed + i)")
    r.add_argument("--max-tokens", type=int_range(1, None), help="most tokens per answer")
    r.add_argument("--price-in", type=_NONNEG, metavar="PRICE", help="price per million prompt tokens (gives costs)")
    r.add_argument("--price-out", type=_NONNEG, metavar="PRICE", help="price per million completion tokens")
    r.add_argument("--template", metavar="FILE", help="Jinja2 prompt template (default resources/prompts/default.j2)")
    r.add_argument("--shots", type=int_range(0, 64), default=0, help="k-shot examples from the curriculum (default 0)")
    r.add_argument("--shots-from", choices=("domain", "nearest"), default="domain",
                   help="examples of the task's domain (default) or the nearest task texts")
    r.add_argument("--library-summary", action="store_true", help="include a summary of the node library's types in the prompt")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")


def check_usage(args, parser) -> None:
    if args.system == "openai" and not (args.base_url and args.model):
        parser.error("--system openai needs --base-url and --model")
    if args.system == "command" and not args.program:
        parser.error('--system command needs --command "PROG ARGS"')
    if args.system != "openai" and (args.base_url or args.model or args.api_key_env or args.stream):
        parser.error("--base-url, --model, --api-key-env and --stream are for --system openai")
    if args.system != "command" and args.program:
        parser.error("--command is for --system command")


def _samples(values):
    from gindex_studio.core.benchmark.experiment_build import parse_samples

    try:
        return parse_samples(values or ())
    except ValueError as e:
        raise InputError(f"--samples {e}") from None


class _Progress:
    """``answered k/n (e errors)`` on stderr: redrawn in place on a terminal, else a line a second."""

    def __init__(self, reused: int, total: int):
        self.reused, self.total, self.errors, self.last = reused, total, 0, 0.0
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, pending: int, rec: dict) -> None:
        self.errors += rec["error"] is not None
        now = time.monotonic()
        if done < pending and now - self.last < (0.1 if self.tty else 1.0):
            return
        self.last = now
        line = f"answered {self.reused + done}/{self.total}" + (f" ({self.errors} errors)" if self.errors else "")
        print(("\r" + line) if self.tty else line, end="" if self.tty and done < pending else "\n",
              file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.core.benchmark import gindex as gi
    from gindex_studio.core.benchmark.validate import ExperimentError
    from gindex_studio.core.systems import run as runs
    from gindex_studio.core.systems.session import RunConfig, SessionError, prepare

    default, per = _samples(args.samples)
    cfg = RunConfig(args.system, Path(args.curriculum), [Path(t) for t in args.tasks], Path(args.output),
                    attempts=args.attempts, concurrency=args.concurrency, base_url=args.base_url or "",
                    model=args.model or "", api_key_env=args.api_key_env or "", stream=args.stream,
                    command=args.program or "", timeout=args.timeout, retries=args.retries, compute=args.compute,
                    name=args.name, priors=args.priors, profile=args.profile, samples=per or None,
                    default_samples=default, temperature=args.temperature, seed=args.seed,
                    max_tokens=args.max_tokens, price_in=args.price_in, price_out=args.price_out,
                    template=Path(args.template) if args.template else None, shots=args.shots,
                    shots_from=args.shots_from, library_summary=args.library_summary)
    try:
        session = prepare(cfg, who="attempt", command_label="--command", other_log="give another -o or remove the log")
    except SessionError as e:
        raise InputError(str(e)) from None
    system, tasks, log_file, out = session.system, session.tasks, session.log_file, cfg.output
    jobs = session.pending()
    total = session.total
    log = session.open_log()
    try:
        stats = runs.ask(system, jobs, log, session.spec, _Progress(total - len(jobs), total))
    except KeyboardInterrupt:
        ok = sum(r.get("error") is None for r in session.answered().values())
        print(f"\ninterrupted: {ok}/{total} attempts answered and kept in {log_file}; run the same command to resume",
              file=sys.stderr)
        return 130
    finally:
        log.close()
        session.close()
    try:
        exp = session.write()
        result = gi.compute_gindex(exp)
    except ExperimentError as e:
        raise InputError(str(e)) from None
    totals = exp.extra["x-attempt"]["totals"]
    summary = {"experiment": str(out), "log": str(log_file), "tasks": len(tasks), "attempts": total,
               "asked": stats.asked, "reused": total - len(jobs), "errors": stats.errors,
               "seconds": round(stats.seconds, 3), "g_index": result.g_index, "totals": totals}
    if args.json:
        json_out(summary)
    else:
        print(f"wrote {out}: {len(tasks)} tasks × {args.attempts} attempts ({stats.asked} asked now, "
              f"{total - len(jobs)} from the log, {stats.errors} errors); g-index = {result.g_index:.6f}")
    return 0
