"""Which exact search this installation runs, in one sentence (for ``gindex-studio --version``):
``native.describe``, under the name the CLI and the help window import."""
from __future__ import annotations

from gindex_studio.core.native import describe as search_in_use

__all__ = ["search_in_use"]
