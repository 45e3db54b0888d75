"""``gindex-studio flatland …`` and ``--profile flatland`` on score / matrix / omega."""
import json
import subprocess
import sys

from gindex_studio.cli import main
from gindex_studio.core.flatland.render import SIZE
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file
from gindex_studio.core.flatland.score import delta

CIRCLE, SQUARE, WHEEL = (LIBRARY_DIR / f"{n}.fbp" for n in ("circle", "square", "wheel"))


def test_draw_writes_png_json_and_lisp(tmp_path, capsys):
    out = tmp_path / "w.png"
    assert main(["flatland", "draw", str(WHEEL), "-o", str(out), "--json", str(tmp_path / "w.json"),
                 "--lisp", str(tmp_path / "w.lisp")]) == 0
    png = out.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == SIZE
    assert "369 segments from 10 nodes, 11 edges" in capsys.readouterr().out
    assert load_file(tmp_path / "w.lisp").to_json() == load_file(tmp_path / "w.json").to_json() == \
        load_file(WHEEL).to_json()


def test_augment_is_seeded(tmp_path, capsys):
    for d in ("a", "b"):
        assert main(["flatland", "augment", str(WHEEL), "-n", "3", "--seed", "7", "-o", str(tmp_path / d)]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == [f"wheel-00{i}.{s}" for i in (1, 2, 3) for s in ("json", "lisp", "png")]
    for n in names:
        assert (tmp_path / "a" / n).read_bytes() == (tmp_path / "b" / n).read_bytes()


def test_dataset_then_omega(tmp_path, capsys):
    ds = tmp_path / "ds"
    assert main(["flatland", "dataset", "-o", str(ds), "--seed", "3", "--per-domain", "2", "--per-test-domain", "1"]) == 0
    assert "curriculum 20 programs" in capsys.readouterr().out
    assert main(["omega", "--profile", "flatland", "--curriculum", str(ds / "train"), "--tasks",
                 str(ds / "test" / "easy"), "--json", "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["programs"] == 20 and len(out["tasks"]) == 5
    # Ω is the minimum Δ over the curriculum: check one task by hand
    task = out["tasks"][0]
    curriculum = [load_file(p) for p in sorted((ds / "train").rglob("*.fbp"))]
    ref = load_file(task["task"])
    assert abs(task["omega"] - min(delta(ref, c) for c in curriculum)) < 1e-12


def test_score_and_matrix_with_flatland_profile(tmp_path, capsys):
    assert main(["score", "--profile", "flatland", "--json", str(CIRCLE), str(SQUARE)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["profile"] == "flatland" and abs(r["delta"] - delta(load_file(CIRCLE), load_file(SQUARE))) < 1e-12
    gen = tmp_path / "gen.fbp"
    gen.write_text("```\np(start) -> m(move 5 0)\nm -> x(mve 1 0)\nm -> p(end)\n{} -> p()\n```\n")
    assert main(["score", "--profile", "flatland", "--json", str(CIRCLE), str(gen)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["errors"]["syntax"]["line"] == 3 and "mve" in r["errors"]["syntax"]["message"]
    assert main(["matrix", "--profile", "flatland", "--json", str(CIRCLE), str(CIRCLE)]) == 0
    assert json.loads(capsys.readouterr().out)["delta"] == [[0.0, 0.0], [0.0, 0.0]]


def test_compare_prints_delta_and_image_similarity(capsys):
    assert main(["flatland", "compare", "--json", str(CIRCLE), str(SQUARE)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert 0 < r["delta"] < 1 and 0 < r["image_similarity"] < 1 and r["syntax"] is None


def test_bad_input_exits_non_zero_with_one_line(tmp_path):
    bad = tmp_path / "bad.fbp"
    bad.write_text("p(start) -> h(limbs 3)\nh -> p(end)\n{} -> p()\n")
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "flatland", "draw", str(bad), "-o",
                        str(tmp_path / "x.png")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.strip().count("\n") == 0
    assert "bad.fbp:1:13: unknown node type or sub-flow 'limbs'" in p.stderr
    assert not (tmp_path / "x.png").exists()
