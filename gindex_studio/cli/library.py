"""``gindex-studio library [--library DIR]…``: the node types of the library (bundled, plus
extra folders), as a table or JSON."""
from __future__ import annotations

import argparse
from pathlib import Path

from gindex_studio.cli.common import InputError, add_json, json_out, say, table



def add_parsers(sub) -> None:
    p = sub.add_parser("library", help="list the node types of the library",
                       description="The node types the editor and the scoring know: the bundled library, "
                                   "then each --library folder (a type there replaces the bundled one).")
    p.add_argument("--library", action="append", metavar="DIR", help="extra library folder (repeatable)")
    add_json(p)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.core.flows.library import LibraryError, NodeLibrary

    for folder in args.library or ():  # the core skips missing folders; a folder named here must exist
        if not Path(folder).is_dir():
            raise InputError(f"{folder}: no such folder" if not Path(folder).exists() else f"{folder}: not a folder")
    try:
        lib = NodeLibrary.load(args.library or ()) if args.library else NodeLibrary.bundled()
    except LibraryError as e:
        raise InputError(str(e)) from None
    if not args.library:
        for problem in NodeLibrary.user_errors:  # a broken user folder is left out, and said so
            say(f"warning: a user library folder was left out: {problem}")
    if args.json:
        json_out({
            "categories": [c.__dict__ for c in lib.categories],
            "types": [{"type": t.type, "label": t.label, "category": t.category, "color": t.color,
                       "inputs": t.inputs, "outputs": t.outputs, "config": t.config, "description": t.description,
                       "attributes": [{"key": a.key, "kind": a.kind, "default": a.default,
                                       "choices": list(a.choices)} for a in t.attributes]}
                      for t in lib.types],
        })
        return 0
    rows = [(t.type, t.category, f"{t.inputs}/{t.outputs}", len(t.attributes), t.description) for t in lib.types]
    print(table(rows, ("type", "category", "in/out", "attrs", "description")))
    print(f"\n{len(lib.types)} node types in {len(lib.categories)} categories")
    return 0
