"""A corpus of hostile inputs (issue 36, "Done when"): things a user may name where a program, an
experiment or a library file is expected. ``KINDS`` maps each kind to ``make(folder, name)``,
which creates it in ``folder`` under (about) ``name`` and returns its path: file-system oddities
(pipes, devices, links, folders, sparse giants, odd names) and contents (broken, empty, binary,
deep, huge, wrong numbers, odd flows, odd experiments, hostile Flatland programs).

A kind's content is the same whatever the slot: a Flatland bomb given as a flow file is simply
no JSON, an experiment given as a flow is no flow."""
from __future__ import annotations

import json
import os
import random
import socket
from pathlib import Path
from typing import Callable

from gindex_studio.paths import DEMO_DIR
from tests.core.flatland.test_flatland_hostile import _fan_out

DEMO = Path(DEMO_DIR)
GOOD_FLOW = DEMO / "programs/telegram-2-reply/telegram-2-reply-4.json"
_SOCKETS: list = []  # bound sockets stay open while the test runs


def node(i: str, t: str = "inject", to=(), **more) -> dict:
    return {"id": i, "type": t, "wires": [list(to)], **more}


def _json(value) -> bytes:
    return json.dumps(value).encode()


def _experiment(**change) -> bytes:
    """The demo experiment cut to two domains and one task, absolute paths, ``change`` applied
    (a key "a.b" sets a nested field; a callable value is given the experiment)."""
    exp = json.loads((DEMO / "experiment.json").read_text())
    exp["curriculum"] = [dict(c, programs=[str(DEMO / p) for p in c["programs"]]) for c in exp["curriculum"][:2]]
    task = exp["tasks"][0]
    exp["tasks"] = [dict(task, reference=str(DEMO / task["reference"]),
                         generated={"file": str(DEMO / task["generated"]["file"])})]
    for key, value in change.items():
        if callable(value):
            value(exp)
            continue
        *path, last = key.split(".")
        target = exp
        for k in path:
            target = target[int(k)] if isinstance(target, list) else target[k]
        target[last] = value
    return json.dumps(exp).encode()


def _raw_number(text: str) -> Callable[[], bytes]:
    """The experiment with its first ``samples`` written as ``text`` (NaN, 1e999: not JSON values
    json.dumps would write)."""
    return lambda: _experiment().replace(b'"samples": 60', b'"samples": ' + text.encode(), 1)


def _big_flow(n: int) -> bytes:
    nodes = [node(f"n{i}", "function", [f"n{i + 1}"] if i + 1 < n else [], func="return msg;") for i in range(n)]
    return _json(nodes)


