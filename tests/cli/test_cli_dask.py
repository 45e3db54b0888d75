"""`--dask-workers` and `--scheduler` on the command line: same numbers as the local pool, one
clear line when the cluster cannot be used."""
import json

import pytest

from gindex_studio.paths import DEMO_DIR

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)

pytest.importorskip("distributed")


@pytest.mark.slow
def test_gindex_on_a_local_dask_cluster_equals_the_local_pool():
    exp = DEMO_DIR / "experiment.json"
    code, local, err = run("gindex", exp, "--json", "--workers", "1")
    assert code == 0, err
    code, remote, err = run("gindex", exp, "--json", "--dask-workers", "2")
    assert code == 0, err
    assert json.loads(remote)["g_index"] == json.loads(local)["g_index"]


def test_an_unreachable_scheduler_is_one_line_and_exit_1():
    code, out, err = run("matrix", DEMO_DIR / "programs" / "facebook" / "facebook-1.json",
                         "--scheduler", "tcp://127.0.0.1:9")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err


def test_zero_dask_workers_is_refused():
    code, _, err = run("omega", "--curriculum", DEMO_DIR / "programs", "--tasks", DEMO_DIR / "programs" / "facebook",
                       "--dask-workers", "0")
    assert code == 2 and "argument --dask-workers: must be an integer from 1 to 256, got 0" in err  # a usage error


@pytest.mark.slow
def test_curate_on_a_local_dask_cluster_gives_the_local_report():
    folder = DEMO_DIR / "programs"
    code, local, err = run("curate", folder, "--json", "--no-cache")
    assert code == 0, err
    code, remote, err = run("curate", folder, "--json", "--no-cache", "--dask-workers", "2")
    assert code == 0, err
    a, b = json.loads(local), json.loads(remote)
    for report in (a, b):  # work counts differ: workers reuse only the values they found themselves
        report.pop("pairs_searched")
        report["duplicates"].pop("pairs_searched")
    assert a == b


@pytest.mark.slow
def test_workers_reading_the_curriculum_files_give_the_local_omega():
    args = ("omega", "--curriculum", DEMO_DIR / "programs", "--tasks", DEMO_DIR / "programs" / "gmail-send", "--json")
    code, local, err = run(*args, "--workers", "1")
    assert code == 0, err
    code, remote, err = run(*args, "--dask-workers", "2", "--workers-read-files")
    assert code == 0, err
    assert [t["omega"] for t in json.loads(remote)["tasks"]] == [t["omega"] for t in json.loads(local)["tasks"]]


def test_workers_read_files_without_a_cluster_is_refused():
    code, _, err = run("gindex", DEMO_DIR / "experiment.json", "--workers-read-files")
    assert code == 1 and err.count("\n") == 1 and "--workers-read-files needs a Dask cluster" in err


def test_a_signal_turns_logging_off_before_its_handler_runs_and_nothing_else_does():
    """Dask's loop thread logs its shutdown as errors the moment the main thread is interrupted:
    logging must already be off when the signal's own handler raises (stop 41's CI saw tornado's
    NameError traceback printed between the two)."""
    import logging
    import signal

    from gindex_studio.cli.cluster import _silenced_by_signals

    seen = []

    def previous(signum, frame):
        seen.append(logging.root.manager.disable)
        raise KeyboardInterrupt

    before_handler = signal.signal(signal.SIGTERM, previous)
    level = logging.root.manager.disable
    try:
        with _silenced_by_signals():  # no signal: logging as it was, the handler back
            assert signal.getsignal(signal.SIGTERM) is not previous
        assert logging.root.manager.disable == level and signal.getsignal(signal.SIGTERM) is previous
        with pytest.raises(KeyboardInterrupt):
            with _silenced_by_signals():
                signal.raise_signal(signal.SIGTERM)
        assert seen == [logging.CRITICAL]
        assert logging.root.manager.disable == logging.CRITICAL  # the process is ending: it stays off
        assert signal.getsignal(signal.SIGTERM) is previous
    finally:
        logging.disable(level)
        signal.signal(signal.SIGTERM, before_handler)
