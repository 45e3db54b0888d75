"""Layered auto-layout, left to right, with few crossings (pure Python, no Qt).

``layered_layout(ids, edges, sizes)`` returns node centres. Steps (Sugiyama style):
cycles are broken by ignoring DFS back edges; every node gets the longest-path layer from the
sources (sources are then pulled right next to their first successor); long edges get dummy
nodes; orders inside layers come from barycenter sweeps (down and up, the order with the fewest
crossings wins); x is per layer, y packs each layer in order towards the mean of its neighbours.
Weakly connected components are laid out one under the other, biggest first.

>>> pos = layered_layout(["a", "b", "c"], [("a", "b"), ("b", "c")], {})
>>> pos["a"][0] < pos["b"][0] < pos["c"][0]
True
"""
from __future__ import annotations

from typing import Hashable, Iterable, Sequence

H_GAP = 70.0
V_GAP = 24.0
DEFAULT_SIZE = (120.0, 30.0)


def estimate_size(label: str, outputs: int = 1) -> tuple[float, float]:
    """A generous estimate of a node's drawn size (used before the canvas measures it)."""
    w = max(110.0, 7.5 * len(label) + 60.0)
    h = max(30.0, 15.0 * max(outputs, 1) + 6.0)
    return w, h


def layered_layout(
    ids: Sequence[Hashable],
    edges: Iterable[tuple[Hashable, Hashable]],
    sizes: dict,
    origin: tuple[float, float] = (100.0, 80.0),
) -> dict:
    """Centres ``{id: (x, y)}`` for the nodes ``ids`` wired by ``edges`` (src, dst)."""
    ids = list(dict.fromkeys(ids))
    idset = set(ids)
    succ: dict = {i: [] for i in ids}
    for s, d in edges:
        if s in idset and d in idset and s != d and d not in succ[s]:
            succ[s].append(d)
    out: dict = {}
    top = origin[1]
    for comp in _components(ids, succ):
        pos, height = _layout_component(comp, succ, sizes)
        for i, (x, y) in pos.items():
            out[i] = (origin[0] + x, top + y)
        top += height + V_GAP * 2
    return out


def _components(ids, succ):
    adj: dict = {i: set() for i in ids}
    for s, ds in succ.items():
        for d in ds:
            adj[s].add(d)
            adj[d].add(s)
    seen: set = set()
    comps = []
    order = {v: k for k, v in enumerate(ids)}
    for i in ids:
        if i in seen:
            continue
        stack, comp = [i], []
        seen.add(i)
        while stack:
            v = stack.pop()
            comp.append(v)
            for w in adj[v]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        comps.append(sorted(comp, key=order.__getitem__))
    comps.sort(key=lambda c: -len(c))
    return comps


def _acyclic(comp, succ):
    """Successor lists without DFS back edges."""
    cs = set(comp)
    state: dict = {}
    dag = {v: [] for v in comp}
    for root in comp:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(succ[root]))]
        while stack:
            v, it = stack[-1]
            for w in it:
                if w not in cs:
                    continue
                if state.get(w) == 1:
                    continue  # back edge: ignored
                dag[v].append(w)
                if w not in state:
                    state[w] = 1
                    stack.append((w, iter(succ[w])))
                break
            else:
                state[v] = 2
                stack.pop()
    return dag


