"""``gindex-studio omega``, driven through a subprocess as a user would, bad input included."""
import json

from cli_run import run, PROGRAMS  # tests/cli is on sys.path (rootdir-relative test modules)


def test_omega_finds_the_same_domain_nearest(tmp_path):
    code, out, err = run("omega", "--curriculum", PROGRAMS, "--tasks", PROGRAMS / "http" / "http-4.json", "--json",
                         "--workers", "1")
    assert code == 0, err
    task = json.loads(out)["tasks"][0]
    assert task["omega"] == 0.0 and task["nearest"] == "http/http-4.json"
    assert task["domains"]["twitter"]["omega"] > 0.5
