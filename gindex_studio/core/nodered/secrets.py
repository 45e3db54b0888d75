"""Reading a Node-RED admin token without it ever being in a command line: from a private file
(a regular file of this user, mode 0600 or stricter) or from a stream (stdin).

A token is one line of printable characters without spaces (it goes into an HTTP header, where a
line break would forge headers), at most :data:`MAX_TOKEN` characters. Every refusal is a
:class:`TokenError` whose message is one line saying why and what to do.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

MAX_TOKEN = 4096


class TokenError(Exception):
    """A token cannot be read, or its file is not private; the message is one line."""


def private_file_problem(st: os.stat_result, path: str | Path) -> str | None:
    """Why a file with this ``fstat`` is not a private file of this user (one line), or None."""
    if not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    if st.st_uid != os.getuid():
        return f"{path} belongs to another user (uid {st.st_uid}): keep the token in a file of your own"
    if st.st_mode & 0o077:
        return (f"{path} can be read or written by others (mode {stat.S_IMODE(st.st_mode):04o}): "
                f"make it private with `chmod 600 {path}`")
    return None


def check_token(text: str, source: str) -> str:
    """The token in ``text`` (its first line, stripped); TokenError when there is none or it is not
    one line of printable characters without spaces."""
    token = text.split("\n", 1)[0].strip()
    if not token:
        raise TokenError(f"{source} holds no token (an empty first line)")
    if len(token) > MAX_TOKEN:
        raise TokenError(f"{source}: the token is longer than {MAX_TOKEN} characters")
    if not token.isprintable() or any(c.isspace() for c in token):
        raise TokenError(f"{source}: a token is one word of printable characters (no spaces, tabs or control "
                         "characters)")
    return token


def read_token_file(path: str | Path) -> str:
    """The token in the first line of ``path``: refused unless it is a regular file owned by this
    user and neither readable nor writable by group or others. The check is made on the file that
    was opened (``fstat``), so a file swapped in meanwhile is never read unchecked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise TokenError(f"cannot read the token file {path}: {e.strerror}") from None
    try:
        why = private_file_problem(os.fstat(fd), path)
        if why:
            raise TokenError(why)
        data = os.read(fd, MAX_TOKEN + 2)
    finally:
        os.close(fd)
    return check_token(data.decode("utf-8", "replace"), f"the token file {path}")


def read_token_stream(stream: IO[str], source: str = "stdin") -> str:
    """The token in the first line of ``stream`` (at most :data:`MAX_TOKEN` characters read)."""
    try:
        text = stream.readline(MAX_TOKEN + 2)
    except (OSError, ValueError) as e:
        raise TokenError(f"cannot read the token from {source}: {e}") from None
    return check_token(text, source)