#: content kinds: name → the bytes (or a function giving them, built when made)
CONTENTS: dict[str, bytes | Callable[[], bytes]] = {
    "empty file": b"",
    "whitespace only": b" \n\t\r\n" * 100,
    "truncated JSON": GOOD_FLOW.read_bytes()[: len(GOOD_FLOW.read_bytes()) // 2],
    "trailing comma": b'[{"id": "a", "type": "inject", "wires": [[]]},]',
    "numbers [1,2,3]": b"[1,2,3]",
    "empty array": b"[]",
    "empty object": b"{}",
    "null": b"null",
    "a JSON string": b'"flow"',
    "a JSON number": b"42",
    "NaN in a node": b'[{"id": "a", "type": "inject", "x": NaN, "y": -Infinity, "wires": [[]]}]',
    "1e999 in a node": b'[{"id": "a", "type": "inject", "x": 1e999, "wires": [[]]}]',
    "1e308 everywhere": _json([node("a", "inject", ["b"], x=1e308, y=-1e308, repeat=1e308),
                               node("b", "delay", timeout=1e308, rate=-1e308)]),
    "a 400-digit integer": b'[{"id": "a", "type": "inject", "x": 1' + b"0" * 400 + b', "wires": [[]]}]',
    "negative and odd numbers": _json([node("a", "inject", x=-1, y=-0.0, z=-5, w=-1e-320),
                                       node("b", "split", arraySplt=-3)]),
    "non-UTF-8 strings": b'[{"id": "a\xff\xfe", "type": "inject", "name": "\xc3\x28", "wires": [[]]}]',
    "UTF-16 with BOM": "\ufeff".encode("utf-16-le") + GOOD_FLOW.read_text().encode("utf-16-le"),
    "UTF-8 BOM": b"\xef\xbb\xbf" + GOOD_FLOW.read_bytes(),
    "binary garbage": random.Random(36).randbytes(4096),
    "a PNG header": b"\x89PNG\r\n\x1a\n" + bytes(256),
    "NUL bytes": bytes(1024),
    "arrays nested 101 deep": b"[" * 101 + b"]" * 101,
    "objects nested 100,000 deep": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "a node nested 1,000 deep": b'[{"id": "a", "type": "inject", "wires": [[]], "v": ' + b"[" * 1000 + b"]" * 1000
                                + b"}]",
    "unknown node types": _json([node("a", "no-such-type", ["b"]), node("b", "\u202eevil", ["c"]), node("c", "")]),
    "a wire cycle": _json([node("a", "function", ["b"]), node("b", "function", ["c"]), node("c", "function", ["a"])]),
    "a self-loop": _json([node("a", "function", ["a"])]),
    "duplicate ids": _json([node("a", "inject", ["a"]), node("a", "debug"), node("a", "function", ["a"])]),
    "dangling wires": _json([node("a", "inject", ["nowhere", "b"]), node("b", "debug", ["gone"])]),
    "wires as a string": _json([{"id": "a", "type": "inject", "wires": "b"}, node("b", "debug")]),
    "wires as a dict": _json([{"id": "a", "type": "inject", "wires": {"0": ["b"]}}, node("b", "debug")]),
    "wires nested oddly": _json([{"id": "a", "type": "inject", "wires": [[["b"]], [None, 3, {}]]}, node("b", "debug")]),
    "ids and types of the wrong type": b'[{"id": 1, "type": ["inject"], "wires": [[]]}, {"id": null, "type": {}}]',
    "a 10 MB string": _json([node("a", "function", func="x" * (10 << 20))]),
    "a 20,000-node flow": lambda: _big_flow(20_000),
    "100 kB ids and types": _json([node("i" * 100_000, "t" * 100_000, ["j" * 100_000]),
                                   node("j" * 100_000, "debug")]),
    "flows that is no list": b'{"flows": "not a list"}',
    "a dataset with odd fields": _json({"title": None, "text": 5, "flow": [node("a", "debug")], "name": ["x"]}),
    "experiment: samples 1e308": lambda: _experiment(**{"curriculum.0.samples": 1e308}),
    "experiment: samples -1": lambda: _experiment(**{"curriculum.0.samples": -1}),
    "experiment: samples NaN": _raw_number("NaN"),
    "experiment: samples 1e999": _raw_number("1e999"),
    "experiment: samples 10**30": lambda: _experiment(**{"curriculum.0.samples": 10 ** 30}),
    "experiment: priors NaN, compute negative": lambda: _experiment(**{"compute.time": -5}).replace(
        b'"priors": 0.0001', b'"priors": NaN', 1),
    "experiment: no tasks": lambda: _experiment(tasks=[]),
    "experiment: a task whose reference is /dev/zero": lambda: _experiment(**{"tasks.0.reference": "/dev/zero"}),
    "experiment: a curriculum of /dev/zero": lambda: _experiment(**{"curriculum.0.programs": ["/dev/zero"] * 3}),
    "a study listing /dev/zero": _json({"format": "gindex-studio.study/1", "name": "s", "experiments": ["/dev/zero"]}),
    "Flatland: 2**20 fan-out": _fan_out(20).encode(),
    "Flatland: including /dev/zero": b'#include "/dev/zero"\nmain(start) -> a(move 1 0)\na -> main(end)\n{} -> main()\n',
    "Flatland: a 300-character include": b'#include "' + b"x" * 300 + b'.fbp"\n{} -> main()\n',
    "Flatland: numbers 1e308": b'main(start) -> a(move 1e308 0)\na -> main(end)\n{"position":[1e308,1e308]} -> main()\n',
    "Flatland: parentheses 100,000 deep": b"(begin " + b"(" * 100_000 + b")" * 100_000 + b")\n",
    "JSONL with broken lines": b'{"task_id": "x", "output": 1}\n{broken\n\xff\xfe\n',
    "prose": b"Here is the flow you asked for:\n\nIt has an inject node and a debug node. I hope it helps!\n",
}


def _content(value) -> Callable[[Path, str], Path]:
    def make(folder: Path, name: str) -> Path:
        p = folder / name
        p.write_bytes(value() if callable(value) else value)
        return p
    return make


def _link(target: str | Callable[[Path], str]) -> Callable[[Path, str], Path]:
    def make(folder: Path, name: str) -> Path:
        p = folder / name
        p.symlink_to(target(folder) if callable(target) else target)
        return p
    return make


def _fifo(folder: Path, name: str) -> Path:
    os.mkfifo(folder / name)
    return folder / name


def _socket(folder: Path, name: str) -> Path:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    here = os.getcwd()
    os.chdir(folder)  # bound by its relative name: a deep folder's full path is beyond AF_UNIX's 108 bytes
    try:
        s.bind(name)
    finally:
        os.chdir(here)
    s.listen(1)
    _SOCKETS.append(s)
    return folder / name


def _sparse(size: int) -> Callable[[Path, str], Path]:
    def make(folder: Path, name: str) -> Path:
        with open(folder / name, "wb") as f:
            f.truncate(size)
        return folder / name
    return make


def _loop(folder: Path, name: str) -> Path:
    (folder / "loop-b").symlink_to(name)
    (folder / name).symlink_to("loop-b")
    return folder / name


def _folder(folder: Path, name: str) -> Path:
    (folder / name).mkdir()
    (folder / name / "inside.json").write_bytes(GOOD_FLOW.read_bytes())
    return folder / name


def _renamed(rename: Callable[[str], str | bytes]) -> Callable[[Path, str], Path]:
    """A good flow under another name (``rename`` of the slot's name; bytes: not UTF-8)."""
    def make(folder: Path, name: str) -> Path:
        new = rename(name)
        p = Path(os.fsdecode(os.path.join(os.fsencode(folder), new))) if isinstance(new, bytes) else folder / new
        p.write_bytes(GOOD_FLOW.read_bytes())
        return p
    return make


def _mode_000(folder: Path, name: str) -> Path:
    p = folder / name
    p.write_bytes(GOOD_FLOW.read_bytes())
    p.chmod(0)
    return p


def _ext(name: str) -> str:
    return os.path.splitext(name)[1]


#: file-system kinds: name → make(folder, name)
FILES: dict[str, Callable[[Path, str], Path]] = {
    "a named pipe": _fifo,
    "a link to /dev/zero": _link("/dev/zero"),
    "a link to /dev/null": _link("/dev/null"),
    "a link to /dev/urandom": _link("/dev/urandom"),
    "a socket": _socket,
    "a link to /proc/self/mem": _link("/proc/self/mem"),
    "a dangling link": _link("moved-away.json"),
    "a link loop": _loop,
    "a link to itself": lambda f, n: _link(n)(f, n),
    "a folder named like a file": _folder,
    "a link to a folder": _link(lambda f: str(DEMO / "programs")),
    "an 8 GiB sparse file": _sparse(8 << 30),
    "one byte over the input limit": _sparse((256 << 20) + 1),
    "a missing file": lambda f, n: f / n,
    "a 300-byte name (beyond NAME_MAX)": lambda f, n: f / ("n" * 300 + _ext(n)),
    "a 255-byte name": _renamed(lambda n: "n" * (255 - len(_ext(n))) + _ext(n)),
    "a newline in the name": _renamed(lambda n: "line\nbreak" + n),
    "a name that is not UTF-8": _renamed(lambda n: b"\xff\xfe" + os.fsencode(n)),
    "a name starting with a dash": _renamed(lambda n: "-" + n),
    "a file of mode 000": _mode_000,
}

KINDS: dict[str, Callable[[Path, str], Path]] = {**FILES, **{k: _content(v) for k, v in CONTENTS.items()}}
