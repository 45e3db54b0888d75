"""The wheel as a user gets it: built with ``python -m build``, installed into a fresh virtual
environment outside the checkout, run from there.

The venv sees the system site-packages (PySide6 and friends are not downloaded again), and when
the suite itself runs in a virtual environment, that environment's site-packages too (a venv made
inside a venv gets the *base* interpreter's packages only), so the tests check that
``gindex_studio`` is imported from the venv, never from the checkout or an editable install. Skipped only where ``build`` (the PyPA frontend) is not installed; the test
extra installs it, so CI runs these.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("build", reason="python -m build (PyPA build) is not installed")

pytestmark = pytest.mark.packaging

REPO = Path(__file__).resolve().parents[2]
DEMO_PAIR = ("programs/telegram-2-reply/telegram-2-reply-4.json", "generated/telegram-2-reply-4.txt")


def _run(cmd, cwd, env=None, timeout=300) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{cmd} exited {p.returncode}\nstdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}"
    return p


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """``python -m build`` of the checkout: an sdist, and a wheel built from that sdist."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", out, REPO], cwd=REPO, timeout=600)
    return out


def _outer_site_packages() -> list[str]:
    """The site-packages of the virtual environment this suite runs in ([] outside one)."""
    import site

    if sys.prefix == sys.base_prefix:
        return []
    return [d for d in site.getsitepackages() if d.startswith(sys.prefix)]


def _venv(root: Path, wheel: Path) -> Path:
    """A fresh venv at ``root`` with ``wheel`` installed into it (dependencies from the system, and
    from the venv running the suite, if any)."""
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", root], cwd=root.parent)
    py = root / "bin" / "python"
    outer = _outer_site_packages()
    if outer:  # after the nested venv's own site-packages: its wheel still comes first
        (own,) = (d for d in (root / "lib").glob("python*/site-packages"))
        # plain path lines: the outer venv's own .pth files (e.g. an editable gindex-studio) are not run
        (own / "_outer_venv.pth").write_text("".join(f"{d}\n" for d in outer))
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-index", "--no-deps",
          "--ignore-installed", wheel], cwd=root.parent)
    return root


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    return _venv(tmp_path_factory.mktemp("venv") / "env", _wheel(dist))


