"""delta_of_values / delta_of_files: the companion profile's Δ of parsed flows in one C call equals
score(flow_from_value(...)).delta exactly, on every shape a flow value can have (issue 15)."""
from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gindex_studio.core import native as native_module
from gindex_studio.core.scoring import matching
from gindex_studio.core.scoring.divergence import ScoreOptions, delta_of_files, delta_of_values, score
from gindex_studio.core.flows.flow import FlowError, flow_from_value, read_flow_file
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.core.scoring.similarity import IGNORED

COMPANION = ScoreOptions(profile="companion")
NAN = float("nan")


def reference(a, b, options=COMPANION) -> float:
    return score(flow_from_value(a), flow_from_value(b), options).delta


def native(a, b):
    """The C function itself (None: it left the pair to score)."""
    if not matching.native_search_available() or native_module.companion_delta is None:
        pytest.skip("the C extension is not in use: nothing native to compare")
    return native_module.EXTENSION.companion_delta(a, b, IGNORED, False)


def _odd(nodes: list, rng: random.Random) -> list:
    """Things a flow file may hold: duplicated ids, dangling, flat and non-string wires, entries
    that are not nodes, and values that compare oddly under Python == (NaN, None, True == 1)."""
    nodes = [dict(n) for n in nodes]
    for n in nodes:
        r = rng.random()
        if r < 0.15:
            n["wires"] = [t for p in n.get("wires") or [] for t in p]  # a flat list: one port
        elif r < 0.25:
            n["wires"] = [["missing"], [7, None], n.get("wires") or []]
        elif r < 0.3:
            n["wires"] = "not wires"
        if rng.random() < 0.3:
            n[rng.choice(["topic", "payload", "extra"])] = rng.choice(
                [NAN, None, True, 1, 1.0, 0, False, [1, [True]], {"p": [None, 2.5]}, "", "x"])
    if nodes and rng.random() < 0.3:
        dup = dict(rng.choice(nodes))
        dup["extra"] = "a second node with this id"
        nodes.insert(rng.randrange(len(nodes) + 1), dup)
    if rng.random() < 0.2:
        nodes.insert(rng.randrange(len(nodes) + 1), rng.choice([42, "text", {"id": 3, "type": "x"}, {"type": "t"}]))
    return nodes


def _wrap(nodes: list, rng: random.Random):
    r = rng.random()
    if r < 0.5:
        return nodes
    if r < 0.7:
        return {"name": "domain", "text": "prompt", "flow": nodes}
    if r < 0.85:
        return {"rev": "1", "flows": nodes}
    first = nodes[0] if nodes else None
    single = isinstance(first, dict) and isinstance(first.get("id"), str) and isinstance(first.get("type"), str)
    return first if single else nodes  # one node object is a one-node flow


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 14), st.booleans(), st.booleans())
def test_companion_delta_of_values_equals_score(seed, n, near, odd):
    rng = random.Random(seed)
    a = random_flow(n, rng, "a")
    b = perturb(a, rng, 0.2) if near else random_flow(rng.randint(0, 14), rng, "b")
    va, vb = a.to_json_value(), b.to_json_value()
    if odd:
        va, vb = _odd(va, rng), _odd(vb, rng)
    va, vb = _wrap(va, rng), _wrap(vb, rng)
    expected = reference(va, vb)
    got = native(va, vb)
    assert got is not None  # every shape above is taken in C
    assert got == expected
    assert delta_of_values(va, vb, COMPANION) == expected


def test_companion_values_where_python_equality_matters():
    a = [{"id": "a", "type": "t", "x1": True, "n": None, "deep": {"p": [1, 2.0]}, "f": NAN},
         {"id": "b", "type": "t", "wires": [["a", "a"], ["b"]]}]
    b = [{"id": "c", "type": "t", "x1": 1, "deep": {"p": [1.0, 2]}, "f": NAN},
         {"id": "d", "type": "t", "wires": [["c"]]}, {"id": "e", "type": "u"}]
    for x, y in ((a, b), (b, a), (a, a), ([], b), (b, [])):
        assert native(x, y) == reference(x, y)


@pytest.mark.parametrize("value", [None, 42, "flow", {"a": 1}, {"flow": "x"}, {"id": "a"}, [1, 2]])
def test_a_value_that_is_not_a_flow_gives_the_same_error_or_result(value):
    good = [{"id": "a", "type": "t"}]
    try:
        expected = reference(value, good)
    except FlowError as e:
        with pytest.raises(FlowError, match=str(e)[:30]):
            delta_of_values(value, good, COMPANION)
    else:
        assert delta_of_values(value, good, COMPANION) == expected


