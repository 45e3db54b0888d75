"""gindex-studio report and experiment new, driven through a subprocess. The HTML report's figures
are checked twice: every embedded SVG decoded and rendered by Qt's SVG renderer (no browser needed,
so CI checks it), and the whole page opened in headless Chromium when it is installed."""
from __future__ import annotations

import base64
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

from gindex_studio.core.benchmark import stats
from gindex_studio.core.benchmark.analysis import System, analyse
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.core.benchmark.study import open_inputs
from gindex_studio.paths import DEMO_DIR

from cli_run import run

STUDY = DEMO_DIR / "study" / "study.json"


@pytest.fixture(scope="module")
def html_report(tmp_path_factory):
    """The HTML report of the demo study (its figures are drawn with Qt: the [gui] extra)."""
    pytest.importorskip("pyqtgraph", reason="report -o draws its figures with the [gui] extra (pyqtgraph)")
    out = tmp_path_factory.mktemp("report") / "report.html"
    code, stdout, err = run("report", STUDY, "-o", out, "--workers", "1")
    assert code == 0, err
    assert stdout.strip() == f"wrote {out}: 3 systems, 3 paired comparisons"
    return out


@pytest.mark.slow
def test_report_json_equals_the_core(tmp_path):
    code, out, err = run("report", STUDY, "--json", "-k", "2", "--resamples", "500", "--seed", "3", "--workers", "1")
    assert code == 0, err
    data = json.loads(out)
    _name, pairs = open_inputs([STUDY])
    an = analyse([System(lab, e, compute_gindex(e, workers=1)) for lab, e in pairs], k=2, resamples=500, seed=3)
    assert data["k"] == 2 and data["resamples"] == 500 and data["seed"] == 3
    for got, row in zip(data["systems"], an.summary):
        assert got["label"] == row.label
        for key in ("g_index", "theta", "skill", "pass_k"):
            assert got[key] == {**getattr(row, key).to_dict()}
        assert len(got["tasks_detail"]) == 22
    for got, p in zip(data["comparisons"], an.pairs):
        assert got["g_sentence"] == p.g_sentence and got["mcnemar"]["p"] == p.mcnemar.p
    assert data["comparisons"][2]["g_sentence"].startswith("gpt2-large's g-index is higher than gpt2-medium's by")


@pytest.mark.slow
def test_report_html_is_self_contained(html_report):
    from gindex_studio.ui.analysis.plots import FIGURES

    text = html_report.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert text.count('src="data:image/svg+xml;base64,') == len(FIGURES) == 10
    assert "http://" not in text.replace("http://www.w3.org", "")  # nothing fetched
    assert 'id="comparison"' in text and "gpt2-large&#x27;s g-index is higher" in text
    assert "Worst tasks" in text and "missing node(s)" in text
    assert "<th>θ over attempts</th>" in text


def test_report_bad_input_is_one_line(tmp_path):
    code, out, err = run("report", STUDY)  # a usage error (issue 26.9): exit 2, the usage and one line
    assert code == 2 and out == "" and err.startswith("usage: gindex-studio report")
    assert err.strip().splitlines()[-1] == ("gindex-studio report: error: give -o FILE for the HTML report, "
                                            "or --json for the numbers")
    code, out, err = run("report", tmp_path / "none.json", "--json")
    assert code == 1 and err.count("\n") == 1 and "none.json: no such file" in err
    (tmp_path / "s.json").write_text(json.dumps({"format": "gindex-studio.study/1", "experiments": ["x.json"]}))
    code, out, err = run("report", tmp_path / "s.json", "--json")
    assert code == 1 and "experiments[0]: no such experiment file 'x.json'" in err and err.count("\n") == 1


