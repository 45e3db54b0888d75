"""A companion experiment's domain names are folders inside ``--domains`` (issue 36, item 15):
``../../x`` was read from outside it."""
import json
from pathlib import Path

import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.paths import DEMO_DIR

PROGRAM = Path(DEMO_DIR) / "programs/http/http-1.json"


@pytest.mark.parametrize("name", ["../outside", "../../x", "..", ".", "a/b", "a\\b"])
def test_a_domain_name_that_leaves_the_domains_folder_is_refused(tmp_path, capsys, name):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "p.json").write_bytes(PROGRAM.read_bytes())  # what ../outside would read
    dom = tmp_path / "sub" / "domains"
    (dom / "http").mkdir(parents=True)
    (dom / "http" / "p.json").write_bytes(PROGRAM.read_bytes())
    exp = {"model": {"name": "m"}, "train_set": {"data": [{"name": name, "num_samples": 4}]},
           "test_set": {"data": [{"name": "http", "num_samples": 2}]}, "train_cost": {"compute": 32},
           "performance": {"divergence": 0.5, "domains": [{"name": "http", "num_samples": 2, "divergence": 0.5}]}}
    (tmp_path / "c.json").write_text(json.dumps(exp))
    assert main(["gindex", str(tmp_path / "c.json"), "--domains", str(dom)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "train_set.data[0].name: must name a folder inside the domains folder" in err, err