@pytest.mark.parametrize("options", [ScoreOptions(), ScoreOptions(profile="companion", ignore_types={"t"}),
                                     ScoreOptions(profile="companion", deadline=5.0)])
def test_other_options_take_score(options):
    rng = random.Random(3)
    a = random_flow(9, rng, "a")
    b = perturb(a, rng, 0.3)
    assert delta_of_values(a.to_json_value(), b.to_json_value(), options) == \
        score(a, b, options).delta


def _near_pair_files(tmp_path, seed: int, n: int, edit=lambda data: data):
    """A random n-node flow and a perturbed copy written as a.json and b.json (b's bytes through
    ``edit``): (a's path, b's path, b's bytes)."""
    rng = random.Random(seed)
    a = random_flow(n, rng, "a")
    b = perturb(a, rng, 0.3).dumps()
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_bytes(a.dumps())
    pb.write_bytes(edit(b))
    return pa, pb, b


def test_delta_of_files_reads_as_read_flow_file(tmp_path):
    # b not UTF-8: kept as read_flow_file keeps it
    pa, pb, _b = _near_pair_files(tmp_path, 5, 10, lambda data: data.replace(b'"tab1"', b'"t\xffb"'))
    assert delta_of_files(pa, pb, COMPANION) == score(read_flow_file(pa), read_flow_file(pb), COMPANION).delta
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(FlowError, match="bad.json: not valid JSON"):
        delta_of_files(pa, tmp_path / "bad.json", COMPANION)
    (tmp_path / "num.json").write_text("42")
    with pytest.raises(FlowError, match="num.json: a flow must be"):
        delta_of_files(pa, tmp_path / "num.json", COMPANION)
    with pytest.raises(FlowError, match="no such file"):
        delta_of_files(tmp_path / "nope.json", pb, COMPANION)


# ---- the C call's own representation: interned keys, ids and types, raw values compared with == ----

SHARED = [1, {"p": [NAN]}]  # one object in both flows: identity makes its NaN equal
scalar_values = st.sampled_from([None, True, False, 0, 1, 1.0, -0.0, 2, 2**70, "1", "a", "", 2.5, NAN])
json_values = st.recursive(
    scalar_values | st.just(SHARED),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["p", "q", "r"]), inner, max_size=3),
    max_leaves=6)
many_keys = [f"k{i}" for i in range(40)] + ["topic", "payload", "x", "name", "wires", "z"]


@st.composite
def json_flows(draw):
    """A flow of 0..6 nodes of two types with values where Python == matters, ids wired among
    themselves (and to missing ids), sometimes a node dict shared by both flows."""
    n = draw(st.integers(0, 6))
    ids = [f"n{i}" for i in range(n)]
    nodes = []
    for i in ids:
        d = {"id": i, "type": draw(st.sampled_from(["t", "u"]))}
        d.update(draw(st.dictionaries(st.sampled_from(many_keys), json_values, max_size=8)))
        d["wires"] = [draw(st.lists(st.sampled_from(ids + ["gone"]), max_size=3)) for _ in range(draw(st.integers(0, 2)))]
        nodes.append(d)
    return nodes


MASKS = pytest.mark.parametrize("mask", [-1, 0, 1, 3], ids=["hash", "all-collide", "two-classes", "four-classes"])


@contextlib.contextmanager
def hashes_masked(mask: int):
    """companion_delta's tables with the str hashes and-ed with mask: 0 makes every key, id and type
    collide, so lookups go by string equality alone."""
    if not matching.native_search_available():
        pytest.skip("the C extension is not in use: nothing native to compare")
    old = native_module.EXTENSION.companion_hash_mask(mask)
    try:
        yield
    finally:
        assert native_module.EXTENSION.companion_hash_mask(old) == mask


@MASKS
@settings(max_examples=150, deadline=None)
@given(a=json_flows(), b=json_flows(), share=st.booleans())
@pytest.mark.slow
def test_raw_values_compare_as_the_canonical_ones(mask, a, b, share):
    if share and a and b:
        b[0] = a[0]  # the same node dict (and values) on both sides
    expected = reference(a, b)
    with hashes_masked(mask):
        got = native(a, b)
    assert got == expected


