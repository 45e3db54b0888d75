"""Authoring script of the demo data: writes programs/, generated/, experiment.json and README.md next to it.

The programs and "model outputs" are hand-written below (one maker per domain, the prompts and values
spelled out); this script only assigns ids (seeded, so reruns are byte-identical), lays nodes out on a
grid and serializes. Edit here and rerun `python3 resources/demo/build_demo.py`, then
`python3 -m pytest -q tests/core/flows/test_demo_data.py`.
"""
import copy
import json
import random
import shutil
from pathlib import Path

OUT = Path(__file__).resolve().parent
RNG = random.Random(20240611)
USED = set()


def nid():
    while True:
        i = f"{RNG.getrandbits(32):08x}.{RNG.getrandbits(24):06x}"
        if i not in USED:
            USED.add(i)
            return i


def X(col):
    return 140 + col * 200


def Y(row):
    return int(80 + row * 80)


# ---------------------------------------------------------------- node makers (real keys/defaults)

def tab(label):
    return {"id": nid(), "type": "tab", "label": label, "disabled": False, "info": "", "module": "node-red"}


def place(n, z, col, row):
    n["z"] = z["id"]
    n["x"] = X(col)
    n["y"] = Y(row)
    n.setdefault("wires", [])
    return n


def inject(name=""):
    return {"id": nid(), "type": "inject", "name": name, "props": [{"p": "payload"}, {"p": "topic", "vt": "str"}],
            "repeat": "", "crontab": "", "once": False, "onceDelay": 0.1, "topic": "", "payload": "",
            "payloadType": "date", "module": "node-red"}


def debug(complete="false", name=""):
    return {"id": nid(), "type": "debug", "name": name, "active": True, "tosidebar": True, "console": False,
            "tostatus": False, "complete": complete, "statusVal": "", "statusType": "auto", "module": "node-red"}


def change(rules, name=""):
    return {"id": nid(), "type": "change", "name": name, "rules": rules, "action": "", "property": "", "from": "",
            "to": "", "reg": False, "module": "node-red"}


def rule_set(p, to, tot="str"):
    return {"t": "set", "p": p, "pt": "msg", "to": to, "tot": tot}


def function(func, name=""):
    return {"id": nid(), "type": "function", "name": name, "func": func, "outputs": 1, "noerr": 0,
            "initialize": "", "finalize": "", "module": "node-red"}


def switch(prop, rules, checkall="false", ptype="msg"):
    return {"id": nid(), "type": "switch", "name": "", "property": prop, "propertyType": ptype, "rules": rules,
            "checkall": checkall, "repair": False, "outputs": len(rules), "module": "node-red"}


def cronplus(expression, topic, opt_name="schedule"):
    return {"id": nid(), "type": "cronplus", "name": "", "outputField": "payload", "timeZone": "",
            "persistDynamic": False, "outputs": 1,
            "options": [{"name": opt_name, "topic": topic, "payloadType": "default", "payload": "",
                         "expressionType": "cron", "expression": expression, "location": "", "offset": "0",
                         "solarType": "all", "solarEvents": "sunrise,sunset"}],
            "module": "node-red-contrib-cron-plus"}


def notify(name="Set Reminder"):
    return {"id": nid(), "type": "desktop-system-notify", "name": name, "title": "Reminder", "titleType": "str",
            "message": "topic", "messageType": "msg", "sound": False, "wait": True,
            "module": "maya-red-system-utils"}


BROWSER = "maya-red-browser-automation"


def find_tab(query, name=""):
    return {"id": nid(), "type": "maya-browser-find-tab", "name": name, "isProfileConfigNode": False, "session": "",
            "query": json.dumps({"url": query}, separators=(",", ":")), "payloadTypequery": "json", "module": BROWSER}


def exec_fn(func, name):
    return {"id": nid(), "type": "maya-browser-execute-function", "name": name, "isProfileConfigNode": False,
            "session": "", "tabId": "tabs[0].id", "payloadTypetabId": "msg", "selector": "//video",
            "payloadTypeselector": "str", "func": func, "payloadTypefunc": "str", "args": "[]",
            "payloadTypeargs": "json", "timeout": "2000", "payloadTypetimeout": "num", "module": BROWSER}


def b_open(url, utype, name=""):
    return {"id": nid(), "type": "maya-browser-open", "name": name, "isProfileConfigNode": False, "session": "",
            "url": url, "payloadTypeurl": utype, "module": BROWSER}


def b_update(updates, name=""):
    return {"id": nid(), "type": "maya-browser-update-tab", "name": name, "isProfileConfigNode": False,
            "session": "", "tabId": "tabs[0].id", "payloadTypetabId": "msg", "updates": updates,
            "payloadTypeupdates": "msg", "timeout": "2000", "payloadTypetimeout": "num", "module": BROWSER}


def b_click(selector, timeout, name=""):
    return {"id": nid(), "type": "maya-browser-click", "name": name, "isProfileConfigNode": False, "session": "",
            "tabId": "tabs[0].id", "payloadTypetabId": "msg", "selector": selector, "payloadTypeselector": "str",
            "index": "0", "payloadTypeindex": "num", "timeout": timeout, "payloadTypetimeout": "num",
            "module": BROWSER}


def b_type(selector, content, name):
    return {"id": nid(), "type": "maya-browser-type", "name": name, "isProfileConfigNode": False, "session": "",
            "tabId": "tabs[0].id", "payloadTypetabId": "msg", "selector": selector, "payloadTypeselector": "str",
            "index": "0", "payloadTypeindex": "num", "content": content, "payloadTypecontent": "msg",
            "timeout": "2000", "payloadTypetimeout": "num", "module": BROWSER}


def b_query():
    return {"id": nid(), "type": "maya-browser-query", "name": "", "session": "", "tabId": "tabs[0].id",
            "payloadTypeTabId": "msg",
            "options": [
                {"key": "text", "xpath": "//*[@id=\"rso\"]/div[*]/div/div/div[1]/a/h3", "extract": "/text()"},
                {"key": "link", "xpath": "//*[@id=\"rso\"]/div[*]/div/div/div[1]/a/div/cite", "extract": "/text()"},
                {"key": "desc", "xpath": "//*[@id=\"rso\"]/div[*]/div/div/div[2]/div[1]/span", "extract": "/text()"}],
            "mergeOutputs": True, "timeout": 5000, "payloadTypeTimeout": "num", "module": BROWSER}


