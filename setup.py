"""Build of the optional native search ``gindex_studio.core._mcsplit`` (everything else is in
pyproject.toml).

The extension is optional: when it cannot be compiled (no C compiler, no Python headers), the
build says so and installation carries on; ``gindex_studio.core.matching`` then uses its
pure-Python search, which gives the same results, only slower.
"""
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


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


setup(
    ext_modules=[
        Extension(
            "gindex_studio.core._mcsplit",
            sources=["gindex_studio/core/_mcsplit.c"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
