"""The Drawing's fast paths give exactly what the plain rules give: ``execute`` (a single message
follows its successor at once; a plain loop body runs whole passes) against a one-firing-at-a-time
interpreter written here from the spec, and ``rasterise`` (segments sampled in groups) against
sampling one segment at a time. Same floats, same order, same guard errors."""
from __future__ import annotations

import math
import random
from collections import deque

import numpy as np
import pytest

from gindex_studio.core.flatland.dataset import generate
from gindex_studio.core.flatland.errors import RunawayError
from gindex_studio.core.flatland.render import rasterise
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file, load_text
from gindex_studio.core.flatland.run import execute


def plain_execute(program, max_firings, max_segments):
    """One node firing per step from a FIFO queue; counters copied per message (spec §1)."""
    queue = deque((t, *map(float, program.start.params["position"]), float(program.start.params["theta"]), {})
                  for t in program.start.targets.get("out", []))
    segments, nodes, firings = [], [], 0
    while queue:
        nid, x, y, h, counters = queue.popleft()
        firings += 1
        if firings > max_firings:
            raise RunawayError(f"firings {len(segments)}")
        n = program.nodes[nid]
        outs = n.targets.get("out", [])
        if n.type == "move":
            r = math.radians(h)
            x1, y1 = x + float(n.params["dist"]) * math.cos(r), y + float(n.params["dist"]) * math.sin(r)
            if not n.params["penup"]:
                segments.append((x, y, x1, y1))
                nodes.append(nid)
                if len(segments) > max_segments:
                    raise RunawayError("segments")
            x, y = x1 % 128.0, y1 % 128.0
            x, y = (0.0 if x >= 128.0 else x), (0.0 if y >= 128.0 else y)
        elif n.type == "turn":
            h = (h + float(n.params["theta"])) % 360.0
        elif n.type == "loop":
            lo, hi = n.params["start"], n.params["end"]
            v = counters.get(nid, lo - 1)
            if v < hi:
                v += 1
            counters = dict(counters)
            if v < hi:
                counters[nid] = v
                outs = n.targets.get("body", [])
            else:
                counters.pop(nid, None)
        for t in outs:
            queue.append((t, x, y, h, counters))
    return segments, nodes, firings


PROGRAMS = [
    # nested plain loops, a body with pen-up moves, fractional bounds, an empty loop, fan-out after loops
    "p(start) -> a(loop i 0 4)\na body -> b(loop j 0 3)\nb body -> m(move 5 0)\nm -> t(turn 30)\nt -> b\n"
    "b -> u(turn 90)\nu -> a\na -> p(end)\n{} -> p()\n",
    "p(start) -> a(loop i 0.5 4.2)\na body -> m(move 5 1)\nm -> k(move 3 0)\nk -> t(turn 30)\nt -> a\n"
    "a -> z(move 9 0)\nz -> p(end)\n{} -> p()\n",
    "p(start) -> a(loop i 2 2)\na body -> m(move 5 0)\nm -> a\na -> z(move 9 0)\nz -> p(end)\n{} -> p()\n",
    "p(start) -> a(loop i 0 5)\na body -> m(move 50 0)\nm -> a\na -> z(move 9 0)\nz -> y(loop k 0 7)\n"
    "z -> w(turn 5)\ny body -> q(move 4 0)\nq -> y\nw -> e(move 6 0)\ny -> e\ne -> p(end)\n{} -> p()\n",
    "p(start) -> l(loop i 0 300)\nl body -> m(move 3 0)\nm -> t(turn 7.1)\nt -> l\nl -> p(end)\n{} -> p()\n",
]


def programs():
    out = [load_text(t, kind="fbp") for t in PROGRAMS]
    out += [load_file(f) for f in sorted(LIBRARY_DIR.glob("*.fbp"))]
    out += [t.program for t in generate(seed=4, per_domain=2, per_test_domain=2)]
    return out


def outcome(run, program, **limits):
    try:
        return run(program, **limits)
    except RunawayError as e:
        return ("runaway", "firings" in str(e))


@pytest.mark.parametrize("limits", [{}] + [{"max_firings": k} for k in (0, 1, 7, 20, 33, 100, 901)]
                         + [{"max_segments": k} for k in (0, 1, 5, 17, 60, 299)])
def test_execute_fires_as_one_node_at_a_time(limits):
    full = {"max_firings": 2_000_000, "max_segments": 1_000_000, **limits}
    for program in programs():
        got = outcome(lambda p, **k: (lambda t: (t.segments, t.nodes, t.firings))(execute(p, **k)), program, **full)
        want = outcome(plain_execute, program, **full)
        if isinstance(want, tuple) and want and want[0] == "runaway":
            assert isinstance(got, tuple) and got[0] == "runaway" and got[1] == want[1]
        else:
            assert got == want  # the very same floats, in the same order


def plain_rasterise(segments, size, scale):
    img = np.zeros((size, size), dtype=bool)
    for s in segments:
        x0, y0, x1, y1 = (float(v) * scale for v in s)
        steps = min(math.ceil(math.hypot(x1 - x0, y1 - y0) * 2.0), 4 * size) + 1
        for k in range(steps):
            t = k / max(steps - 1, 1)
            c = math.floor(x0 + (x1 - x0) * t)
            r = size - 1 - math.floor(y0 + (y1 - y0) * t)
            if 0 <= c < size and 0 <= r < size:
                img[r, c] = True
    return img


def test_rasterise_samples_as_one_segment_at_a_time():
    rng = random.Random(7)
    for trial in range(60):
        n = rng.choice([0, 1, 3, 40, 200])
        segs = [tuple(rng.uniform(-30, 160) for _ in range(4)) for _ in range(n)]
        if trial % 2:
            segs = [(a, b, a + rng.uniform(-2, 2), b + rng.uniform(-2, 2)) for a, b, _, _ in segs]
        for size, scale in ((128, 1.0), (256, 2.0)):
            assert np.array_equal(rasterise(segs, size, scale), plain_rasterise(segs, size, scale)), trial