def b_close():
    return {"id": nid(), "type": "maya-browser-close-tabs", "name": "", "isProfileConfigNode": False, "session": "",
            "tabIds": "tabs", "payloadTypetabIds": "msg", "action": "Close", "timeout": "3000",
            "payloadTypetimeout": "num", "module": BROWSER}


def split():
    return {"id": nid(), "type": "split", "name": "", "splt": "\\n", "spltType": "str", "arraySplt": 1,
            "arraySpltType": "len", "stream": False, "addname": "", "module": "node-red"}


def ui_tab(name):
    return {"id": nid(), "type": "ui_tab", "name": name, "icon": "dashboard", "order": 1, "disabled": False,
            "hidden": False, "module": "maya-red-dashboard"}


def ui_group(name, tabnode):
    return {"id": nid(), "type": "ui_group", "name": name, "tab": tabnode["id"], "order": 1, "disp": True,
            "width": "6", "collapse": False, "module": "maya-red-dashboard"}


def wire(a, *targets, port=0):
    while len(a["wires"]) <= port:
        a["wires"].append([])
    for t in targets:
        a["wires"][port].append(t["id"])


def program(domain, title, text, nodes):
    return {"title": title, "text": text, "flow": nodes, "name": domain}


# ---------------------------------------------------------------- domains

P = {}  # domain -> list of 4 programs


def mk_slider(k, label, count, lo, hi, step, text):
    z = tab(label)
    t = ui_tab(f"{label} Tab")
    g = ui_group(f"{label} Group", t)
    d = place(debug(), z, 1, (count - 1) / 2)
    nodes = []
    for i in range(count):
        s = place({"id": nid(), "type": "ui_slider", "name": "", "label": f"Slider {i + 1}", "tooltip": "",
                   "group": g["id"], "order": i + 1, "width": 0, "height": 0, "passthru": True, "outs": "all",
                   "topic": "", "min": lo, "max": hi, "step": step, "module": "maya-red-dashboard"}, z, 0, i)
        wire(s, d)
        nodes.append(s)
    return program("template-slider", "Dashboard sliders", text, nodes + [d, g, t, z])


P["template-slider"] = [
    mk_slider(1, "Volume panel", 4, 0, 100, 10, "Four sliders with values ranging from 0 to 100 changing in steps of 10"),
    mk_slider(2, "Balance", 1, -50, 50, 5, "A single slider that goes from -50 to 50 in steps of 5"),
    mk_slider(3, "Months", 5, 1, 12, 1, "Five sliders, each with values from 1 to 12 and a step of 1"),
    mk_slider(4, "Frequency", 3, 200, 800, 50, "Three sliders with values ranging from 200 to 800 changing in steps of 50"),
]


def mk_form(label, fields, text):
    z = tab(label)
    t = ui_tab(f"{label} Tab")
    g = ui_group(f"{label} Group", t)
    opts = [{"label": lab, "value": val, "type": typ, "required": True, "rows": None} for lab, val, typ in fields]
    f = place({"id": nid(), "type": "ui_form", "name": label, "label": "", "group": g["id"], "order": 1,
               "width": 0, "height": 0, "options": opts, "formValue": {val: "" for _, val, _ in fields},
               "payload": "", "submit": "Submit", "cancel": "Cancel", "topic": "", "module": "maya-red-dashboard"},
              z, 0, 0)
    d = place(debug(), z, 1, 0)
    wire(f, d)
    return program("template-form", "Dashboard form", text, [f, d, g, t, z])


P["template-form"] = [
    mk_form("Library entry", [("Title", "title", "text"), ("Author", "author", "text"),
                              ("Publication date", "publication_date", "date")],
            "Create a form with fields for entering Title, Author and Publication Date"),
    mk_form("Contact", [("Full name", "full_name", "text"), ("Email address", "email_address", "email"),
                        ("Age", "age", "number"), ("Comments", "comments", "multiline")],
            "Create a form to collect Full Name, Email Address, Age and Comments"),
    mk_form("Project intake", [("Project name", "project_name", "text"), ("Budget", "budget", "number"),
                               ("Deadline", "deadline", "date"), ("Notes", "notes", "multiline")],
            "Make a form with fields for Project Name, Budget, Deadline and Notes"),
    mk_form("Model card", [("Model name", "model_name", "text"), ("Parameter count", "parameter_count", "number"),
                           ("Training date", "training_date", "date"),
                           ("Details of dataset", "details_of_dataset", "multiline")],
            "Create a form with fields for entering Model Name, Parameter Count, Training Date and Details of Dataset"),
]


def mk_cron(domain, label, expr, topic, text):
    z = tab(label)
    if domain == "cron-reminder":
        c = place(cronplus(expr, topic, "schedule"), z, 0, 0)
        d = place(notify(), z, 1, 0)
    else:
        c = place(cronplus(expr, "schedule1", "schedule1"), z, 0, 0)
        d = place(debug(), z, 1, 0)
    wire(c, d)
    return program(domain, "Scheduled flow", text, [c, d, z])


P["cron-reminder"] = [
    mk_cron("cron-reminder", "Stretch reminder", "0 9-17 * * 1-5", "Stand up and stretch",
            "Set a reminder for 'Stand up and stretch' at the start of every hour, between 09:00 AM and 05:59 PM, Monday through Friday"),
    mk_cron("cron-reminder", "Rent reminder", "0 8 1 * *", "Pay the rent",
            "Set a reminder for 'Pay the rent' at 08:00 AM, on day 1 of the month"),
    mk_cron("cron-reminder", "Plants reminder", "30 7 * * 1,4", "Water the plants",
            "Set a reminder for 'Water the plants' at 07:30 AM, only on Monday and Thursday"),
    mk_cron("cron-reminder", "Backup reminder", "15 18 * 3-10 0", "Back up the laptop",
            "Set a reminder for 'Back up the laptop' at 06:15 PM, only on Sunday, March through October"),
]
P["cron-schedule"] = [
    mk_cron("cron-schedule", "Quarter hours", "*/15 8-11 * * 1-5", "",
            "Repeat every 15 minutes, between 08:00 AM and 11:59 AM, Monday through Friday"),
    mk_cron("cron-schedule", "Mid month", "0 12 15 1,7 *", "",
            "Repeat at 12:00 PM, on day 15 of the month, only in January and July"),
    mk_cron("cron-schedule", "Saturday ticks", "5,35 */2 * * 6", "",
            "Repeat at 5 and 35 minutes past the hour, every 2 hours, only on Saturday"),
    mk_cron("cron-schedule", "Quarterly", "45 3 10,20 */3 *", "",
            "Repeat at 03:45 AM, on day 10 and 20 of the month, every 3 months"),
]


