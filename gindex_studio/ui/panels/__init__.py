"""Docked panels: palette, inspector, problems; and the quick-add popup."""
