"""The inject node's Properties as Node-RED 4's editor reads (oneditprepare) and writes
(oneditsave with getProps(legacy=true)) them."""
from __future__ import annotations

from gindex_studio.core.editing.inject_props import read_props, write_props

DEFAULTS = {"props": [{"p": "payload"}, {"p": "topic", "vt": "str"}], "topic": "", "payload": "", "payloadType": "date"}


def test_a_fresh_inject_shows_a_timestamp_payload_and_an_empty_topic():
    assert read_props(DEFAULTS) == [("payload", "", "date"), ("topic", "", "str")]
    assert write_props(read_props(DEFAULTS)) == DEFAULTS


def test_the_payload_and_a_string_topic_live_in_the_nodes_own_keys():
    rows = [("payload", "42", "num"), ("topic", "news", "str"), ("x", "{\"a\":1}", "json"), ("", "dropped", "str")]
    assert write_props(rows) == {"props": [{"p": "payload"}, {"p": "topic", "vt": "str"}, {"p": "x", "v": "{\"a\":1}",
                                                                                           "vt": "json"}],
                                 "topic": "news", "payload": "42", "payloadType": "num"}
    # a topic of another type is an ordinary property
    assert write_props([("topic", "t", "flow")]) == {"props": [{"p": "topic", "v": "t", "vt": "flow"}], "topic": "",
                                                     "payload": None, "payloadType": None}


def test_old_injects_without_props_read_their_payload_and_topic():
    assert read_props({"payload": "hi", "topic": "t"}) == [("payload", "hi", "str"), ("topic", "t", "str")]
    assert read_props({"payload": "", "payloadType": "none"}) == [("payload", "", "str"), ("topic", "", "str")]
    assert read_props({"props": [{"p": "a", "v": 5, "vt": "string"}]}) == [("a", "5", "str")]
