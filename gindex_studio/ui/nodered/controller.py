"""What the Run menu's and the compare window's Node-RED controllers share: a
:class:`RuntimeWorker` on a thread of its own, started on first use, its progress on the window's
status bar, and the question asked when no sandbox can be made here."""
from __future__ import annotations

from PySide6.QtCore import QThread

from gindex_studio.ui.nodered.worker import RuntimeWorker, StopsRuntime


class RuntimeController(StopsRuntime):
    """A mixin for a QObject with a ``window``, a ``_stop`` signal, ``_failed(message)`` and
    ``_again()`` (what to run again once the user allows running without the sandbox)."""

    def _own_worker(self, factory, thread_name: str) -> None:
        """``worker``, a :class:`RuntimeWorker` of ``factory`` moved to ``thread`` (named
        ``thread_name``, started by ``_start``); its failures, progress and missing sandbox come
        to ``_failed``, ``_progress`` and ``_no_sandbox``; ``_stop`` stops it."""
        self.thread = QThread()
        self.thread.setObjectName(thread_name)
        self.worker = RuntimeWorker(factory)
        self.worker.moveToThread(self.thread)
        self._stop.connect(self.worker.stop)
        self.worker.failed.connect(self._failed)
        self.worker.progress.connect(self._progress)
        self.worker.no_sandbox.connect(self._no_sandbox)
        self.running = False  # the thread starts on first use

    def _start(self) -> None:
        if not self.running:
            self.running = True
            self.thread.start()

    def _progress(self, text: str) -> None:
        self.window.statusBar().showMessage(f"Node-RED: {text}", 5000)

    def _no_sandbox(self, why: str) -> None:
        """No sandbox here: ask (once per session) before running again without it."""
        from gindex_studio.ui.nodered.consent import allow_unsandboxed

        if allow_unsandboxed(self.window, why):
            self.worker.sandboxed = False
            self._again()
        else:
            self._failed(f"not run: {why}")
