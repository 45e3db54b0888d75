"""The switch node's rules as Node-RED 4's editor writes them (10-switch.html's exportRule):
only the keys an operator uses, string values, the output map applied to the wires."""
from __future__ import annotations

import pytest

from gindex_studio.core.editing.switch_rules import OPERATORS, SwitchRule, new_rule, read_rule, remap_wires


@pytest.mark.parametrize("rule, written", [
    (SwitchRule("eq", "ok", "str"), {"t": "eq", "v": "ok", "vt": "str"}),
    (SwitchRule("else", "left over", "num"), {"t": "else"}),
    (SwitchRule("nnull", "x", "str"), {"t": "nnull"}),
    (SwitchRule("btwn", "1", "num", "9", "msg"), {"t": "btwn", "v": "1", "vt": "num", "v2": "9", "v2t": "msg"}),
    (SwitchRule("regex", "^a", "str", case=True), {"t": "regex", "v": "^a", "vt": "str", "case": True}),
    (SwitchRule("istype", "", "array"), {"t": "istype", "v": "array", "vt": "array"}),
    (SwitchRule("head", "3", "str"), {"t": "head", "v": "3", "vt": "num"}),  # a head counts: no strings
    (SwitchRule("jsonata_exp", "$count(payload) > 1", "str"),
     {"t": "jsonata_exp", "v": "$count(payload) > 1", "vt": "jsonata"}),
])
def test_a_rule_is_written_with_the_keys_its_operator_uses(rule, written):
    assert rule.export() == written
    assert list(rule.export()) == list(written)  # in Node-RED's key order


def test_stored_rules_read_back_to_what_they_were():
    for rule in ({"t": "eq", "v": "5", "vt": "num"}, {"t": "else"}, {"t": "index", "v": "0", "vt": "num", "v2": "2",
                 "v2t": "num"}, {"t": "regex", "v": "x", "vt": "str", "case": False},
                 {"t": "istype", "v": "object", "vt": "object"}):
        assert read_rule(rule).export() == rule
    # a number or boolean value an old flow holds is shown (and written) as Node-RED's text field has it
    assert read_rule({"t": "eq", "v": 5, "vt": "num"}).export() == {"t": "eq", "v": "5", "vt": "num"}
    assert read_rule({"t": "eq", "v": True, "vt": "bool"}).v == "true"


def test_a_new_rule_takes_the_previous_rules_value_type():
    assert new_rule(None) == {"t": "eq", "v": "", "vt": "str"}
    assert new_rule({"t": "gt", "v": "3", "vt": "num"}) == {"t": "eq", "v": "", "vt": "num"}
    assert new_rule({"t": "istype", "v": "number", "vt": "number"}) == {"t": "eq", "v": "", "vt": "num"}
    assert new_rule({"t": "else"}) == {"t": "eq", "v": "", "vt": "str"}


def test_wires_follow_their_rules():
    wires = [["a"], ["b", "x"], ["c"]]
    assert remap_wires(wires, [0, 1, 2]) == wires
    assert remap_wires(wires, [0, 2]) == [["a"], ["c"]]  # the second rule removed: its wires go
    assert remap_wires(wires, [1, 0, 2, None]) == [["b", "x"], ["a"], ["c"], []]
    assert remap_wires([], [None, None]) == [[], []]
    assert remap_wires([["a"]], [3]) == [[]]  # an output the node never wired


def test_the_operator_menu_is_node_reds():
    assert [v for v, _ in OPERATORS] == ["eq", "neq", "lt", "lte", "gt", "gte", "hask", "btwn", "cont", "regex", "true",
                                         "false", "null", "nnull", "istype", "empty", "nempty", "head", "index", "tail",
                                         "jsonata_exp", "else"]
