"""``lenient.fenced_body`` finds what the fence regex it replaced matched, on every kind of text an
answer may hold around a fence (CR LF, empty bodies, no closing fence, several fences, backticks
inside), and does it in time linear in the answer's length."""
from __future__ import annotations

import random
import re
import time

from gindex_studio.core.flows.lenient import fenced_body, read_model_output

#: the regex ``_json_body`` used before
OLD = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)(?:\r?\n```|\Z)", re.S)
PIECES = ["```", "```json", "``` \t", "\n", "\r\n", "\r", "`", "``", "[", "]", "{", "}", "json", " ", "x", "```js\r\n"]


def old(text):
    m = OLD.search(text)
    return (m.start(1), m.group(1)) if m else None


def test_the_same_as_the_regex_on_random_texts():
    rng = random.Random(34)
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        assert fenced_body(text) == old(text), repr(text)


def test_the_same_on_answers_as_models_write_them():
    texts = ["Here it is:\n```json\n[{\"id\": \"a\"}]\n```\nDone.", "```\r\n[]\r\n```", "```json\n",
             "```json\n\n```", "```json\r\n\r\n```", "a ```json\n[1]\n```\n```js\n[2]\n```",
             "```json\n[{\"x\": \"``\"}]", "no fence at all [1]", "```json x\n[1]\n```"]
    for text in texts:
        assert fenced_body(text) == old(text), repr(text)
        read_model_output(text)  # never raises


def test_linear_in_the_answers_length():
    body = "[" + ",".join('{"id": "n%d", "type": "debug", "wires": []}' % i for i in range(2_000)) + "]"
    text = "Sure:\n```json\n" + body + "\n```\n"
    start = time.process_time()
    for _ in range(10):
        assert fenced_body(text)[1] == body
    ours = time.process_time() - start
    start = time.process_time()
    for _ in range(10):
        assert old(text)[1] == body
    theirs = time.process_time() - start
    assert ours * 20 < theirs, (ours, theirs)
