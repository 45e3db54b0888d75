"""The paper's Flatland experiment (Fig. 15): a curriculum and three test sets, seeded.

Curriculum domains: ``circles-1`` … ``circles-5`` and ``lines-1`` … ``lines-5`` (one to five
circles, or one to five axis-parallel lines, at random places). Test sets: easy (1-3 circles,
1-2 lines), medium (5 circles, 4 lines, 1 rectangle, a circle in a box), hard (2 rectangles,
2 circles in boxes, a rotated line, a stick figure). Each task is an ``.fbp`` program (its ideal
program, using the bundled library by ``#include``), its flat JSON and its 128×128 drawing.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from gindex_studio.core.flatland.augment import write_sample
from gindex_studio.core.flatland.program import FlatProgram
from gindex_studio.core.flatland.resolve import load_text

CURRICULUM = [(f"circles-{n}", "circles", n) for n in range(1, 6)] + [(f"lines-{n}", "lines", n) for n in range(1, 6)]
TEST_SETS = {
    "easy": [("circles-1", "circles", 1), ("circles-2", "circles", 2), ("circles-3", "circles", 3),
             ("lines-1", "lines", 1), ("lines-2", "lines", 2)],
    "medium": [("circles-5", "circles", 5), ("lines-4", "lines", 4), ("rectangles-1", "rectangles", 1),
               ("circle-in-box-1", "circle_in_box", 1)],
    "hard": [("rectangles-2", "rectangles", 2), ("circle-in-box-2", "circle_in_box", 2),
             ("rotated-line-1", "rotated_line", 1), ("stick-figure-1", "stick_figure", 1)],
}


@dataclass
class Task:
    """One generated task: where it belongs, its ideal program's text and the flat program."""

    split: str  # "train" or a test set name
    domain: str
    name: str
    text: str
    program: FlatProgram


def _shape_lines(kind: str, i: int, rng: random.Random, heading: list[int]) -> list[str]:
    """Nodes of shape ``i``: aim at a random absolute direction, hop there pen-up, face an
    absolute direction (a multiple of 90°; tilted for the rotated line), draw the shape.
    ``heading`` holds the absolute heading so far and is updated."""
    aim = rng.randrange(0, 360)
    face = rng.choice((0, 90, 180, 270))
    if kind == "rotated_line":
        face += rng.choice((15, 30, 45, 60, 75))
    nodes = [f"aim{i}(turn {aim - heading[0]})", f"hop{i}(move {rng.randrange(10, 50)} 1)",
             f"face{i}(turn {face - aim})"]
    heading[0] = face
    if kind == "circles":
        shape = [f"c{i}(circle {rng.randrange(5, 20)})"]
    elif kind in ("lines", "rotated_line"):
        shape = [f"line{i}(move {rng.randrange(10, 50)} 0)"]
    elif kind == "rectangles":
        shape = [f"r{i}(rectangle {rng.randrange(10, 40)} {rng.randrange(10, 40)})"]
    elif kind == "circle_in_box":
        side = 2 * rng.randrange(6, 18)
        shape = [f"box{i}(square {side})", f"mid{i}(move {side // 2} 1)", f"ring{i}(circle {side // 2})"]
    elif kind == "stick_figure":
        shape = [f"fig{i}(stickman {rng.randrange(5, 12)} {rng.choice((30, 45, 60))})"]
    else:
        raise ValueError(f"unknown shape kind {kind!r}")
    return nodes + shape


INCLUDES = {"circles": ["circle.fbp"], "lines": [], "rectangles": ["rectangle.fbp"],
            "circle_in_box": ["circle.fbp", "square.fbp"], "rotated_line": [], "stick_figure": ["stickman.fbp"]}


def task_text(kind: str, count: int, rng: random.Random) -> str:
    """The ``.fbp`` text of a scene of ``count`` shapes of ``kind``."""
    heading = [0]
    nodes = [n for i in range(1, count + 1) for n in _shape_lines(kind, i, rng, heading)]
    lines = [f'#include "{f}"' for f in INCLUDES[kind]] + [""]
    lines.append(f"scene(start) -> {nodes[0]}")
    prev = nodes[0].split("(")[0]
    for n in nodes[1:]:
        lines.append(f"{prev} -> {n}")
        prev = n.split("(")[0]
    lines.append(f"{prev} -> scene(end)")
    x, y = rng.randrange(20, 108), rng.randrange(20, 108)
    lines += ["", f'{{"position":[{x},{y}], "theta":0}} -> scene()']
    return "\n".join(lines) + "\n"


def generate(seed: int, per_domain: int = 50, per_test_domain: int = 8, library=None) -> list[Task]:
    """The whole data set, deterministic for ``seed``: ``per_domain`` tasks per curriculum domain
    (10 domains) and ``per_test_domain`` per test domain (13 domains)."""
    rng = random.Random(seed)
    tasks = []
    plan = [("train", CURRICULUM, per_domain)] + [(s, d, per_test_domain) for s, d in TEST_SETS.items()]
    for split, domains, n in plan:
        for domain, kind, count in domains:
            for k in range(1, n + 1):
                text = task_text(kind, count, rng)
                tasks.append(Task(split, domain, f"{domain}-{k:03d}", text, load_text(text, None, library, "fbp")))
    return tasks


def write_dataset(tasks: list[Task], outdir: str | Path) -> int:
    """Write ``train/<domain>/`` and ``test/<set>/<domain>/`` folders: per task ``.fbp`` (the ideal
    program), ``.lisp``, ``.json`` (flat) and ``.png``. Returns the number of tasks written."""
    outdir = Path(outdir)
    for t in tasks:
        folder = outdir / "train" / t.domain if t.split == "train" else outdir / "test" / t.split / t.domain
        base = folder / t.name
        write_sample(t.program, base)
        base.with_suffix(".fbp").write_text(t.text, encoding="utf-8")
    return len(tasks)
