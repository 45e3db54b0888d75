"""``python -m gindex_studio.cli``: the same as the ``gindex-studio`` command."""
import sys

from gindex_studio.cli import main

sys.exit(main())