def mk_chat(domain, label, pairs, text):
    platform = "facebook" if domain == "facebook" else "telegram"
    z = tab(label)
    if platform == "facebook":
        cfg = {"id": nid(), "type": "chatbot-facebook-node", "botname": "", "usernames": "", "store": "", "log": "",
               "debug": False, "multiWebHook": False, "profileFields": "first_name,last_name",
               "module": "node-red-contrib-chatbot"}
    else:
        cfg = {"id": nid(), "type": "chatbot-telegram-node", "botname": "", "usernames": "", "providerToken": "",
               "polling": "1000", "store": "", "log": "", "debug": True, "webHook": "", "connectMode": "polling",
               "module": "node-red-contrib-chatbot"}
    n = len(pairs)
    mid = (n - 1) / 2
    rx = place({"id": nid(), "type": f"chatbot-{platform}-receive", "bot": cfg["id"], "botProduction": cfg["id"],
                "module": "node-red-contrib-chatbot"}, z, 0, mid)
    sw = place(switch("payload.content", [{"t": "eq", "v": said, "vt": "str"} for said, _ in pairs]), z, 1, mid)
    wire(rx, sw)
    nodes = [rx, sw]
    for i, (_, reply) in enumerate(pairs):
        m = place({"id": nid(), "type": "chatbot-message", "name": f"Reply {i + 1}",
                   "message": [{"message": reply}], "language": "en", "module": "node-red-contrib-chatbot"}, z, 2, i)
        s = place({"id": nid(), "type": f"chatbot-{platform}-send", "bot": cfg["id"], "botProduction": cfg["id"],
                   "track": False, "passThrough": False, "errorOutput": False, "outputs": 0,
                   "module": "node-red-contrib-chatbot"}, z, 3, i)
        wire(sw, m, port=i)
        wire(m, s)
        nodes += [m, s]
    return program(domain, "Chatbot replies", text, nodes + [cfg, z])


P["facebook"] = [
    mk_chat("facebook", "Shop hours bot", [("Opening hours?", "We are open from 9 to 5"),
                                           ("Where are you?", "Main Street 12, next to the bakery")],
            "On Facebook, when user says 'Opening hours?', reply with 'We are open from 9 to 5', and when user says 'Where are you?', reply with 'Main Street 12, next to the bakery'"),
    mk_chat("facebook", "Orders bot", [("Order status", "Your order has shipped"),
                                       ("Returns", "You can return items within 30 days")],
            "Reply 'Your order has shipped' to 'Order status', and 'You can return items within 30 days', to 'Returns' on Facebook"),
    mk_chat("facebook", "Menu bot", [("Menu", "Pizza, pasta and salads"), ("Vegan?", "Yes, ask for the green menu")],
            "On Facebook, when user says 'Menu', reply with 'Pizza, pasta and salads', and when user says 'Vegan?', reply with 'Yes, ask for the green menu'"),
    mk_chat("facebook", "Cafe bot", [("Good morning", "Morning! Coffee is on"), ("Thanks", "Any time!")],
            "On Facebook, when user says 'Good morning', reply with 'Morning! Coffee is on', and when user says 'Thanks', reply with 'Any time!'"),
]
P["telegram-2-reply"] = [
    mk_chat("telegram-2-reply", "Ping bot", [("Ping", "Pong"), ("Weather?", "Sunny with a chance of rain")],
            "On Telegram, when user says 'Ping', reply with 'Pong', and when user says 'Weather?', reply with 'Sunny with a chance of rain'"),
    mk_chat("telegram-2-reply", "Onboarding bot", [("Start", "Welcome aboard!"), ("Help", "Type Start to begin")],
            "On Telegram, when user says 'Start', reply with 'Welcome aboard!', and when user says 'Help', reply with 'Type Start to begin'"),
    mk_chat("telegram-2-reply", "Station bot", [("Next train?", "The train leaves at 8:40"),
                                                ("Which platform?", "Platform 3")],
            "Reply 'The train leaves at 8:40' to 'Next train?', and 'Platform 3', to 'Which platform?' on Telegram"),
    mk_chat("telegram-2-reply", "Greeter bot", [("Hi bot", "Hello, human"), ("What time is it?", "Time to build flows")],
            "On Telegram, when user says 'Hi bot', reply with 'Hello, human', and when user says 'What time is it?', reply with 'Time to build flows'"),
]
P["telegram-3-reply"] = [
    mk_chat("telegram-3-reply", "Traffic light bot", [("Red", "Stop"), ("Amber", "Get ready"), ("Green", "Go")],
            "On Telegram, when user says 'Red', reply with 'Stop', when user says 'Amber' reply with 'Get ready', and when user says 'Green', reply with 'Go'"),
    mk_chat("telegram-3-reply", "Product bot", [("Price?", "12 euros"), ("Size?", "Medium and large"),
                                                ("Colour?", "Blue only")],
            "On Telegram, when user says 'Price?', reply with '12 euros', when user says 'Size?' reply with 'Medium and large', and when user says 'Colour?', reply with 'Blue only'"),
    mk_chat("telegram-3-reply", "Game bot", [("Rock", "Paper"), ("Paper", "Scissors"), ("Scissors", "Rock")],
            "On Telegram, when user says 'Rock', reply with 'Paper', when user says 'Paper' reply with 'Scissors', and when user says 'Scissors', reply with 'Rock'"),
    mk_chat("telegram-3-reply", "Joke bot", [("Knock knock", "Who's there?"), ("Lettuce", "Lettuce who?"),
                                             ("Lettuce in, it is cold", "Ha ha, come on in")],
            "On Telegram, when user says 'Knock knock', reply with 'Who's there?', when user says 'Lettuce' reply with 'Lettuce who?', and when user says 'Lettuce in, it is cold', reply with 'Ha ha, come on in'"),
]


