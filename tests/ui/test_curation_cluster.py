"""The curation window with its report computed on a real Dask cluster: the same report as the
local engine, progress shown in the window's status line while the cluster works."""

import pytest

pytest.importorskip("distributed")

from gindex_studio.core.curation.cache import DeltaCache  # noqa: E402
from gindex_studio.core.curation.engine import PairEngine  # noqa: E402
from gindex_studio.core.curation.report import analyse  # noqa: E402
from gindex_studio.core.curation.workspace import load_workspace  # noqa: E402
from gindex_studio.paths import DEMO_DIR  # noqa: E402
from gindex_studio.ui.curation.window import CurationWindow  # noqa: E402



def test_the_window_reports_from_the_cluster_with_progress(qtbot, tmp_path, dask_client):
    ws = load_workspace(DEMO_DIR / "experiment.json")
    want = analyse(ws, PairEngine([it.flow for it in ws.items], ws.options))
    win = CurationWindow(load_workspace(DEMO_DIR / "experiment.json"), DeltaCache(tmp_path / "c.sqlite"),
                         client=dask_client)
    seen = []
    set_text = win.status.setText

    def record(text):  # every text the status line shows, in order
        seen.append(text)
        set_text(text)

    win.status.setText = record
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    qtbot.waitExposed(win)
    win.wait_for_report()
    assert win.model.report.findings() == want.findings()
    steps = [t for t in seen if "on the Dask cluster…" in t and "/" in t]
    assert steps, seen
    done, total = steps[-1].rsplit(" ", 3)[-3], steps[-1].rsplit(" ", 1)[-1]
    assert done == total
    assert "near-duplicate groups" in win.status.text()
    win.close()
