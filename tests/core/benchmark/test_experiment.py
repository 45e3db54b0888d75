"""Experiment files: our format (load, validate, save) and the companion's (docs/experiment-format.md)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.experiment import (
    FORMAT,
    ExperimentError,
    experiment_from_value,
    load_companion_experiment,
    load_experiment,
    save_experiment,
)
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.paths import DEMO_DIR

DEMO = DEMO_DIR / "experiment.json"


def nodes(prefix: str) -> list[dict]:
    return [
        {"id": f"{prefix}i", "type": "inject", "topic": "t", "wires": [[f"{prefix}d"]]},
        {"id": f"{prefix}d", "type": "debug", "wires": []},
    ]


def write(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def base(tmp_path) -> dict:
    write(tmp_path / "cur" / "a" / "a1.json", {"name": "A", "text": "prompt a1", "flow": nodes("a1")})
    write(tmp_path / "cur" / "a" / "a2.json", nodes("a2"))
    write(tmp_path / "cur" / "a" / "notes.txt", "not a program")
    write(tmp_path / "cur" / "b.json", nodes("b"))
    write(tmp_path / "ref.json", {"name": "A", "text": "the prompt", "flow": nodes("r")})
    write(tmp_path / "gen.txt", json.dumps(nodes("g"))[:-30])  # truncated model output
    (tmp_path / "empty").mkdir()
    return {
        "format": FORMAT,
        "name": "unit",
        "system": "sys",
        "compute": {"power": 2, "time": 8},
        "curriculum": [
            {"domain": "A", "programs": ["cur/a"], "samples": 10},
            {"domain": "B", "programs": ["cur/b.json"], "samples": 5},
        ],
        "tasks": [
            {"id": "t1", "domain": "A", "reference": "ref.json", "generated": {"file": "gen.txt"}},
            {"id": "t2", "domain": "B", "prompt": "own prompt", "reference": {"json": nodes("r2")}, "generated": {"json": nodes("g2")}},
        ],
    }


def load(tmp_path: Path, value) -> object:
    return load_experiment(write(tmp_path / "exp.json", value))


# ----- reading ----------------------------------------------------------------------------------


def test_valid_experiment_loads(tmp_path, base):
    exp = load(tmp_path, base)
    assert (exp.name, exp.system, exp.profile, exp.priors) == ("unit", "sys", "paper", 1e-4)
    assert exp.compute.value == 16 and exp.options.profile.name == "paper"
    a, b = exp.curriculum
    assert [p.label for p in a.programs] == ["cur/a/a1.json", "cur/a/a2.json"]  # folder: its .json files, sorted
    assert a.sources == ["cur/a"] and b.programs[0].label == "cur/b.json"
    t1, t2 = exp.tasks
    assert t1.prompt == "the prompt" and not t1.prompt_given  # the reference file's "text"
    assert t1.syntax is not None and t1.syntax.recovered_nodes == 1  # broken output never fails
    assert t1.generated_text is not None and len(t1.generated.nodes) == 1
    assert t2.prompt == "own prompt" and t2.syntax is None and len(t2.generated.nodes) == 2
    assert exp.warnings == []


def test_demo_experiment_loads():
    exp = load_experiment(DEMO)
    assert len(exp.curriculum) == 14 and len(exp.tasks) == 16
    assert exp.compute.value == pytest.approx(74.75)
    assert all(t.prompt for t in exp.tasks)
    assert sum(len(c.programs) for c in exp.curriculum) == 42
    broken = {t.id for t in exp.tasks if t.syntax is not None}
    assert {"googlesearch-to-csv-4", "telegram-3-reply-4", "youtube-pause-4", "cron-reminder-4"} <= broken
    assert "http-4" not in broken


def test_generated_forms(tmp_path, base):
    base["tasks"][1]["generated"] = {"text": "```json\n" + json.dumps(nodes("x")) + "\n```"}
    exp = load(tmp_path, base)
    assert exp.tasks[1].syntax is not None and len(exp.tasks[1].generated.nodes) == 2
    base["tasks"][1]["generated"] = {"json": {"not": "a flow"}}  # model output that is no flow: Δ = 1, no error
    exp = load(tmp_path, base)
    assert exp.tasks[1].generated.nodes == [] and exp.tasks[1].syntax is not None
    base["tasks"][1]["generated"] = "gen.txt"  # a bare path
    exp = load(tmp_path, base)
    assert exp.tasks[1].generated_source.kind == "file" and exp.tasks[1].generated_source.bare


def test_domain_mismatch_with_reference_file_warns(tmp_path, base):
    base["tasks"][0]["domain"] = "Z"
    exp = load(tmp_path, base)
    assert any("tasks[0]" in w and "'A'" in w for w in exp.warnings)


def test_zero_samples_warns(tmp_path, base):
    base["curriculum"][1]["samples"] = 0
    exp = load(tmp_path, base)
    assert any("curriculum[1]" in w and "0 samples" in w for w in exp.warnings)


def test_extension_keys_are_kept(tmp_path, base):
    base["x-notes"] = {"by": "me"}
    exp = load(tmp_path, base)
    assert exp.extra == {"x-notes": {"by": "me"}}
    out = tmp_path / "out.json"
    save_experiment(exp, out)
    assert json.loads(out.read_text())["x-notes"] == {"by": "me"}


# ----- every validation error ---------------------------------------------------------------------


def _set(path: str, value):
    """A mutation setting a field given as a dotted path with [i] indices; value ... deletes it."""
    def mutate(d):
        parts = path.replace("[", ".").replace("]", "").split(".")
        obj = d
        for p in parts[:-1]:
            obj = obj[int(p)] if isinstance(obj, list) else obj[p]
        last = parts[-1]
        if value is ...:
            del obj[int(last) if isinstance(obj, list) else last]
        elif isinstance(obj, list):
            obj[int(last)] = value
        else:
            obj[last] = value
    return mutate


CASES = [
    ("format missing", _set("format", ...), "format: missing (expected 'gindex-studio.experiment/1')"),
    ("format unknown", _set("format", "gindex-studio.experiment/9"), "format: unknown format 'gindex-studio.experiment/9'"),
    ("name missing", _set("name", ...), "name: missing"),
    ("system not a string", _set("system", 3), "system: must be a string, got 3"),
    ("compute missing", _set("compute", ...), "compute: missing"),
    ("curriculum missing", _set("curriculum", ...), "curriculum: missing"),
    ("tasks missing", _set("tasks", ...), "tasks: missing"),
    ("unknown key", _set("prior", 0.1), "prior: unknown field (did you mean 'priors'?)"),
    ("profile", _set("profile", "strict"), "profile: must be one of 'paper', 'companion', 'flatland', got 'strict'"),
    ("options not object", _set("options", [1]), "options: must be an object, got a list"),
    ("options unknown", _set("options", {"port_awre": True}), "options.port_awre: unknown field (did you mean 'port_aware'?)"),
    ("port_aware", _set("options", {"port_aware": "yes"}), "options.port_aware: must be true or false, got 'yes'"),
    ("ignore_types", _set("options", {"ignore_types": "tab"}), "options.ignore_types: must be a list of node type strings, got 'tab'"),
    ("priors negative", _set("priors", -1), "priors: must be a number >= 0, got -1"),
    ("priors string", _set("priors", "1e-4"), "priors: must be a number >= 0, got '1e-4'"),
    ("compute total negative", _set("compute", {"total": -5}), "compute.total: must be a positive number, got -5"),
    ("compute power zero", _set("compute", {"power": 0, "time": 3}), "compute.power: must be a positive number, got 0"),
    ("compute time bool", _set("compute", {"power": 1, "time": True}), "compute.time: must be a positive number, got true"),
    ("compute both", _set("compute", {"total": 5, "power": 1, "time": 5}), "compute: give either total, or power and time, not both"),
    ("compute half", _set("compute", {"power": 5}), "compute: needs power and time, or total (missing time)"),
    ("compute not object", _set("compute", 74.75), "compute: must be an object, got 74.75"),
    ("rho + E <= 0", _set("compute", {"total": 0.5}), "compute: compute 0.5 gives E = log2(0.5) = -1 and priors + E = -0.9999 <= 0"),
    ("rho + E = 0", _set("compute", {"total": 1}) , None),  # E = 0 but ρ = 1e-4 > 0: allowed
    ("rho + E <= 0 override", _set("curriculum[1].compute", {"total": 0.25}), "curriculum[1].compute: compute 0.25 gives E"),
    ("curriculum not list", _set("curriculum", {"A": 1}), "curriculum: must be a list of domains, got an object"),
    ("curriculum empty", _set("curriculum", []), "curriculum: must list at least one domain"),
    ("curriculum domain missing", _set("curriculum[0].domain", ...), "curriculum[0].domain: missing"),
    ("curriculum domain empty", _set("curriculum[0].domain", " "), "curriculum[0].domain: must not be empty"),
    ("curriculum domain duplicate", _set("curriculum[1].domain", "A"), "curriculum[1].domain: 'A' is already curriculum[0]"),
    ("samples negative", _set("curriculum[0].samples", -1), "curriculum[0].samples: must be a whole number >= 0, got -1"),
    ("samples fraction", _set("curriculum[0].samples", 1.5), "curriculum[0].samples: must be a whole number >= 0, got 1.5"),
    ("samples string", _set("curriculum[0].samples", "10"), "curriculum[0].samples: must be a whole number >= 0, got '10'"),
    ("samples missing", _set("curriculum[0].samples", ...), "curriculum[0].samples: missing"),
    ("programs empty", _set("curriculum[0].programs", []), "curriculum[0].programs: must be a non-empty list of program files or folders"),
    ("program missing", _set("curriculum[0].programs", ["cur/nope.json"]), "curriculum[0].programs[0]: no such file or folder 'cur/nope.json'"),
    ("program folder empty", _set("curriculum[1].programs", ["cur/b.json", "empty"]), "curriculum[1].programs[1]: folder 'empty' holds no .json program files"),
    ("program not JSON", _set("curriculum[0].programs", ["gen.txt"]), "curriculum[0].programs[0]:"),
    ("curriculum unknown key", _set("curriculum[0].sample", 3), "curriculum[0].sample: unknown field (did you mean 'samples'?)"),
    ("tasks empty", _set("tasks", []), "tasks: must list at least one task"),
    ("task id missing", _set("tasks[0].id", ...), "tasks[0].id: missing"),
    ("task id duplicate", _set("tasks[1].id", "t1"), "tasks[1].id: 't1' is already the id of tasks[0]; task ids must be unique"),
    ("task domain empty", _set("tasks[1].domain", ""), "tasks[1].domain: must not be empty"),
    ("task domain not string", _set("tasks[1].domain", ["B"]), "tasks[1].domain: must be a string, got a list"),
    ("task prompt not string", _set("tasks[1].prompt", 7), "tasks[1].prompt: must be a string, got 7"),
    ("reference missing", _set("tasks[0].reference", ...), "tasks[0].reference: missing"),
    ("reference no file", _set("tasks[0].reference", "nope.json"), "tasks[0].reference: no such file 'nope.json'"),
    ("reference no file obj", _set("tasks[0].reference", {"file": "nope.json"}), "tasks[0].reference.file: no such file 'nope.json'"),
    ("reference bad json", _set("tasks[0].reference", {"json": 5}), "tasks[0].reference.json: a flow must be a JSON array or object, not int"),
    ("reference text form", _set("tasks[0].reference", {"text": "[]"}), "tasks[0].reference: must be a file path or one of {\"file\": ...}, {\"json\": ...}"),
    ("reference broken file", _set("tasks[0].reference", "gen.txt"), "tasks[0].reference:"),
    ("generated no file", _set("tasks[0].generated", {"file": "out/none.txt"}), "tasks[0].generated.file: no such file 'out/none.txt'"),
    ("generated bad form", _set("tasks[0].generated", {"path": "gen.txt"}), "tasks[0].generated: must be a file path or one of"),
    ("generated text not string", _set("tasks[0].generated", {"text": 5}), "tasks[0].generated.text: must be a string (the raw model output), got 5"),
    ("task unknown key", _set("tasks[0].generate", "x"), "tasks[0].generate: unknown field (did you mean 'generated'?)"),
    ("task not object", _set("tasks[0]", "t1"), "tasks[0]: must be an object, got 't1'"),
]


@pytest.mark.parametrize("label,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_validation_errors(tmp_path, base, label, mutate, message):
    value = copy.deepcopy(base)
    mutate(value)
    path = write(tmp_path / "exp.json", value)
    if message is None:
        load_experiment(path)
        return
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    text = str(info.value)
    assert text.startswith(f"{path}: "), text
    assert message in text, text
    assert "\n" not in text


def test_file_level_errors(tmp_path, base):
    with pytest.raises(ExperimentError, match="no such file"):
        load_experiment(tmp_path / "none.json")
    with pytest.raises(ExperimentError, match="is a folder"):
        load_experiment(tmp_path)
    write(tmp_path / "bad.json", '{"format": ')
    with pytest.raises(ExperimentError, match="bad.json: not valid JSON"):
        load_experiment(tmp_path / "bad.json")
    write(tmp_path / "list.json", [1, 2])
    with pytest.raises(ExperimentError, match="an experiment must be a JSON object, got a list"):
        load_experiment(tmp_path / "list.json")
    write(tmp_path / "nan.json", json.dumps(base)[:-1] + ', "priors": NaN}')
    with pytest.raises(ExperimentError, match="nan.json: not valid JSON"):  # NaN is no JSON (as orjson says)
        load_experiment(tmp_path / "nan.json")
    write(tmp_path / "inf.json", json.dumps(dict(base, compute={"total": 1})).replace('"total": 1', '"total": Infinity'))
    with pytest.raises(ExperimentError, match="inf.json: not valid JSON"):  # nor is Infinity
        load_experiment(tmp_path / "inf.json")
    write(tmp_path / "comp.json", {"model": {}, "train_set": {}, "test_set": {}, "train_cost": {}, "performance": {}})
    with pytest.raises(ExperimentError, match="companion experiment file: read it with --domains DIR"):
        load_experiment(tmp_path / "comp.json")


# ----- saving -------------------------------------------------------------------------------------


def test_save_round_trip_in_another_folder(tmp_path):
    exp = load_experiment(DEMO)
    out = tmp_path / "elsewhere" / "copy.json"
    out.parent.mkdir()
    save_experiment(exp, out)
    raw = json.loads(out.read_text())
    assert raw["format"] == FORMAT
    assert raw["tasks"][0]["generated"]["file"].endswith("generated/template-slider-4.txt")
    assert not Path(raw["tasks"][0]["generated"]["file"]).is_absolute()
    again = load_experiment(out)
    assert [t.id for t in again.tasks] == [t.id for t in exp.tasks]
    assert [t.prompt for t in again.tasks] == [t.prompt for t in exp.tasks]
    assert [[p.path.resolve() for p in c.programs] for c in again.curriculum] == [
        [p.path.resolve() for p in c.programs] for c in exp.curriculum
    ]
    assert again.compute.to_json() == {"power": 0.03125, "time": 2392}
    assert "prompt" not in raw["tasks"][0]  # defaulted prompts stay defaulted
    assert exp.path == out  # the experiment now lives there


CUT = '[{"id": "q", "type": "debug"}, {"id": "r", "ty'


def test_save_keeps_edited_programs(tmp_path, base):
    exp = load(tmp_path, base)
    edited = flow_from_nodes(nodes("e"))
    exp.tasks[0].set_generated_flow(edited)
    exp.tasks[1].set_generated_text(CUT)
    exp.tasks[1].set_reference_flow(flow_from_nodes(nodes("rr")))
    exp.tasks[1].prompt = "edited prompt"
    exp.curriculum[0].samples = 99
    save_experiment(exp)  # in place
    raw = json.loads((tmp_path / "exp.json").read_text())
    assert raw["tasks"][0]["generated"] == {"json": nodes("e")}
    assert raw["tasks"][1]["generated"] == {"text": CUT}
    assert raw["tasks"][1]["reference"] == {"json": nodes("rr")}
    assert raw["tasks"][0]["reference"] == "ref.json"  # bare paths stay bare
    again = load_experiment(tmp_path / "exp.json")
    assert again.tasks[1].prompt == "edited prompt" and again.curriculum[0].samples == 99
    assert again.tasks[1].syntax is not None and [n.id for n in again.tasks[1].generated.nodes] == ["q"]
    assert [n.id for n in again.tasks[0].generated.nodes] == ["ei", "ed"]
    assert not list(tmp_path.glob(".exp.json.*.tmp"))  # atomic write left nothing behind


def test_save_needs_a_path_for_an_in_memory_experiment(tmp_path, base):
    value = json.loads(json.dumps(base))
    for c in value["curriculum"]:
        c["programs"] = [str(tmp_path / p) for p in c["programs"]]
    value["tasks"] = [value["tasks"][1]]
    exp = experiment_from_value(value)
    assert exp.path is None
    with pytest.raises(ExperimentError, match="give a path"):
        save_experiment(exp)
    save_experiment(exp, tmp_path / "mem.json")
    assert load_experiment(tmp_path / "mem.json").tasks[0].id == "t2"


# ----- the companion's files ------------------------------------------------------------------------


def companion(tmp_path: Path) -> tuple[dict, Path]:
    dom = tmp_path / "domains"
    for name in ("alpha", "beta"):
        write(dom / name / f"{name}-1.json", {"title": "t", "text": f"{name} prompt", "flow": nodes(name), "name": name})
    value = {
        "model": {"name": "GPT2", "train_params": {"model_name": "gpt2-medium"}},
        "train_set": {"data": [{"name": "alpha", "num_samples": 80}, {"name": "beta", "num_samples": 80}], "total": 160},
        "test_set": {"data": [{"name": "alpha", "num_samples": 5}]},
        "train_cost": {"time": 2380.4, "compute": 74.75},
        "performance": {"divergence": 0.3, "domains": [{"name": "alpha", "num_samples": 5, "divergence": 0.3, "perfects": 0.2}]},
        "domain_distance": 0.08,
    }
    return value, dom


def test_companion_loads(tmp_path):
    value, dom = companion(tmp_path)
    c = load_companion_experiment(write(tmp_path / "e.json", value), dom)
    assert (c.system, c.compute, c.priors) == ("gpt2-medium", 74.75, 1e-4)
    assert [(d.name, d.samples) for d in c.curriculum] == [("alpha", 80), ("beta", 80)]
    assert [(d.name, d.divergence, d.perfects) for d in c.tasks] == [("alpha", 0.3, 0.2)]
    assert [p.label for p in c.programs["beta"]] == ["beta/beta-1.json"]


COMPANION_CASES = [
    ("train_cost missing", lambda v: v.pop("train_cost"), "train_cost: missing (not a companion experiment file?)"),
    ("compute negative", lambda v: v["train_cost"].update(compute=-3), "train_cost.compute: must be a positive number, got -3"),
    ("compute below 1", lambda v: v["train_cost"].update(compute=0.5), "train_cost.compute: compute 0.5 gives E = log2(0.5) = -1"),
    ("samples negative", lambda v: v["train_set"]["data"][1].update(num_samples=-1), "train_set.data[1].num_samples: must be a whole number >= 0, got -1"),
    ("train empty", lambda v: v["train_set"].update(data=[]), "train_set.data: must be a non-empty list of domains"),
    ("no performance entry", lambda v: v["test_set"]["data"].append({"name": "beta", "num_samples": 5}), "test_set.data[1]: domain 'beta' has no entry in performance.domains"),
    ("divergence out of range", lambda v: v["performance"]["domains"][0].update(divergence=1.5), "performance.domains[0].divergence: must be a number in [0, 1], got 1.5"),
    ("domain folder missing", lambda v: v["train_set"]["data"].append({"name": "gamma", "num_samples": 1}), "train_set.data[2].name: domain 'gamma' has no folder"),
    ("our format", lambda v: v.update(format=FORMAT), "this is a gindex-studio experiment, not a companion one"),
]


@pytest.mark.parametrize("label,mutate,message", COMPANION_CASES, ids=[c[0] for c in COMPANION_CASES])
def test_companion_validation_errors(tmp_path, label, mutate, message):
    value, dom = companion(tmp_path)
    mutate(value)
    path = write(tmp_path / "e.json", value)
    with pytest.raises(ExperimentError) as info:
        load_companion_experiment(path, dom)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value), str(info.value)


def test_companion_domain_folder_errors(tmp_path):
    value, dom = companion(tmp_path)
    path = write(tmp_path / "e.json", value)
    with pytest.raises(ExperimentError, match="no such domains folder"):
        load_companion_experiment(path, tmp_path / "nowhere")
    for f in (dom / "beta").iterdir():
        f.unlink()
    with pytest.raises(ExperimentError, match=r"train_set.data\[1\].name: domain folder .* holds no .json program files"):
        load_companion_experiment(path, dom)
    write(dom / "beta" / "beta-1.json", "{broken")
    with pytest.raises(ExperimentError, match="not valid JSON"):
        load_companion_experiment(path, dom)
