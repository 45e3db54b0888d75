"""``gindex-studio matrix``, driven through a subprocess as a user would, bad input included."""
import json

from cli_run import run, write, REF, PROGRAMS  # tests/cli is on sys.path (rootdir-relative test modules)


def test_matrix_in_given_order(tmp_path):
    files = [PROGRAMS / "http" / "http-1.json", PROGRAMS / "twitter" / "twitter-1.json", PROGRAMS / "http" / "http-2.json"]
    code, out, err = run("matrix", *files, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["files"] == [str(f) for f in files]
    m = data["delta"]
    assert [m[i][i] for i in range(3)] == [0.0, 0.0, 0.0] and m[0][1] == m[1][0] and m[0][2] < m[0][1]
    assert data["syntax"] == [None, None, None]


def test_matrix_warns_about_broken_files(tmp_path):
    broken = write(tmp_path, "broken.txt", json.dumps(REF)[:30])
    code, out, err = run("matrix", PROGRAMS / "http" / "http-1.json", broken)
    assert code == 0 and "warning: " in err and "broken.txt" in err and "line 1" in err
