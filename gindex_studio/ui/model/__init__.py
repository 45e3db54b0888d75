"""Qt-side documents: a QObject per open flow, its signals, and the undo commands that edit it."""
from .document import FlowDocument, MISSING

__all__ = ["FlowDocument", "MISSING"]
