"""``python -m gindex_studio``: the same as the ``gindex-studio`` command."""
import sys

from gindex_studio.cli import main

if __name__ == "__main__":
    sys.exit(main())
