"""Flatland parsing: the bundled library resolves as the reference resolves it, the text forms
round-trip, and broken programs give one error with line and column."""
import json
from pathlib import Path

import pytest

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.expr import Scope, evaluate
from gindex_studio.core.flatland.lisp import write_lisp
from gindex_studio.core.flatland.program import program_from_json
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file, load_text
from gindex_studio.core.flatland.sexpr import read

# (nodes, edges) of the reference's resolve_scope output for the same files (see
# tests/core/flatland/flatland_reference/NOTE.md for how it was run)
REFERENCE_COUNTS = {"buggy": (31, 35), "ring": (4, 4), "ngon": (4, 4), "rectangle": (6, 6), "tile": (4, 4),
                    "stickfigure": (21, 21), "spokewheel": (10, 11)}


@pytest.mark.parametrize("name", sorted(REFERENCE_COUNTS))
def test_library_counts_match_reference(name):
    assert load_file(LIBRARY_DIR / f"{name}.fbp").counts() == REFERENCE_COUNTS[name]


def test_ring_resolves_by_hand():
    p = load_file(LIBRARY_DIR / "ring.fbp")
    assert list(p.nodes) == ["__START__", "arc", "chord", "bend"]
    assert p.start.params == {"position": [64, 40], "theta": 0}
    assert p.start.targets == {"out": ["arc"]}
    assert p.nodes["arc"].params == {"varname": "k", "start": 0, "end": 36}
    assert p.nodes["arc"].targets == {"body": ["chord"]}  # its out port leaves the program
    assert p.nodes["chord"].params["dist"] == pytest.approx(2 * 24 * 0.08715574274765817)
    assert p.nodes["bend"].targets == {"out": ["arc"]}


def test_subflow_inlining_connects_entries_and_exits():
    text = """
sq(start s) -> l(loop i 0 4)
l body -> m(move s 0)
m -> t(turn 90)
t -> l
l -> sq(end)

two(start) -> a(sq 10)
a -> gap(move 5 1)
gap -> b(sq (+ 2 3))
b -> two(end)

{"position":[1,2], "theta":30} -> two()
"""
    p = load_text(text, kind="fbp")
    assert p.start.params == {"position": [1, 2], "theta": 30}
    assert p.start.targets["out"] == ["a/l"]
    assert p.nodes["a/l"].targets == {"body": ["a/m"], "out": ["gap"]}
    assert p.nodes["gap"].targets["out"] == ["b/l"]
    assert p.nodes["b/m"].params["dist"] == 5
    assert p.counts() == (8, 9)  # start + 2 × 3 + gap; 1 + 3 + 1 + 1 + 3 edges


def test_include_relative_path_and_dynamic_scope(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "step.fbp").write_text("step(start) -> m(move (* k 2) 0)\nm -> step(end)\n")
    main = tmp_path / "main.fbp"
    main.write_text('#include "lib/step.fbp"\nouter(start k) -> s(step)\ns -> outer(end)\n{} -> outer(7)\n')
    p = load_file(main)
    assert p.nodes["s/m"].params["dist"] == 14  # the sub-flow sees its caller's parameter
    assert p.start.params == {"position": [64, 64], "theta": 0}


def test_lisp_and_json_round_trip():
    for name in REFERENCE_COUNTS:
        p = load_file(LIBRARY_DIR / f"{name}.fbp")
        again = load_text(write_lisp(p), "x.lisp")
        assert again.to_json() == p.to_json()
        assert program_from_json(json.loads(p.dumps())).to_json() == p.to_json()


def test_reference_lisp_form_reads():
    text = """(begin (define-flow poly (n side) ((n (int (3 8))))
      ((create-node l0 loop i 0 n) (create-entry l0) (create-node m0 move side 0) (create-link l0:body m0)
       (create-node t0 turn (/ 360 n)) (create-link m0 t0) (create-link t0 l0) (create-exit l0)))
      (run-flow poly (5 10) (10 20) 45))"""
    p = load_text(text, "p.lisp")
    assert p.counts() == (4, 4)
    assert p.nodes["t0"].params["theta"] == 72
    assert p.start.params == {"position": [10, 20], "theta": 45}


def test_expressions():
    s = Scope({"r": 2})
    assert evaluate(read("(+ 1 2 3)"), s) == 6
    assert evaluate(read("(- 5)"), s) == -5
    assert evaluate(read("(expt r 3)"), s) == 8
    assert evaluate(read("(max 1 (abs -4))"), s) == 4
    assert evaluate(read("(round (* 100 (cos pi)))"), s) == -100
    assert evaluate(read("(if (> r 1) 10 20)"), s) == 10