def mk_gmail(label, body, subject, email):
    z = tab(label)
    i = place(inject(), z, 0, 0)
    c = place(change([rule_set("payload.body", body), rule_set("payload.subject", subject),
                      rule_set("payload.email", email)], "Set Params"), z, 1, 0)
    f = place(find_tab("*://mail.google.com/*", "Find Gmail tab"), z, 2, 0)
    s = place(switch("tabs.length", [{"t": "lte", "v": "0", "vt": "num"}, {"t": "gt", "v": "0", "vt": "num"}],
                     checkall="true"), z, 3, 0)
    o = place(b_open("https://mail.google.com", "str", "Open Gmail"), z, 4, 0)
    u = place(b_update("tabs[0].url", "Reuse Gmail tab"), z, 4, 1)
    k = place(b_click("//div[contains(@class,'T-I T-I-KE')]", "10000", "compose"), z, 5, 0.5)
    t1 = place(b_type("//span[text()='To']/following::textarea", "payload.email", "Recipient address"), z, 6, 0.5)
    t2 = place(b_type("//input[@placeholder='Subject']", "payload.subject", "Enter Subject"), z, 7, 0.5)
    t3 = place(b_type("//div[@contenteditable='true']", "payload.body", "Enter Body"), z, 8, 0.5)
    d = place(debug(), z, 9, 0.5)
    wire(i, c); wire(c, f); wire(f, s); wire(s, o, port=0); wire(s, u, port=1)
    wire(o, k); wire(u, k); wire(k, t1); wire(t1, t2); wire(t2, t3); wire(t3, d)
    text = f"Send email with body '{body}' and subject '{subject}' to email {email}"
    return program("gmail-send", "Send an email with Gmail", text, [i, c, f, s, o, u, k, t1, t2, t3, d, z])


P["gmail-send"] = [
    mk_gmail("Sync notes mail", "Minutes are attached", "Weekly sync notes", "team@example.org"),
    mk_gmail("CI mail", "The build is green again", "CI status", "ops@example.net"),
    mk_gmail("Dinner mail", "See you at 7", "Dinner tonight", "sam.lee@example.com"),
    mk_gmail("Paper mail", "The draft is ready for review", "Camera-ready paper", "coauthors@example.edu"),
]


def mk_search(domain, label, query, csvfile=None):
    z = tab(label)
    i = place(inject(), z, 0, 0)
    c = place(change([rule_set("payload", json.dumps([query]), "json")], "Set Search Terms"), z, 1, 0)
    sp = place(split(), z, 2, 0)
    fn = place(function("msg.url = \"https://google.com/search?q=\" + encodeURI(msg.payload)\nreturn msg;",
                        "Set URL"), z, 3, 0)
    o = place(b_open("url", "msg"), z, 4, 0)
    q = place(b_query(), z, 5, 0)
    cl = place(b_close(), z, 6, 0)
    chain = [i, c, sp, fn, o, q, cl]
    if csvfile:
        c2 = place(change([rule_set("payload", "result", "msg")], "Results to payload"), z, 0, 1)
        cv = place({"id": nid(), "type": "csv", "name": "Create CSV", "sep": ",", "hdrin": "", "hdrout": "none",
                    "multi": "one", "ret": "\\n", "temp": "text, link, desc", "skip": "0", "strings": True,
                    "include_empty_strings": "", "include_null_values": "", "module": "node-red"}, z, 1, 1)
        fl = place({"id": nid(), "type": "file", "name": "Write CSV", "filename": csvfile, "appendNewline": True,
                    "createDir": False, "overwriteFile": "true", "encoding": "none", "module": "node-red"}, z, 2, 1)
        d = place(debug(), z, 3, 1)
        chain += [c2, cv, fl, d]
        text = f"Search Google for '{query}', scrape results and put into {csvfile}"
        title = "Google results to CSV"
    else:
        d = place(debug("true"), z, 7, 0)
        chain += [d]
        text = f"Search Google for '{query}' and scrape results"
        title = "Google search scraper"
    for a, b in zip(chain, chain[1:]):
        wire(a, b)
    return program(domain, title, text, chain + [z])


P["google-search"] = [
    mk_search("google-search", "Trails search", "best hiking trails near Denver"),
    mk_search("google-search", "Printer search", "how to calibrate a 3D printer"),
    mk_search("google-search", "Dashboard search", "Node-RED dashboard examples"),
    mk_search("google-search", "Subgraph search", "maximum common subgraph algorithms"),
]
P["googlesearch-to-csv"] = [
    mk_search("googlesearch-to-csv", "Cargo bikes to CSV", "electric cargo bikes", "cargo-bikes.csv"),
    mk_search("googlesearch-to-csv", "Sourdough to CSV", "sourdough starter recipes", "sourdough.csv"),
    mk_search("googlesearch-to-csv", "Flow tools to CSV", "open source flow programming tools", "flow-tools.csv"),
    mk_search("googlesearch-to-csv", "Benchmarks to CSV", "program synthesis benchmarks", "synthesis-benchmarks.csv"),
]


def mk_http(label, method, path):
    z = tab(label)
    h = place({"id": nid(), "type": "http in", "name": "", "url": path, "method": method.lower(), "upload": False,
               "swaggerDoc": "", "module": "node-red"}, z, 0, 0.5)
    r = place({"id": nid(), "type": "http response", "name": "", "statusCode": "", "headers": {},
               "module": "node-red"}, z, 1, 0)
    d = place(debug(), z, 1, 1)
    wire(h, r, d)
    return program("http", "HTTP endpoint", f"Create a HTTP {method} endpoint called {path}", [h, r, d, z])


P["http"] = [
    mk_http("Status endpoint", "GET", "/status"),
    mk_http("Submissions endpoint", "POST", "/submissions"),
    mk_http("Theme endpoint", "PUT", "/settings/theme"),
    mk_http("Sessions endpoint", "DELETE", "/sessions"),
]

TWEET_FN = "msg.payload = {\n    user: msg.tweet.user.screen_name,\n    text: msg.payload\n};\nreturn msg;"


def mk_twitter(label, tag, verb):
    z = tab(label)
    t = place({"id": nid(), "type": "twitter in", "name": "", "twitter": "", "tags": tag, "user": "false",
               "inputs": 1, "module": "node-red-node-twitter"}, z, 0, 0)
    f = place(function(TWEET_FN, "Keep author and text"), z, 1, 0)
    d = place(debug(), z, 2, 0)
    wire(t, f); wire(f, d)
    return program("twitter", "Twitter search", f"{verb} tweets about the topic {tag}", [t, f, d, z])


P["twitter"] = [
    mk_twitter("Node-RED tweets", "#nodered", "Pull"),
    mk_twitter("Open data tweets", "#opendata", "Fetch"),
    mk_twitter("Robotics tweets", "#robotics", "Collect"),
    mk_twitter("AGI tweets", "#agi", "Scrape"),
]


