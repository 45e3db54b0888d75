"""The compare view against the scoring core: what is drawn and shown is what the core computes,
before and after edits, under either profile, for broken model output too."""
from __future__ import annotations

from pathlib import Path

import pytest

from gindex_studio.core.scoring.divergence import ScoreOptions, score
from gindex_studio.core.flows.flow import read_flow_file
from gindex_studio.core.flows.lenient import read_model_output
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui.compare.panel import fmt

DEMO = Path(DEMO_DIR)


def demo_pair(domain: str) -> tuple[str, str]:
    return str(DEMO / "programs" / domain / f"{domain}-4.json"), str(DEMO / "generated" / f"{domain}-4.txt")


def core_score(ref_path: str, gen_path: str, options: ScoreOptions = ScoreOptions()):
    ref = read_flow_file(ref_path)
    read = read_model_output(Path(gen_path).read_text())
    return ref, read, score(ref, read.flow, options, syntax=read.syntax)



def settle(qtbot, view, timeout=5000):
    """Wait until the debounce fired and the newest result is on screen."""
    qtbot.waitUntil(lambda: view.result is not None and not view.timer.isActive() and not view.runner.busy,
                    timeout=timeout)


def drawn(doc, ids):
    return {i for i in ids if doc.has(i) and doc.is_drawn(i)}


def edge_key(e):
    return (e[0], e[1], e[2]) if len(e) == 3 else (e[0], None, e[1])


def wire_styles(scene, edge):
    src, port, dst = edge_key(edge)
    return {item.style for k, item in scene.wires.items() if k[0] == src and k[2] == dst and port in (None, k[1])}


@pytest.mark.parametrize("domain", ["telegram-2-reply", "gmail-send", "twitter", "template-slider"])
def test_highlighted_pairs_equal_the_core_mapping(cview, qtbot, domain):
    ref_p, gen_p = demo_pair(domain)
    cview.load_files(ref_p, gen_p)
    settle(qtbot, cview)
    _ref, _read, core = core_score(ref_p, gen_p)
    r = cview.result
    assert r.delta == core.delta and r.exact
    assert {(p.reference, p.generated, p.w_exact) for p in r.mapping} == {(p.reference, p.generated, p.w_exact) for p in core.mapping}
    # what the canvases show: a badge number on the left and the same number on the right
    expected = {(p.reference, p.generated) for p in core.mapping if cview.ref.doc.is_drawn(p.reference)}
    on_canvas = cview.pairs_on_canvas()
    assert on_canvas["reference"] == expected
    assert on_canvas["generated"] == {(p.reference, p.generated) for p in core.mapping if cview.gen.doc.is_drawn(p.generated)}
    assert cview.overlays["reference"].drawn_marks("missing") == drawn(cview.ref.doc, core.missing_nodes)
    assert cview.overlays["generated"].drawn_marks("extra") == drawn(cview.gen.doc, core.extra_nodes)
    # wires: matched on both sides, missing on the reference, extra on the generated side
    for r_edge, g_edge in core.matched_edges:
        assert wire_styles(cview.ref.scene, r_edge) <= {"matched"}
        assert wire_styles(cview.gen.scene, g_edge) <= {"matched"}
    for e in core.missing_edges:
        assert wire_styles(cview.ref.scene, e) <= {"missing"}
    for e in core.extra_edges:
        assert wire_styles(cview.gen.scene, e) <= {"extra"}
    # the pair labels show w and, for w < 1, which attributes differ
    for p in core.mapping:
        text = cview.overlays["reference"].drawn_label(p.reference)
        if cview.ref.doc.is_drawn(p.reference):
            assert f"w={p.w_exact if p.w < 1 else 1}" in text
            for k in p.differing_keys:
                assert k in text
    assert cview.panel.delta_label.text() == f"Δ = {fmt(core.delta)}"
    assert f"|V'| = {core.n_reference}" in cview.panel.why_label.text()
    assert cview.panel.why_label.text().endswith(f"= <b>{fmt(core.delta)}</b>")


