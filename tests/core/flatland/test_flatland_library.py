"""The bundled Flatland library offers the reference library's sub-flows under its names and
parameter orders (issue 26 item 13): a program written for the reference, such as its augmented
``#include "polygon.fbp"`` … ``polygon(26 3)`` (side 26, 3 corners), means the same here."""
from __future__ import annotations

import math

import pytest

from gindex_studio.core.flatland.resolve import LIBRARY_DIR, collect_flows, load_file, load_text, parse_text
from gindex_studio.core.flatland.run import execute
from gindex_studio.core.flatland.score import draw

# sub-flow: (file, parameters) as the reference library defines them
REFERENCE_FLOWS = {
    "circle": ("circle.fbp", ["radius"]), "polygon": ("polygon.fbp", ["side", "n"]),
    "square": ("square.fbp", ["side"]), "wheel": ("wheel.fbp", ["radius", "spokes"]),
    "car": ("car.fbp", ["wsize", "wspokes", "wdist"]), "limbs": ("stickman.fbp", ["theta"]),
    "stickman": ("stickman.fbp", ["headsize", "limbsangle"]), "limbs2": ("stickman2.fbp", ["theta"]),
    "stickman2": ("stickman2.fbp", ["headsize", "limbsangle"]), "torso": ("worm.fbp", ["length", "angle"]),
    "worm": ("worm.fbp", ["headsize", "limbsangle", "torsoangle"]),
}


def _run(includes: str, call: str):
    return load_text(f'{includes}\nmain(start) -> x({call})\nx -> main(end)\n{{"position":[40,40], "theta":0}} -> main()\n',
                     None, None, "fbp")


@pytest.mark.parametrize("flow", sorted(REFERENCE_FLOWS))
def test_reference_flow_names_and_parameter_orders(flow):
    file, params = REFERENCE_FLOWS[flow]
    path = LIBRARY_DIR / file
    flows = collect_flows(parse_text(path.read_text(), str(path)))
    assert flows[flow].params == params


def test_polygon_26_3_is_a_triangle_of_side_26():
    p = _run('#include "polygon.fbp"', "polygon 26 3")
    loop = [n for n in p.nodes.values() if n.type == "loop"][0]
    moves = [n for n in p.nodes.values() if n.type == "move"]
    turns = [n for n in p.nodes.values() if n.type == "turn"]
    assert (loop.params["start"], loop.params["end"]) == (0, 3)
    assert [m.params["dist"] for m in moves] == [26] and [t.params["theta"] for t in turns] == [120]
    segs = execute(p).segments
    assert len(segs) == 3 and all(math.hypot(x1 - x0, y1 - y0) == pytest.approx(26) for x0, y0, x1, y1 in segs)
    assert segs[-1][2:] == pytest.approx((40, 40))  # closed


def test_square_side_and_circle_radius():
    sq = execute(_run('#include "square.fbp"', "square 21")).segments
    assert len(sq) == 4 and all(math.hypot(x1 - x0, y1 - y0) == pytest.approx(21) for x0, y0, x1, y1 in sq)
    c = _run('#include "circle.fbp"', "circle 17")
    assert [n.params["end"] for n in c.nodes.values() if n.type == "loop"] == [360]
    pts = [(x1, y1) for _x0, _y0, x1, y1 in execute(c).segments]
    # a 360-gon of circumradius 17·cos(0.5°), its centre half a step ahead of (40, 57)
    centre = (40 + c.nodes["x/step"].params["dist"] / 2, 57)
    assert len(pts) == 360 and all(math.dist(p, centre) == pytest.approx(17, abs=0.01) for p in pts)


def test_car_wheel_and_figures_take_their_arguments_in_the_reference_order():
    car = _run('#include "car.fbp"', "car 9 6 40")
    loops = sorted(n.params["end"] for n in car.nodes.values() if n.type == "loop")
    assert loops == [6, 6, 360, 360]  # two wheels of 6 spokes, each with its circle
    assert 40 in [n.params["dist"] for n in car.nodes.values() if n.type == "move"]  # wdist between the wheels
    worm = _run('#include "worm.fbp"', "worm 11 30 60")
    turns = [n.params["theta"] for n in worm.nodes.values() if n.type == "turn"]
    assert turns.count(60) == 3 and 30 in turns  # torsoangle after each of three segments; limbsangle
    for figure in ("stickman 12 45", "stickman2 12 45"):
        file = figure.split()[0] + ".fbp"
        p = _run(f'#include "{file}"', figure)
        assert [n.params["end"] for n in p.nodes.values() if n.type == "loop"] == [360]
        assert draw(p).any()


def test_this_projects_own_programs_keep_names_that_do_not_clash():
    own = {"ring": "ring.fbp", "ngon": "ngon.fbp", "tile": "tile.fbp", "rectangle": "rectangle.fbp",
           "spokewheel": "spokewheel.fbp", "buggy": "buggy.fbp", "stickfigure": "stickfigure.fbp", "pair": "stickfigure.fbp"}
    for name, file in own.items():
        path = LIBRARY_DIR / file
        assert name in collect_flows(parse_text(path.read_text(), str(path)))
    assert not set(own) & set(REFERENCE_FLOWS)
    ngon = execute(_run('#include "ngon.fbp"', "ngon 5 20")).segments  # ours: (sides edge)
    assert len(ngon) == 5