def mk_skill(label, skill, url):
    z = tab(label)
    b = place({"id": nid(), "type": "bot-intent", "name": "Skill Definition", "order": 0, "payload": "",
               "options": [{"value": skill, "type": "prompt", "required": True}], "formValue": {skill: ""},
               "endpointUrl": f"/intent-{RNG.getrandbits(32):08x}-{RNG.getrandbits(24):06x}",
               "module": "maya-red-bot-utils"}, z, 0, 0)
    c = place(change([rule_set("url", url)], "Set URL"), z, 1, 0)
    o = place({"id": nid(), "type": "desktop-system-open", "name": "Open in browser", "target": "url",
               "targetType": "msg", "module": "maya-red-system-utils"}, z, 2, 0)
    wire(b, c); wire(c, o)
    return program("url-skill", "URL skill", f"Create a skill called '{skill}' which opens url {url}", [b, c, o, z])


P["url-skill"] = [
    mk_skill("Docs skill", "open the docs", "https://nodered.org/docs"),
    mk_skill("Calendar skill", "team calendar", "https://calendar.example.com/team"),
    mk_skill("Weather skill", "check the weather", "https://weather.example.org/today"),
    mk_skill("Benchmark skill", "open the benchmark", "https://github.com/mayahq/g-index-benchmark"),
]

YT = "*://*.youtube.com/*"


def mk_yt_ctl(domain, label, func, trigger, text, notify_after=False):
    z = tab(label)
    nodes = []
    col = 0
    if trigger == "inject":
        nodes.append(place(inject(), z, col, 0)); col += 1
    elif trigger:
        nodes.append(place(cronplus(trigger, "schedule1", "schedule1"), z, col, 0)); col += 1
    f = place(find_tab(YT, "Find YouTube tab"), z, col, 0)
    e = place(exec_fn(func, "Execute Pause" if func == "pause" else "Execute Play"), z, col + 1, 0)
    nodes += [f, e]
    if notify_after:
        n = place({"id": nid(), "type": "desktop-system-notify", "name": "Tell me", "title": "YouTube",
                   "titleType": "str", "message": "Video paused", "messageType": "str", "sound": False,
                   "wait": True, "module": "maya-red-system-utils"}, z, col + 2, 0)
        nodes.append(n)
    for a, b in zip(nodes, nodes[1:]):
        wire(a, b)
    return program(domain, "YouTube control", text, nodes + [z])


P["youtube-pause"] = [
    mk_yt_ctl("youtube-pause", "Pause video", "pause", None, "Pause the YouTube video"),
    mk_yt_ctl("youtube-pause", "Pause button", "pause", "inject", "Pause YouTube when I press the button"),
    mk_yt_ctl("youtube-pause", "Pause at night", "pause", "0 22 * * 1-5", "Pause YouTube at 10:00 PM, Monday through Friday"),
    mk_yt_ctl("youtube-pause", "Pause and notify", "pause", None,
              "Pause the video playing on YouTube and let me know when it is paused", notify_after=True),
]
P["youtube-resume"] = [
    mk_yt_ctl("youtube-resume", "Resume video", "play", None, "Resume the YouTube video"),
    mk_yt_ctl("youtube-resume", "Resume button", "play", "inject", "Continue playing YouTube when I press the button"),
    mk_yt_ctl("youtube-resume", "Resume mornings", "play", "0 7 * * *", "Resume YouTube every day at 07:00 AM"),
    mk_yt_ctl("youtube-resume", "Unpause", "play", None, "Unpause YouTube"),
]

YT_FN = ("msg.tabUpdates = {\n    url: `https://youtube.com/results?search_query=${encodeURI(msg.payload.value)}`\n}"
         "\nreturn msg;")


def mk_yt_play(label, query):
    z = tab(label)
    i = place(inject(), z, 0, 0.5)
    c = place(change([rule_set("payload.value", query)], "Set Query"), z, 1, 0.5)
    fn = place(function(YT_FN, "Generate Search Query"), z, 2, 0.5)
    f = place(find_tab(YT, "Find YouTube tab"), z, 3, 0.5)
    s = place(switch("tabs.length", [{"t": "gt", "v": "0", "vt": "num"}, {"t": "lte", "v": "0", "vt": "num"}],
                     checkall="true"), z, 4, 0.5)
    u = place(b_update("tabUpdates", "Search for query"), z, 5, 0)
    o = place(b_open("tabUpdates.url", "msg", "Open YT and search for query"), z, 5, 1)
    k = place(b_click("(//a[@id='thumbnail'])[1]", "2000", "Click on first result"), z, 6, 0.5)
    wire(i, c); wire(c, fn); wire(fn, f); wire(f, s); wire(s, u, port=0); wire(s, o, port=1); wire(u, k); wire(o, k)
    return program("youtube-play", "Play a YouTube video", f"Find and play '{query}' on YouTube",
                   [i, c, fn, f, s, u, o, k, z])


P["youtube-play"] = [
    mk_yt_play("Lofi", "lofi beats to study to"),
    mk_yt_play("Tutorial", "Node-RED tutorial for beginners"),
    mk_yt_play("Jazz", "jazz piano live session"),
    mk_yt_play("Talk", "measuring general machine intelligence talk"),
]

DOMAINS = ["template-slider", "template-form", "cron-reminder", "cron-schedule", "facebook", "gmail-send",
           "google-search", "googlesearch-to-csv", "http", "telegram-2-reply", "telegram-3-reply", "twitter",
           "url-skill", "youtube-pause", "youtube-play", "youtube-resume"]
assert sorted(P) == sorted(DOMAINS)

# ---------------------------------------------------------------- generated outputs ("model" text)

CONFIG_REF_TYPES = {"chatbot-telegram-node", "chatbot-facebook-node"}


def regen(prog, dx, dy, keep_config=True):
    """A copy of the reference flow with fresh ids and shifted layout (identical for scoring)."""
    flow = copy.deepcopy(prog["flow"])
    mapping = {}
    for n in flow:
        if keep_config and n["type"] in CONFIG_REF_TYPES:
            mapping[n["id"]] = n["id"]  # bot references are compared attributes: a model echoing them keeps them
        else:
            mapping[n["id"]] = nid()
    for n in flow:
        n["id"] = mapping[n["id"]]
        if "z" in n:
            n["z"] = mapping.get(n["z"], n["z"])
        for k in ("group", "tab"):
            if isinstance(n.get(k), str) and n[k] in mapping:
                n[k] = mapping[n[k]]
        if "x" in n:
            n["x"] += dx
            n["y"] += dy
        if "wires" in n:
            n["wires"] = [[mapping[t] for t in port] for port in n["wires"]]
    return flow


