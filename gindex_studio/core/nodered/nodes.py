"""What the studio knows about node types before Node-RED runs them: which npm module provides a
type it does not have, and which nodes need the outside world (a remote server, a browser, an
account) and so are not run on this machine."""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

#: type (or type prefix ending in "*") → npm module providing it, for flows that do not say
NPM_MODULES: dict[str, str] = {
    "ui_*": "node-red-dashboard",
    "ui-*": "@flowfuse/node-red-dashboard",
    "twitter *": "node-red-node-twitter",
    "e-mail": "node-red-node-email", "e-mail in": "node-red-node-email", "e mail": "node-red-node-email",
    "telegram *": "node-red-contrib-telegrambot",
    "chatbot-*": "node-red-contrib-chatbot",
    "cronplus": "node-red-contrib-cron-plus",
    "sqlite": "node-red-node-sqlite", "sqlitedb": "node-red-node-sqlite",
    "mongodb *": "node-red-node-mongodb", "mongodb": "node-red-node-mongodb",
    "mysql": "node-red-node-mysql", "MySQLdatabase": "node-red-node-mysql",
    "serial in": "node-red-node-serialport", "serial out": "node-red-node-serialport",
    "serial request": "node-red-node-serialport", "serial-port": "node-red-node-serialport",
    "openweathermap": "node-red-node-openweathermap", "openweathermap in": "node-red-node-openweathermap",
    "feedparse": "node-red-node-feedparser", "rpi-gpio in": "node-red-node-pi-gpio",
    "rpi-gpio out": "node-red-node-pi-gpio", "ping": "node-red-node-ping", "base64": "node-red-node-base64",
    "random": "node-red-node-random", "smooth": "node-red-node-smooth", "moment": "node-red-contrib-moment",
    "google-sheets": "node-red-contrib-google-sheets", "spotify": "node-red-contrib-spotify",
}

#: type patterns (regular expressions) of nodes that need the outside world, with the reason
NETWORK: list[tuple[str, str]] = [
    (r"twitter.*", "talks to Twitter"),
    (r"(chatbot-)?telegram.*", "talks to Telegram"),
    (r"chatbot-(facebook|slack|discord|viber|twilio|alexa|ms-teams)-.*", "talks to a chat service"),
    (r"e[- ]?mail( in)?|smtp|imap", "talks to a mail server"),
    (r"maya-browser-.*|browser-.*|puppeteer.*", "drives a web browser"),
    (r"desktop-system-.*", "acts on the desktop"),
    (r"spotify.*|gdrive.*|google-.*|openweathermap.*|feedparse", "talks to a web service"),
    (r"rpi-gpio.*|serial.*", "needs hardware"),
]

_LOOPBACK = {"localhost", "127.0.0.1", "::1", ""}


def npm_module(node: dict[str, Any]) -> str | None:
    """The npm module that provides ``node``'s type: the flow's own ``module`` key when it names
    one, else the table's entry."""
    mod = node.get("module")
    if isinstance(mod, str) and mod and mod != "node-red":
        return mod
    t = str(node.get("type", ""))
    if t in NPM_MODULES:
        return NPM_MODULES[t]
    for key, m in NPM_MODULES.items():
        if key.endswith("*") and t.startswith(key[:-1]):
            return m
    return None


def network_reason(node: dict[str, Any], by_id: dict[str, dict]) -> str | None:
    """Why ``node`` needs the network (one phrase), or None when it runs offline."""
    t = str(node.get("type", ""))
    for pattern, why in NETWORK:
        if re.fullmatch(pattern, t):
            return why
    if t == "http request":
        url = node.get("url")
        if isinstance(url, str) and url.strip() and "{{" not in url:
            host = urlparse(url if "://" in url else "http://" + url).hostname or ""
            if host not in _LOOPBACK:
                return f"requests {host}"
    if t in ("mqtt in", "mqtt out"):
        broker = by_id.get(str(node.get("broker", "")))
        if broker is not None:  # a missing broker is a config error Node-RED reports itself
            host = str(broker.get("broker", "")).split("://")[-1].split(":")[0]
            if host not in _LOOPBACK:
                return f"connects to the MQTT broker {host}"
    if t in ("websocket in", "websocket out"):
        client = by_id.get(str(node.get("client", "")))
        if client is not None:
            host = urlparse(str(client.get("path", ""))).hostname or ""
            if host not in _LOOPBACK:
                return f"connects to {host}"
    if t in ("tcp request", "tcp in", "tcp out", "udp out"):
        key = "server" if t == "tcp request" else ("addr" if t == "udp out" else "host")
        host = str(node.get(key) or "")
        if host and host not in _LOOPBACK:
            return f"connects to {host}"
    return None
