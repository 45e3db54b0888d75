"""A synthetic experiment on disk, for benchmarks and tests of long experiment work.

``write_experiment(folder, tasks=40, programs=1200)`` writes what a user would have: a curriculum
folder (one subfolder of programs per domain), reference files, model outputs in JSONL, and the
experiment built from them by ``build_experiment``. Domains grow from a template program
(``random_flow``); a curriculum program or a task's reference is a ``perturb``-ed copy of its
domain's template, the model output a ``perturb``-ed copy of the reference. Every fifth task comes
from a domain the curriculum has never seen. The first ``leaks`` tasks have as reference a
curriculum program itself, with fresh ids (Ω = 0: the task leaks from training).
"""
from __future__ import annotations

import random
from pathlib import Path

import orjson

from gindex_studio.core.benchmark.experiment import Experiment
from gindex_studio.core.benchmark.experiment_build import BuildSpec, build_experiment
from gindex_studio.core.flows.flow import Flow, flow_from_nodes
from gindex_studio.core.flows.generate import MIDDLE_TYPES, perturb, random_flow


def _dataset_file(flow: Flow, domain: str, prompt: str) -> bytes:
    return orjson.dumps({"name": domain, "text": prompt, "flow": flow.to_json_value()}, option=orjson.OPT_INDENT_2)


def _fresh_ids(flow: Flow, prefix: str) -> Flow:
    """``flow`` with new node ids (the same program to Δ: ids are not compared)."""
    nodes = [dict(n.data) for n in flow.copy().nodes]
    remap = {n["id"]: f"{prefix}{i:04x}" for i, n in enumerate(nodes)}
    for n in nodes:
        n["id"] = remap[n["id"]]
        n["wires"] = [[remap.get(t, t) for t in port] for port in n.get("wires", [])]
    return flow_from_nodes(nodes)


def write_experiment(folder: str | Path, tasks: int = 40, programs: int = 1200, domains: int = 12,
                     sizes: tuple[int, int] = (6, 30), leaks: int = 1, seed: int = 0,
                     profile=None) -> Experiment:
    """Write a ``tasks`` × ``programs`` experiment into ``folder`` (``experiment.json`` there) and
    return it loaded. ``sizes``: node counts of the domain templates (inclusive)."""
    root = Path(folder)
    rng = random.Random(seed)
    templates = []
    for d in range(domains):
        palette = rng.sample(MIDDLE_TYPES, 3)
        templates.append((f"domain-{d:02d}", random_flow(rng.randint(*sizes), rng, f"d{d}x", palette=palette)))
    cur_dir = root / "curriculum"
    kept: list[tuple[str, Flow]] = []
    for i in range(programs):
        name, template = templates[i % domains]
        flow = perturb(template, rng, 0.15, prefix=f"c{i}x")
        sub = cur_dir / name
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{name}-{i:05d}.json").write_bytes(_dataset_file(flow, name, f"curriculum program {i}"))
        if len(kept) < leaks:
            kept.append((name, flow))
    ref_dir = root / "tasks"
    ref_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for k in range(tasks):
        if k < len(kept):
            name, source = kept[k]
            ref = _fresh_ids(source, f"t{k}x")
        elif k % 5 == 4:
            name = f"unseen-{k:02d}"
            ref = random_flow(rng.randint(*sizes), rng, f"t{k}x", palette=rng.sample(MIDDLE_TYPES, 3))
        else:
            name, template = templates[k % domains]
            ref = perturb(template, rng, 0.2, prefix=f"t{k}x")
        tid = f"task-{k:03d}"
        (ref_dir / f"{tid}.json").write_bytes(_dataset_file(ref, name, f"task {k} of domain {name}"))
        out = perturb(ref, rng, 0.1, prefix=f"g{k}x")
        lines.append(orjson.dumps({"task_id": tid, "output": out.dumps(indent=False).decode()}))
    outputs = root / "outputs.jsonl"
    outputs.write_bytes(b"\n".join(lines) + b"\n")
    spec = BuildSpec(curriculum=cur_dir, tasks=[ref_dir], outputs=outputs, compute=1e6,
                     name=f"synthetic {tasks} x {programs}", system="synthetic", profile=profile)
    return build_experiment(spec, root / "experiment.json")
