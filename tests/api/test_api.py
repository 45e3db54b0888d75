"""``import gindex_studio as gs``: the library entry points agree with the core on every input form."""
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import gindex_studio as gs
from gindex_studio.core.benchmark.curriculum import Curriculum, overall
from gindex_studio.core.benchmark.curriculum_files import read_curriculum_folder
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score as core_score
from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.flows.flow import read_flow_file
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.core.flows.lenient import read_model_output
from gindex_studio.paths import DEMO_DIR

REF = DEMO_DIR / "programs" / "telegram-2-reply" / "telegram-2-reply-4.json"
GEN = DEMO_DIR / "generated" / "telegram-2-reply-4.txt"
TRUNCATED = DEMO_DIR / "generated" / "googlesearch-to-csv-4.txt"


def _core(ref_path, gen_path, **kw):
    read = read_model_output(Path(gen_path).read_bytes())
    return core_score(read_flow_file(ref_path), read.flow, ScoreOptions(**kw), syntax=read.syntax)


def test_public_names_are_stable_and_all_resolve():
    assert set(gs.__all__) >= {"score", "omega", "gindex", "read_flow", "load_experiment", "read_curriculum"}
    for name in gs.__all__:
        assert getattr(gs, name) is not None
    with pytest.raises(AttributeError):
        gs.no_such_name  # noqa: B018


@pytest.mark.parametrize("form", ["path", "str-path", "text", "bytes", "nodes", "flow"])
def test_score_takes_every_input_form(form):
    expected = _core(REF, GEN)
    ref_nodes = orjson.loads(REF.read_bytes())
    ref_nodes = ref_nodes["flow"] if isinstance(ref_nodes, dict) else ref_nodes
    gen_text = GEN.read_text()
    forms = {
        "path": (REF, GEN),
        "str-path": (str(REF), str(GEN)),
        "text": (REF.read_text(), gen_text),
        "bytes": (REF.read_bytes(), GEN.read_bytes()),
        "nodes": (ref_nodes, read_model_output(gen_text).flow.to_json_value()),
        "flow": (read_flow_file(REF), read_model_output(gen_text).flow),
    }
    ref, gen = forms[form]
    got = gs.score(ref, gen)
    assert got.delta == expected.delta and got.s_exact == expected.s_exact
    assert [(p.reference, p.generated) for p in got.mapping] == [(p.reference, p.generated) for p in expected.mapping]


def test_score_reads_generated_text_leniently_and_reports_the_syntax_error():
    ref = DEMO_DIR / "programs" / "googlesearch-to-csv" / "googlesearch-to-csv-4.json"
    got = gs.score(ref, TRUNCATED)
    expected = _core(ref, TRUNCATED)
    assert got.errors == expected.errors and got.errors["syntax"]
    assert got.delta == expected.delta


def test_score_options_as_keywords_or_object_not_both():
    a = gs.score(REF, GEN, profile="companion", port_aware=True)
    b = gs.score(REF, GEN, options=ScoreOptions(profile="companion", port_aware=True))
    assert a.delta == b.delta == _core(REF, GEN, profile="companion", port_aware=True).delta
    with pytest.raises(TypeError):
        gs.score(REF, GEN, options=ScoreOptions(), profile="paper")
    with pytest.raises(ValueError, match="unknown profile"):
        gs.score(REF, GEN, profile="nonsense")


def test_reference_is_read_strictly():
    with pytest.raises(gs.FlowError, match="not valid JSON"):
        gs.score(TRUNCATED, GEN)
    with pytest.raises(gs.FlowError, match="no such file"):
        gs.read_flow("no/such/file.json")
    with pytest.raises(TypeError):
        gs.read_flow(42)


def test_results_are_plain_data():
    for result in (gs.score(REF, GEN), gs.omega(REF, DEMO_DIR / "programs" / "telegram-2-reply")):
        assert orjson.loads(orjson.dumps(result.to_dict())) == result.to_dict()


def test_omega_equals_the_core_on_the_demo_curriculum():
    root = DEMO_DIR / "programs"
    flows, domains, labels = read_curriculum_folder(root)
    cur = Curriculum.from_flows(flows, domains, labels)
    task = DEMO_DIR / "programs" / "youtube-resume" / "youtube-resume-4.json"
    expected = overall(cur.nearest_by_domain(prepare(read_flow_file(task))))
    for curriculum in (root, str(root), cur):
        got = gs.omega(task, curriculum)
        assert got.omega == expected.omega == 0.0  # the task itself is in that folder
        assert got.nearest == labels[expected.index]
        assert set(got.domains) == set(domains)


def test_omega_from_a_dict_of_domains_uses_its_labels_and_options():
    prog = [{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}]
    near = [{"id": "a", "type": "inject", "topic": "t", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}]
    got = gs.omega(prog, {"d": [near]})
    assert got.nearest == "d/0" and got.exact
    assert got.omega == _core_delta(prog, near)
    assert gs.omega(prog, {"d": [near]}, ignore_types={"debug"}).omega == _core_delta(
        prog, near, ScoreOptions(ignore_types=frozenset({"debug"})))


def _core_delta(a, b, opts=ScoreOptions()):
    return core_score(gs.read_flow(a), gs.read_flow(b), opts).delta


def test_gindex_of_the_demo_equals_the_core_for_path_object_and_value():
    path = DEMO_DIR / "experiment.json"
    expected = compute_gindex(load_experiment(path), workers=1).g_index
    assert gs.gindex(path).g_index == expected
    assert gs.gindex(gs.load_experiment(path)).g_index == expected
    value = orjson.loads(path.read_bytes())
    cwd = os.getcwd()
    os.chdir(DEMO_DIR)
    try:
        assert gs.gindex(value).g_index == expected
    finally:
        os.chdir(cwd)
    assert gs.gindex(path, profile="companion").to_dict()["g_index"] != expected


def test_core_and_library_import_without_qt():
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None  # any import of Qt now fails\n"
        "import pkgutil, importlib, gindex_studio as gs, gindex_studio.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'gindex_studio.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "import gindex_studio.api, gindex_studio.cli\n"
        "print(gs.score([{'id': 'a', 'type': 'debug'}], '[]').delta)\n"
        "assert not any(k.startswith('PySide6.') for k in sys.modules), 'Qt was imported'\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=Path(gs.__file__).parent.parent)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "1.0"


def test_without_qt_the_command_line_scores_and_the_window_says_how_to_install_it():
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"
        "from gindex_studio.cli import main\n"
        "assert main(['library']) == 0\n"
        "sys.exit(main(['gui']))\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                       cwd=Path(gs.__file__).parent.parent)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        p.stderr.strip()] and "pip install 'gindex-studio[gui]'" in p.stderr
