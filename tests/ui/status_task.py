"""Issue 32's reference task, shared by the tests that author it (offscreen with QTest events in
test_authoring_count, on a real X server with xdotool in test_authoring_x11): "every weekday at
9:00, GET a status URL; if ``status`` is not 'ok' send a Telegram message, else log 'fine'".
What the saved flow must be, and how it must run in the real Node-RED."""
from __future__ import annotations

import json

#: the most actions the authoring may take (issue 32's Done-when)
LIMIT = 45
#: the status server's address (in the real Node-RED the server is stubbed: see ``check_runs``)
URL = "http://127.0.0.1:18931/status"


def check_structure(saved) -> dict:
    """The saved flow is the asked program; returns its nodes by type."""
    flow = saved["flow"] if isinstance(saved, dict) else saved
    by_type = {}
    for n in flow:
        assert n["type"] not in by_type, n["type"]
        by_type[n["type"]] = n
    assert set(by_type) == {"inject", "http request", "json", "switch", "change", "debug",
                            "chatbot-telegram-send", "chatbot-telegram-node"}, set(by_type)
    inject, http, js, sw = by_type["inject"], by_type["http request"], by_type["json"], by_type["switch"]
    change, debug, send, bot = by_type["change"], by_type["debug"], by_type["chatbot-telegram-send"], by_type["chatbot-telegram-node"]
    assert inject["crontab"] == "00 09 * * 1,2,3,4,5" and inject["repeat"] == ""
    assert http["method"] == "GET" and http["url"] == URL
    assert sw["property"] == "payload.status" and sw["propertyType"] == "msg"
    assert sw["rules"] == [{"t": "eq", "v": "ok", "vt": "str"}, {"t": "else"}] and sw["outputs"] == 2
    assert change["rules"][0]["t"] == "set" and change["rules"][0]["p"] == "payload"
    assert (change["rules"][0]["to"], change["rules"][0]["tot"]) == ("fine", "str")
    assert send["bot"] == bot["id"]
    assert inject["wires"] == [[http["id"]]] and http["wires"] == [[js["id"]]] and js["wires"] == [[sw["id"]]]
    assert sw["wires"] == [[change["id"]], [send["id"]]]
    assert change["wires"] == [[debug["id"]]]
    return by_type


def with_stubbed_status(flow: list[dict], http_id: str, status: str) -> list[dict]:
    """The flow with its http request node standing in for the status server: the sandboxed
    Node-RED reaches no server (its network is its own loopback, where it listens on no port), so
    the node (same id, same wires) answers the body such a server would send."""
    body = json.dumps({"status": status})
    stub = {"id": http_id, "type": "change", "name": "status server (stub)",
            "rules": [{"t": "set", "p": "payload", "pt": "msg", "to": body, "tot": "str"}]}
    return [dict(n, **stub) if n["id"] == http_id else n for n in flow]


def check_runs(session, saved) -> None:
    """``saved`` (the file's JSON value) deploys in the real Node-RED of ``session`` and routes the
    status as asked: the probe on its inject logs "fine" for "ok" and nothing otherwise."""
    from .runtime_support import fire_and_collect

    flow = saved["flow"] if isinstance(saved, dict) else saved
    by_type = check_structure(saved)
    # as saved: everything runs but the Telegram sender, which needs the network
    result = session.deploy(flow)
    kept_out = {(p.node_id, p.kind) for p in result.problems}
    assert kept_out <= {(by_type["chatbot-telegram-send"]["id"], "needs-network"),
                        (by_type["chatbot-telegram-node"]["id"], "needs-network"),
                        (by_type["chatbot-telegram-node"]["id"], "missing-type")}, result.problems
    assert (by_type["chatbot-telegram-send"]["id"], "needs-network") in kept_out
    inject, http, debug = by_type["inject"]["id"], by_type["http request"]["id"], by_type["debug"]["id"]
    # the probe on its inject, with the status server stubbed: "ok" logs "fine"; else nothing is logged
    # (the message goes to the Telegram sender's output, which is not run here)
    session.deploy(with_stubbed_status(flow, http, "ok"))
    assert fire_and_collect(session, inject) == [(debug, "fine")]
    session.deploy(with_stubbed_status(flow, http, "down"))
    assert fire_and_collect(session, inject, timeout=3.0) == []
