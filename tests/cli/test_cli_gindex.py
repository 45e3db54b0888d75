"""``gindex-studio gindex``, driven through a subprocess as a user would, bad input included."""
import json

from gindex_studio.paths import DEMO_DIR

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)


def test_gindex_of_the_demo_experiment_json_and_text():
    code, out, err = run("gindex", DEMO_DIR / "experiment.json", "--json", "--workers", "1")
    assert code == 0, err
    data = json.loads(out)
    assert data["g_index"] > 0 and len(data["tasks"]) == 16
    assert all(0.0 <= t["delta"] <= 1.0 and t["tc"] > 0 for t in data["tasks"])
    code, text, err = run("gindex", DEMO_DIR / "experiment.json", "--workers", "1")
    assert code == 0, err
    assert f"g-index = {data['g_index']:.6f}" in text and "telegram-2-reply-4" in text


def test_bad_experiment_numbers_are_one_line(tmp_path):
    exp = json.loads((DEMO_DIR / "experiment.json").read_text())
    exp["compute"] = {"total": -5}
    p = tmp_path / "exp.json"
    p.write_text(json.dumps(exp))
    code, _out, err = run("gindex", p)
    assert code == 1 and "compute.total" in err and len(err.strip().splitlines()) == 1