def test_experiment_new_then_report(tmp_path):
    refs = tmp_path / "refs"
    refs.mkdir()
    lines = []
    for d in ("http", "twitter"):
        shutil.copy(DEMO_DIR / "programs" / d / f"{d}-4.json", refs)
        ref = json.loads((refs / f"{d}-4.json").read_text())["flow"]
        lines.append(json.dumps({"task_id": f"{d}-4", "outputs": [json.dumps(ref), "sorry"]}))
    (tmp_path / "out.jsonl").write_text("\n".join(lines) + "\n")
    cur = tmp_path / "cur"
    for d in ("http", "twitter"):
        (cur / d).mkdir(parents=True)
        shutil.copy(DEMO_DIR / "programs" / d / f"{d}-1.json", cur / d)
    code, out, err = run("experiment", "new", "--curriculum", cur, "--tasks", refs, "--outputs", tmp_path / "out.jsonl",
                         "--compute", "74.75", "--samples", "40", "--samples", "http=80", "--system", "mine",
                         "-o", tmp_path / "exp.json")
    assert code == 0, err
    assert out.startswith(f"wrote {tmp_path / 'exp.json'}: 2 tasks, 4 attempts, 2 curriculum domains (120 samples)")
    code, out, err = run("report", tmp_path / "exp.json", "--json", "-k", "2", "--workers", "1")
    assert code == 0, err
    row = json.loads(out)["systems"][0]
    assert row["label"] == "mine" and row["theta"]["value"] == 0.5  # one perfect and one empty attempt per task
    assert row["pass_k"]["value"] == 1.0 and row["skill"]["value"] == 0.0
    code, out, err = run("experiment", "new", "--curriculum", cur, "--tasks", refs, "--outputs", tmp_path / "out.jsonl",
                         "--compute", "74.75", "--samples", "lots", "-o", tmp_path / "x.json")
    assert code == 1 and err.strip() == ("gindex-studio: --samples lots: give a whole number, or DOMAIN=NUMBER "
                                         "(at most 9,223,372,036,854,775,807)")


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _colour_pixels(png, colour: str, tol: int = 30) -> int:
    from PySide6.QtGui import QImage

    img = QImage(str(png)).convertToFormat(QImage.Format_RGB888)
    arr = np.frombuffer(img.constBits(), np.uint8)[: img.height() * img.bytesPerLine()]
    arr = arr.reshape(img.height(), img.bytesPerLine())[:, : img.width() * 3].reshape(img.height(), img.width(), 3)
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(arr.astype(int) - target).max(axis=2) <= tol).sum())


class _Images(HTMLParser):
    """The <img> data URIs of a page with the caption of their <figure>."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, str]] = []  # (figure id, src)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self._figure = a.get("id", "")
        elif tag == "img":
            self.found.append((getattr(self, "_figure", ""), a.get("src", "")))


def _render_svg(data: bytes, size=(900, 520)):
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(QByteArray(data))
    assert renderer.isValid()
    img = QImage(*size, QImage.Format_RGB888)
    img.fill(QColor("white"))
    painter = QPainter(img)
    renderer.render(painter)
    painter.end()
    return img


@pytest.mark.slow
def test_report_figures_render_without_a_browser(html_report, qapp, tmp_path):
    from gindex_studio.ui.analysis.plots import FIGURES

    """Every figure is an embedded SVG that parses as XML, renders, and draws the systems'
    colours: the plotted points, curves and bars are in the file, not only the axes."""
    from gindex_studio.ui.analysis.plots import SYSTEM_COLOURS

    parser = _Images()
    parser.feed(html_report.read_text())
    assert [fid for fid, _src in parser.found] == [f"fig-{f}" for f in FIGURES]
    pixels = {c: 0 for c in SYSTEM_COLOURS[:3]}
    for fid, src in parser.found:
        head, _, b64 = src.partition(",")
        assert head == "data:image/svg+xml;base64"
        data = base64.b64decode(b64, validate=True)
        root = ET.fromstring(data)
        assert root.tag.endswith("svg")
        img = _render_svg(data)
        png = tmp_path / f"{fid}.png"
        img.save(str(png))
        drawn = {c: _colour_pixels(png, c) for c in pixels}
        # every figure shows every system, except θ vs Ω (coloured by domain, not system)
        if fid != "fig-theta_omega":
            assert all(n > 30 for n in drawn.values()), (fid, drawn)
        for c, n in drawn.items():
            pixels[c] += n
    assert min(pixels.values()) > 3000, pixels


@pytest.mark.slow
def test_report_opens_in_chromium_and_shows_the_plots(html_report, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")
    shot = tmp_path / "shot.png"
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1100,6000",
                        f"--screenshot={shot}", html_report.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file(), p.stderr[-500:]
    # the three systems' colours fill the plotted points, curves and bars (the table alone has none)
    from gindex_studio.ui.analysis.plots import SYSTEM_COLOURS

    for colour in SYSTEM_COLOURS[:3]:
        assert _colour_pixels(shot, colour) > 3000, colour
