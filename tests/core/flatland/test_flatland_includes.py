"""``#include`` reads only the library folders, and a program the user opened also its own folder
(issue 26 item 2): a generated program cannot read the user's files, and no error shows what a
file outside those places holds."""
from __future__ import annotations

import os

import pytest

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.files import read_generated_file, read_generated_text
from gindex_studio.core.flatland.resolve import load_file, load_text

SECRET = "x(start) -> a(move HUNTER2PASSWORD 0)\na -> x(end)\n"
USES_X = 'p(start) -> s(x)\ns -> p(end)\n{} -> p()\n'


@pytest.fixture
def secret(tmp_path):
    """A user's file outside every allowed folder, and a folder for the programs beside it."""
    (tmp_path / "private").mkdir()
    path = tmp_path / "private" / "secret.fbp"
    path.write_text(SECRET)
    (tmp_path / "work").mkdir()
    return path


def _includes(secret):
    work = secret.parent.parent / "work"
    return [str(secret), "../private/secret.fbp", "./../private/secret.fbp", "sub/../../private/secret.fbp",
            os.path.relpath(secret, work)]


def test_a_generated_program_cannot_include_any_file_outside_the_library(secret):
    for name in _includes(secret) + ["secret.fbp"]:
        g = read_generated_text(f'#include "{name}"\n' + USES_X)
        assert g.syntax is not None and "HUNTER2PASSWORD" not in g.syntax.message
        assert g.syntax.line == 1 and name in g.syntax.message  # the include as written


def test_a_generated_file_does_not_read_its_own_folder(secret):
    gen = secret.parent / "gen.fbp"  # beside the secret: a reference could include it, a generated program not
    gen.write_text('#include "secret.fbp"\n' + USES_X)
    g = read_generated_file(gen)
    assert "not found in the library folders" in g.syntax.message and "HUNTER2PASSWORD" not in g.syntax.message
    with pytest.raises(FlatlandError, match="HUNTER2PASSWORD"):  # the user's own program may use its folder
        load_file(gen)


@pytest.mark.parametrize("i", range(5))
def test_a_reference_cannot_escape_its_folder(secret, i):
    ref = secret.parent.parent / "work" / "ref.fbp"
    name = _includes(secret)[i]
    ref.write_text(f'#include "{name}"\n' + USES_X)
    with pytest.raises(FlatlandError) as info:
        load_file(ref)
    assert "HUNTER2PASSWORD" not in str(info.value) and name in str(info.value)
    assert (info.value.file, info.value.line) == (str(ref), 1)


def test_symlinks_are_resolved_and_checked(secret, tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "evil.fbp").symlink_to(secret)
    (lib / "good.fbp").symlink_to(lib / "real.fbp")
    (lib / "real.fbp").write_text("x(start) -> a(move 3 0)\na -> x(end)\n")
    (lib / "loop.fbp").symlink_to(lib / "loop.fbp")
    g = read_generated_text('#include "evil.fbp"\n' + USES_X, library=lib)
    assert "a link to a file outside" in g.syntax.message and "HUNTER2PASSWORD" not in g.syntax.message
    ref = secret.parent.parent / "work" / "ref.fbp"
    (ref.parent / "evil.fbp").symlink_to(secret)
    ref.write_text('#include "evil.fbp"\n' + USES_X)
    with pytest.raises(FlatlandError, match="a link to a file outside") as info:
        load_file(ref, lib)
    assert "HUNTER2PASSWORD" not in str(info.value)
    assert read_generated_text('#include "good.fbp"\n' + USES_X, library=lib).syntax is None
    with pytest.raises(FlatlandError, match="not found"):
        load_text('#include "loop.fbp"\n' + USES_X, library=lib)


def test_library_folders_are_searched(tmp_path, monkeypatch):
    user = tmp_path / "user-lib"
    (user / "shapes").mkdir(parents=True)
    (user / "shapes" / "x.fbp").write_text("x(start) -> a(move 7 0)\na -> x(end)\n")
    monkeypatch.setenv("GINDEX_LIBRARY_PATH", str(user))
    g = read_generated_text('#include "shapes/x.fbp"\n#include "circle.fbp"\n' + USES_X)
    assert g.syntax is None and g.program.nodes["s/a"].params["dist"] == 7