BROKEN = [
    # (program text, expected words in the message, line, column)
    ("c(start) -> l(loop i 0 3\nl -> c(end)\n{} -> c()\n", "never closed", 1, 14),
    ("c(start) -> l(loop i 0 3))\nl -> c(end)\n{} -> c()\n", "without a matching", 1, 26),
    ('c(start) -> h(limbs 3)\nh -> c(end)\n{} -> c()\n', "unknown node type or sub-flow 'limbs'", 1, 13),
    ("c(start) -> m(move 1 0)\nm -> t(turn 9)\nt -> m\nm -> c(end)\n{} -> c()\n", "a loop without a way out", 2, 6),
    ("c(start) -> m(move 1 0)\nm -> c(end)\n{} -> d()\n", "unknown flow 'd'", 3, 7),
    ("c(start) -> m(move 1)\nm -> c(end)\n{} -> c()\n", "move takes 2 argument", 1, 13),
    ("c(start) -> m(move q 0)\nm -> c(end)\n{} -> c()\n", "unknown name 'q'", 1, 20),
    ("c(start) -> m(move 1 0)\nm -> z\nm -> c(end)\n{} -> c()\n", "undefined node 'z'", 2, 1),
    ("c(start) -> m(move 1 0)\nm body -> n(move 1 0)\nn -> c(end)\n{} -> c()\n", "no port 'body'", 2, 1),
    ("c(start) -> m(move 1 0)\nm -> c(end)\n{\"position\": [1} -> c()\n", "not valid JSON", 3, 16),
    ("@param {x} (int (5 1))\nc(start x) -> m(move x 0)\nm -> c(end)\n{} -> c(1)\n", "a < b", 1, 12),
    ("c(start) -> m(move 1 0)\nthis line has no arrow\n", "expected 'source -> target'", 2, 1),
    ("m -> n(move 1 0)\n", "outside a flow", 1, 1),
    ("c(start) -> m(move 1 0)\nm -> c(end)\n", "no run line", None, None),
    ('#include "nowhere.fbp"\n{} -> c()\n', "#include 'nowhere.fbp': not found in the library folders", 1, 1),
    ("c(start a) -> m(move a 0)\nm -> c(end)\n{} -> c(1 2)\n", "takes 1 argument", 3, 7),
]


@pytest.mark.parametrize("text,words,line,column", BROKEN)
def test_broken_programs_give_one_clear_error(text, words, line, column):
    with pytest.raises(FlatlandError) as info:
        load_text(text, kind="fbp")
    e = info.value
    assert words in e.message
    assert (e.line, e.column) == (line, column)
    assert "\n" not in str(e)


def test_broken_lisp_and_json():
    with pytest.raises(FlatlandError) as info:
        load_text("(begin (define-flow a () () ((create-node m move 1 0)))\n  (run-flow a () (1 2) 0)", "x.lisp")
    assert "never closed" in info.value.message and (info.value.line, info.value.column) == (1, 1)
    with pytest.raises(FlatlandError, match="not in the program"):
        load_text('{"__START__": {"id": "__START__", "type": "info", "targets": {"out": ["x"]}, '
                  '"params": {"position": [1, 1], "theta": 0}}}')
    with pytest.raises(FlatlandError, match="type 'circle'"):
        program_from_json([{"id": "a", "type": "circle"}])


def test_error_in_an_included_file_names_that_file(tmp_path):
    (tmp_path / "bad.fbp").write_text("b(start) -> m(move 1 0\nm -> b(end)\n")
    main = tmp_path / "main.fbp"
    main.write_text('#include "bad.fbp"\n{} -> b()\n')
    with pytest.raises(FlatlandError) as info:
        load_file(main)
    assert info.value.file.endswith("bad.fbp") and info.value.line == 1


def test_reference_stickman2_defect_is_reported(tmp_path):
    """The reference's stickman2 uses a sub-flow it does not define: report name, line, column."""
    (tmp_path / "s2.fbp").write_text(
        "limbs2(start t) -> a(turn t)\na -> limbs(end)\n\n"
        "s2(start) -> legs(limbs 30)\nlegs -> s2(end)\n\n{} -> s2()\n")
    with pytest.raises(FlatlandError) as info:
        load_file(tmp_path / "s2.fbp")
    assert "'limbs'" in info.value.message and (info.value.line, info.value.column) == (4, 14)
