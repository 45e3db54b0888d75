"""Reading leaves no reference cycles behind. An exception kept in a local (to report it later)
holds its traceback, the traceback the frame, the frame the exception: the collector frees such a
cycle whenever it runs, in whichever thread, with every caller's frame and what their locals hold
(a window opening a file, its Qt objects). Found keeping closed curation windows alive."""
import gc
from pathlib import Path
from types import FrameType

import pytest

import gindex_studio

from gindex_studio.core.flows.flow import loads_json
from gindex_studio.core.flows.lenient import read_model_output

PACKAGE = Path(gindex_studio.__file__).resolve().parent
BROKEN = [
    '```json\n[{"id": "a", "type": "inject", "wires": [["b"]]}]\n```',  # fenced: step 2
    'Here it is: [{"id": "a", "type": "inject", "wires": [[]]}, {"id": "b", "ty',  # truncated: step 3
    "no JSON at all",
    '{"id": "n", "type": "debug"',  # a lone broken object
]


def frames_left_in_cycles(work) -> list[str]:
    """Frames of our code that ``work()`` left in reference cycles (the collector off while it
    runs; a first run beforehand, so that lazy imports and caches do not count; garbage other
    threads make meanwhile is not ours and does not count)."""
    work()
    was_on = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        work()
        gc.collect()
        return [f"{o.f_code.co_name} ({Path(o.f_code.co_filename).name})" for o in gc.garbage
                if isinstance(o, FrameType) and PACKAGE in Path(o.f_code.co_filename).parents]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_on:
            gc.enable()


@pytest.mark.parametrize("text", BROKEN)
def test_reading_broken_model_output_leaves_no_cycle(text):
    issues = []
    assert frames_left_in_cycles(lambda: issues.append(read_model_output(text).syntax)) == []
    assert issues[0] is not None  # it was broken, and read leniently


def test_invalid_json_leaves_no_cycle():
    errors = []

    def work():
        for data in (b"[1, 2", "{", b"\xff[]", "[" * 10 + "1"):
            try:
                loads_json(data)
            except ValueError as e:
                errors.append(str(e))

    assert frames_left_in_cycles(work) == []
    assert len(errors) == 8  # both runs
