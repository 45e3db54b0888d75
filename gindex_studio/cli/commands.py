"""The subcommands of ``gindex-studio``: one module each.

Each module named in :data:`MODULES` defines

- ``NAMES``: the subcommand names it adds (a tuple of strings),
- ``add_parsers(sub)``: adds their parsers to the ``argparse`` sub-parser action,
- ``run(args) -> int``: runs the one chosen (``args.command`` says which),
- optionally ``check_usage(args, parser)``: usage errors argparse cannot see alone (call
  ``parser.error``: exit 2 before any work).

:mod:`gindex_studio.cli.dispatch` builds its parser and dispatches from this list, so adding a
command is one line here plus its module. Commands report bad input by raising
:class:`gindex_studio.cli.common.InputError` (one line on stderr, exit 1). A command module keeps
its top level light (no numpy, Qt or orjson there): every run imports them all to build the parser.
"""
from __future__ import annotations

import importlib
from types import ModuleType

#: Modules (relative to this package) that add subcommands, in the order they appear in ``--help``.
MODULES: tuple[str, ...] = (
    "score",
    "matrix",
    "omega",
    "gindex",
    "library",
    "studio",
    "curate",
    "experiment",
    "report",
    "flatland",
    "run",
    "probe",
    "lint",
)


def load() -> list[ModuleType]:
    """The command modules, imported."""
    return [importlib.import_module(f"gindex_studio.cli.{m}") for m in MODULES]


def names() -> tuple[str, ...]:
    """Every subcommand name the command modules add."""
    return tuple(n for mod in load() for n in mod.NAMES)


def module_of(command: str) -> ModuleType:
    """The module that adds ``command``."""
    return next(m for m in load() if command in m.NAMES)
