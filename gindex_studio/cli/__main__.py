"""``python -m gindex_studio.cli``: the same as the ``gindex-studio`` command."""
import sys

from gindex_studio.cli.dispatch import main

sys.exit(main())
