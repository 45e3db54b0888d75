"""delta_of_values / delta_of_files: the companion profile's Δ of parsed flows in one C call equals
score(flow_from_value(...)).delta exactly, on every shape a flow value can have (issue 15)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gindex_studio.core import matching
from gindex_studio.core.divergence import ScoreOptions, delta_of_files, delta_of_values, score
from gindex_studio.core.flow import FlowError, flow_from_value, read_flow_file
from gindex_studio.core.generate import perturb, random_flow
from gindex_studio.core.similarity import IGNORED

COMPANION = ScoreOptions(profile="companion")
NAN = float("nan")


def reference(a, b, options=COMPANION) -> float:
    return score(flow_from_value(a), flow_from_value(b), options).delta


def native(a, b):
    """The C function itself (None: it left the pair to score)."""
    if not matching.native_search_available() or getattr(matching._native, "companion_delta", None) is None:
        pytest.skip("the C extension is not in use: nothing native to compare")
    return matching._native.companion_delta(a, b, IGNORED, False)


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


def test_delta_of_files_reads_as_read_flow_file(tmp_path):
    rng = random.Random(5)
    a = random_flow(10, rng, "a")
    b = perturb(a, rng, 0.3)
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_bytes(a.dumps())
    pb.write_bytes(b.dumps().replace(b'"tab1"', b'"t\xffb"'))  # not UTF-8: kept as read_flow_file keeps it
    assert delta_of_files(pa, pb, COMPANION) == score(read_flow_file(pa), read_flow_file(pb), COMPANION).delta
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(FlowError, match="bad.json: not valid JSON"):
        delta_of_files(pa, tmp_path / "bad.json", COMPANION)
    (tmp_path / "num.json").write_text("42")
    with pytest.raises(FlowError, match="num.json: a flow must be"):
        delta_of_files(pa, tmp_path / "num.json", COMPANION)
    with pytest.raises(FlowError, match="no such file"):
        delta_of_files(tmp_path / "nope.json", pb, COMPANION)
