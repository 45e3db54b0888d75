"""The admin token of a user's Node-RED (``--node-red URL``) on the command line, never as a value
in argv (every user of the computer reads argv in ``ps`` or ``/proc``): ``--token -`` reads it from
stdin (typed without echo at a terminal), ``--token-file F`` from a private file (core.nodered.secrets:
a regular file of the user, mode 0600 or stricter). ``--token T`` is refused as a usage error
(exit 2) that names the two ways."""
from __future__ import annotations

import argparse
import sys

REFUSED = ("a token given on the command line can be read by every user of this computer (ps, /proc): pass "
           "`--token -` and give it on stdin, or `--token-file F` (a file only you can read, mode 0600)")


def _stdin_only(value: str) -> str:
    if value != "-":
        raise argparse.ArgumentTypeError(REFUSED)
    return value


def add_token_options(p: argparse.ArgumentParser) -> None:
    """``--token -`` and ``--token-file F`` (one or the other) on ``p``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--token", metavar="-", type=_stdin_only,
                   help="read the admin token of --node-red from stdin (`--token -`; a value here is refused)")
    g.add_argument("--token-file", metavar="F",
                   help="read the admin token of --node-red from F (a file of yours, mode 0600 or stricter)")


def token_from(args: argparse.Namespace) -> str | None:
    """The admin token the options name (None without ``--node-red`` or without a token option);
    InputError (one line) when it cannot be read or its file is not private."""
    from gindex_studio.cli.common import InputError
    from gindex_studio.core.nodered.secrets import TokenError, check_token, read_token_file, read_token_stream

    if not getattr(args, "node_red", None):
        return None
    try:
        if getattr(args, "token_file", None):
            return read_token_file(args.token_file)
        if getattr(args, "token", None) == "-":
            if sys.stdin is None:
                raise TokenError("--token -: there is no stdin to read the token from")
            if sys.stdin.isatty():
                import getpass

                return check_token(getpass.getpass("Node-RED admin token: "), "the token typed")
            return read_token_stream(sys.stdin, "--token - (stdin)")
    except TokenError as e:
        raise InputError(str(e)) from None
    return None