def by_type(flow, t, k=0):
    return [n for n in flow if n["type"] == t][k]


def ordered(n):
    head = {k: n[k] for k in ("id", "type", "z") if k in n}
    tail = {k: n[k] for k in ("x", "y", "wires") if k in n}
    mid = {k: v for k, v in n.items() if k not in head and k not in tail}
    return {**head, **mid, **tail}


def dumps(flow, style):
    flow = [ordered(n) for n in flow]
    if style == "compact":
        return json.dumps(flow, separators=(",", ":"), ensure_ascii=False)
    if style == "indent2":
        return json.dumps(flow, indent=2, ensure_ascii=False)
    return json.dumps(flow, indent=4, ensure_ascii=False)


def fenced(prose, flow, style="indent2"):
    return f"{prose}\n\n```json\n{dumps(flow, style)}\n```\n"


def cut_inside_node(text, flow, index, frac=0.5):
    """Cut the serialized text in the middle of node `index`'s object (as at a context limit)."""
    start = text.index(f'"id": "{flow[index]["id"]}"')
    nxt = text.index(f'"id": "{flow[index + 1]["id"]}"') if index + 1 < len(flow) else len(text)
    return text[: start + int((nxt - start) * frac)]


G = {}   # task id -> text
KINDS = {}  # task id -> list of intended kinds
NOTES = {}

ref = lambda d: P[d][3]

# 1 http-4: perfect, plain JSON
f = regen(ref("http"), 40, 20)
G["http-4"] = dumps(f, "indent4") + "\n"
KINDS["http-4"] = ["perfect"]
NOTES["http-4"] = "fresh ids, layout shifted"

# 2 youtube-resume-4: perfect, fenced with prose
f = regen(ref("youtube-resume"), -20, 60)
G["youtube-resume-4"] = fenced("Here is a Node-RED flow that finds the YouTube tab and resumes playback:", f)
KINDS["youtube-resume-4"] = ["perfect", "fenced"]
NOTES["youtube-resume-4"] = "fresh ids, layout shifted; wrapped in a json code fence after a sentence of prose"

# 3 cron-schedule-4: perfect, compact one-line JSON
f = regen(ref("cron-schedule"), 100, 0)
G["cron-schedule-4"] = dumps(f, "compact") + "\n"
KINDS["cron-schedule-4"] = ["perfect"]
NOTES["cron-schedule-4"] = "fresh ids, layout shifted; one-line JSON"

# 4 template-slider-4: function error (step and max wrong on every slider)
f = regen(ref("template-slider"), 0, 40)
for n in f:
    if n["type"] == "ui_slider":
        n["step"] = 5
        n["max"] = 80
G["template-slider-4"] = dumps(f, "indent4") + "\n"
KINDS["template-slider-4"] = ["function"]
NOTES["template-slider-4"] = "every ui_slider has step 5 (reference 50) and max 80 (reference 800)"

# 5 cron-reminder-4: function error (AM instead of PM in the cron expression)
f = regen(ref("cron-reminder"), 60, 60)
by_type(f, "cronplus")["options"][0]["expression"] = "15 6 * 3-10 0"
G["cron-reminder-4"] = fenced("Sure! This flow uses cron-plus to trigger a desktop notification:", f, "indent4")
KINDS["cron-reminder-4"] = ["function", "fenced"]
NOTES["cron-reminder-4"] = "cron expression `15 6 * 3-10 0` (06:15 AM) instead of `15 18 * 3-10 0`"

# 6 telegram-2-reply-4: function error (reply text) + dataflow (switch ports crossed)
f = regen(ref("telegram-2-reply"), 20, 20)
sw = by_type(f, "switch")
sw["wires"] = [sw["wires"][1], sw["wires"][0]]              # ports crossed (seen only port-aware)
m2 = by_type(f, "chatbot-message", 1)
m2["message"] = [{"message": "Time to go to bed"}]
m2["wires"] = [[by_type(f, "chatbot-telegram-send", 0)["id"]]]  # to the first send node (wrong node)
G["telegram-2-reply-4"] = dumps(f, "indent4") + "\n"
KINDS["telegram-2-reply-4"] = ["function", "dataflow"]
NOTES["telegram-2-reply-4"] = ("second reply text is 'Time to go to bed'; Reply 2 wired to the first "
                               "chatbot-telegram-send (wrong node), leaving the second send unfed; the switch's two "
                               "output ports are crossed (visible only with the port-aware option)")

# 7 url-skill-4: function error (node of the wrong type)
f = regen(ref("url-skill"), -40, 30)
o = by_type(f, "desktop-system-open")
new = {"id": o["id"], "type": "maya-browser-open", "z": o["z"], "name": "Open in browser",
       "isProfileConfigNode": False, "session": "", "url": "url", "payloadTypeurl": "msg",
       "module": BROWSER, "x": o["x"], "y": o["y"], "wires": [[]]}
f[f.index(o)] = new
G["url-skill-4"] = dumps(f, "indent2") + "\n"
KINDS["url-skill-4"] = ["function"]
NOTES["url-skill-4"] = "`maya-browser-open` (wrong type) where the reference has `desktop-system-open`"

# 8 facebook-4: dataflow error (a wire missing)
f = regen(ref("facebook"), 0, 100)
by_type(f, "chatbot-message", 1)["wires"] = [[]]
G["facebook-4"] = dumps(f, "indent4") + "\n"
KINDS["facebook-4"] = ["dataflow"]
NOTES["facebook-4"] = "the second chatbot-message is not wired to its chatbot-facebook-send"

# 9 gmail-send-4: dataflow errors (extra wire, wire to wrong node, missing wire)
f = regen(ref("gmail-send"), 30, 40)
chg = by_type(f, "change")
sw = by_type(f, "switch")
chg["wires"][0].append(sw["id"])                         # extra wire change -> switch
t_to, t_subj, t_body = [n for n in f if n["type"] == "maya-browser-type"]
t_to["wires"] = [[t_body["id"]]]                         # recipient -> body (wrong node), subject left unfed
G["gmail-send-4"] = fenced("The following flow opens Gmail, composes the message and sends it.", f, "indent4")
KINDS["gmail-send-4"] = ["dataflow", "fenced"]
NOTES["gmail-send-4"] = ("extra wire Set Params → switch; 'Recipient address' wired to 'Enter Body' instead of "
                         "'Enter Subject' (so one wire missing, one wrong)")

