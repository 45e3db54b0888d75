"""``gindex-studio gui [FILE…]``, ``gindex-studio compare REFERENCE GENERATED`` and the bare
``gindex-studio FILE…``: open the studio's windows (PySide6, the ``[gui]`` extra)."""
from __future__ import annotations

import argparse
import os
import sys

from gindex_studio.cli.common import InputError, add_pair, needs_gui



def add_parsers(sub) -> None:
    p = sub.add_parser("compare", help="open the compare view on a reference and a generated program",
                       description="Open the compare window: the reference and the generated program side by "
                                   "side, the mapping drawn, Δ and θ updated as you edit.")
    add_pair(p, "reference flow file", "generated flow file (model output)")
    p = sub.add_parser("gui", help="open the studio window (the same as: gindex-studio FILE…)",
                       description="Open the studio window on the given flow or experiment files (none: an "
                                   "empty editor).")
    p.add_argument("files", nargs="*", metavar="FILE", help="flow or experiment files to open")


def run(args: argparse.Namespace) -> int:
    if args.command == "gui":
        return open_studio(args.files)
    from gindex_studio.core.flows.files import UserFileError, check_user_file

    for f in (args.reference, args.generated):
        try:
            check_user_file(f, "a program file")
        except UserFileError as e:
            raise InputError(str(e)) from None
    return open_studio([args.reference, args.generated], compare=(args.reference, args.generated))


def have_display() -> bool:
    """False on Linux with neither X11, Wayland nor an explicit Qt platform (e.g. offscreen)."""
    return not sys.platform.startswith("linux") or any(
        os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def open_studio(files: list[str], compare: tuple[str, str] | None = None) -> int:
    """The studio window on ``files`` (experiments open in the compare window), or the compare
    view on one pair; returns the application's exit status."""
    if not have_display():
        raise InputError("no display to open the studio window on (DISPLAY and WAYLAND_DISPLAY are not set); "
                         "the command-line tools work without one: gindex-studio --help")
    try:
        from gindex_studio.ui import app
        from gindex_studio.ui.application import studio_application
    except ImportError as e:  # Qt missing or broken on this machine
        raise needs_gui("the studio window", e) from None
    studio_application()
    if compare is not None and hasattr(app, "main_compare"):
        return app.main_compare(*compare)
    from gindex_studio.desktop import looks_like_experiment

    if files and all(looks_like_experiment(f) for f in files):  # e.g. opened from the file manager
        return app.main_experiments(files)
    return app.main(files)
