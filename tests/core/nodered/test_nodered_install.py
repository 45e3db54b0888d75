"""The Node-RED install cannot be changed by a flow (issue 31, item 3): its tree is recorded when
``npm ci`` completes and checked before every start; extra node modules are plain npm names the
registry knows, installed without their scripts into their own folder."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fake_npm_registry import Registry, serve

ROOT = Path(__file__).resolve().parents[3]


# ----- the record of a tree -------------------------------------------------------------------

def _tree(root: Path) -> Path:
    (root / "node_modules" / "node-red").mkdir(parents=True)
    (root / "node_modules" / "node-red" / "red.js").write_text("console.log('red');\n")
    (root / "node_modules" / "node-red" / "lib.js").write_text("module.exports = 41;\n")
    os.symlink("node-red/red.js", root / "node_modules" / "red-link")
    return root


def test_every_kind_of_change_is_named(tmp_path):
    from gindex_studio.core.nodered import integrity

    root = _tree(tmp_path / "t")
    m = integrity.record(root)
    assert integrity.changes(root, m) == ([], False)
    lib = root / "node_modules" / "node-red" / "lib.js"
    st = os.stat(lib)
    lib.write_text("module.exports = 42;\n")  # same size, and its mtime put back: only its ctime tells
    os.utime(lib, ns=(st.st_atime_ns, st.st_mtime_ns))
    (root / "node_modules" / "evil").mkdir()
    (root / "node_modules" / "evil" / "index.js").write_text("require('child_process')")
    (root / "node_modules" / "node-red" / "red.js").chmod(0o755)
    os.remove(root / "node_modules" / "red-link")
    os.symlink("/etc/passwd", root / "node_modules" / "red-link")
    found, _ = integrity.changes(root, m)
    assert found == [("node_modules/evil", "added"), ("node_modules/evil/index.js", "added"),
                     ("node_modules/node-red/lib.js", "changed"), ("node_modules/node-red/red.js", "mode changed"),
                     ("node_modules/red-link", "changed")]
    shutil.rmtree(root / "node_modules" / "evil")
    lib.unlink()
    lib.mkdir()
    assert integrity.changes(root, m)[0][0] == ("node_modules/node-red/lib.js", "now a folder")
    lib.rmdir()
    assert ("node_modules/node-red/lib.js", "removed") in integrity.changes(root, m)[0]


def test_a_copy_with_the_same_content_is_unchanged_and_checked_cheaply_again(tmp_path):
    """A copied tree (new inodes and ctimes) is hashed once, found equal, and its record refreshed."""
    from gindex_studio.core.nodered import integrity

    root = _tree(tmp_path / "t")
    m = integrity.record(root)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)
    assert integrity.changes(copy, m) == ([], True)
    assert integrity.changes(copy, m) == ([], False)


# ----- the install, checked before each use -----------------------------------------------------

@pytest.fixture
def fake_npm(tmp_path, monkeypatch):
    """``npm`` on PATH is a script that makes a tiny "install" on ``npm ci`` (and logs its calls)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "npm.log"
    (bin_dir / "npm").write_text(f"""#!/bin/sh
echo "$@" >> {log}
[ "$1" = ci ] && mkdir -p node_modules/node-red && echo "// red" > node_modules/node-red/red.js
exit 0
""")
    (bin_dir / "npm").chmod(0o755)
    os.symlink(shutil.which("node"), bin_dir / "node")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return log


@pytest.mark.skipif(not shutil.which("node"), reason="needs Node.js")
def test_a_changed_install_stops_the_next_start_with_one_line(tmp_path, fake_npm):
    from gindex_studio.core.nodered import install
    from gindex_studio.core.nodered.runtime import PrivateRuntime

    home = tmp_path / "home"
    folder = install.ensure_installed(base=home)
    record = install.manifest_path(folder)
    assert record.parent == folder.parent and record.is_file()  # beside the install: no runtime sees it
    assert install.ensure_installed(base=home) == folder
    evil = folder / "node_modules" / "node-red" / "nodes" / "evil.js"
    evil.parent.mkdir()
    evil.write_text("module.exports = function (RED) { require('child_process').execSync('id') }")
    for attempt in (lambda: install.ensure_installed(base=home),
                    lambda: PrivateRuntime.start(base=home, sandboxed=False, timeout=5)):
        with pytest.raises(install.InstallError) as e:
            attempt()
        msg = str(e.value)
        assert "\n" not in msg
        assert msg == (f"the Node-RED install was changed since it was installed (node_modules/node-red/nodes: "
                       f"added and 1 more): remove {folder} and it is installed again at the next start")
    shutil.rmtree(folder)  # the repair the message says
    assert install.ensure_installed(base=home) == folder
    assert fake_npm.read_text().count("ci ") == 2