def test_selecting_a_node_selects_its_partner_and_shows_the_attribute_diff(cview, qtbot):
    cview.load_files(*demo_pair("template-slider"))
    settle(qtbot, cview)
    pair = next(p for p in cview.result.mapping if p.w < 1 and cview.ref.doc.is_drawn(p.reference))
    cview.ref.focus_node(pair.reference)
    assert cview.gen.scene.selected_node_ids() == [pair.generated]
    assert set(cview.attr.differing) == set(pair.differing_keys)
    rows = {cview.attr.table.item(r, 1).text(): cview.attr.table.item(r, 0).text() for r in range(cview.attr.table.rowCount())}
    for k in pair.differing_keys:
        assert rows[k] == "≠"
    # hovering a generated node rings its reference partner
    cview.hover("generated", pair.generated)
    assert cview.ref.scene.nodes[pair.reference].emphasis
    cview.hover("generated", None)
    assert not cview.ref.scene.nodes[pair.reference].emphasis


def test_deleting_a_wire_on_the_generated_side_raises_delta_as_the_core_says(cview, qtbot):
    ref_p, gen_p = demo_pair("telegram-2-reply")
    cview.load_files(ref_p, gen_p)
    settle(qtbot, cview)
    before = cview.result.delta
    ref = read_flow_file(ref_p)

    def without(key):
        flow = cview.gen.doc.flow.copy()
        node = flow.by_id()[key[0]]
        node.data["wires"] = [[t for t in p if not (k == key[1] and t == key[2])] for k, p in enumerate(node.ports)]
        return flow

    # a wire whose loss the core says costs something (with several optimal mappings, not every one does)
    key = next(k for k in cview.gen.scene.wires if score(ref, without(k)).delta > before)
    cview.gen.scene.select_wire(key)
    cview.gen.delete_selection()
    settle(qtbot, cview)
    expected = score(read_flow_file(ref_p), cview.gen.doc.flow.copy(), ScoreOptions())
    assert cview.result.delta == pytest.approx(expected.delta) and cview.result.delta > before
    assert cview.panel.change_label.text() == f"Δ {fmt(before)} → {fmt(expected.delta)}"
    cview.gen.undo_stack.undo()
    settle(qtbot, cview)
    assert cview.result.delta == before


def test_switching_the_profile_changes_delta_as_the_core_says(cview, qtbot):
    ref_p, gen_p = demo_pair("telegram-2-reply")
    cview.load_files(ref_p, gen_p)
    settle(qtbot, cview)
    for profile in ("companion", "paper"):
        cview.panel.profile.setCurrentText(profile)
        settle(qtbot, cview)
        assert cview.result.profile == profile
        assert cview.result.delta == core_score(ref_p, gen_p, ScoreOptions(profile=profile))[2].delta
    cview.panel.port_aware.setChecked(True)
    settle(qtbot, cview)
    assert cview.result.delta == core_score(ref_p, gen_p, ScoreOptions(port_aware=True))[2].delta
    assert cview.result.delta != core_score(ref_p, gen_p)[2].delta  # the crossed switch ports show


def test_stepping_through_differences_visits_each_one(cview, qtbot):
    cview.load_files(*demo_pair("gmail-send"))
    settle(qtbot, cview)
    n = len(cview.diffs)
    assert n == cview.panel.diff_list.count() >= 3
    seen = []
    for _ in range(n):
        d = cview.next_difference()
        seen.append(cview.diff_index)
        assert cview.panel.diff_list.currentRow() == cview.diff_index
        # exactly the difference is selected: its wire on its side, or its node(s)
        if d.edge is not None:
            role = "reference" if d.kind == "missing-edge" else "generated"
            sc = cview.editors[role].scene
            assert [(k[0], k[2]) for k in sc.selected_wires()] == [(d.edge[0], d.edge[-1])]
            assert all(not e.scene.selected_node_ids() for e in cview.editors.values())
        else:
            for role, ids in (("reference", d.reference), ("generated", d.generated)):
                want = drawn(cview.editors[role].doc, ids)
                assert set(cview.editors[role].scene.selected_node_ids()) == want
                assert not cview.editors[role].scene.selected_wires()
    assert seen == list(range(n))
    cview.next_difference()
    assert cview.diff_index == 0  # wraps like a diff tool
    cview.previous_difference()
    assert cview.diff_index == n - 1
    kinds = {d.kind for d in cview.diffs}
    r = cview.result
    assert sum(d.kind in ("missing-edge", "extra-edge") for d in cview.diffs) == len(r.errors["dataflow"])
    assert sum(d.kind in ("attributes", "missing-node", "extra-node") for d in cview.diffs) == len(r.errors["function"])
    assert kinds


