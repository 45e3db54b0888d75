"""Running and drawing Flatland programs: hand-computed traces, the reference's loop and wrap
semantics, the runaway guard, drawings against the reference's, augmentation and data sets."""
import math
from pathlib import Path

import numpy as np
import pytest

from gindex_studio.core.flatland.augment import augment_to_folder, variants
from gindex_studio.core.flatland.dataset import CURRICULUM, TEST_SETS, generate, write_dataset
from gindex_studio.core.flatland.errors import RunawayError
from gindex_studio.core.flatland.render import (from_pbm, image_similarity, ink_agreement, rasterise, to_pbm,
                                                to_png_bytes)
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file, load_text
from gindex_studio.core.flatland.run import execute
from gindex_studio.core.flatland.score import draw

REF = Path(__file__).parent / "flatland_reference"


def prog(body: str, start='{"position":[10,10], "theta":0}') -> str:
    return f"p(start) -> {body}\n{start} -> p()\n"


def test_square_trace_by_hand():
    text = "p(start) -> l(loop i 0 4)\nl body -> m(move 10 0)\nm -> t(turn 90)\nt -> l\nl -> p(end)\n" \
           '{"position":[10,10], "theta":0} -> p()\n'
    tr = execute(load_text(text, kind="fbp"))
    pts = [(round(a, 9), round(b, 9), round(c, 9), round(d, 9)) for a, b, c, d in tr.segments]
    assert pts == [(10, 10, 20, 10), (20, 10, 20, 20), (20, 20, 10, 20), (10, 20, 10, 10)]
    assert tr.nodes == ["m"] * 4
    assert tr.firings == 4 + 4 + 5  # moves, turns, loop arrivals


@pytest.mark.parametrize("start,end,runs", [(0, 4, 4), (2, 5, 3), (3, 3, 0), (5, 2, 0), (0, 2.5, 3)])
def test_loop_runs_end_minus_start_times(start, end, runs):
    text = (f"p(start) -> l(loop i {start} {end})\nl body -> m(move 1 0)\nm -> l\nl -> p(end)\n"
            '{"position":[10,10], "theta":0} -> p()\n')
    assert len(execute(load_text(text, kind="fbp")).segments) == runs


def test_nested_loops_count_per_message():
    text = ("p(start) -> o(loop i 0 3)\no body -> n(loop j 0 4)\nn body -> m(move 1 0)\nm -> n\nn -> o\n"
            'o -> p(end)\n{"position":[10,10], "theta":0} -> p()\n')
    assert len(execute(load_text(text, kind="fbp")).segments) == 12


def test_wrap_around_pen_up_and_fan_out():
    text = ("p(start) -> a(move 30 0)\na -> b(move 10 1)\nb -> c(move 5 0)\nb -> d(turn 90)\nd -> e(move 2 0)\n"
            "e -> p(end)\n" + '{"position":[110,10], "theta":0} -> p()\n')
    tr = execute(load_text(text, kind="fbp"))
    # the first segment is drawn unwrapped; then the position wraps to 140 mod 128 = 12
    assert tr.segments[0] == pytest.approx((110, 10, 140, 10))
    assert tr.segments[1] == pytest.approx((22, 10, 27, 10))  # pen-up hop to 22, then c
    assert tr.segments[2][:2] == pytest.approx((22, 10)) and tr.segments[2][3] == pytest.approx(12)
    assert len(tr.segments) == 3
    img = rasterise(tr.segments)
    assert img[127 - 10, 110:128].all() and not img[127 - 10, 0:5].any()  # clipped, not wrapped


def test_negative_wrap_matches_reference_rule():
    tr = execute(load_text(prog("a(move -20 1)\na -> b(move 1 0)\nb -> p(end)"), kind="fbp"))
    assert tr.segments[0][:2] == pytest.approx((118, 10))


def test_runaway_guard():
    # a loop of 100,000 steps: stopped by whichever limit comes first
    text = ("p(start) -> l(loop i 0 100000)\nl body -> m(move 0.001 0)\nm -> l\nl -> p(end)\n"
            '{} -> p()\n')
    with pytest.raises(RunawayError, match="segments"):
        execute(load_text(text, kind="fbp"), max_segments=50_000)
    with pytest.raises(RunawayError, match="firings"):
        execute(load_text(text, kind="fbp"), max_firings=10_000)


def test_rasterise_by_hand():
    img = rasterise([(0.5, 0.5, 3.5, 0.5)], size=8)
    assert np.argwhere(img).tolist() == [[7, 0], [7, 1], [7, 2], [7, 3]]
    assert not rasterise([(-5, -5, -1, -1)], size=8).any()


def test_image_similarity_by_hand():
    a = np.zeros((4, 4), bool)
    b = a.copy()
    b[0, :2] = True
    assert image_similarity(a, b) == pytest.approx(1 - 2 / 16)
    assert image_similarity(b, b) == 1.0
    assert ink_agreement(b, np.roll(b, 1, axis=0)) == (1.0, 1.0)
    assert ink_agreement(b, np.roll(b, 2, axis=0)) == (0.0, 0.0)