def _layers(comp, dag):
    pred = {v: [] for v in comp}
    for v, ws in dag.items():
        for w in ws:
            pred[w].append(v)
    indeg = {v: len(pred[v]) for v in comp}
    queue = [v for v in comp if indeg[v] == 0]
    topo = []
    while queue:
        v = queue.pop(0)
        topo.append(v)
        for w in dag[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    layer = {}
    for v in topo:
        layer[v] = max((layer[p] + 1 for p in pred[v]), default=0)
    for v in reversed(topo):  # pull sources next to their nearest successor
        if not pred[v] and dag[v]:
            layer[v] = min(layer[w] for w in dag[v]) - 1
    return layer, pred


def _crossings(order_a, order_b, links):
    pos_b = {v: i for i, v in enumerate(order_b)}
    pairs = sorted((i, pos_b[w]) for i, v in enumerate(order_a) for w in links.get(v, ()) if w in pos_b)
    count = 0
    seen: list[int] = []
    import bisect

    for _i, j in pairs:  # count inversions of j
        k = bisect.bisect_right(seen, j)
        count += len(seen) - k
        bisect.insort(seen, j)
    return count


def _layout_component(comp, succ, sizes):
    dag = _acyclic(comp, succ)
    layer, _pred = _layers(comp, dag)
    # dummy nodes for long edges
    down: dict = {v: [] for v in comp}
    nlayers = max(layer.values()) + 1
    dummy_n = 0
    for v in comp:
        for w in dag[v]:
            prev = v
            for lv in range(layer[v] + 1, layer[w]):
                d = ("__dummy__", dummy_n)
                dummy_n += 1
                layer[d] = lv
                down[d] = []
                down[prev].append(d)
                prev = d
            down[prev].append(w)
    up: dict = {v: [] for v in down}
    for v, ws in down.items():
        for w in ws:
            up[w].append(v)
    layers: list[list] = [[] for _ in range(nlayers)]
    # initial order: DFS from sources in file order, so chains stay together
    seen: set = set()
    for root in comp:
        if up[root] or root in seen:
            continue
        stack = [root]
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            layers[layer[v]].append(v)
            stack.extend(reversed(down[v]))
    for v in down:
        if v not in seen:
            layers[layer[v]].append(v)

    def total(ls):
        return sum(_crossings(ls[i], ls[i + 1], down) for i in range(len(ls) - 1))

    best = [list(l) for l in layers]
    best_c = total(best)
    for sweep in range(12):
        if best_c == 0:
            break
        rng = range(1, nlayers) if sweep % 2 == 0 else range(nlayers - 2, -1, -1)
        nb = up if sweep % 2 == 0 else down
        for li in rng:
            ref = layers[li - 1] if sweep % 2 == 0 else layers[li + 1]
            rpos = {v: i for i, v in enumerate(ref)}
            cur = {v: i for i, v in enumerate(layers[li])}

            def bary(v):
                ps = [rpos[w] for w in nb[v] if w in rpos]
                return (sum(ps) / len(ps), cur[v]) if ps else (cur[v], cur[v])

            layers[li].sort(key=bary)
        c = total(layers)
        if c < best_c:
            best_c, best = c, [list(l) for l in layers]
    layers = best

    def size(v):
        if isinstance(v, tuple) and v and v[0] == "__dummy__":
            return (0.0, 8.0)
        return sizes.get(v, DEFAULT_SIZE)

    # x: layer columns
    xs = []
    x = 0.0
    for l in layers:
        w = max((size(v)[0] for v in l), default=0.0)
        xs.append(x + w / 2)
        x += w + H_GAP
    # y: stack, then relax towards neighbours' mean, keeping order and gaps
    y: dict = {}
    for l in layers:
        cy = 0.0
        for v in l:
            h = size(v)[1]
            y[v] = cy + h / 2
            cy += h + V_GAP
    for it in range(8):
        seq = range(1, nlayers) if it % 2 == 0 else range(nlayers - 2, -1, -1)
        nb = up if it % 2 == 0 else down
        for li in seq:
            _place(layers[li], y, nb, size)
    top = min(y[v] - size(v)[1] / 2 for v in y)
    pos = {}
    bottom = 0.0
    for li, l in enumerate(layers):
        for v in l:
            if isinstance(v, tuple) and v and v[0] == "__dummy__":
                continue
            pos[v] = (xs[li], y[v] - top)
            bottom = max(bottom, y[v] - top + size(v)[1] / 2)
    return pos, bottom


def _place(layer, y, nb, size):
    """Move each node of ``layer`` towards its neighbours' mean y without overlaps."""
    want = []
    for v in layer:
        ns = [y[w] for w in nb[v]]
        want.append(sum(ns) / len(ns) if ns else y[v])
    # forward pass: respect order with minimum gaps
    placed = []
    for k, v in enumerate(layer):
        h = size(v)[1]
        lo = placed[-1][1] + V_GAP + h / 2 if placed else float("-inf")
        cy = max(want[k], lo)
        placed.append((cy, cy + h / 2))
    # backward pass: pull blocks up where they were pushed down past their wish
    for k in range(len(layer) - 2, -1, -1):
        v, w = layer[k], layer[k + 1]
        hi = placed[k + 1][0] - size(w)[1] / 2 - V_GAP - size(v)[1] / 2
        cy = min(placed[k][0], hi)
        cy = max(cy, want[k]) if cy < want[k] and want[k] <= hi else cy
        placed[k] = (cy, cy + size(v)[1] / 2)
    for (cy, _b), v in zip(placed, layer):
        y[v] = cy


def align(boxes: dict, mode: str) -> dict:
    """New centres for ``boxes`` {id: (cx, cy, w, h)} aligned by ``mode``.

    Modes: left, right, center (vertical centre line), top, bottom, middle (horizontal line).

    >>> align({"a": (0, 0, 10, 10), "b": (50, 20, 30, 10)}, "left")
    {'a': (0.0, 0), 'b': (10.0, 20)}
    """
    if not boxes:
        return {}
    vals = boxes.values()
    if mode == "left":
        edge = min(cx - w / 2 for cx, cy, w, h in vals)
        return {i: (edge + w / 2, cy) for i, (cx, cy, w, h) in boxes.items()}
    if mode == "right":
        edge = max(cx + w / 2 for cx, cy, w, h in vals)
        return {i: (edge - w / 2, cy) for i, (cx, cy, w, h) in boxes.items()}
    if mode == "center":
        c = sum(cx for cx, *_ in vals) / len(boxes)
        return {i: (c, cy) for i, (cx, cy, w, h) in boxes.items()}
    if mode == "top":
        edge = min(cy - h / 2 for cx, cy, w, h in vals)
        return {i: (cx, edge + h / 2) for i, (cx, cy, w, h) in boxes.items()}
    if mode == "bottom":
        edge = max(cy + h / 2 for cx, cy, w, h in vals)
        return {i: (cx, edge - h / 2) for i, (cx, cy, w, h) in boxes.items()}
    if mode == "middle":
        c = sum(cy for _cx, cy, *_ in vals) / len(boxes)
        return {i: (cx, c) for i, (cx, cy, w, h) in boxes.items()}
    raise ValueError(f"unknown alignment {mode!r}")


def distribute(boxes: dict, axis: str) -> dict:
    """Equal gaps between ``boxes`` along ``axis`` ("h" or "v"); the outer two stay put.

    >>> distribute({"a": (0, 0, 10, 10), "b": (15, 0, 10, 10), "c": (100, 0, 10, 10)}, "h")["b"]
    (50.0, 0)
    """
    if len(boxes) < 3:
        return {i: (b[0], b[1]) for i, b in boxes.items()}
    k = 0 if axis == "h" else 1
    order = sorted(boxes, key=lambda i: boxes[i][k])
    sizes = [boxes[i][2 + k] for i in order]
    start = boxes[order[0]][k] - sizes[0] / 2
    end = boxes[order[-1]][k] + sizes[-1] / 2
    gap = (end - start - sum(sizes)) / (len(order) - 1)
    out = {}
    pos = start
    for i, s in zip(order, sizes):
        c = pos + s / 2
        cx, cy = boxes[i][0], boxes[i][1]
        out[i] = (c, cy) if k == 0 else (cx, c)
        pos += s + gap
    return out