# 10 youtube-play-4: missing node (Generate Search Query function dropped, change wired straight to find-tab)
f = regen(ref("youtube-play"), 10, 10)
fn = by_type(f, "function")
chg = by_type(f, "change")
chg["wires"] = [fn["wires"][0]]
f.remove(fn)
G["youtube-play-4"] = dumps(f, "indent4") + "\n"
KINDS["youtube-play-4"] = ["missing nodes"]
NOTES["youtube-play-4"] = "the 'Generate Search Query' function is missing; Set Query wired straight to the find-tab node"

# 11 template-form-4: missing nodes (ui_tab config and one form field missing)
f = regen(ref("template-form"), 0, 0)
f = [n for n in f if n["type"] != "ui_tab"]
form = by_type(f, "ui_form")
form["options"] = form["options"][:3]
form["formValue"] = {o["value"]: "" for o in form["options"]}
G["template-form-4"] = dumps(f, "indent4") + "\n"
KINDS["template-form-4"] = ["missing nodes", "function"]
NOTES["template-form-4"] = "no ui_tab config node; the form lacks the 'Details of dataset' field"

# 12 google-search-4: extra nodes (delay before the browser, second debug)
f = regen(ref("google-search"), 0, 40)
fn = by_type(f, "function")
op = by_type(f, "maya-browser-open")
z = fn["z"]
delay = {"id": nid(), "type": "delay", "z": z, "name": "Throttle", "pauseType": "rate", "timeout": "5",
         "timeoutUnits": "seconds", "rate": "1", "nbRateUnits": "1", "rateUnits": "second", "randomFirst": "1",
         "randomLast": "5", "randomUnits": "seconds", "drop": False, "allowrate": False, "outputs": 1,
         "module": "node-red", "x": op["x"], "y": op["y"] + 80, "wires": [[op["id"]]]}
dbg = {"id": nid(), "type": "debug", "z": z, "name": "URL", "active": True, "tosidebar": True, "console": False,
       "tostatus": False, "complete": "url", "targetType": "msg", "statusVal": "", "statusType": "auto",
       "module": "node-red", "x": fn["x"], "y": fn["y"] + 80, "wires": []}
fn["wires"] = [[delay["id"], dbg["id"]]]
f[f.index(op):f.index(op)] = [delay, dbg]
G["google-search-4"] = dumps(f, "indent4") + "\n"
KINDS["google-search-4"] = ["extra nodes"]
NOTES["google-search-4"] = "an extra `delay` (rate limit) between Set URL and the browser, and an extra `debug` on Set URL"

# 13 twitter-4: extra nodes (json + change before the debug), fenced
f = regen(ref("twitter"), 0, 0)
fn = by_type(f, "function")
d = by_type(f, "debug")
z = fn["z"]
js = {"id": nid(), "type": "json", "z": z, "name": "", "property": "payload", "action": "str", "pretty": False,
      "module": "node-red", "x": d["x"], "y": d["y"], "wires": [[]]}
ch = {"id": nid(), "type": "change", "z": z, "name": "Topic", "rules": [rule_set("topic", "#agi")], "action": "",
      "property": "", "from": "", "to": "", "reg": False, "module": "node-red", "x": d["x"] + 200, "y": d["y"],
      "wires": [[d["id"]]]}
js["wires"] = [[ch["id"]]]
d["x"] += 400
fn["wires"] = [[js["id"]]]
f[f.index(d):f.index(d)] = [js, ch]
G["twitter-4"] = fenced("Here's a flow that listens for #agi tweets and prints them:", f, "indent2")
KINDS["twitter-4"] = ["extra nodes", "dataflow", "fenced"]
NOTES["twitter-4"] = ("extra `json` and `change` nodes between the function and the debug (so the function → debug "
                      "wire is replaced by a longer path)")

# 14 googlesearch-to-csv-4: truncated inside the csv node
f = regen(ref("googlesearch-to-csv"), 20, 20)
txt = dumps(f, "indent4")
idx = [n["type"] for n in f].index("csv")
G["googlesearch-to-csv-4"] = cut_inside_node(txt, f, idx, 0.45)
KINDS["googlesearch-to-csv-4"] = ["truncated"]
NOTES["googlesearch-to-csv-4"] = "text ends in the middle of the `csv` node (context limit): file, debug and tab never written"

# 15 telegram-3-reply-4: truncated inside the third chatbot-message
f = regen(ref("telegram-3-reply"), 0, 20)
txt = dumps(f, "indent4")
msgs = [i for i, n in enumerate(f) if n["type"] == "chatbot-message"]
G["telegram-3-reply-4"] = cut_inside_node(txt, f, msgs[2], 0.6)
KINDS["telegram-3-reply-4"] = ["truncated"]
NOTES["telegram-3-reply-4"] = ("text ends inside the third chatbot-message (context limit): its send node, "
                               "the telegram config node and the tab are never written")

# 16 youtube-pause-4: not JSON at all
G["youtube-pause-4"] = (
    "To pause a YouTube video from Node-RED you can run a small script in the page:\n\n"
    "1. Find the tab whose URL matches youtube.com.\n"
    "2. Run document.querySelector('video').pause() in that tab.\n"
    "3. Show a desktop notification saying the video is paused.\n\n"
    "function pauseVideo() {\n"
    "    const video = document.querySelector('video');\n"
    "    if (video) { video.pause(); }\n"
    "    return 'Video paused';\n"
    "}\n\n"
    "Then connect the output to a notification node and deploy the flow. Let me know if you want the\n"
)
KINDS["youtube-pause-4"] = ["not JSON"]
NOTES["youtube-pause-4"] = "prose and a JavaScript snippet, no JSON at all (empty flow, Δ = 1)"

assert set(G) == {f"{d}-4" for d in DOMAINS}

# ---------------------------------------------------------------- write

for sub in ("programs", "generated"):
    if (OUT / sub).exists():
        shutil.rmtree(OUT / sub)
(OUT / "generated").mkdir(parents=True)
for d in DOMAINS:
    (OUT / "programs" / d).mkdir(parents=True)
    for k, prog in enumerate(P[d], 1):
        prog["flow"] = [ordered(n) for n in prog["flow"]]
        (OUT / "programs" / d / f"{d}-{k}.json").write_text(json.dumps(prog, indent=4, ensure_ascii=False) + "\n")
