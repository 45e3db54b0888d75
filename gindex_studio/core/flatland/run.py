"""Run a flat program: a FIFO queue of messages (position, heading, loop counters), as the reference.

Semantics (spec §1): the start node sends its state to its ``out`` targets; ``move`` goes forward
``dist`` (drawing the segment unless ``penup``), then wraps the position into [0, 128) on each axis
(the segment itself is unwrapped); ``turn`` adds ``theta`` degrees counter-clockwise; ``loop``
keeps a counter per message: the body runs ``end − start`` times, then the message leaves by
``out``. A node sends a copy of its output state to each target of the port it fires.

The guard: more than ``max_firings`` node firings or ``max_segments`` segments raise
``RunawayError`` (a program that would run forever or draw millions of segments).
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from gindex_studio.core.flatland.errors import RunawayError
from gindex_studio.core.flatland.program import FlatProgram

WORLD = 128.0
MAX_FIRINGS = 2_000_000
MAX_SEGMENTS = 1_000_000


@dataclass
class Trace:
    """What a run drew: ``segments`` as (x0, y0, x1, y1) in world units (y up), ``nodes`` the id of
    the move node that drew each segment, and ``firings`` the number of node firings."""

    segments: list[tuple[float, float, float, float]]
    nodes: list[str]
    firings: int


def _wrap(v: float) -> float:
    v %= WORLD
    return 0.0 if v >= WORLD else v


def _body_chain(loop: str, kinds: dict):
    """A loop's body when it is plain: one chain of move / turn / start nodes, each with a single
    ``out`` target, back to the loop. Returns (steps, firings per pass including the loop's next
    firing, segments per pass), or None."""
    body = kinds[loop][2]
    if len(body) != 1:
        return None
    steps, cur = [], body[0]
    while cur != loop:
        kind, a, b, outs = kinds[cur]
        if kind == 2 or len(outs) != 1 or len(steps) >= 256:
            return None
        steps.append((kind, a, b, cur))
        cur = outs[0]
    return steps, len(steps) + 1, sum(1 for k, _a, b, _i in steps if k == 0 and not b)


def execute(program: FlatProgram, max_firings: int = MAX_FIRINGS, max_segments: int = MAX_SEGMENTS) -> Trace:
    """Run ``program``; return its Trace. Raises RunawayError past the guard's limits."""
    nodes = program.nodes
    kinds = {}
    for nid, n in nodes.items():
        p = n.params
        if n.type == "move":
            kinds[nid] = (0, float(p["dist"]), bool(p["penup"]), n.targets.get("out", []))
        elif n.type == "turn":
            kinds[nid] = (1, float(p["theta"]), None, n.targets.get("out", []))
        elif n.type == "loop":
            kinds[nid] = (2, (p["start"], p["end"]), n.targets.get("body", []), n.targets.get("out", []))
        else:
            kinds[nid] = (3, None, None, n.targets.get("out", []))
    start = program.start.params
    x0, y0 = float(start["position"][0]), float(start["position"][1])
    queue = deque((t, x0, y0, float(start["theta"]), None) for t in program.start.targets.get("out", []))
    segments: list = []
    seg_nodes: list = []
    firings = 0
    drawn = 0
    radians = math.radians
    cos, sin = math.cos, math.sin
    pop, push = queue.popleft, queue.append
    add_segment, add_node = segments.append, seg_nodes.append
    chains: dict = {}
    while queue:
        nid, x, y, h, counters = pop()
        while True:  # one message; its single successor is fired at once while nothing else waits
            firings += 1
            if firings > max_firings:
                raise RunawayError(f"stopped after {max_firings:,} node firings: the program would run (practically) "
                                   f"forever; {len(segments):,} segments drawn so far")
            kind, a, b, outs = kinds[nid]
            if kind == 0:
                r = radians(h)
                x1, y1 = x + a * cos(r), y + a * sin(r)
                if not b:
                    add_segment((x, y, x1, y1))
                    add_node(nid)
                    drawn += 1
                    if drawn > max_segments:
                        raise RunawayError(f"stopped at {max_segments:,} segments: the drawing is too large")
                x, y = _wrap(x1), _wrap(y1)
            elif kind == 1:
                h = (h + a) % 360.0
            elif kind == 2:
                lo, hi = a
                v = counters.get(nid, lo - 1) if counters else lo - 1
                if v < hi:
                    v += 1
                chain = chains[nid] if nid in chains else chains.setdefault(nid, _body_chain(nid, kinds))
                if v < hi and chain is not None and not queue:
                    # whole passes of a plain body at once, while the guard cannot trip in the pass
                    steps, cost, ink = chain
                    while firings + cost <= max_firings and drawn + ink <= max_segments:
                        for sk, sa, sb, sid in steps:
                            if sk == 0:
                                r = radians(h)
                                x1, y1 = x + sa * cos(r), y + sa * sin(r)
                                if not sb:
                                    add_segment((x, y, x1, y1))
                                    add_node(sid)
                                x, y = x1 % WORLD, y1 % WORLD  # _wrap, inline
                                if x >= WORLD:
                                    x = 0.0
                                if y >= WORLD:
                                    y = 0.0
                            elif sk == 1:
                                h = (h + sa) % 360.0
                        firings += cost  # the pass and the loop's next firing
                        drawn += ink
                        v += 1
                        if not v < hi:
                            break
                if v < hi:
                    counters = dict(counters) if counters else {}
                    counters[nid] = v
                    outs = b
                elif counters and nid in counters:
                    counters = {k: c for k, c in counters.items() if k != nid}
            if len(outs) == 1 and not queue:  # FIFO order unchanged: it would be popped next
                nid = outs[0]
                continue
            for t in outs:
                push((t, x, y, h, counters))
            break
    return Trace(segments, seg_nodes, firings)
