"""The subcommands of ``gindex-studio``: one module each.

:data:`COMMANDS` names every subcommand and the module that adds it. Each such module defines

- ``add_parsers(sub)``: adds the parsers of its commands to the ``argparse`` sub-parser action,
- ``run(args) -> int``: runs the one chosen (``args.command`` says which),
- optionally ``check_usage(args, parser)``: usage errors argparse cannot see alone (call
  ``parser.error``: exit 2 before any work).

:mod:`gindex_studio.cli.dispatch` builds its parser and dispatches from this list, so adding a
command is one line here plus its module. Commands report bad input by raising
:class:`gindex_studio.cli.common.InputError` (one line on stderr, exit 1). A run imports only the
module of the command it runs (the start-up of ``score`` pays for no other); ``--help`` and a
mistyped command import them all.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from gindex_studio.core.flatland import WORLD

#: Every subcommand → the module (relative to this package) that adds its parser and runs it, in
#: the order they appear in ``--help``.
COMMANDS: dict[str, str] = {
    "score": "score",
    "matrix": "matrix",
    "omega": "omega",
    "gindex": "gindex",
    "library": "library",
    "compare": "studio",
    "gui": "studio",
    "curate": "curate",
    "experiment": "experiment",
    "attempt": "attempt",
    "report": "report",
    WORLD: WORLD,  # the command and its module (cli/flatland.py) are named after the world
    "run": "run",
    "probe": "probe",
    "lint": "lint",
}


def load(command: str | None = None) -> list[ModuleType]:
    """The command modules, imported: all of them, or only ``command``'s."""
    wanted = [COMMANDS[command]] if command is not None else dict.fromkeys(COMMANDS.values())
    return [importlib.import_module(f"gindex_studio.cli.{m}") for m in wanted]


def names() -> tuple[str, ...]:
    """Every subcommand name (no module imported)."""
    return tuple(COMMANDS)


def module_of(command: str) -> ModuleType:
    """The module that adds ``command``."""
    return load(command)[0]
