"""Test configuration shared by every test: Qt runs offscreen, so a bare `pytest` works headless."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
