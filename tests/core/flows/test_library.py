"""Node library: bundled content, validation of library files, user overrides and the flow helpers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gindex_studio import paths
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.library import (
    APPENDIX_B_CATEGORIES,
    KINDS,
    Attribute,
    LibraryError,
    NodeLibrary,
    NodeType,
)


@pytest.fixture(scope="module")
def lib() -> NodeLibrary:
    return NodeLibrary.bundled()


# ----------------------------------------------------------------------------------------------
# bundled content
# ----------------------------------------------------------------------------------------------

# Appendix B, Table 3: category → node names as the paper lists them (our labels use these names).
APPENDIX_B = {
    "common-utility": ["inject", "debug", "complete", "catch", "status", "link in", "link out", "comment"],
    "functional": ["function", "switch", "change", "range", "template", "delay", "trigger", "exec", "filter"],
    "network": ["mqtt in", "mqtt out", "http in", "http response", "http request", "websocket in",
                "websocket out", "tcp in", "tcp out", "tcp request", "udp in", "udp out"],
    "sequence": ["split", "join", "sort", "batch"],
    "parser": ["csv", "html", "json", "xml", "yaml"],
    "storage": ["file", "file in", "watch"],
    "dashboard": ["button", "dropdown", "switch", "slider", "numeric", "text input", "date picker",
                  "colour picker", "form", "text", "gauge", "chart", "audio out", "notification"],
    "browser-automation": ["open", "click", "type", "press", "execute function", "find tab", "scrape", "query",
                           "bookmark"],
    "spotify-automation": ["play", "search", "control playback", "get playback state", "control playlist"],
    "gdrive-automation": ["search gdrive", "gsheet append", "gdrive-export-file"],
    "scheduling": ["schedule-trigger"],
    "zoom-automation": ["create-meeting", "list-meetings", "list-meetings-registrants"],
    "system-utilities": ["clipboard-add", "clipboard-get", "open-target", "file-search", "desktop-notify"],
    "stock-automation": ["submit-order", "get-order", "get-bars", "get-account"],
    "home-automation": ["light-control", "switch-control"],
}

REQUIRED_TYPES = [
    "inject", "debug", "complete", "catch", "status", "link in", "link out", "comment",
    "function", "switch", "change", "range", "template", "delay", "trigger", "exec", "rbe",
    "mqtt in", "mqtt out", "http in", "http response", "http request", "websocket in", "websocket out",
    "tcp in", "tcp out", "tcp request", "udp in", "udp out",
    "split", "join", "sort", "batch", "csv", "html", "json", "xml", "yaml", "file", "file in", "watch",
    "ui_button", "ui_dropdown", "ui_switch", "ui_slider", "ui_numeric", "ui_text_input", "ui_date_picker",
    "ui_colour_picker", "ui_form", "ui_text", "ui_gauge", "ui_chart", "ui_audio", "ui_toast",
    "maya-browser-open", "maya-browser-click", "maya-browser-type", "maya-browser-press",
    "maya-browser-execute-function", "maya-browser-find-tab", "maya-browser-scrape", "maya-browser-query",
    "maya-browser-bookmark", "maya-browser-update-tab", "maya-browser-close-tabs",
    # types used by the benchmark's sample programs
    "tab", "twitter in", "cronplus", "bot-intent", "desktop-system-notify", "desktop-system-open",
    "chatbot-message", "chatbot-facebook-node", "chatbot-facebook-receive", "chatbot-facebook-send",
    "chatbot-telegram-node", "chatbot-telegram-receive", "chatbot-telegram-send", "ui_group", "ui_tab",
]

CONFIG_TYPES = ["tab", "ui_group", "ui_tab", "chatbot-facebook-node", "chatbot-telegram-node"]

# Keys each type carries in the benchmark's sample programs (mayahq/g-index-benchmark domains/*.json),
# copied by hand: the library must describe every one of them.
SAMPLE_KEYS = {
    "tab": ["label", "disabled", "info", "module"],
    "inject": ["name", "topic", "payload", "payloadType", "repeat", "crontab", "once", "onceDelay", "module", "props"],
    "debug": ["name", "active", "tosidebar", "console", "tostatus", "complete", "module", "statusVal", "statusType"],
    "change": ["name", "rules", "action", "property", "to", "reg", "module", "from"],
    "switch": ["name", "outputs", "rules", "checkall", "repair", "property", "propertyType", "module"],
    "function": ["name", "func", "outputs", "noerr", "module", "initialize", "finalize"],
    "split": ["name", "splt", "spltType", "arraySplt", "arraySpltType", "stream", "addname", "module"],
    "csv": ["name", "sep", "hdrin", "hdrout", "multi", "ret", "temp", "skip", "strings", "module",
            "include_empty_strings", "include_null_values"],
    "file": ["name", "filename", "appendNewline", "createDir", "overwriteFile", "encoding", "module"],
    "http in": ["name", "url", "method", "upload", "swaggerDoc", "module"],
    "http response": ["name", "statusCode", "headers", "module"],
    "twitter in": ["tags", "twitter", "user", "name", "inputs", "module"],
    "cronplus": ["name", "outputField", "timeZone", "persistDynamic", "outputs", "options", "module"],
    "bot-intent": ["options", "formValue", "endpointUrl", "name", "order", "payload", "module"],
    "desktop-system-notify": ["title", "messageType", "sound", "name", "module", "wait", "titleType", "message"],
    "desktop-system-open": ["targetType", "name", "module", "target"],
    "chatbot-message": ["name", "message", "language", "module"],
    "chatbot-facebook-node": ["botname", "usernames", "store", "log", "debug", "multiWebHook", "profileFields",
                              "module"],
    "chatbot-facebook-receive": ["bot", "botProduction", "module"],
    "chatbot-facebook-send": ["bot", "botProduction", "track", "passThrough", "errorOutput", "outputs", "module"],
    "chatbot-telegram-node": ["botname", "usernames", "providerToken", "polling", "store", "log", "debug",
                              "webHook", "connectMode", "module"],
    "chatbot-telegram-receive": ["bot", "botProduction", "module"],
    "chatbot-telegram-send": ["bot", "botProduction", "track", "passThrough", "errorOutput", "outputs", "module"],
    "maya-browser-open": ["isProfileConfigNode", "session", "url", "name", "module", "payloadTypeurl"],
    "maya-browser-click": ["payloadTypetabId", "isProfileConfigNode", "payloadTypeindex", "session", "name",
                           "module", "timeout", "index", "payloadTypeselector", "payloadTypetimeout", "selector",
                           "tabId"],
    "maya-browser-type": ["payloadTypetabId", "isProfileConfigNode", "payloadTypeindex", "session", "name",
                          "module", "timeout", "index", "payloadTypeselector", "payloadTypecontent", "content",
                          "payloadTypetimeout", "selector", "tabId"],
    "maya-browser-find-tab": ["isProfileConfigNode", "session", "name", "module", "payloadTypequery", "query"],
    "maya-browser-update-tab": ["payloadTypeupdates", "payloadTypetabId", "updates", "isProfileConfigNode",
                                "session", "name", "module", "timeout", "payloadTypetimeout", "tabId"],
    "maya-browser-close-tabs": ["tabIds", "action", "isProfileConfigNode", "session", "name", "module", "timeout",
                                "payloadTypetabIds", "payloadTypetimeout"],
    "maya-browser-query": ["options", "session", "payloadTypeTimeout", "payloadTypeTabId", "name", "module",
                           "timeout", "mergeOutputs", "tabId"],
    "maya-browser-execute-function": ["payloadTypetabId", "isProfileConfigNode", "func", "args", "payloadTypeargs",
                                      "session", "name", "payloadTypefunc", "timeout", "module",
                                      "payloadTypeselector", "payloadTypetimeout", "selector", "tabId"],
    "ui_form": ["group", "name", "label", "order", "width", "height", "options", "formValue", "payload", "submit",
                "cancel", "topic", "module"],
    "ui_slider": ["group", "name", "label", "tooltip", "order", "width", "height", "passthru", "outs", "topic",
                  "min", "max", "step", "module"],
    "ui_group": ["tab", "name", "order", "disp", "width", "collapse", "module"],
    "ui_tab": ["tab", "name", "icon", "order", "disabled", "hidden", "module"],
}

# A few whole node objects copied from the sample programs.
SAMPLE_NODES = [
    {"id": "ada9ea9c.fedea9", "type": "cronplus", "z": "bfd8f26d.feddff", "x": 637.563, "y": 100.0,
     "wires": [["c0a62478.fedcfb"]], "name": "", "outputField": "payload", "timeZone": "", "persistDynamic": False,
     "outputs": 1, "options": [{"name": "schedule", "topic": "meander dreamer breed hedgehog",
                                "payloadType": "default", "payload": "", "expressionType": "cron",
                                "expression": "43-53 8-22 29,28,26,15,2,22,30 2-8 3/5", "location": "",
                                "offset": "0", "solarType": "all", "solarEvents": "sunrise,sunset"}],
     "module": "node-red-contrib-cron-plus"},
    {"id": "c0a62478.fedcfb", "type": "desktop-system-notify", "z": "bfd8f26d.feddff", "x": 362.437, "y": 900.0,
     "wires": [], "title": "Reminder", "messageType": "msg", "sound": False, "name": "Set Reminder",
     "module": "maya-red-system-utils", "wait": True, "titleType": "str", "message": "topic"},
    {"id": "1c62bef7.fed66f", "type": "switch", "z": "342e3e7a.fed719", "x": 531.393, "y": 484.159,
     "wires": [["3d404fd8.fed086"], ["c0079044.fed982"]], "name": "", "outputs": 2,
     "rules": [{"t": "eq", "v": "retrospectivity mug transcribe nectar roar aboard", "vt": "str"},
               {"t": "eq", "v": "shred early tactile", "vt": "str"}],
     "checkall": "false", "repair": False, "property": "payload.content", "propertyType": "msg", "module": "node-red"},
    {"id": "e831e2fc.fed535", "type": "maya-browser-click", "z": "f1296f58.fed6ec", "x": 495.142, "y": 295.953,
     "wires": [["fa03c6d5.fedd26"]], "payloadTypetabId": "msg", "isProfileConfigNode": False,
     "payloadTypeindex": "num", "session": "", "name": "compose", "module": "maya-red-browser-automation",
     "timeout": "10000", "index": "0", "payloadTypeselector": "str", "payloadTypetimeout": "num",
     "selector": "//div[contains(@class,'T-I T-I-KE')]", "tabId": "tabs[0].id"},
    {"id": "8c905f4d.fed710", "type": "chatbot-telegram-node", "botname": "", "usernames": "", "providerToken": "",
     "polling": "1000", "store": "", "log": "", "debug": True, "webHook": "", "connectMode": "polling",
     "module": "node-red-contrib-chatbot"},
    {"id": "f3861e11.fed9ce", "type": "ui_slider", "z": "f49e43d0.fedfc9", "x": 876.293, "y": 595.058,
     "wires": [["4e0f75f2.fed708"]], "group": "7fe98f5e.fed289", "name": "", "label": "Slider 0", "tooltip": "",
     "order": 0, "width": 0, "height": 0, "passthru": True, "outs": "all", "topic": "", "min": 60.0, "max": 95.0,
     "step": 5.0, "module": "maya-red-dashboard"},
]

STRUCTURE = {"id", "type", "x", "y", "z", "wires"}


def test_fifteen_appendix_b_categories_come_first_in_order(lib):
    ids = [c.id for c in lib.categories]
    assert ids[: len(APPENDIX_B_CATEGORIES)] == list(APPENDIX_B_CATEGORIES)
    assert len(APPENDIX_B_CATEGORIES) == 15
    for c in lib.categories:
        assert c.label and c.description and c.color.startswith("#") and len(c.color) == 7


@pytest.mark.parametrize("cat_id", list(APPENDIX_B))
def test_every_appendix_b_node_is_in_its_category(lib, cat_id):
    labels = {t.label for t in lib.by_category(cat_id)}
    missing = [name for name in APPENDIX_B[cat_id] if name not in labels]
    assert not missing, f"{cat_id}: no node labelled {missing}"


@pytest.mark.parametrize("type_id", REQUIRED_TYPES)
def test_required_types_present(lib, type_id):
    assert type_id in lib
    t = lib.get(type_id)
    assert isinstance(t, NodeType) and t.type == type_id
    assert t.category in {c.id for c in lib.categories}


def test_real_node_red_ids_and_ports(lib):
    assert lib.get("rbe").label == "filter"
    assert lib.get("rbe").category == "functional"
    assert (lib.get("inject").inputs, lib.get("inject").outputs) == (0, 1)
    assert (lib.get("debug").inputs, lib.get("debug").outputs) == (1, 0)
    assert lib.get("exec").outputs == 3
    assert lib.get("http in").attribute("method").choices == ("get", "post", "put", "delete", "patch")
    assert lib.get("inject").color == "#a6bbcf"
    assert lib.get("function").color == "#fdd0a2"


@pytest.mark.parametrize("type_id", CONFIG_TYPES)
def test_config_types_have_no_ports(lib, type_id):
    t = lib.get(type_id)
    assert t.config is True
    assert (t.inputs, t.outputs) == (0, 0)


@pytest.mark.parametrize("type_id", sorted(SAMPLE_KEYS))
def test_library_covers_the_keys_of_the_sample_programs(lib, type_id):
    t = lib.get(type_id)
    assert t is not None
    missing = [k for k in SAMPLE_KEYS[type_id] if t.attribute(k) is None]
    assert not missing, f"{type_id}: library lacks {missing}"


@pytest.mark.parametrize("node", SAMPLE_NODES, ids=lambda n: n["type"])
def test_sample_nodes_are_fully_described(lib, node):
    t = lib.get(node["type"])
    missing = [k for k in node if k not in STRUCTURE and t.attribute(k) is None]
    assert not missing
    assert lib.unknown_types(flow_from_nodes([node])) == set()


def test_attribute_kinds_and_code_bodies(lib):
    for t in lib.types:
        keys = [a.key for a in t.attributes]
        assert len(keys) == len(set(keys)), t.type
        assert not STRUCTURE & set(keys), t.type
        for a in t.attributes:
            assert a.kind in KINDS
            assert a.label
            if a.kind == "enum":
                assert a.choices and (a.default is None or a.default in a.choices)
            else:
                assert a.choices == ()
    fn = lib.get("function")
    for key in ("func", "initialize", "finalize"):
        assert fn.attribute(key).kind == "code"
    assert fn.attribute("func").default == "\nreturn msg;"
    assert lib.get("template").attribute("template").kind == "code"
    assert lib.get("change").attribute("rules").kind == "json"
    assert lib.get("switch").attribute("rules").kind == "json"
    assert lib.get("inject").attribute("props").kind == "json"
    assert lib.get("http response").attribute("headers").kind == "json"
    assert lib.get("ui_form").attribute("options").kind == "json"
    assert lib.get("switch").attribute("checkall").choices == ("true", "false")


def test_name_attribute_where_node_red_has_one(lib):
    for type_id in ("inject", "function", "switch", "csv", "ui_form", "maya-browser-open", "cronplus", "bot-intent"):
        assert lib.get(type_id).attribute("name") is not None


def test_defaults_are_fresh_deep_copies(lib):
    t = lib.get("inject")
    d1 = t.defaults()
    assert d1["props"] == [{"p": "payload"}, {"p": "topic", "vt": "str"}]
    assert d1["once"] is False and d1["onceDelay"] == 0.1 and d1["payloadType"] == "date"
    d1["props"].append({"p": "x"})
    assert t.defaults()["props"] == [{"p": "payload"}, {"p": "topic", "vt": "str"}]
    assert t.attribute("nope") is None
    assert isinstance(t.attribute("once"), Attribute)


def test_bundled_is_cached(lib):
    assert NodeLibrary.bundled() is lib
    assert len(lib) == len(lib.types) >= len(REQUIRED_TYPES)


# ----------------------------------------------------------------------------------------------
# flow helpers
# ----------------------------------------------------------------------------------------------
def test_fill_defaults_keeps_order_and_adds_missing_keys(lib):
    node = {"id": "n1", "type": "inject", "topic": "t", "wires": [["n2"]]}
    filled = lib.fill_defaults(node)
    assert filled is not node
    assert node == {"id": "n1", "type": "inject", "topic": "t", "wires": [["n2"]]}
    assert list(filled)[:4] == ["id", "type", "topic", "wires"]
    assert filled["topic"] == "t"
    assert filled["payloadType"] == "date" and filled["once"] is False
    assert filled["module"] == "node-red"
    filled["props"].append("changed")
    assert lib.fill_defaults(node)["props"] == [{"p": "payload"}, {"p": "topic", "vt": "str"}]


def test_fill_defaults_leaves_unknown_types_and_undefined_defaults(lib):
    node = {"id": "a", "type": "no-such-type", "foo": 1}
    out = lib.fill_defaults(node)
    assert out == node and out is not node
    debug = lib.fill_defaults({"id": "d", "type": "debug"})
    assert "targetType" not in debug  # undefined in Node-RED: not written
    assert debug["complete"] == "false"


def test_fill_defaults_on_a_sample_node_adds_only_missing_keys(lib):
    node = SAMPLE_NODES[3]  # maya-browser-click
    filled = lib.fill_defaults(node)
    assert {k: filled[k] for k in node} == node
    assert list(filled)[: len(node)] == list(node)


def test_unknown_types(lib):
    flow = flow_from_nodes([
        {"id": "a", "type": "inject", "wires": [["b"]]},
        {"id": "b", "type": "mystery-node", "wires": []},
        {"id": "c", "type": "another-one"},
        {"id": "d", "type": "tab", "label": "Flow 1"},
    ])
    assert lib.unknown_types(flow) == {"mystery-node", "another-one"}
    assert lib.unknown_types(flow_from_nodes(SAMPLE_NODES)) == set()


def test_output_count_for_unknown_types_counts_wire_ports(lib):
    assert lib.output_count({"id": "a", "type": "mystery", "wires": [["b"], [], ["c"]]}) == 3
    assert lib.output_count({"id": "a", "type": "mystery", "wires": [[], []]}) == 2
    assert lib.output_count({"id": "a", "type": "mystery", "wires": ["b", "c"]}) == 1  # flat list: one port
    assert lib.output_count({"id": "a", "type": "mystery"}) == 0


def test_output_count_for_known_types(lib):
    assert lib.output_count({"id": "a", "type": "inject", "wires": []}) == 1
    assert lib.output_count({"id": "a", "type": "debug", "wires": []}) == 0
    assert lib.output_count({"id": "a", "type": "exec", "wires": [["b"]]}) == 3
    # never fewer than the ports actually wired
    assert lib.output_count({"id": "a", "type": "inject", "wires": [["b"], ["c"]]}) == 2
    assert lib.output_count({"id": "a", "type": "debug", "wires": [[]]}) == 0
    # types whose output count is an attribute follow the node
    assert lib.output_count({"id": "s", "type": "switch", "outputs": 3, "wires": [["a"], ["b"], []]}) == 3
    assert lib.output_count({"id": "s", "type": "function", "outputs": 2, "wires": [["a"]]}) == 2
    assert lib.output_count({"id": "s", "type": "chatbot-telegram-send", "outputs": 0, "wires": []}) == 0


def test_output_count_accepts_node_objects(lib):
    flow = flow_from_nodes(SAMPLE_NODES)
    counts = {n.type: lib.output_count(n) for n in flow.nodes}
    assert counts["switch"] == 2
    assert counts["cronplus"] == 1
    assert counts["chatbot-telegram-node"] == 0


def test_input_count(lib):
    assert lib.input_count({"id": "a", "type": "inject"}) == 0
    assert lib.input_count({"id": "a", "type": "debug"}) == 1
    assert lib.input_count({"id": "a", "type": "tab"}) == 0
    assert lib.input_count({"id": "a", "type": "twitter in", "inputs": 1, "wires": [[]]}) == 1
    assert lib.input_count({"id": "a", "type": "twitter in", "wires": [[]]}) == 0
    assert lib.input_count({"id": "a", "type": "mystery", "wires": []}) == 1
    assert lib.input_count({"id": "a", "type": "mystery-config", "name": "cfg"}) == 0


# ----------------------------------------------------------------------------------------------
# user folders and validation
# ----------------------------------------------------------------------------------------------
def _attr(key="name", kind="string", default="", **extra):
    return {"key": key, "kind": kind, "default": default, "label": key, **extra}


def _type(type_id="my-node", **over):
    t = {"type": type_id, "label": type_id, "category": "my-cat", "color": "#123456", "inputs": 1,
         "outputs": 1, "attributes": [_attr()], "description": "A test node."}
    t.update(over)
    return t


def _write(folder: Path, name: str, data) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


MY_CAT = {"id": "my-cat", "label": "Mine", "description": "Test category.", "color": "#abcdef"}


def test_user_folder_adds_and_overrides_types(tmp_path):
    user = tmp_path / "user"
    _write(user, "mine.json", {
        "category": MY_CAT,
        "types": [
            _type(),
            _type("inject", category="common-utility", outputs=2, label="my inject",
                  attributes=[_attr("topic", default="mine")]),
        ],
    })
    lib = NodeLibrary.load([user])
    assert "my-node" in lib and lib.get("my-node").category == "my-cat"
    assert lib.get("inject").label == "my inject"
    assert lib.get("inject").outputs == 2
    assert lib.get("inject").defaults() == {"topic": "mine"}
    assert len(lib) == len(NodeLibrary.bundled()) + 1
    ids = [c.id for c in lib.categories]
    assert ids[:15] == list(APPENDIX_B_CATEGORIES) and ids[-1] == "my-cat"
    assert [t.type for t in lib.by_category("my-cat")] == ["my-node"]
    # the bundled library is untouched
    assert NodeLibrary.bundled().get("inject").outputs == 1


def test_user_type_without_colour_takes_its_category_colour(tmp_path):
    t = _type()
    del t["color"]
    _write(tmp_path, "a.json", {"category": MY_CAT, "types": [t]})
    assert NodeLibrary.load([tmp_path]).get("my-node").color == "#abcdef"


def test_missing_user_folder_is_skipped(tmp_path):
    assert len(NodeLibrary.load([tmp_path / "does-not-exist"])) == len(NodeLibrary.bundled())


def test_same_id_in_two_user_folders_later_wins(tmp_path):
    _write(tmp_path / "a", "a.json", {"category": MY_CAT, "types": [_type(label="first")]})
    _write(tmp_path / "b", "b.json", {"types": [_type(label="second")]})
    lib = NodeLibrary.load([tmp_path / "a", tmp_path / "b"])
    assert lib.get("my-node").label == "second"


def _load_error(tmp_path, data, name="bad.json") -> LibraryError:
    path = _write(tmp_path, name, data)
    with pytest.raises(LibraryError) as info:
        NodeLibrary.load([tmp_path])
    assert str(path.name) in str(info.value)
    return info.value


def test_broken_json_names_file_line_and_column(tmp_path):
    err = _load_error(tmp_path, '{\n  "types": [\n    {"type": "x",, }\n  ]\n}\n')
    msg = str(err)
    assert "broken JSON" in msg and "line 3" in msg and "column" in msg
    assert err.path.name == "bad.json"


@pytest.mark.parametrize("field", ["label", "category", "inputs", "outputs", "attributes", "description"])
def test_missing_type_field(tmp_path, field):
    t = _type()
    del t[field]
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [t]})
    assert "my-node" in str(err) and repr(field) in str(err)
    assert err.type_id == "my-node"


def test_missing_type_id(tmp_path):
    t = _type()
    del t["type"]
    assert "'type'" in str(_load_error(tmp_path, {"category": MY_CAT, "types": [t]}))


def test_missing_category_field(tmp_path):
    cat = dict(MY_CAT)
    del cat["description"]
    assert "'description'" in str(_load_error(tmp_path, {"category": cat, "types": []}))


def test_missing_attribute_kind(tmp_path):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[{"key": "a", "default": ""}])]})
    assert "'kind'" in str(err) and "'a'" in str(err)


def test_wrong_kind(tmp_path):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[_attr("a", kind="text")])]})
    assert "'text'" in str(err) and "my-node" in str(err)


@pytest.mark.parametrize("kind,default", [("number", "5"), ("boolean", "false"), ("string", 3), ("code", 1),
                                          ("number", True)])
def test_default_that_does_not_fit_its_kind(tmp_path, kind, default):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[_attr("a", kind, default)])]})
    assert "'a'" in str(err) and "default" in str(err)


def test_enum_default_not_in_choices(tmp_path):
    attr = _attr("mode", "enum", "sideways", choices=["up", "down"])
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[attr])]})
    assert "'sideways'" in str(err) and "choices" in str(err) and "'mode'" in str(err)


def test_enum_without_choices_and_choices_on_non_enum(tmp_path):
    _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[_attr("m", "enum", "a")])]})
    _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[_attr("m", "string", "a", choices=["a"])])]})


def test_duplicate_type_ids_in_one_file(tmp_path):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(), _type()]})
    assert "my-node" in str(err) and "twice" in str(err)


def test_duplicate_type_ids_across_files_of_one_folder(tmp_path):
    _write(tmp_path, "a.json", {"category": MY_CAT, "types": [_type()]})
    err = _load_error(tmp_path, {"types": [_type()]}, name="b.json")
    assert "a.json" in str(err) and "my-node" in str(err)


def test_duplicate_attribute_keys(tmp_path):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[_attr("a"), _attr("a")])]})
    assert "'a'" in str(err)


@pytest.mark.parametrize("color", ["red", "#12345", "#1234567", "#gggggg", "rgb(1,2,3)", 123])
def test_bad_type_colour(tmp_path, color):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(color=color)]})
    assert "colour" in str(err)


def test_bad_category_colour(tmp_path):
    err = _load_error(tmp_path, {"category": {**MY_CAT, "color": "blue"}, "types": []})
    assert "colour" in str(err) and "my-cat" in str(err)


@pytest.mark.parametrize("field,value", [("outputs", -1), ("inputs", -1), ("inputs", 2), ("outputs", 1.5),
                                         ("outputs", "1"), ("inputs", True)])
def test_bad_port_counts(tmp_path, field, value):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(**{field: value})]})
    assert field in str(err) and "my-node" in str(err)


def test_config_type_with_ports_is_rejected(tmp_path):
    _load_error(tmp_path, {"category": MY_CAT, "types": [_type(config=True)]})


def test_structure_key_as_attribute_is_rejected(tmp_path):
    err = _load_error(tmp_path, {"category": MY_CAT, "types": [_type(attributes=[_attr("wires", "json", [])])]})
    assert "'wires'" in str(err)


def test_unknown_category_is_rejected(tmp_path):
    err = _load_error(tmp_path, {"types": [_type(category="nowhere")]})
    assert "'nowhere'" in str(err)


def test_wrong_file_shapes(tmp_path):
    _load_error(tmp_path, [1, 2, 3])
    _load_error(tmp_path, {"category": MY_CAT, "types": {"type": "x"}})
    err = _load_error(tmp_path, {"category": MY_CAT, "type": []})
    assert "'type'" in str(err) or "type" in str(err)


# ----------------------------------------------------------------------------------------------
# paths
# ----------------------------------------------------------------------------------------------
def test_paths_point_at_the_bundled_resources():
    assert paths.LIBRARY_DIR == paths.RESOURCES / "library"
    assert paths.DEMO_DIR == paths.RESOURCES / "demo"
    assert paths.LIBRARY_DIR.is_dir()
    assert (paths.RESOURCES.parent / "gindex_studio").is_dir()


def test_user_data_dir_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    d = paths.user_data_dir()
    assert d == tmp_path / "xdg" / "gindex-studio" and d.is_dir()


def test_user_data_dir_defaults_to_local_share(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    d = paths.user_data_dir()
    assert d == tmp_path / ".local" / "share" / "gindex-studio" and d.is_dir()


def test_bundled_includes_user_folders_and_survives_a_broken_one(tmp_path, monkeypatch):
    import json

    from gindex_studio.core.flows.library import NodeLibrary

    good = tmp_path / "good"
    good.mkdir()
    (good / "mine.json").write_text(json.dumps({"types": [{
        "type": "my-node", "label": "mine", "category": "functional", "inputs": 1, "outputs": 1,
        "description": "A node of the user's own.", "attributes": [{"key": "k", "kind": "string", "default": "v"}]}]}))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.json").write_text("{ not json")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("GINDEX_LIBRARY_PATH", f"{good}:{bad}")
    monkeypatch.setattr(NodeLibrary, "_bundled", None)
    monkeypatch.setattr(NodeLibrary, "user_errors", [])
    lib = NodeLibrary.bundled()
    assert lib.get("my-node") is not None and lib.get("inject") is not None
    assert len(NodeLibrary.user_errors) == 1 and "broken.json" in NodeLibrary.user_errors[0]
    monkeypatch.setattr(NodeLibrary, "_bundled", None)
