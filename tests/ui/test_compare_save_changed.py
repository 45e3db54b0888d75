"""Compare → Save Experiment never silently overwrites what another program changed in the file
meanwhile (issue 36, item 3): it asks, as the flow editor does (reload, overwrite, save as, cancel)."""
from __future__ import annotations

import orjson
import pytest

from gindex_studio.core.benchmark.experiment import load_experiment

from .test_compare import settle
from .test_compare_experiment import Scripted, cwin, demo_copy, settle_g  # noqa: F401  (fixtures)


class Asking(Scripted):
    def __init__(self, answer):
        super().__init__()
        self.answer, self.asked = answer, []

    def ask_changed_on_disk(self, path):
        self.asked.append(path)
        return self.answer


def _edit_a_task(cwin, qtbot, demo_copy) -> int:
    """Open the experiment and delete a wire of one task's generated program (a what-if edit)."""
    assert cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    k = load_experiment(demo_copy).task_index("telegram-2-reply-4")
    cwin.tasks.select_task(k)
    settle(qtbot, cwin.view)
    gen = cwin.view.gen
    gen.scene.select_wire(next(iter(gen.scene.wires)))
    gen.delete_selection()
    settle(qtbot, cwin.view)
    settle_g(qtbot, cwin)
    assert cwin.controller.dirty
    return k


def _changed_by_another_program(path):
    """What the issue's other program did: ``system`` and a curriculum entry's ``samples`` changed."""
    value = orjson.loads(path.read_bytes())
    value["system"] = "changed-elsewhere"
    value["curriculum"][0]["samples"] = 7
    path.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2))
    return value


def _save_from_the_menu(cwin):
    action = cwin.actions["compare.save_experiment"]
    file_menu = next(a.menu() for a in cwin.menuBar().actions() if a.text().replace("&", "") == "File")
    assert action in file_menu.actions() and action.isEnabled()
    action.trigger()


@pytest.mark.parametrize("answer", ["cancel", "overwrite", "reload"])
@pytest.mark.slow
def test_save_experiment_asks_before_replacing_another_programs_changes(answer, cwin, qtbot, demo_copy):
    k = _edit_a_task(cwin, qtbot, demo_copy)
    theirs = _changed_by_another_program(demo_copy)
    cwin.dialogs = Asking(answer)
    _save_from_the_menu(cwin)
    assert cwin.dialogs.asked == [str(demo_copy)]
    now = orjson.loads(demo_copy.read_bytes())
    if answer == "cancel":
        assert now == theirs and cwin.controller.dirty  # nothing written, the edit still on screen
    elif answer == "overwrite":
        assert now["system"] == "demo-gpt2-medium" and "edited" in now["tasks"][k]
        assert not cwin.controller.dirty
    else:
        settle_g(qtbot, cwin)
        assert now == theirs and not cwin.controller.dirty
        exp = cwin.controller.experiment
        assert exp.system == "changed-elsewhere" and not exp.tasks[k].edited


@pytest.mark.slow
def test_saving_an_unchanged_file_asks_nothing_and_a_second_save_neither(cwin, qtbot, demo_copy):
    k = _edit_a_task(cwin, qtbot, demo_copy)
    cwin.dialogs = Asking("cancel")
    _save_from_the_menu(cwin)
    assert cwin.dialogs.asked == [] and "edited" in orjson.loads(demo_copy.read_bytes())["tasks"][k]
    cwin.controller.revert([k])
    settle_g(qtbot, cwin)
    _save_from_the_menu(cwin)  # the file as this window last wrote it: no question
    assert cwin.dialogs.asked == [] and "edited" not in orjson.loads(demo_copy.read_bytes())["tasks"][k]
