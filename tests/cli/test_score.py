"""``gindex-studio score``, driven through a subprocess as a user would, bad input included."""
import json

from cli_run import run, write, REF  # tests/cli is on sys.path (rootdir-relative test modules)


def test_score_json_shape_and_values(tmp_path):
    ref = write(tmp_path, "ref.json", REF)
    gen = write(tmp_path, "gen.json", [{"id": "a", "type": "inject", "topic": "t", "payload": "1", "wires": [["b"]]},
                                       {"id": "b", "type": "debug", "wires": []}])
    code, out, err = run("score", ref, gen, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["delta"] == 0.4375 and data["theta"] == 0.5625 and data["exact"] is True
    assert data["errors"]["syntax"] is None
    assert any(m["reference"] == "i" and m["generated"] == "a" and m["w"] == 0.5 for m in data["mapping"])
    code, out, _ = run("score", ref, gen, "--json", "--profile", "companion")
    assert json.loads(out)["delta"] == 0.0


def test_score_text_output_and_broken_model_text(tmp_path):
    ref = write(tmp_path, "ref.json", REF)
    gen = write(tmp_path, "gen.txt", "Here you go:\n```json\n" + json.dumps(REF)[:40])
    code, out, err = run("score", ref, gen)
    assert code == 0, err
    assert "Δ = " in out and "syntax: line" in out


def test_broken_reference_is_bad_input(tmp_path):
    ref = write(tmp_path, "ref.json", "[{\"id\": ")
    code, _out, err = run("score", ref, ref)
    assert code == 1 and "not valid JSON" in err and len(err.strip().splitlines()) == 1
