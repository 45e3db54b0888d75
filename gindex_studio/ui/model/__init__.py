"""Qt-side documents: a QObject per open flow, its signals, and the undo commands that edit it."""
from gindex_studio.ui.model.document import FlowDocument, MISSING

__all__ = ["FlowDocument", "MISSING"]