@MASKS
def test_many_keys_and_colliding_hashes_take_string_equality(mask):
    rng = random.Random(11)
    keys = [f"key-{i}" for i in range(300)]
    for _ in range(20):
        a = [{"id": f"a{i}", "type": "t", **{k: rng.choice([1, "v", None]) for k in rng.sample(keys, 60)}}
             for i in range(4)]
        b = [{"id": f"b{i}", "type": "t", **{k: rng.choice([1, "v", None, True]) for k in rng.sample(keys, 60)}}
             for i in range(4)]
        b = [{"".join(k): v for k, v in n.items()} for n in b]  # equal keys, other str objects
        with hashes_masked(mask):
            got = native(a, b)
        assert got == reference(a, b)


def test_python_equality_cases_one_by_one():
    nan2 = float("nan")
    cases = [  # (reference node's value, generated node's value): w counts == as canonical_python does
        (True, 1), (1, 1.0), (0, False), (-0.0, 0), ([1, True], [1.0, 1]), ({"p": 1}, {"p": True}),
        ({"p": [1]}, {"p": [1.0]}), (NAN, NAN), (NAN, nan2), ([NAN], [NAN]), ([NAN], [nan2]),
        ({"p": NAN}, {"p": NAN}), (None, None), (None, "missing"), ("x", "missing"), (2**70, 2.0**70),
        (2**53 + 1, float(2**53)), ("é", "é"), ([], {}), ({}, {}), ([[]], [[]]),
        # equal str of other objects (their characters compared), unequal ones of one length, wide kinds
        ("payload", "".join(["pay", "load"])), ("payload", "paylaod"), ("日本語", "".join(["日本", "語"])),
        ("日本語", "日本人"), ("a\u0100", "".join(["a", "\u0100"])), ("a\U0001F600", "".join(["a", "\U0001F600"])),
        (["x1", "y2"], ["".join(["x", "1"]), "y2"]), ("ab", "ab\u0100"[:2]),
    ]
    for va, vb in cases:
        a = [{"id": "a", "type": "t", "v": va, "other": NAN if va is NAN else 1}]
        b = [{"id": "b", "type": "t", "other": 1}]
        if vb != "missing":
            b[0]["v"] = vb
        assert native(a, b) == reference(a, b), (va, vb)
        assert native(b, a) == reference(b, a), (va, vb)


def test_ignored_keys_do_not_count():
    a = [{"id": "a", "type": "t", "x": 1, "y": 2, "z": "tab", "name": "n", "label": "l", "p": 1}]
    b = [{"id": "b", "type": "t", "x": 9, "y": 8, "z": "other", "name": "m", "label": "k", "p": 1}]
    assert native(a, b) == reference(a, b) == 0.0


class _Str(str):
    pass


def _nested(depth: int) -> list:
    v: list = [1]
    for _ in range(depth):
        v = [v]
    return v


class _Dict(dict):
    pass


@pytest.mark.parametrize("odd", [
    lambda a, b: a[0].__setitem__("v", (1, 2)) or b[0].__setitem__("v", [1, 2]),  # a tuple: canonical == list
    lambda a, b: b[0].__setitem__("v", {"p": (1,)}),
    lambda a, b: a[0].__setitem__("id", _Str("a")),
    lambda a, b: b[0].__setitem__("type", _Str("t")),
    lambda a, b: a.__setitem__(0, _Dict(a[0])),
    lambda a, b: a[0].__setitem__(7, "a key that is not a str"),
    lambda a, b: b[0].__setitem__("wires", [[_Str("a")]]),
    lambda a, b: a[0].__setitem__("v", _nested(70)),  # deeper than the C call walks
], ids=["tuple", "nested-tuple", "str-subclass-id", "str-subclass-type", "dict-subclass-node", "int-key",
        "str-subclass-target", "deep"])
def test_values_beyond_plain_json_take_the_general_way(odd):
    a = [{"id": "a", "type": "t", "v": [1, 2], "wires": [["a"]]}, {"id": "c", "type": "t"}]
    b = [{"id": "b", "type": "t", "v": [1, 2], "wires": [["b"]]}]
    odd(a, b)
    assert native(a, b) is None
    assert delta_of_values(a, b, COMPANION) == reference(a, b)


def test_a_value_python_cannot_hash_gives_the_same_error():
    a = [{"id": "a", "type": "t", "v": {"p": {1, 2}}}]  # a set: not JSON; canonical_python cannot hash it
    b = [{"id": "b", "type": "t", "v": 1}]
    with pytest.raises(TypeError) as expected:
        reference(a, b)
    with pytest.raises(TypeError) as got:
        delta_of_values(a, b, COMPANION)
    assert str(got.value) == str(expected.value)


