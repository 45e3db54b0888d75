"""gindex-studio: measure general machine intelligence with the g-index."""
__version__ = "0.1.0"
