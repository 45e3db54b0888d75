"""Seeded augmentation: randomised variants of a program, with the reference's randomisers.

While a program resolves with an ``Augment``: every sub-flow argument written as an integer
literal whose parameter has an ``@param`` randomiser is drawn from it; in the top-level flow,
integer-literal arguments of primitives are redrawn (move dist uniform [0, 60), penup true with
probability 0.1, turn theta integer [0, 360), loop end integer [1, 360) with start 0 when both
are literals); the start position is shifted by uniform [0, 60) per axis modulo 128 and the
heading drawn from the integers [0, 360). As the reference, float literals and expressions are
kept. Unlike the reference, it is seeded: the same seed gives the same programs.
"""
from __future__ import annotations

import random
from pathlib import Path

from gindex_studio.core.flatland.lisp import write_lisp
from gindex_studio.core.flatland.program import FlatProgram
from gindex_studio.core.flatland.render import rasterise, to_png_bytes
from gindex_studio.core.flatland.resolve import load_file
from gindex_studio.core.flatland.run import execute
from gindex_studio.core.flatland.syntax import Randomiser


class Augment:
    """The random draws of one augmentation run (``rng``: a ``random.Random``)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def draw(self, r: Randomiser):
        v = r.values
        if r.kind == "int":
            return self.rng.randrange(int(v[0]), int(v[1]))
        if r.kind == "float":
            return self.rng.uniform(v[0], v[1])
        if r.kind == "bool":
            return self.rng.random() < v[0]
        return self.rng.choice(v)

    def redraw(self, kind: str, params: dict, literal: list[bool]) -> None:
        """Redraw the literal arguments of a top-level primitive in place."""
        rng = self.rng
        if kind == "move":
            if literal[0]:
                params["dist"] = rng.uniform(0, 60)
            if literal[1]:
                params["penup"] = rng.random() < 0.1
        elif kind == "turn":
            if literal[0]:
                params["theta"] = rng.randrange(0, 360)
        elif kind == "loop" and literal[1] and literal[2]:
            params["start"] = 0
            params["end"] = rng.randrange(1, 360)

    def redraw_start(self, params: dict) -> None:
        x, y = params["position"]
        params["position"] = [(x + self.rng.uniform(0, 60)) % 128, (y + self.rng.uniform(0, 60)) % 128]
        params["theta"] = self.rng.randrange(0, 360)


def variants(path: str | Path, n: int, seed: int, library=None) -> list[FlatProgram]:
    """``n`` randomised variants of the program at ``path`` (deterministic for a seed)."""
    rng = random.Random(seed)
    return [load_file(path, library, augment=Augment(rng)) for _ in range(n)]


def write_sample(program: FlatProgram, base: Path) -> list[Path]:
    """Write ``base``.lisp, .json (flat) and .png (128×128 drawing); return the paths."""
    base.parent.mkdir(parents=True, exist_ok=True)
    out = [base.with_suffix(".lisp"), base.with_suffix(".json"), base.with_suffix(".png")]
    from gindex_studio.core.flows.files import atomic_write_bytes

    data = (write_lisp(program).encode("utf-8"), program.dumps().encode("utf-8"),
            to_png_bytes(rasterise(execute(program).segments)))
    for path, content in zip(out, data):
        atomic_write_bytes(path, content)
    return out


def augment_to_folder(path: str | Path, n: int, seed: int, outdir: str | Path, library=None) -> list[Path]:
    """Write ``n`` seeded variants of ``path`` into ``outdir`` as ``<stem>-NNN.{lisp,json,png}``."""
    path, outdir = Path(path), Path(outdir)
    if outdir.exists() and not outdir.is_dir():
        raise NotADirectoryError(20, "is not a folder", str(outdir))
    written = []
    for i, prog in enumerate(variants(path, n, seed, library), 1):
        written += write_sample(prog, outdir / f"{path.stem}-{i:03d}")
    return written