def test_pure_python_asked_for_takes_the_general_way(monkeypatch):
    rng = random.Random(4)
    a = random_flow(8, rng, "a").to_json_value()
    b = perturb(random_flow(8, rng, "a"), rng, 0.3).to_json_value()
    assert native(a, b) is not None
    monkeypatch.setenv("GINDEX_PURE_PYTHON", "1")
    assert not matching.native_search_available()
    assert native_module.EXTENSION.companion_delta(a, b, IGNORED, False) is None
    assert delta_of_values(a, b, COMPANION) == reference(a, b)
    monkeypatch.setenv("GINDEX_PURE_PYTHON", "0")
    assert native_module.EXTENSION.companion_delta(a, b, IGNORED, False) == reference(a, b)


def test_delta_of_files_reads_any_path_kind_and_a_pipe(tmp_path):
    import os
    import threading

    pa, pb, b = _near_pair_files(tmp_path, 6, 7)
    expected = score(read_flow_file(pa), read_flow_file(pb), COMPANION).delta
    assert delta_of_files(str(pa), os.fsencode(pb), COMPANION) == expected  # str and bytes paths, as open() takes
    with pytest.raises(FlowError, match="is a folder"):
        delta_of_files(pa, tmp_path, COMPANION)
    if not hasattr(os, "mkfifo"):
        return
    fifo = tmp_path / "pipe.json"  # a size fstat does not know: read to the end
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(b,), daemon=True)
    writer.start()
    assert delta_of_files(pa, fifo, COMPANION) == expected
    writer.join(60)
    assert not writer.is_alive()


def test_check_signals_none_decides_by_thread():
    import threading

    rng = random.Random(9)
    a = random_flow(9, rng, "a").to_json_value()
    b = perturb(random_flow(9, rng, "a"), rng, 0.4).to_json_value()
    expected = reference(a, b)
    assert native(a, b) == expected
    assert native_module.EXTENSION.companion_delta(a, b, IGNORED, None) == expected  # the main thread
    out = []
    worker = threading.Thread(target=lambda: out.append(native_module.EXTENSION.companion_delta(a, b, IGNORED, None)))
    worker.start()
    worker.join(60)
    assert out == [expected]
    with pytest.raises(TypeError, match="frozenset"):
        native_module.EXTENSION.companion_delta(a, b, set(IGNORED), None)
    with pytest.raises(TypeError, match="check_signals"):
        native_module.EXTENSION.companion_delta(a, b, IGNORED)


def test_calls_from_several_threads_at_once():
    """One call at a time keeps the C call's blocks; calls meanwhile (the search releases the GIL past
    64 association vertices) allocate their own: every thread gets the reference's Δ."""
    import threading

    rng = random.Random(12)

    def flow(prefix):  # 14 nodes of 2 types sharing keys: up to 98 same-type pairs of w > 0
        ids = [f"{prefix}{i}" for i in range(14)]
        return [{"id": i, "type": "tu"[k % 2], "c": 1, "p": rng.randint(0, 2), "q": rng.choice(["x", "y"]),
                 "wires": [rng.sample(ids, 2)]} for k, i in enumerate(ids)]

    pairs = [(flow("a"), flow("b")) for _ in range(4)]
    expected = [reference(a, b) for a, b in pairs]
    out: dict = {}

    def work(t):
        out[t] = [[native_module.EXTENSION.companion_delta(a, b, IGNORED, None) for a, b in pairs] for _ in range(30)]

    workers = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert all(out[t] == [expected] * 30 for t in range(4))


@pytest.mark.parametrize("n", [65, 130])
def test_flows_past_64_nodes_take_several_words_a_set(n):
    for seed in range(3):
        rng = random.Random(seed)
        a = random_flow(n, rng, "a")
        va, vb = a.to_json_value(), perturb(a, rng, 0.1).to_json_value()
        rng.shuffle(vb)  # the same nodes at other places: their bits in other words
        assert native(va, vb) == reference(va, vb)


def test_another_ignored_set_then_back():
    rng = random.Random(2)
    a = random_flow(8, rng, "a").to_json_value()
    b = perturb(random_flow(8, rng, "a"), rng, 0.3).to_json_value()
    expected = native(a, b)
    other = native_module.EXTENSION.companion_delta(a, b, frozenset({"id", "type", "wires"}), False)
    assert other is not None and 0.0 <= other <= 1.0
    assert native(a, b) == expected == reference(a, b)
    assert native_module.EXTENSION.companion_delta(a, b, frozenset({"id", 7}), False) is None  # a key not a str