@pytest.mark.skipif(not shutil.which("node"), reason="needs Node.js")
def test_an_install_without_its_record_is_installed_again(tmp_path, fake_npm):
    from gindex_studio.core.nodered import install

    home = tmp_path / "home"
    folder = install.ensure_installed(base=home)
    install.manifest_path(folder).unlink()  # e.g. an older studio's install, made before records
    (folder / "node_modules" / "planted.js").write_text("x")
    assert not install.is_installed(home)
    assert install.ensure_installed(base=home) == folder
    assert not (folder / "node_modules" / "planted.js").exists()
    assert fake_npm.read_text().count("ci ") == 2
    install.manifest_path(folder).write_text("{not json")
    with pytest.raises(install.InstallError, match="record of the Node-RED install is missing or unreadable"):
        install.ensure_installed(base=home)


@pytest.mark.slow
def test_running_flows_leaves_the_real_install_unchanged(nodered_session, user_nodered):
    """Both runtimes (sandboxed and not) ran from the install: it is still exactly as recorded."""
    from gindex_studio.core.nodered import install
    from gindex_studio.core.nodered.deploy import Session

    flow = json.loads((ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json").read_text())["flow"]
    assert nodered_session.deploy(flow).problems == []
    s = Session(user_nodered)
    try:
        assert s.deploy(flow).problems == []
    finally:
        s.close()
    install.verify(install.install_dir())


# ----- extra node modules: plain registry names only ------------------------------------------

BAD_NAMES = ["../evil", "/etc/passwd", "./node-red-contrib-x", "~/x", "file:../x", "file:/tmp/x.tgz", "link:../x",
             "https://evil.example/x.tgz", "http://127.0.0.1/x", "git+https://github.com/a/b.git",
             "git@github.com:a/b.git", "github:a/b", "a/b", "x.tgz", "x.tar.gz", "node-red-contrib-x@1.0.0",
             "node-red-contrib-x@file:../y", "@scope/x@latest", "@scope/../x", "@../x", "node-red..x", "-g",
             "--global", ".hidden", "_x", "Node-Red-X", "", "x" * 215, "node-red x", "x\n--prefix=/",
             "node_modules", None]


@pytest.fixture
def registry(tmp_path, monkeypatch):
    """A fake npm registry on 127.0.0.1 that npm and the studio use (and an empty npm cache)."""
    reg = Registry()
    with serve(reg):
        monkeypatch.setenv("npm_config_registry", reg.url)
        monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
        monkeypatch.setenv("npm_config_fetch_retries", "0")
        yield reg


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.slow
def test_a_name_that_is_not_a_plain_npm_name_is_refused_before_npm_runs(name, registry, tmp_path):
    from gindex_studio.core.nodered.modules import ModuleError, install_modules

    with pytest.raises(ModuleError) as e:
        install_modules([name], folder=tmp_path / "extra")
    assert "is not installed: " in str(e.value) and "\n" not in str(e.value)
    assert registry.requests == [] and not (tmp_path / "extra").exists()


def test_plain_names_pass():
    from gindex_studio.core.nodered.modules import name_problem

    for ok in ("node-red-node-random", "@flowfuse/node-red-dashboard", "node-red-contrib-a.b_c", "x" * 214):
        assert name_problem(ok) is None, ok
    assert name_problem("x.tgz") and name_problem("Node-RED") == "npm names are lowercase"


@pytest.mark.skipif(not shutil.which("npm"), reason="needs npm")
def test_a_module_the_registry_does_not_know_is_one_line(registry, tmp_path):
    from gindex_studio.core.nodered.modules import ModuleError, install_modules

    with pytest.raises(ModuleError) as e:
        install_modules(["node-red-contrib-no-such-module"], folder=tmp_path / "extra")
    assert str(e.value) == f"the npm registry {registry.url} has no module node-red-contrib-no-such-module"
    assert registry.requests == ["node-red-contrib-no-such-module"]  # asked once, nothing downloaded
    assert not (tmp_path / "extra").exists()


@pytest.mark.skipif(not shutil.which("npm"), reason="needs npm")
def test_unreachable_registry_for_a_module_is_one_clear_line(tmp_path, monkeypatch):
    from gindex_studio.core.nodered.modules import ModuleError, install_modules
    from gindex_studio.core.nodered.runtime import free_port

    url = f"http://127.0.0.1:{free_port()}/"
    monkeypatch.setenv("npm_config_registry", url)
    with pytest.raises(ModuleError) as e:
        install_modules(["node-red-node-random"], folder=tmp_path / "extra")
    msg = str(e.value)
    assert msg.startswith(f"cannot reach the npm registry {url} to look up node-red-node-random (")
    assert "offline" in msg and "\n" not in msg


def test_install_missing_refuses_a_path_the_flow_names(tmp_path, monkeypatch):
    """``run --install-missing`` on a flow whose node names a path as its module: one line, exit 1,
    nothing installed, no Node-RED started."""
    flow = [{"id": "t", "type": "tab"},
            {"id": "n", "type": "evil-node", "z": "t", "module": "file:../../evil", "wires": []}]
    (tmp_path / "f.json").write_text(json.dumps(flow))
    env = dict(os.environ, GINDEX_NODERED_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "run", str(tmp_path / "f.json"), "--install-missing"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == ["gindex-studio: 'file:../../evil' is not installed: only a plain npm "
                                             "package name is installed (name or @scope/name: no version, path, URL, "
                                             "git spec or tarball)"]
    assert not (tmp_path / "home").exists()


NODE_JS = """module.exports = function (RED) {
    const factor = require("@gindex/factor");
    function Double(config) {
        RED.nodes.createNode(this, config);
        this.on("input", (msg, send, done) => { msg.payload = msg.payload * factor; send(msg); done(); });
    }
    RED.nodes.registerType("gindex-double", Double);
};
"""


def _scripts(marker: Path) -> dict:
    """npm scripts that would each write a file named after the script into ``marker``'s folder."""
    return {s: f"node -e \"require('fs').writeFileSync('{marker}-{s}', 'ran')\""
            for s in ("preinstall", "install", "postinstall", "prepare")}


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("npm"), reason="needs npm")
def test_a_module_installs_from_the_registry_without_its_scripts_and_loads(nodered, registry, tmp_path):
    """A registry module (and its scoped dependency), each with install scripts that would write a
    marker file: installed into the extra-nodes folder, no script ran, the Node-RED install is
    unchanged, and a sandboxed runtime loads and runs the module."""
    from gindex_studio.core.nodered import install
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.modules import install_modules, installed_modules, missing_modules
    from gindex_studio.core.nodered.runtime import PrivateRuntime

    marker = tmp_path / "marker"
    registry.add({"name": "@gindex/factor", "version": "1.0.0", "main": "index.js", "scripts": _scripts(marker)},
                 {"index.js": "module.exports = 2;\n"})
    registry.add({"name": "node-red-contrib-gindex-double", "version": "1.0.0", "scripts": _scripts(marker),
                  "dependencies": {"@gindex/factor": "1.0.0"}, "node-red": {"nodes": {"double": "double.js"}}},
                 {"double.js": NODE_JS,
                  "double.html": '<script type="text/javascript">RED.nodes.registerType("gindex-double", '
                                 '{category: "function", defaults: {}, inputs: 1, outputs: 1});</script>'})
    flow = [{"id": "t", "type": "tab"},
            {"id": "i", "type": "inject", "z": "t", "payload": "21", "payloadType": "num", "wires": [["d"]]},
            {"id": "d", "type": "gindex-double", "z": "t", "module": "node-red-contrib-gindex-double", "wires": [["o"]]},
            {"id": "o", "type": "debug", "z": "t", "active": True, "tosidebar": True, "complete": "false", "wires": []},
            {"id": "tg", "type": "telegram sender", "z": "t", "module": "node-red-contrib-telegrambot", "wires": []}]
    extra = tmp_path / "extra"
    # the telegram node needs the network: installing its module would not let it run here
    assert missing_modules(flow, nodered.node_types(), extra) == ["node-red-contrib-gindex-double"]
    install_modules(["node-red-contrib-gindex-double"], folder=extra)
    assert registry.requests[0] == "node-red-contrib-gindex-double"  # looked up before npm ran
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("marker")) == []
    assert installed_modules(extra) == {"node-red-contrib-gindex-double"}
    assert (extra / "node_modules" / "@gindex" / "factor" / "index.js").is_file()
    install.verify(install.install_dir())
    assert missing_modules(flow, nodered.node_types(), extra) == []
    with PrivateRuntime.start(timeout=120, extra_nodes=extra) as rt:
        s = Session(rt)
        try:
            assert "gindex-double" in s.types
            result = s.deploy(flow, quiet_injects=True)
            assert [p.kind for p in result.problems] == ["needs-network"]
            pos = s.comms.position
            s.fire_inject("i")
            s.comms.wait_quiet(pos, 0.3, 5.0)
            assert [e.value for e in s.debug_messages(pos)] == [42]
        finally:
            s.close()
    assert not any(p.name.startswith("marker") for p in tmp_path.iterdir())

