"""Build steps that pyproject.toml cannot declare (everything else is there):

- the optional native searches ``gindex_studio.core.native._mcsplit`` and
  ``gindex_studio.core.native._flatsearch`` (the flatland profile's), behind the package
  ``gindex_studio.core.native``;
- the repository's top-level ``resources/`` folder copied into the built package as
  ``gindex_studio/resources`` (package data, found by ``gindex_studio.paths``). An editable install
  gets no copy: ``gindex_studio.paths`` falls back to the checkout's ``resources/``.

The extension is optional: when it cannot be compiled (no C compiler, no Python headers), the
build says so and installation carries on; ``gindex_studio.core.native`` then reports no C search and
the callers use their pure-Python searches, which gives the same results, only slower.
"""
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

RESOURCES = Path(__file__).resolve().parent / "resources"
PACKAGED_RESOURCES = ("gindex_studio", "resources")  # where the copy goes inside the package


class OptionalBuildExt(build_ext):
    """build_ext that never fails the installation because of the optional extension."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 - a missing compiler raises several kinds
            self._skip(e)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001
            self._skip(e)

    def _skip(self, e):
        print(f"warning: the native search extension was not built ({e}); the pure-Python search will be used")


class BuildPyWithResources(build_py):
    """build_py that also copies ``resources/`` into the package (not in editable mode)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not RESOURCES.is_dir():
            raise SystemExit(f"error: {RESOURCES} is missing; the package cannot be built without its resources")
        target = Path(self.build_lib, *PACKAGED_RESOURCES)
        if target.exists():
            shutil.rmtree(target)  # a stale copy from an earlier build
        shutil.copytree(RESOURCES, target, ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        target = Path(self.build_lib, *PACKAGED_RESOURCES)
        return outputs + [str(p) for p in target.rglob("*") if p.is_file()] if target.is_dir() else outputs


NATIVE = "gindex_studio/core/native"
# the plain C core (no Python object) and the binding helpers both extensions share
SHARED = ["stop.c", "bind.c"]
HEADERS = [f"{NATIVE}/{h}" for h in ("core.h", "bind.h", "kernels.h")]

setup(
    ext_modules=[
        Extension(
            "gindex_studio.core.native._mcsplit",
            # one extension from several files by concern: core.h declares the plain C core, kernels.h
            # the Python-value kernels (py_*.c), mcsplit_module.c is the binding
            sources=[f"{NATIVE}/{f}" for f in SHARED + [
                "graph.c", "weight_rows.c", "mcsplit_search.c", "mcsplit_clique.c",
                "py_weights.c", "py_flow_graph.c", "py_signatures.c", "py_companion_delta.c", "mcsplit_module.c"]],
            depends=HEADERS,
            optional=True,
        ),
        Extension(
            "gindex_studio.core.native._flatsearch",
            sources=[f"{NATIVE}/{f}" for f in SHARED + ["flatsearch.c", "flatsearch_module.c"]],
            depends=HEADERS,
            optional=True,
        ),
    ],
    cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithResources},
)
