"""Option values that cannot be meant (issue 26.9): a usage error (exit 2) naming the option and
its allowed range, before any work: the usage, then one error line."""
from __future__ import annotations

import pytest

from gindex_studio.paths import DEMO_DIR

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)

BIG = str(10**400)
STUDY = DEMO_DIR / "study" / "study.json"
SHOWN_BIG = "100000000000…(401 characters)"
SEEDS = "must be an integer from 0 to 4,294,967,295"


@pytest.mark.parametrize("args, line", [
    (["omega", "--curriculum", DEMO_DIR / "programs", "--tasks", DEMO_DIR / "programs" / "http",
      "--dask-workers", BIG],
     f"gindex-studio omega: error: argument --dask-workers: must be an integer from 1 to 256, got {SHOWN_BIG}"),
    (["gindex", DEMO_DIR / "experiment.json", "--dask-workers", "1000"],
     "gindex-studio gindex: error: argument --dask-workers: must be an integer from 1 to 256, got 1000"),
    (["gindex", DEMO_DIR / "experiment.json", "--workers", BIG],
     f"gindex-studio gindex: error: argument --workers: must be an integer from 1 to 256, got {SHOWN_BIG}"),
    (["report", STUDY, "--json", "--resamples", "100000000"],
     "gindex-studio report: error: argument --resamples: must be an integer from 100 to 100,000, got 100000000"),
    (["report", STUDY, "--json", "--resamples", "50"],
     "gindex-studio report: error: argument --resamples: must be an integer from 100 to 100,000, got 50"),
    (["report", STUDY, "--json", "--seed", BIG], f"gindex-studio report: error: argument --seed: {SEEDS}, got {SHOWN_BIG}"),
    (["report", STUDY, "--json", "--seed", "-1"], f"gindex-studio report: error: argument --seed: {SEEDS}, got -1"),
    (["report", STUDY, "--json", "--seed", "x"], f"gindex-studio report: error: argument --seed: {SEEDS}, got 'x'"),
    (["report", STUDY, "--json", "-k", BIG],
     f"gindex-studio report: error: argument -k: must be an integer from 1 to 10,000, got {SHOWN_BIG}"),
    (["flatland", "augment", "car.fbp", "-o", "out", "--seed", "-1"],
     f"gindex-studio flatland augment: error: argument --seed: {SEEDS}, got -1"),
    (["flatland", "augment", "car.fbp", "-o", "out", "-n", BIG],
     f"gindex-studio flatland augment: error: argument -n/--num-samples: must be an integer from 1 to 100,000, "
     f"got {SHOWN_BIG}"),
    (["flatland", "dataset", "-o", "out", "--per-domain", "0"],
     "gindex-studio flatland dataset: error: argument --per-domain: must be an integer from 1 to 100,000, got 0"),
])
def test_an_impossible_option_is_a_usage_error_naming_it_and_its_range(tmp_path, args, line):
    code, out, err = run(*args, cwd=tmp_path)  # timeout 120 s: --dask-workers 10**400 ran 22 s into a MemoryError
    assert code == 2 and out == "" and list(tmp_path.iterdir()) == []
    lines = err.strip().splitlines()
    assert lines[0].startswith("usage: gindex-studio ") and lines[-1] == line and "Traceback" not in err


@pytest.mark.slow
def test_the_seed_range_still_takes_its_ends():
    for seed in ("0", str(2**32 - 1)):
        code, out, err = run("report", DEMO_DIR / "experiment.json", "--json", "--resamples", "100", "--seed", seed,
                             "--workers", "1")
        assert code == 0 and f'"seed": {seed}' in out, err
