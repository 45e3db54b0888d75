"""``curate --window`` gives the compare windows its curation window opens File → Curate…, as the
studio's own curation windows do (issue 32, item 7)."""
from __future__ import annotations

import pytest

from gindex_studio.paths import DEMO_DIR


def test_the_command_line_curation_window_gives_its_compare_windows_curate(monkeypatch):
    pytest.importorskip("PySide6")
    from gindex_studio.cli import studio
    from gindex_studio.cli.dispatch import main
    from gindex_studio.ui.curation import window
    from gindex_studio.ui.curation.menu import CurateFeature

    seen = {}
    monkeypatch.setattr(studio, "have_display", lambda: True)
    monkeypatch.setattr(window, "main_curate", lambda path, tasks, client, compare_features: seen.update(
        path=path, features=compare_features()) or 0)
    assert main(["curate", str(DEMO_DIR / "study" / "curriculum"), "--window"]) == 0
    assert seen["path"].endswith("curriculum") and [type(f) for f in seen["features"]] == [CurateFeature]