@pytest.fixture
def user_env(tmp_path) -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH, no GINDEX_PURE_PYTHON (a suite run with it
    must still see the wheel's native search), their own XDG folders (here: tmp)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "GINDEX_PURE_PYTHON"}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               QT_QPA_PLATFORM="offscreen")
    return env


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("gindex_studio-*.whl")
    return wheel


def _installed(venv: Path, user_env, tmp_path) -> dict:
    code = ("import json, gindex_studio, gindex_studio.paths as p; from gindex_studio.core.scoring import matching as m; "
            "print(json.dumps({'file': gindex_studio.__file__, 'resources': str(p.RESOURCES), "
            "'demo': str(p.DEMO_DIR), 'native': m.native_search_available()}))")
    return json.loads(_run([venv / "bin" / "python", "-c", code], cwd=tmp_path, env=user_env).stdout)


@pytest.mark.slow
def test_the_wheel_carries_resources_and_the_native_search(dist):
    names = zipfile.ZipFile(_wheel(dist)).namelist()
    bundled = sorted(str(p.relative_to(REPO / "resources")) for p in (REPO / "resources").rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    packaged = sorted(n.removeprefix("gindex_studio/resources/") for n in names if n.startswith("gindex_studio/resources/"))
    assert packaged == bundled and "library/01-common.json" in packaged and "demo/experiment.json" in packaged
    assert any(n.startswith("gindex_studio/core/native/_mcsplit.") and n.endswith(".so") for n in names)
    assert any(n.startswith("gindex_studio/core/native/_flatsearch.") and n.endswith(".so") for n in names)
    assert not any("__pycache__" in n for n in names)
    (sdist,) = dist.glob("gindex_studio-*.tar.gz")
    members = tarfile.open(sdist).getnames()
    assert any(m.endswith("/resources/library/01-common.json") for m in members)
    # every C file and header of the native searches (two extensions built from several files)
    sources = sorted(p.name for p in (REPO / "gindex_studio/core/native").iterdir() if p.suffix in (".c", ".h"))
    assert {"core.h", "bind.h", "flatsearch.c"} <= set(sources) and len(sources) > 10
    carried = sorted(m.rpartition("/")[2] for m in members if "/gindex_studio/core/native/" in m
                     and m.endswith((".c", ".h")))
    assert carried == sources


@pytest.mark.slow
def test_installed_package_runs_from_the_venv(venv, user_env, tmp_path):
    info = _installed(venv, user_env, tmp_path)
    site = str(venv / "lib")
    assert info["file"].startswith(site), info  # not the checkout, not an editable install
    assert info["resources"].startswith(site) and info["resources"].endswith("gindex_studio/resources")
    assert info["native"] is True


def test_score_on_the_bundled_demo(venv, user_env, tmp_path):
    from gindex_studio.core.scoring.divergence import score
    from gindex_studio.core.flows.flow import read_flow_file, read_user_file
    from gindex_studio.core.flows.lenient import read_model_output
    from gindex_studio.paths import DEMO_DIR

    demo = Path(_installed(venv, user_env, tmp_path)["demo"])
    ref, gen = (demo / p for p in DEMO_PAIR)
    out = json.loads(_run([venv / "bin" / "gindex-studio", "score", ref, gen, "--json"], cwd=tmp_path, env=user_env).stdout)
    expected = score(read_flow_file(DEMO_DIR / DEMO_PAIR[0]), read_model_output(read_user_file(DEMO_DIR / DEMO_PAIR[1])).flow)
    assert out["exact"] is True
    assert (out["delta"], out["s_exact"]) == (expected.delta, expected.s_exact)
    assert 0 < out["delta"] < 1


def test_gindex_on_the_bundled_demo_with_a_process_pool(venv, user_env, tmp_path):
    from gindex_studio.core.benchmark.experiment import load_experiment
    from gindex_studio.core.benchmark.gindex import compute_gindex
    from gindex_studio.paths import DEMO_DIR

    demo = Path(_installed(venv, user_env, tmp_path)["demo"])
    p = _run([venv / "bin" / "gindex-studio", "gindex", demo / "experiment.json", "--json", "--workers", "2"],
             cwd=tmp_path, env=user_env)
    out = json.loads(p.stdout)
    expected = compute_gindex(load_experiment(DEMO_DIR / "experiment.json"), workers=1)
    assert out["g_index"] == expected.g_index
    assert round(out["g_index"], 3) == 7099.722  # the README's figure
    assert len(out["tasks"]) == 16 and all(t["exact"] for t in out["tasks"])


def test_library_lists_the_bundled_node_types(venv, user_env, tmp_path):
    out = json.loads(_run([venv / "bin" / "gindex-studio", "library", "--json"], cwd=tmp_path, env=user_env).stdout)
    types = {t["type"] for t in out["types"]}
    assert len(types) >= 103 and {"inject", "debug", "http request"} <= types


@pytest.mark.slow
def test_the_studio_window_starts_from_the_wheel(venv, user_env, tmp_path):
    """The installed GUI (offscreen here; packaging/check-app.sh runs it on a real X server)."""
    code = (
        "import sys; from PySide6.QtWidgets import QApplication; app = QApplication(sys.argv[:1]); "
        "from gindex_studio.ui.app import MainWindow, demo_program; w = MainWindow(); w.show(); "
        "w.open_files([demo_program()], wait=True); app.processEvents(); "
        "print(len(w.library.types), demo_program(), w.editor.path, len(w.editor.doc.flow.nodes)); w.close()"
    )
    out = _run([venv / "bin" / "python", "-c", code], cwd=tmp_path, env=user_env).stdout.split()
    assert int(out[0]) >= 103
    assert out[1].startswith(str(venv / "lib")) and int(out[3]) > 0
    assert out[2] == "None"  # the bundled demo opens as an untitled copy: Save never writes into site-packages


@pytest.mark.slow
def test_pure_python_search_when_the_extension_is_absent(dist, user_env, tmp_path):
    env_dir = _venv(tmp_path / "env", _wheel(dist))
    (so,) = (env_dir / "lib").rglob("_mcsplit*.so")
    so.unlink()
    info = _installed(env_dir, user_env, tmp_path)
    assert info["native"] is False
    demo = Path(info["demo"])
    out = json.loads(_run([env_dir / "bin" / "gindex-studio", "score", *(demo / p for p in DEMO_PAIR), "--json"],
                          cwd=tmp_path, env=user_env).stdout)
    from gindex_studio.core.scoring.divergence import score
    from gindex_studio.core.flows.flow import read_flow_file, read_user_file
    from gindex_studio.core.flows.lenient import read_model_output
    from gindex_studio.paths import DEMO_DIR

    expected = score(read_flow_file(DEMO_DIR / DEMO_PAIR[0]), read_model_output(read_user_file(DEMO_DIR / DEMO_PAIR[1])).flow)
    assert out["exact"] is True and out["delta"] == expected.delta


def test_desktop_integration_from_the_wheel_launches_the_venv(venv, user_env, tmp_path):
    """``--install-desktop`` of a normal install: the launcher runs that install's script."""
    _run([venv / "bin" / "python", "-m", "gindex_studio", "--install-desktop"], cwd=tmp_path, env=user_env)
    data = Path(user_env["XDG_DATA_HOME"])
    entry = (data / "applications" / "gindex-studio.desktop").read_text()
    assert f"Exec={venv / 'bin' / 'gindex-studio'} %F" in entry.splitlines()
    icon = data / "icons" / "hicolor" / "scalable" / "apps" / "gindex-studio.svg"
    assert icon.read_bytes() == (REPO / "resources" / "icons" / "gindex-studio.svg").read_bytes()
    out = _run([venv / "bin" / "gindex-studio", "--uninstall-desktop"], cwd=tmp_path, env=user_env).stdout
    assert "removed" in out and not icon.exists()


@pytest.mark.slow
def test_the_wheels_studio_on_a_real_x_server(venv, user_env, tmp_path):
    """packaging/x11_check.py on Xvfb: the wheel's ``gindex-studio experiment.json`` (what the file
    manager runs) shows the experiment's compare window, is drawn, carries the icon and quits with
    Ctrl+W, exit status 0. (packaging/check-app.sh runs every scene, on the wheel and the bundle.)"""
    check = [sys.executable, REPO / "packaging" / "x11_check.py", "--name", "wheel", "--only", "experiment",
             "--out", tmp_path / "shots"]
    studio = ["--", venv / "bin" / "gindex-studio"]
    # A machine without an X server or Qt's X libraries cannot run this: pip cannot install Debian
    # packages, so a clean CI machine skips here, naming what to apt-get (packaging/README.md).
    pre = subprocess.run([*check, "--demo", tmp_path, "--preflight", *studio], capture_output=True, text=True,
                         timeout=60, env=user_env)
    if pre.returncode == 2:
        pytest.skip(pre.stderr.strip())
    assert pre.returncode == 0, pre.stdout + pre.stderr
    demo = _installed(venv, user_env, tmp_path)["demo"]
    p = subprocess.run([*check, "--demo", demo, *studio], capture_output=True, text=True, timeout=180, env=user_env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    (res,) = json.loads(p.stdout.strip().splitlines()[-1])["results"]
    assert res["ok"] and res["exit"] == 0 and res["icon"]
    assert res["title"] == "Demo: a fine-tuned GPT-2 on the sixteen domains — Compare — gindex-studio"
    assert Path(res["screenshot"]).is_file() and res["size"][0] >= 800
