"""Flatland in the studio: opening and saving programs, the Drawing dock, the Flatland compare
window, Augment… and New Flatland Dataset… (``FlatlandFeature`` adds them to the main window)."""
