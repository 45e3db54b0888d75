"""What the Qt benchmarks share: running the event loop the way an idle studio does."""
from __future__ import annotations


def pump_until(cond, timeout: float = 60.0, what: str = "no result") -> None:
    """Run the Qt event loop (blocking in Qt, as an idle studio does) until ``cond()`` is true;
    TimeoutError(``what``) after ``timeout`` seconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    if cond():
        return
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(2)
    poll.timeout.connect(lambda: cond() and loop.quit())
    poll.start()
    QTimer.singleShot(int(timeout * 1000), loop.quit)
    loop.exec()
    poll.stop()
    if not cond():
        raise TimeoutError(what)