def test_png_and_pbm():
    img = draw(load_file(LIBRARY_DIR / "circle.fbp"))
    png = to_png_bytes(img)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[16:24] == b"\x00\x00\x00\x80\x00\x00\x00\x80"
    assert (from_pbm(to_pbm(img)) == img).all()


@pytest.mark.parametrize("name", ["buggy", "ring", "ngon", "rectangle", "tile", "stickfigure", "spokewheel"])
def test_library_drawings_match_reference(name):
    mine = draw(load_file(LIBRARY_DIR / f"{name}.fbp"))
    ref = from_pbm((REF / f"library-{name}.pbm").read_text())
    a, b = ink_agreement(mine, ref)
    assert a >= 0.95 and b >= 0.95, (a, b)
    assert mine.sum() > 100


def test_augmented_drawings_match_reference(tmp_path):
    for name, seed in [("stickfigure", 11), ("spokewheel", 12), ("buggy", 13)]:
        augment_to_folder(LIBRARY_DIR / f"{name}.fbp", 2, seed, tmp_path)
        for i in (1, 2):
            mine = draw(load_file(tmp_path / f"{name}-{i:03d}.lisp"))
            ref = from_pbm((REF / f"augmented-{name}-{i:03d}.pbm").read_text())
            a, b = ink_agreement(mine, ref)
            assert a >= 0.95 and b >= 0.95, (name, i, a, b)


def test_drawing_is_not_trivially_matching():
    """The agreement measure can fail: a shifted drawing does not match the reference."""
    mine = np.roll(draw(load_file(LIBRARY_DIR / "tile.fbp")), 5, axis=1)
    ref = from_pbm((REF / "library-tile.pbm").read_text())
    assert min(ink_agreement(mine, ref)) < 0.95


def test_augmentation_is_seeded_and_follows_randomisers():
    a = [p.to_json() for p in variants(LIBRARY_DIR / "ngon.fbp", 5, seed=3)]
    b = [p.to_json() for p in variants(LIBRARY_DIR / "ngon.fbp", 5, seed=3)]
    c = [p.to_json() for p in variants(LIBRARY_DIR / "ngon.fbp", 5, seed=4)]
    assert a == b and a != c
    for p in variants(LIBRARY_DIR / "ngon.fbp", 30, seed=9):
        loop = p.nodes["corner"].params
        assert 3 <= loop["end"] < 10 and loop["start"] == 0  # @param {sides} (int (3 10))
        assert 8 <= p.nodes["side"].params["dist"] < 40  # @param {edge} (int (8 40))
        x, y = p.start.params["position"]
        assert 0 <= x < 128 and 0 <= y < 128 and p.start.params["theta"] in range(360)


def test_augmentation_redraws_top_level_literals():
    ps = variants(LIBRARY_DIR / "rectangle.fbp", 40, seed=1)
    dists = {p.nodes["long"].params["dist"] for p in ps}
    assert all(10 <= d < 60 for d in dists) and len(dists) > 10  # from @param {width}
    turns = [p.nodes["l1"].params["theta"] for p in ps]
    assert all(t in range(360) for t in turns) and len(set(turns)) > 10  # a literal, redrawn
    # the loop's start and end are literals in the top-level flow: end redrawn in [1, 360)
    assert {p.nodes["halves"].params["start"] for p in ps} == {0}
    assert all(1 <= p.nodes["halves"].params["end"] < 360 for p in ps)


def test_dataset_shape_and_determinism(tmp_path):
    tasks = generate(seed=5, per_domain=2, per_test_domain=1)
    assert len(tasks) == 2 * len(CURRICULUM) + sum(len(v) for v in TEST_SETS.values())
    assert [t.program.to_json() for t in generate(seed=5, per_domain=2, per_test_domain=1)] == \
        [t.program.to_json() for t in tasks]
    by = {t.domain: t for t in tasks if t.split == "train"}
    # n circles: start + n × (aim, hop, face) + n × circle (loop, move, turn)
    assert len(by["circles-3"].program.nodes) == 1 + 3 * 3 + 3 * 3
    assert len(by["lines-5"].program.nodes) == 1 + 5 * 4
    for t in tasks:
        assert draw(t.program).any()
    assert write_dataset(tasks, tmp_path) == len(tasks)
    assert (tmp_path / "train" / "circles-1" / "circles-1-001.fbp").is_file()
    assert (tmp_path / "test" / "hard" / "stick-figure-1" / "stick-figure-1-001.png").is_file()
    back = load_file(tmp_path / "test" / "hard" / "stick-figure-1" / "stick-figure-1-001.fbp")
    assert back.to_json() == [t for t in tasks if t.domain == "stick-figure-1"][0].program.to_json()


def test_5000_segment_drawing():
    text = ("p(start) -> l(loop i 0 5000)\nl body -> m(move 3 0)\nm -> t(turn 7.1)\nt -> l\nl -> p(end)\n{} -> p()\n")
    program = load_text(text, kind="fbp")
    tr = execute(program)
    assert len(tr.segments) == 5000
    assert rasterise(tr.segments).sum() > 100
    assert math.isclose(tr.segments[1][0], tr.segments[0][2])
