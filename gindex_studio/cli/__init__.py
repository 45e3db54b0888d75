"""``gindex-studio``: the command line, one module per command (:mod:`gindex_studio.cli.dispatch`
builds the parser and dispatches). The ``gindex-studio`` script calls :func:`main`."""


def main(argv=None) -> int:
    """Run ``gindex-studio`` with *argv* (default: ``sys.argv[1:]``); returns the exit status."""
    from gindex_studio.cli.dispatch import main as _main

    return _main(argv)
