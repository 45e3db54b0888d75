"""Numbers (issue 36, item 9): a count beyond 64 bits is refused in one line in every mode (it
crashed ``--json`` and ``report`` with "Integer exceeds 64-bit range"), and ``[1, 2, 3]`` is no
program wherever programs are read strictly (``--domains`` read it as an empty one, silently)."""
import json
from pathlib import Path

import orjson
import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.benchmark.validate import MAX_COUNT
from gindex_studio.core.flows.flow import FlowError
from gindex_studio.core.scoring.divergence import delta_of_files
from gindex_studio.paths import DEMO_DIR

DEMO = Path(DEMO_DIR)
REF = DEMO / "programs/telegram-2-reply/telegram-2-reply-4.json"
GEN = DEMO / "generated/telegram-2-reply-4.txt"


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    return lines[0]


def experiment(tmp: Path, samples=60, compute=None, reference=REF) -> Path:
    """A two-domain, one-task experiment of the demo's programs (absolute paths)."""
    value = {"format": "gindex-studio.experiment/1", "name": "n", "system": "s",
             "compute": compute or {"total": 2**20},
             "curriculum": [{"domain": d, "programs": [str(sorted((DEMO / "programs" / d).glob("*.json"))[0])],
                             "samples": samples} for d in ("http", "facebook")],
             "tasks": [{"id": "t", "domain": "http", "reference": str(reference), "generated": {"file": str(GEN)}}]}
    p = tmp / "e.json"
    p.write_text(json.dumps(value).replace('"samples": "SAMPLES"', ""))
    return p


@pytest.mark.parametrize("samples", ["1" + "0" * 30, "1e308", "9" * 400], ids=["1e30", "1e308", "400 digits"])
@pytest.mark.parametrize("mode", [["gindex", "--json"], ["gindex"], ["report", "--json"]])
def test_samples_beyond_64_bits_are_one_line_in_every_mode(tmp_path, capsys, samples, mode):
    p = experiment(tmp_path, samples=0)
    p.write_text(p.read_text().replace('"samples": 0', f'"samples": {samples}'))
    code, out, err = run([mode[0], p, *mode[1:]], capsys)
    assert code == 1 and out == ""
    line = one_line(err)
    assert "curriculum[0].samples: is too large: at most 9,223,372,036,854,775,807" in line and len(line) < 300, line


def test_the_largest_count_still_gives_json(tmp_path, capsys):
    code, out, err = run(["gindex", experiment(tmp_path, samples=MAX_COUNT), "--json", "--workers", "1"], capsys)
    assert code == 0, err
    assert orjson.loads(out)["domains"][0]["samples"] == MAX_COUNT


def test_a_compute_beyond_64_bits_is_a_number_json_can_hold(tmp_path, capsys):
    code, out, err = run(["gindex", experiment(tmp_path, compute={"total": 10**30}), "--json", "--workers", "1"],
                         capsys)
    assert code == 0, err
    assert orjson.loads(out)["g_index"] > 0


@pytest.mark.parametrize("samples", ["9" * 30, "9" * 5000, "http=" + "9" * 30], ids=["30", "5000", "domain"])
def test_experiment_new_refuses_samples_beyond_64_bits_in_one_short_line(tmp_path, capsys, samples):
    out_jsonl = tmp_path / "o.jsonl"
    out_jsonl.write_bytes(orjson.dumps({"task_id": REF.stem, "output": GEN.read_text()}) + b"\n")
    code, out, err = run(["experiment", "new", "--curriculum", DEMO / "programs", "--tasks", REF, "--outputs",
                          out_jsonl, "--compute", "1e20", "--samples", samples, "-o", tmp_path / "x.json"], capsys)
    assert code == 1 and not (tmp_path / "x.json").exists()
    line = one_line(err)
    assert "--samples" in line and "9,223,372,036,854,775,807" in line and len(line) < 200, line


# ----- [1, 2, 3]: entries, not one node --------------------------------------------------------


@pytest.fixture
def numbers(tmp_path) -> Path:
    p = tmp_path / "n.json"
    p.write_text("[1,2,3]")
    return p


def _companion(tmp: Path, bad: Path) -> tuple[Path, Path]:
    dom = tmp / "domains"
    for d in ("http", "facebook"):
        (dom / d).mkdir(parents=True)
        for f in sorted((DEMO / "programs" / d).glob("*.json"))[:2]:
            (dom / d / f.name).write_bytes(f.read_bytes())
    (dom / "http" / "zz.json").write_bytes(bad.read_bytes())
    exp = {"model": {"name": "m"}, "train_set": {"data": [{"name": "facebook", "num_samples": 4}]},
           "test_set": {"data": [{"name": "http", "num_samples": 2}]}, "train_cost": {"compute": 32},
           "performance": {"divergence": 0.5, "domains": [{"name": "http", "num_samples": 2, "divergence": 0.5}]}}
    p = tmp / "c.json"
    p.write_text(json.dumps(exp))
    return p, dom


@pytest.mark.parametrize("slot", ["score reference", "gindex --domains", "gindex reference", "omega curriculum",
                                  "omega task", "curate"])
def test_entries_without_a_node_are_no_program_where_programs_are_read_strictly(tmp_path, capsys, numbers, slot):
    cur = tmp_path / "cur" / "http"
    cur.mkdir(parents=True)
    (cur / "a.json").write_bytes(REF.read_bytes())
    argv = {
        "score reference": lambda: ["score", numbers, GEN],
        "gindex --domains": lambda: ["gindex", *_companion(tmp_path, numbers)[:1], "--domains",
                                     tmp_path / "domains"],
        "gindex reference": lambda: ["gindex", experiment(tmp_path, reference=numbers)],
        "omega curriculum": lambda: ["omega", "--curriculum", (numbers.rename(cur / "n.json"), cur.parent)[1],
                                     "--tasks", REF],
        "omega task": lambda: ["omega", "--curriculum", cur.parent, "--tasks", numbers],
        "curate": lambda: ["curate", (numbers.rename(cur / "n.json"), cur.parent)[1], "--no-cache"],
    }[slot]()
    code, out, err = run(argv, capsys)
    assert code == 1 and out == ""
    line = one_line(err)
    assert "n.json" in line or "zz.json" in line, line
    assert "holds 3 entries but none is a node object with a string id and type" in line, line


def test_entries_without_a_node_as_the_generated_program_score_zero_with_a_warning(capsys, numbers):
    """A model's output is read leniently: no node is a failed attempt (Δ = 1), said as such."""
    code, out, err = run(["score", REF, numbers], capsys)
    assert code == 0 and "Δ = 1.000000" in out and "entry 0 is not a node object" in out, out


def test_delta_of_files_refuses_it_as_read_flow_file_does(numbers):
    with pytest.raises(FlowError, match=r"n\.json: holds 3 entries but none is a node"):
        delta_of_files(numbers, REF)
    assert delta_of_files(REF, REF) == 0.0
