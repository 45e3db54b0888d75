"""``gindex-studio --install-desktop`` / ``--uninstall-desktop``: the launcher, its icon and the
experiment file type for the user's desktop (top-level options, not a subcommand)."""
from __future__ import annotations

import argparse

from gindex_studio.cli.common import InputError


def add_options(parser: argparse.ArgumentParser) -> None:
    desk = parser.add_mutually_exclusive_group()
    desk.add_argument("--install-desktop", action="store_true",
                      help="add the launcher, its icon and the experiment file type to your desktop (Linux, per user)")
    desk.add_argument("--uninstall-desktop", action="store_true", help="remove what --install-desktop added")


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.install_desktop or args.uninstall_desktop)


def run(args: argparse.Namespace) -> int:
    from gindex_studio import desktop

    install = bool(args.install_desktop)
    try:
        res = desktop.install() if install else desktop.uninstall()
    except OSError as e:
        raise InputError(f"desktop integration: {e.filename or ''}: {e.strerror or e}") from None
    verb = "installed" if install else "removed"
    for f in res.files:
        print(f"{verb} {f}")
    if not res.files:
        print("nothing to remove: the desktop integration is not installed")
    for note in res.notes:
        print(note)
    return 0
