"""``gindex-studio``: the command line, one module per command (:mod:`gindex_studio.cli.dispatch`
builds the parser and dispatches). The ``gindex-studio`` script calls :func:`main`."""


def main(argv=None) -> int:
    """Run ``gindex-studio`` with *argv* (default: ``sys.argv[1:]``); returns the exit status.
    Without *argv* this is the process's own command (the ``gindex-studio`` script, ``python -m``):
    from here to the exit a Ctrl-C or SIGTERM outside the work ends the process with its one line
    (``cli.signals``). With *argv* (a caller's process) its signal handlers are left alone."""
    if argv is None:
        from gindex_studio.cli import signals

        signals.answered_again()
        signals.say_and_exit()
    from gindex_studio.cli.dispatch import main as _main

    status = _main(argv)
    if argv is None:
        signals.held_at_exit()
    return status