def test_f8_and_shift_f8_step_in_the_window(qtbot, library):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from gindex_studio.ui.compare.window import CompareWindow

    win = CompareWindow(library)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert win.open_pair(*demo_pair("telegram-2-reply"))
    settle(qtbot, win.view)
    win.activateWindow()
    win.view.ref.view.setFocus()
    QTest.keyClick(win, Qt.Key_F8)
    QTest.keyClick(win, Qt.Key_F8)
    if win.view.diff_index != 1:  # no active window on this platform: trigger the actions
        win.view.diff_index = -1
        win.actions["compare.next"].trigger()
        win.actions["compare.next"].trigger()
    assert win.view.diff_index == 1
    win.actions["compare.previous"].trigger()
    assert win.view.diff_index == 0
    assert win.actions["compare.next"].shortcut().toString() == "F8"
    assert win.actions["compare.previous"].shortcut().toString() == "Shift+F8"
    win.view.runner.wait(5000)


def test_broken_model_text_shows_recovered_nodes_and_the_error(cview, qtbot):
    ref_p, gen_p = demo_pair("googlesearch-to-csv")
    text = Path(gen_p).read_text()
    read = read_model_output(text)
    assert read.syntax is not None and read.flow.nodes
    cview.set_generated_text_pair(read_flow_file(ref_p), text, "ref", "pasted")
    settle(qtbot, cview)
    assert set(cview.gen.doc.node_ids()) == {n.id for n in read.flow.nodes}
    assert set(cview.gen.scene.nodes) == drawn(cview.gen.doc, cview.gen.doc.node_ids())
    side = cview.sides["generated"]
    s = read.syntax
    assert side.banner.isVisible()
    assert f"line {s.line}, column {s.column}" in side.banner.text()
    assert f"{s.recovered_nodes} recovered" in side.banner.text()
    assert side.source_box.isVisible() and side.source.toPlainText() == text
    assert side.error_line() == s.line
    assert "syntax: 1" in cview.panel.errors_label.text()
    assert cview.diffs[0].kind == "syntax"
    assert cview.result.delta == score(read_flow_file(ref_p), read.flow, syntax=s).delta
    # text with nothing recoverable: an empty canvas, Δ = 1, the reason shown
    cview.set_generated_text_pair(read_flow_file(ref_p), "Sorry, I cannot write that flow.")
    settle(qtbot, cview)
    assert cview.result.delta == 1 and not cview.gen.scene.nodes
    assert "no flow could be recovered" in side.banner.text()


def test_rapid_edits_are_debounced_and_stale_results_dropped(cview, qtbot):
    ref_p, gen_p = demo_pair("twitter")
    cview.load_files(ref_p, gen_p)
    settle(qtbot, cview)
    shown = cview.results_shown
    for key in list(cview.gen.scene.wires)[:3]:  # three edits without the event loop running
        cview.gen.push(__import__("gindex_studio.ui.model.commands", fromlist=["x"]).remove_nodes(cview.gen.doc, [], [key]))
    settle(qtbot, cview)
    assert cview.results_shown == shown + 1
    for _ in range(3):  # three requests in flight: only the newest arrives
        cview.score_now()
    settle(qtbot, cview)
    qtbot.wait(30)
    assert cview.results_shown == shown + 2
    assert cview.result.delta == score(read_flow_file(ref_p), cview.gen.doc.flow.copy()).delta


def test_linked_zoom_and_scroll(cview, qtbot):
    cview.load_files(*demo_pair("telegram-2-reply"))
    settle(qtbot, cview)
    cview.set_linked(True)
    assert cview.gen.view.zoom() == pytest.approx(cview.ref.view.zoom())
    cview.ref.view.zoom_in()
    assert cview.gen.view.zoom() == pytest.approx(cview.ref.view.zoom())
    c0 = cview._center("generated")
    r0 = cview._center("reference")
    cview.ref.view.centerOn(r0.x() + 120, r0.y() + 40)
    moved_r = cview._center("reference") - r0
    moved_g = cview._center("generated") - c0
    assert moved_g.x() == pytest.approx(moved_r.x(), abs=2) and moved_g.y() == pytest.approx(moved_r.y(), abs=2)
    cview.set_linked(False)
    g1 = cview._center("generated")
    cview.ref.view.centerOn(r0)
    assert cview._center("generated") == g1
