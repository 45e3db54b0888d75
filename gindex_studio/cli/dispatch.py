"""``gindex-studio``: build the parser from the command registry (:mod:`gindex_studio.cli.commands`),
run the chosen command, turn its errors into exit statuses.

Exit status: 0 on success, 1 with one line on stderr for bad input, 2 for usage errors, 130 when
interrupted (Ctrl-C), 143 when terminated (SIGTERM), each with its one line. With no subcommand, or
only file arguments, the studio window opens; a first argument that looks like a mistyped command (not a file, no path separator or extension) is a usage error
suggesting the nearest command.
"""
from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

from gindex_studio.cli import commands
from gindex_studio.cli.common import InputError, os_error_line, say

DESCRIPTION = """\
Score flow programs (Node-RED style flows, or Flatland drawing programs) with the g-index, or open
the studio: `gindex-studio FILE…` (no command) opens the files in the studio window.

  Δ (divergence)  how far a generated program is from its reference: 1 − S²/(|V'|·|V''|), S the
                  weight of the best mapping between their nodes; 0 = the same program, 1 = nothing
                  in common.  θ = 1 − Δ is the attempt's skill.
  curriculum      the programs a system was trained on, grouped in domains.
  Ω               how far a task lies from the curriculum: the least Δ to any curriculum program.
  g-index         an experiment's score: the mean over its tasks of the skill θ shown, weighted up
                  for tasks far from the curriculum (Ω) and down for the priors and experience
                  (training samples, compute) the system was given.
"""

EPILOG = """\
Run `gindex-studio COMMAND --help` for a command's options. Exit status: 0 done, 1 bad input (one
line on stderr), 2 usage error, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM)."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from gindex_studio.core.scoring.search_info import search_in_use

    try:
        v = version("gindex-studio")
    except PackageNotFoundError:
        v = "(not installed)"
    return f"gindex-studio {v}; {search_in_use()}"


class _VersionAction(argparse.Action):
    """``--version``: one unwrapped line, computed only when asked."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(_version())
        parser.exit(0)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: with every command's sub-parser, or only ``command``'s (and its module's others),
    so that a run imports only the module it runs."""
    from gindex_studio.cli import desktop

    parser = argparse.ArgumentParser(prog="gindex-studio", usage="%(prog)s [-h] [--version] COMMAND …  |  "
                                                                 "%(prog)s [FILE …]",
                                     description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the version and which exact search (C or pure Python) is in use")
    desktop.add_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="gindex-studio")
    for mod in commands.load(command):
        mod.add_parsers(sub)
    parser.set_defaults(command_parsers=sub.choices)  # for a command's check_usage
    return parser


def mistyped_command(word: str) -> str | None:
    """The usage error for a first argument that is no file but looks like a command word (no
    path separator, no extension, nothing of that name here), else None."""
    if not word or word.startswith("-") or Path(word).exists():
        return None
    if "/" in word or "\\" in word or "." in word or word.startswith("~"):
        return None
    import difflib

    known = commands.names()
    near = difflib.get_close_matches(word.lower(), known, n=1, cutoff=0.5)
    hint = f"did you mean '{near[0]}'?" if near else f"commands: {', '.join(known)}"
    return f"'{word}' is neither a command nor a file ({hint})"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in commands.names() and not argv[0].startswith("-")):
        typo = mistyped_command(argv[0]) if argv else None
        if typo:
            build_parser().error(typo)  # exits 2
        from gindex_studio.cli.studio import open_studio

        return _guarded(lambda: open_studio(argv))
    parser = build_parser(argv[0] if argv[0] in commands.names() else None)
    args, unknown = parser.parse_known_args(argv)  # exits 2 on usage errors
    if unknown:  # the usage of the command they were given to, not the top level's
        _chosen_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is not None:
        check = getattr(commands.module_of(args.command), "check_usage", None)
        if check is not None:
            check(args, args.command_parsers[args.command])
    return _guarded(lambda: _run(args, parser))


def _chosen_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost parser ``args`` went through (``flatland draw``'s for ``flatland draw …``)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(args, subs[0].dest, None) if subs else None
        if chosen not in (subs[0].choices if subs else {}):
            return parser
        parser = subs[0].choices[chosen]


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gindex_studio.cli import desktop

    if args.command is None:
        if desktop.wanted(args):
            return desktop.run(args)
        parser.print_help()
        return 2
    if desktop.wanted(args) and args.command not in ("gui", "compare"):
        return desktop.run(args)
    if args.command in ("gui", "compare"):
        return commands.module_of(args.command).run(args)
    from gindex_studio.cli import bounded, skipped

    module = commands.module_of(args.command)
    # SIGTERM (``kill``, ``timeout``) unwinds the command as Ctrl-C does: its pools are stopped, not
    # left searching; a command with a large input runs in a child that Ctrl-C need not wait for
    # (score bounds its own reading, a window is opened where the command runs); entries of program
    # folders that are no regular files are said in one line (or refused with --strict)
    with _sigterm_unwinds(), skipped.reported(getattr(args, "strict", False)):
        if not getattr(module, "BOUNDS_ITS_READING", False) and not getattr(args, "window", False):
            bounded.take_over_if_large(args)
        return module.run(args)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the command unwinds as on Ctrl-C (every handler that stops work on
    KeyboardInterrupt stops it) and ends with exit 143."""


def _terminated(_signum, _frame) -> None:
    raise Terminated()


@contextmanager
def _sigterm_unwinds():
    """SIGTERM raises ``Terminated`` in the block, when it has the default action and this is the
    main thread (else nothing changes). A process forked meanwhile (a pool's worker) starts with
    the default again: ``stop_pool_now`` ends workers with SIGTERM, which the handler would turn
    into an exception a worker survives."""
    import os
    import signal

    from gindex_studio.cli import signals

    try:
        before = signal.getsignal(signal.SIGTERM)
        taken = before == signal.SIG_DFL or signals.is_ours(before)
        if taken:
            if not _FORK_RESET:
                os.register_at_fork(after_in_child=_default_sigterm)
                _FORK_RESET.append(True)
            signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread
        taken = False
    try:
        yield
    finally:
        if taken:
            signal.signal(signal.SIGTERM, before)


_FORK_RESET: list = []  # registered once: ``os.register_at_fork`` cannot be undone


def _default_sigterm() -> None:
    import signal

    from gindex_studio.cli import signals

    try:
        handler = signal.getsignal(signal.SIGTERM)
        if handler is _terminated or signals.is_ours(handler):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except ValueError:
        pass


def _guarded(work) -> int:
    """Run ``work()``; bad input → one line and 1, Ctrl-C → 130, SIGTERM → 143, a closed pipe → 0. In a child
    that took the command over (``bounded.take_over_if_large``), the process ends here with that status."""
    from gindex_studio.cli import bounded, signals

    try:
        with signals.unwinding():  # Ctrl-C is KeyboardInterrupt again: the work's handlers stop what it started
            code = _status_of(work)
    except bounded.ChildDone as done:  # the parent: the child did the command and said what it had to
        return done.status
    except BaseException:
        if bounded._in_child:  # an error no handler expected: its traceback, and the child ends
            import traceback

            traceback.print_exc()
            bounded.finish_child(1)
        raise
    return bounded.finish_child(code)


def _status_of(work) -> int:
    try:
        return work()
    except (InputError, ValueError) as e:  # ValueError: e.g. impossible option values
        say(str(e))
        return 1
    except Terminated:
        say("terminated")
        return 143
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:  # the system refusing a file the user named (ENAMETOOLONG from a Path.is_file())
        say(os_error_line(e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