for tid, text in G.items():
    (OUT / "generated" / f"{tid}.txt").write_text(text)

HELD_OUT = {"template-form", "telegram-3-reply"}
SAMPLES = {"template-slider": 60, "cron-reminder": 120, "cron-schedule": 160, "facebook": 80, "gmail-send": 100,
           "google-search": 140, "googlesearch-to-csv": 90, "http": 80, "telegram-2-reply": 150, "twitter": 40,
           "url-skill": 70, "youtube-pause": 50, "youtube-play": 130, "youtube-resume": 60}
exp = {
    "format": "gindex-studio.experiment/1",
    "name": "Demo: a fine-tuned GPT-2 on the sixteen domains",
    "system": "demo-gpt2-medium",
    "profile": "paper",
    "priors": 0.0001,
    "compute": {"power": 0.03125, "time": 2392},
    "curriculum": [{"domain": d, "programs": [f"programs/{d}/{d}-{k}.json" for k in (1, 2, 3)],
                    "samples": SAMPLES[d]} for d in DOMAINS if d not in HELD_OUT],
    "tasks": [{"id": f"{d}-4", "domain": d, "reference": f"programs/{d}/{d}-4.json",
               "generated": {"file": f"generated/{d}-4.txt"}} for d in DOMAINS],
}
(OUT / "experiment.json").write_text(json.dumps(exp, indent=2) + "\n")

ALL_KINDS = ["perfect", "function", "dataflow", "missing nodes", "extra nodes", "truncated", "not JSON"]
for k in ALL_KINDS:
    c = sum(k in v for v in KINDS.values())
    assert c >= (1 if k == "not JSON" else 2), (k, c)

rows = "\n".join(
    f"| `{d}-4` | {'no (held out)' if d in HELD_OUT else 'yes'} | {', '.join(KINDS[f'{d}-4'])} | {NOTES[f'{d}-4']} |"
    for d in DOMAINS)
readme = f"""# Demo data

Hand-authored demo data for gindex-studio: reference programs for the sixteen task domains of the g-index
benchmark, an experiment that trains a (pretend) fine-tuned GPT-2 on part of them, and the text that model
"generated" for the held-out tasks. Everything here was written for the studio; the programs follow the node
types, wiring and attribute keys of the benchmark's public sample programs (mayahq/g-index-benchmark), with
our own prompts, values, ids and layout. `build_demo.py` is the authoring script that writes all of it
(seeded ids, so a rerun reproduces the files byte for byte).

## Layout

- `programs/<domain>/<domain>-<k>.json`, k = 1..4: dataset-style files
  `{{"title", "text" (the task prompt), "flow" (Node-RED nodes), "name" (the domain)}}`. Each flow holds its
  `tab` node; canvas nodes carry `z`, `x`, `y`; config nodes (`ui_group`, `ui_tab`, `chatbot-*-node`) carry
  none, as in Node-RED exports. Node ids are unique across the whole set; every flow is a DAG.
- `experiment.json`: format `gindex-studio.experiment/1`. Curriculum: programs 1-3 of fourteen domains, with
  sample counts between 40 and 160. `template-form` and `telegram-3-reply` are left out of the curriculum, so
  their tasks lie far from it. Compute: 0.03125 petaFLOP/s × 2392 s = 74.75 petaFLOP·s. Priors 1e-4.
- `generated/<task>.txt`: what the model wrote for task `<domain>-4` (the held-out program 4 of every domain),
  raw text as a model emits it: mostly plain JSON, some in a ```json fence after a sentence of prose.

Note on "perfect": in the chatbot domains the `bot`/`botProduction` attributes reference the config node's id
and are compared by the metric, so generated flows keep the reference's config-node id there; every other id
is fresh. `group` and `tab` references are ignored keys, so fresh ids are fine for the dashboard configs.

## Tasks and the errors their generated outputs show

Kinds: *perfect* (identical up to ids and positions), *function* (a wrong attribute value or a node of the
wrong type), *dataflow* (a wire missing, to the wrong node, or extra), *missing nodes*, *extra nodes*,
*truncated* (cut inside a node object, as at a context limit), *not JSON*; *fenced* marks a Markdown fence
with prose around the JSON.

| task | domain in curriculum | intended kinds | what differs from the reference |
|---|---|---|---|
{rows}
"""
readme += """
## Δ of each generated output (as computed when the data was written)

Paper profile by default; `port` = the port-aware option; `companion` = the companion repository's
profile. Two things worth showing in a demo: `telegram-2-reply-4` crosses the switch's output ports, which
only the port-aware option sees; `facebook-4` and `gmail-send-4` have only dataflow errors, which the
companion profile's "or" rule does not see (Δ = 0 there, scoring-spec §3).

| task | Δ paper | Δ port | Δ fill_defaults | Δ companion |
|---|---|---|---|---|
| `template-slider-4` | 0.150 | 0.150 | 0.128 | 0.150 |
| `template-form-4` | 0.278 | 0.278 | 0.260 | 0.278 |
| `cron-reminder-4` | 0.108 | 0.108 | 0.066 | 0.108 |
| `cron-schedule-4` | 0 | 0 | 0 | 0 |
| `facebook-4` | 0.234 | 0.234 | 0.234 | 0 |
| `gmail-send-4` | 0.306 | 0.306 | 0.306 | 0 |
| `google-search-4` | 0.354 | 0.354 | 0.354 | 0.182 |
| `googlesearch-to-csv-4` | 0.333 | 0.333 | 0.333 | 0.333 |
| `http-4` | 0 | 0 | 0 | 0 |
| `telegram-2-reply-4` | 0.234 | 0.306 | 0.234 | 0.082 |
| `telegram-3-reply-4` | 0.400 | 0.400 | 0.400 | 0.400 |
| `twitter-4` | 0.625 | 0.625 | 0.625 | 0.333 |
| `url-skill-4` | 0.438 | 0.438 | 0.438 | 0.438 |
| `youtube-pause-4` | 1 | 1 | 1 | 1 |
| `youtube-play-4` | 0.319 | 0.319 | 0.319 | 0.111 |
| `youtube-resume-4` | 0 | 0 | 0 | 0 |
"""
(OUT / "README.md").write_text(readme)
print("ok", sum(len(v) for v in P.values()), "programs,", len(G), "generated")
