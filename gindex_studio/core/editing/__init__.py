"""Qt-free editing logic the UI drives: layout, search, find, clipboard, task metadata."""
