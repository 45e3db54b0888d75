"""Writes the demo study: three (pretend) systems, four attempts per task, from the demo data.

Run from anywhere: ``python3 resources/demo/study/build_study.py``. Seeded, so a rerun reproduces
the files byte for byte.

- Curriculum: as ../experiment.json (programs 1-3 of fourteen domains). The two held-out domains
  (template-form, telegram-3-reply) give 2 × 4 tasks, the other fourteen their program 4: 22 tasks.
- Systems: ``gpt2-small`` (half the samples, less compute), ``gpt2-medium`` (the demo experiment's
  samples and compute; its first attempt is the demo's own generated output where there is one) and
  ``gpt2-large`` (twice the samples, more compute). Each attempt is the reference itself (a perfect
  answer) with a probability that grows with the system, or one of the demo's kinds of error made
  on the reference: a node dropped, a value changed, a wire dropped, the text cut short, prose.
- Outputs are written as eval harnesses write them (``outputs/<system>.jsonl``) and each experiment
  is built from them like ``gindex-studio experiment new`` does, then given the demo's curriculum.
- ``curriculum/<domain>/`` and ``tasks/`` hold copies of the curriculum's programs and of the 22 task
  references, laid out as ``gindex-studio experiment new --curriculum … --tasks …`` reads them (the
  README's example builds an experiment from them and ``outputs/``).
"""
from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent
sys.path.insert(0, str(DEMO.parent.parent))

from gindex_studio.core.benchmark.experiment_build import read_outputs  # noqa: E402  (the same reader as the CLI)

DEMO_EXP = json.loads((DEMO / "experiment.json").read_text())
HELD_OUT = ("template-form", "telegram-3-reply")
ATTEMPTS = 4
SYSTEMS = {
    # name: (P(perfect attempt), sample factor, compute total in petaFLOP·s)
    "gpt2-small": (0.25, 0.5, 37.4),
    "gpt2-medium": (0.45, 1.0, 74.75),
    "gpt2-large": (0.65, 2.0, 127.53),
}
ERRORS = ("drop node", "change value", "drop wire", "truncate", "prose")


def tasks() -> list[tuple[str, str, Path]]:
    out = []
    for d in sorted(p.name for p in (DEMO / "programs").iterdir()):
        ks = (1, 2, 3, 4) if d in HELD_OUT else (4,)
        out += [(f"{d}-{k}", d, DEMO / "programs" / d / f"{d}-{k}.json") for k in ks]
    return out


def canvas(flow: list[dict]) -> list[int]:
    return [i for i, n in enumerate(flow) if n.get("type") != "tab" and "z" in n]


def wrong(flow: list[dict], kind: str, rng: random.Random) -> str:
    """The reference with one error of ``kind``, as model text."""
    f = json.loads(json.dumps(flow))
    nodes = canvas(f)
    if kind == "drop node" and len(nodes) > 1:
        gone = f.pop(rng.choice(nodes))["id"]
        for n in f:
            if isinstance(n.get("wires"), list):
                n["wires"] = [[w for w in port if w != gone] for port in n["wires"]]
    elif kind == "change value":
        n = f[rng.choice(nodes)]
        keys = [k for k, v in n.items() if isinstance(v, str) and k not in ("id", "type", "z", "wires")]
        n[rng.choice(keys) if keys else "name"] = "changed"
    elif kind == "drop wire":
        wired = [n for n in f if any(n.get("wires") or [])]
        if wired:
            n = rng.choice(wired)
            n["wires"] = [port[1:] if port else port for port in n["wires"]]
    elif kind == "truncate":
        text = json.dumps(f)
        return text[: int(len(text) * rng.uniform(0.4, 0.8))]
    elif kind == "prose":
        return "Sorry, I am not able to write a Node-RED flow for this task."
    return json.dumps(f)


def attempts_for(system: str, tid: str, ref: list[dict]) -> list[str]:
    p_perfect = SYSTEMS[system][0]
    rng = random.Random(f"{system}/{tid}")
    out = []
    demo_text = DEMO / "generated" / f"{tid}.txt"
    for k in range(ATTEMPTS):
        if k == 0 and system == "gpt2-medium" and demo_text.exists():
            out.append(demo_text.read_text())
        elif rng.random() < p_perfect:
            out.append(json.dumps(ref))
        else:
            out.append(wrong(ref, rng.choice(ERRORS), rng))
    return out


def write_layout() -> None:
    """``curriculum/<domain>/`` (the demo experiment's curriculum programs) and ``tasks/`` (the task
    references), copied byte for byte from ``../programs``; stale files are removed first."""
    for name in ("curriculum", "tasks"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    for c in DEMO_EXP["curriculum"]:
        folder = HERE / "curriculum" / c["domain"]
        folder.mkdir(parents=True)
        for p in c["programs"]:
            shutil.copyfile(DEMO / p, folder / Path(p).name)
    (HERE / "tasks").mkdir()
    for _tid, _d, path in tasks():
        shutil.copyfile(path, HERE / "tasks" / path.name)


def main() -> None:
    (HERE / "outputs").mkdir(exist_ok=True)
    write_layout()
    entries = []
    for system, (_p, factor, compute) in SYSTEMS.items():
        lines = []
        for tid, _d, path in tasks():
            ref = json.loads(path.read_text())["flow"]
            lines.append(json.dumps({"task_id": tid, "outputs": attempts_for(system, tid, ref)}))
        jsonl = HERE / "outputs" / f"{system}.jsonl"
        jsonl.write_text("\n".join(lines) + "\n")
        outputs = read_outputs(jsonl)
        exp = {
            "format": "gindex-studio.experiment/2",
            "name": f"Demo study: {system}",
            "system": system,
            "profile": "paper",
            "priors": DEMO_EXP["priors"],
            "compute": {"total": compute},
            "curriculum": [
                {"domain": c["domain"], "programs": [f"../{p}" for p in c["programs"]],
                 "samples": int(round(c["samples"] * factor))} for c in DEMO_EXP["curriculum"]],
            "tasks": [{"id": tid, "domain": d, "reference": f"../programs/{d}/{path.name}",
                       "generated": [{"text": t} for t in outputs[tid]]} for tid, d, path in tasks()],
        }
        (HERE / f"{system}.json").write_text(json.dumps(exp, indent=1) + "\n")
        entries.append(f"{system}.json")
    study = {"format": "gindex-studio.study/1", "name": "Demo study: three GPT-2 sizes", "experiments": entries}
    (HERE / "study.json").write_text(json.dumps(study, indent=2) + "\n")
    print("ok", len(SYSTEMS), "systems,", len(tasks()), "tasks,", ATTEMPTS, "attempts")


if __name__ == "__main__":
    main()
