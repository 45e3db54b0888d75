"""Subcommands of ``gindex-studio`` that live in modules of their own.

Each module named in :data:`MODULES` defines

- ``NAMES``: the subcommand names it adds (a tuple of strings),
- ``add_parsers(sub)``: adds their parsers to the ``argparse`` sub-parser action,
- ``run(args) -> int``: runs the one chosen (``args.command`` says which).

``gindex_studio.cli.dispatch`` builds its parser and dispatches from this list, so adding a command is one
line here plus its module. Commands report bad input by raising ``gindex_studio.cli.dispatch.InputError``
(one line on stderr, exit 1).
"""
from __future__ import annotations

import importlib
from types import ModuleType

#: Modules (relative to this package) that add subcommands, in the order they appear in ``--help``.
MODULES: tuple[str, ...] = (
    "curate",
    "experiment",
    "report",
    "flatland",
    "run",
    "probe",
)


def load() -> list[ModuleType]:
    """The command modules, imported."""
    return [importlib.import_module(f"gindex_studio.cli.{m}") for m in MODULES]


def names() -> tuple[str, ...]:
    """Every subcommand name the command modules add (without importing their heavy dependencies:
    a module must keep its top level light)."""
    return tuple(n for mod in load() for n in mod.NAMES)
