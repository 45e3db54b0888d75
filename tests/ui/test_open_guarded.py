"""File → Open reads through the guarded reader (issue 36, item 1): a link to /dev/zero, a named
pipe and a file above the input size limit are refused at once, with one message naming the file,
without reading it (the peak memory of the studio does not grow by the file's size)."""
from __future__ import annotations

import json
import os

import pytest

from .open_dialog import open_through_menu

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

FLOW = [{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [["b"]]},
        {"id": "b", "type": "debug", "x": 300, "y": 100, "wires": []}]


@pytest.fixture
def window(window):
    """The studio's window (tests/ui/conftest.py) with its real dialogs: the file dialog and the
    message boxes a user sees."""
    from gindex_studio.ui.dialogs import Dialogs

    window.dialogs = Dialogs(window)
    return window


def test_a_good_flow_opens_through_the_menu_and_dialog(window, qtbot, tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(FLOW))
    text, _, _ = open_through_menu(window, qtbot, str(good))
    assert text == "" and window.editor is not None and len(window.editor.doc.flow.nodes) == 2


@pytest.mark.parametrize("kind", ["dev-zero link", "fifo", "300 MiB"])
def test_a_device_a_pipe_or_a_file_over_the_limit_is_refused_without_reading_it(kind, window, qtbot, tmp_path):
    bad = tmp_path / "bad.json"
    if kind == "dev-zero link":
        bad.symlink_to("/dev/zero")
        reason = "is a device"
    elif kind == "fifo":
        os.mkfifo(bad)
        reason = "is a named pipe"
    else:
        with open(bad, "wb") as f:
            f.truncate(300 << 20)  # sparse: nothing on disk, 300 MiB of zeros when read
        reason = "is 300.0 MiB, larger than the 256.0 MiB limit"
    text, took, grew = open_through_menu(window, qtbot, str(bad))
    assert reason in text, text
    assert "bad.json" in text and window.editor is None
    assert took < 5, took
    assert grew < 64 << 20, f"the peak memory grew by {grew >> 20} MiB"
