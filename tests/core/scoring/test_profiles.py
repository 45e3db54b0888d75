"""Scoring profiles as objects (issue 22): the registry, and a fourth profile added as one file.

``TOY`` below is the whole of a new profile: nodes compare by their ``colour`` alone (w = 1 for
the same colour, 1/2 for another), Eq. 12 as written. Registered, it scores through the normal
entry points (``score``, ``delta_of_values``, ``delta_matrix``, the report) with no other change.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from gindex_studio.core.benchmark.curriculum import Curriculum, delta_matrix
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.support import profiles
from gindex_studio.core.scoring.divergence import ScoreOptions, delta_of_values, prepare, score
from gindex_studio.core.scoring.explain import ignored_keys
from gindex_studio.core.support.profiles import Profile
from gindex_studio.core.scoring.similarity import IGNORED, make_signature


def colour_signature(data: dict):
    return make_signature(str(data.get("type")), {"colour": data.get("colour")})


def colour_weight(a, b) -> tuple[int, int]:
    return (1, 1) if a.values["colour"] == b.values["colour"] else (1, 2)


TOY = Profile(name="toy-colour", ignored=IGNORED | {"shade"}, signature=colour_signature, weight=colour_weight,
              description="nodes compare by colour only", adjacency="and", symmetric=True)


@pytest.fixture
def toy():
    profiles.register(TOY)
    yield TOY
    profiles.unregister(TOY.name)


# reference a → b; generated x → y and a lone z
REF = [{"id": "a", "type": "inject", "colour": "red", "wires": [["b"]]},
       {"id": "b", "type": "debug", "colour": "blue", "shade": "dark"}]
GEN = [{"id": "x", "type": "inject", "colour": "red", "wires": [["y"]]},
       {"id": "y", "type": "debug", "colour": "green"},
       {"id": "z", "type": "debug", "colour": "blue"}]


def test_a_registered_toy_profile_scores_through_the_normal_entry_points(toy):
    # by hand: (a, x) w = 1; b pairs with y (w = 1/2, the wire a→b matches x→y) or with z (w = 1,
    # but x→z is no wire, so (a, x) and (b, z) exclude each other under "and"). The best is
    # {(a, x), (b, y)}: S = 3/2, Δ = 1 − (9/4)/(2·3) = 5/8.
    r = score(flow_from_nodes(REF), flow_from_nodes(GEN), ScoreOptions(profile="toy-colour"))
    assert (r.s_exact, r.delta, r.exact) == ("3/2", 0.625, True)
    assert [(p.reference, p.generated, p.w_exact, p.differing_keys) for p in r.mapping] == \
        [("a", "x", "1/1", []), ("b", "y", "1/2", ["colour"])]
    assert r.extra_nodes == ["z"] and r.matched_edges == [[["a", "b"], ["x", "y"]]]
    assert delta_of_values(REF, GEN, ScoreOptions(profile="toy-colour")) == 0.625
    assert ignored_keys("toy-colour") == IGNORED | {"shade"}
    # Ω of the reference against a curriculum of the generated program (the bounds use the weight too)
    cur = Curriculum.from_flows([flow_from_nodes(GEN)], ["d"], options=ScoreOptions(profile="toy-colour"))
    assert cur.nearest(prepare(flow_from_nodes(REF), ScoreOptions(profile="toy-colour"))).omega == 0.625
    # symmetric: the matrix searches one triangle and mirrors it
    assert delta_matrix([flow_from_nodes(REF), flow_from_nodes(GEN)], ScoreOptions(profile="toy-colour")) == \
        [[0.0, 0.625], [0.625, 0.0]]


def test_the_profiles_adjacency_decides_the_search(toy):
    # under "or" (the clique search) (a, x) and (b, z) fit together: b→a and z→x are both absent.
    # S = 1 + 1 = 2, Δ = 1 − 4/6 = 1/3
    loose = profiles.register(dataclasses.replace(TOY, name="toy-colour-or", adjacency="or", symmetric=False))
    try:
        r = score(flow_from_nodes(REF), flow_from_nodes(GEN), ScoreOptions(profile=loose.name))
        assert r.s_exact == "2" and r.delta == float(Fraction(1, 3))
        assert [(p.reference, p.generated) for p in r.mapping] == [("a", "x"), ("b", "z")]
    finally:
        profiles.unregister(loose.name)


def test_the_registry_knows_the_built_in_profiles_by_name():
    assert profiles.names()[:3] == ("paper", "companion", "flatland")
    assert profiles.get("paper").symmetric and not profiles.get("companion").symmetric
    assert profiles.get("companion").adjacency == "or" and profiles.get("flatland").typed_edges
    assert profiles.get("flatland").reader and profiles.get("paper").reads_flow_json
    assert profiles.get(profiles.get("paper")) is profiles.get("paper")
    assert ScoreOptions(profile="flatland").port_aware  # typed edges


def test_an_unknown_or_taken_name_is_refused(toy):
    with pytest.raises(ValueError, match=r"unknown profile 'nope' \(use one of: paper, companion, flatland, toy-colour\)"):
        profiles.get("nope")
    with pytest.raises(ValueError, match="unknown profile 'nope'"):
        ScoreOptions(profile="nope")
    with pytest.raises(ValueError, match="already registered"):
        profiles.register(dataclasses.replace(TOY))
    with pytest.raises(ValueError, match="adjacency"):
        dataclasses.replace(TOY, adjacency="xor")


def test_unregistered_the_toy_is_gone(toy):
    profiles.unregister(toy.name)
    assert toy.name not in profiles.names()
    with pytest.raises(ValueError):
        ScoreOptions(profile=toy.name)


TOY_FILE = '''
from gindex_studio.core.support.profiles import Profile, register
from gindex_studio.core.scoring.similarity import IGNORED, make_signature

register(Profile(name="toy-file", ignored=IGNORED, weight=lambda a, b: (1, 1) if a.values == b.values else (1, 2),
                 signature=lambda d: make_signature(str(d.get("type")), {"colour": d.get("colour")}),
                 adjacency="and", symmetric=True))
'''


def test_a_profile_file_is_found_by_its_name_and_registers_when_imported(tmp_path, monkeypatch):
    """The one-file route: a ``profile_*.py`` module below the scanned folder is discovered (by
    name only: nothing imported) and, imported as the registry does, scores through ``score``."""
    import importlib

    pkg = tmp_path / "toyprofiles" / "sub"
    pkg.mkdir(parents=True)
    (pkg / "profile_file.py").write_text(TOY_FILE)
    (pkg / "not_a_profile.py").write_text("raise SystemExit('never imported')\n")
    found = profiles.discover(tmp_path / "toyprofiles", "toyprofiles")
    assert found == ["toyprofiles.sub.profile_file"]
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module(found[0])
        ref = flow_from_nodes([{"id": "a", "type": "debug", "colour": "red"}])
        gen = flow_from_nodes([{"id": "x", "type": "debug", "colour": "blue"}])
        assert score(ref, gen, ScoreOptions(profile="toy-file")).delta == pytest.approx(1 - (1 / 2) ** 2)
    finally:
        profiles.unregister("toy-file")


# ----- the profile travels as an object (issue 33) ------------------------------------------------


def test_score_options_hold_the_profile_and_write_its_name():
    import pickle

    paper, companion, flatland = (profiles.get(n) for n in ("paper", "companion", "flatland"))
    assert ScoreOptions().profile is paper is profiles.default() and profiles.get(None) is paper
    opts = ScoreOptions(profile="companion")
    assert opts.profile is companion and opts.to_dict()["profile"] == "companion"
    assert ScoreOptions(profile=companion) == opts  # a name or the object: the same options
    assert dataclasses.replace(opts, profile="flatland").profile is flatland
    # to worker processes by name: the registered object on the other side
    assert pickle.loads(pickle.dumps(opts)).profile is companion
    assert profiles.companion_default() is companion


def test_the_search_plan_says_which_search_runs(toy, monkeypatch):
    from gindex_studio.core import native
    from gindex_studio.core.scoring import matching

    paper, companion, flatland = (profiles.get(n).search_plan() for n in ("paper", "companion", "flatland"))
    assert (paper.own, paper.adjacency, paper.races, paper.one_call_rule) == (None, "and", True, native.UNION_JSON)
    assert (companion.own, companion.adjacency, companion.races, companion.one_call_rule) == (None, "or", False, None)
    assert flatland.own is profiles.get("flatland").search and not flatland.races
    assert (toy.search_plan().races, toy.search_plan().one_call_rule) == (True, None)
    # Ω's searches race the two orientations exactly when the plan says so
    raced = []
    real = matching._raced
    monkeypatch.setattr(matching, "_raced", lambda *a, **k: raced.append(a[2].name) or real(*a, **k))
    one_way = profiles.register(dataclasses.replace(TOY, name="toy-one-way", symmetric=False))
    try:
        g1, g2 = (prepare(flow_from_nodes(f), ScoreOptions(profile=toy)).graph for f in (REF, GEN))
        for prof in (toy, one_way):
            m = matching.max_common_subgraph(g1, g2, prof, threshold_sq=(0, 1))
            assert m.weight == (3, 2)
    finally:
        profiles.unregister(one_way.name)
    assert raced == [toy.name]


def test_the_cycle_check_reads_a_flow_of_a_profiles_node_types_under_its_rule():
    from gindex_studio.core.flows.checks import cycle_problems

    # a → b by port 0 and b → a by port 1: a cycle, unless b's port 1 is skipped
    nodes = [{"id": "a", "type": "ta", "wires": [["b"]]}, {"id": "b", "type": "tb", "wires": [[], ["a"]]}]
    assert [p.kind for p in cycle_problems(flow_from_nodes(nodes))] == ["cycle"]
    loopy = profiles.register(dataclasses.replace(TOY, name="toy-loops", node_types=frozenset({"ta", "tb"}),
                                                  cycle_skip=lambda t, port: t == "tb" and port == 1))
    try:
        assert cycle_problems(flow_from_nodes(nodes)) == []
        other = nodes + [{"id": "c", "type": "tc"}]  # a type the profile's programs do not have
        assert [p.kind for p in cycle_problems(flow_from_nodes(other))] == ["cycle"]
    finally:
        profiles.unregister(loopy.name)
    # Flatland's rule: a loop's body closes no cycle worth a warning
    loop = [{"id": "s", "type": "info", "wires": [["l"]]}, {"id": "l", "type": "loop", "wires": [[], ["m"]]},
            {"id": "m", "type": "move", "wires": [["l"]]}]
    assert cycle_problems(flow_from_nodes(loop)) == []


def test_a_profile_owns_its_program_files():
    from gindex_studio.core.flows.reading import program_kinds

    assert (program_kinds(), program_kinds("flatland")) == (".json", ".fbp, .lisp or .json")
    assert profiles.get("paper").reader_module() is None
    assert profiles.get("flatland").reader_module().__name__ == profiles.get("flatland").reader
