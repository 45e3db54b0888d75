"""The inject node's Repeat as Node-RED's editor shows it: none, an interval, an interval between
two times, or at a time on chosen days, written to the node's ``repeat`` (seconds) and
``crontab`` (a cron line) attributes.

``parse_repeat(repeat, crontab)`` reads the two attributes into a ``Repeat``; ``Repeat.attributes()``
writes them back. A crontab that none of the forms can say is kept as it is and shown as raw cron
text ("cron"), so nothing a flow holds is lost by opening it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QTime, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStackedWidget,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.ui.panels.flush import flush

MODES = ("none", "interval", "between", "time", "cron")
MODE_TEXT = {"none": "none", "interval": "interval", "between": "interval between times",
             "time": "at a specific time", "cron": "cron (as written)"}
UNITS = (("seconds", 1), ("minutes", 60), ("hours", 3600))
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # cron day numbers 1..6, 0


@dataclass
class Repeat:
    """One repeat setting. ``every``/``unit`` for intervals (``every`` minutes for "between"),
    ``start``/``end`` hours for "between", ``hour``/``minute`` for "time", ``days`` as cron day
    numbers (0 = Sunday), ``cron`` the raw line for "cron"."""

    mode: str = "none"
    every: int = 1
    unit: str = "seconds"
    start: int = 0
    end: int = 0
    hour: int = 12
    minute: int = 0
    days: tuple = (0, 1, 2, 3, 4, 5, 6)
    cron: str = field(default="")

    def attributes(self) -> dict[str, str]:
        """``{"repeat": seconds or "", "crontab": cron line or ""}`` as Node-RED stores them."""
        # as Node-RED joins its day boxes: Monday (1) first, Sunday (0) last
        days = "*" if len(set(self.days)) == 7 else ",".join(str(d) for d in sorted(set(self.days), key=lambda d: (d + 6) % 7))
        if self.mode == "interval":
            return {"repeat": str(self.every * dict(UNITS)[self.unit]), "crontab": ""}
        if self.mode == "between":
            hours = f"{self.start}-{max(self.start, self.end - 1)}" if self.end > self.start else str(self.start)
            return {"repeat": "", "crontab": f"*/{self.every} {hours} * * {days}"}
        if self.mode == "time":
            return {"repeat": "", "crontab": f"{self.minute:02d} {self.hour:02d} * * {days}"}
        if self.mode == "cron":
            return {"repeat": "", "crontab": self.cron}
        return {"repeat": "", "crontab": ""}


def _days(text: str) -> tuple | None:
    if text == "*":
        return tuple(range(7))
    try:
        out = []
        for part in text.split(","):
            a, _, b = part.partition("-")
            out.extend(range(int(a), int(b or a) + 1))
    except ValueError:
        return None
    days = tuple(sorted({d % 7 for d in out}))
    return days if all(0 <= d <= 7 for d in out) else None


def parse_repeat(repeat, crontab) -> Repeat:
    """Read ``repeat`` (seconds, a string or number) and ``crontab`` into a Repeat.

    >>> parse_repeat("300", "").mode, parse_repeat("300", "").every, parse_repeat("300", "").unit
    ('interval', 5, 'minutes')
    >>> r = parse_repeat("", "30 07 * * 1,2,3,4,5"); (r.mode, r.hour, r.minute, r.days)
    ('time', 7, 30, (1, 2, 3, 4, 5))
    >>> parse_repeat("", "*/5 9-16 * * *").attributes()
    {'repeat': '', 'crontab': '*/5 9-16 * * *'}
    >>> parse_repeat("", "0 0 1 * *").mode
    'cron'
    """
    cron = (crontab or "").strip() if isinstance(crontab, str) else ""
    if cron:
        parts = cron.split()
        if len(parts) == 5 and parts[2:4] == ["*", "*"]:
            days = _days(parts[4])
            m = re.fullmatch(r"\*/(\d+)", parts[0])
            h = re.fullmatch(r"(\d+)(?:-(\d+))?", parts[1])
            if days is not None and m and h:
                start = int(h.group(1))
                end = int(h.group(2)) + 1 if h.group(2) else start + 1
                if 0 < int(m.group(1)) <= 60 and end <= 24:
                    return Repeat("between", every=int(m.group(1)), unit="minutes", start=start, end=end, days=days)
            if days is not None and parts[0].isdigit() and parts[1].isdigit() and int(parts[0]) < 60 and int(parts[1]) < 24:
                return Repeat("time", hour=int(parts[1]), minute=int(parts[0]), days=days)
        return Repeat("cron", cron=cron)
    try:
        seconds = float(repeat) if repeat not in (None, "") else 0
    except (TypeError, ValueError):
        seconds = 0
    if seconds > 0:
        for unit, size in reversed(UNITS):
            if seconds % size == 0:
                return Repeat("interval", every=int(seconds // size), unit=unit)
        return Repeat("interval", every=max(1, round(seconds)), unit="seconds")
    return Repeat()


class TimeField(QTimeEdit):
    """"HH:mm" where a click selects the hour or minute under the pointer, so typed digits replace
    it (a plain QTimeEdit puts the cursor inside "12" and refuses "09" there)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setDisplayFormat("HH:mm")
        self.lineEdit().installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        handled = super().eventFilter(obj, event)
        if obj is self.lineEdit() and event.type() == QEvent.MouseButtonRelease:
            self.setSelectedSection(self.currentSection())
        return handled


class RepeatField(QWidget):
    """Mode menu and, per mode, its fields; ``committed`` when the user finished a change.
    ``value()`` is the ``Repeat`` shown."""

    committed = Signal()

    def __init__(self, repeat: Repeat, parent=None):
        super().__init__(parent)
        self.mode = QComboBox()
        self.mode.setObjectName("repeat-mode")
        for m in MODES:
            self.mode.addItem(MODE_TEXT[m], m)
        self.pages = QStackedWidget()
        # interval
        self.every = QSpinBox()
        self.every.setObjectName("repeat-every")
        self.every.setRange(1, 100000)
        self.unit = QComboBox()
        self.unit.setObjectName("repeat-unit")
        for u, _s in UNITS:
            self.unit.addItem(u, u)
        interval = self._row(QLabel("every"), self.every, self.unit)
        # between
        self.b_every = QSpinBox()
        self.b_every.setRange(1, 60)
        self.b_start, self.b_end = QSpinBox(), QSpinBox()
        for sp in (self.b_start, self.b_end):
            sp.setRange(0, 24)
            sp.setSuffix(":00")
        self.b_days = self._day_boxes()
        between = QWidget()
        g = QGridLayout(between)
        g.setContentsMargins(0, 0, 0, 0)
        g.addWidget(QLabel("every"), 0, 0)
        g.addWidget(self.b_every, 0, 1)
        g.addWidget(QLabel("minutes"), 0, 2)
        g.addWidget(QLabel("between"), 1, 0)
        g.addWidget(self.b_start, 1, 1)
        g.addWidget(QLabel("and"), 1, 2)
        g.addWidget(self.b_end, 1, 3)
        g.addWidget(self.b_days[0], 2, 0, 1, 4)
        # time
        self.at = TimeField()
        self.at.setObjectName("repeat-at")
        self.t_days = self._day_boxes()
        at = QWidget()
        v = QVBoxLayout(at)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self._row(QLabel("at"), self.at))
        v.addWidget(self.t_days[0])
        # cron
        self.cron = QLineEdit()
        self.cron.setObjectName("repeat-cron")
        self.cron.setPlaceholderText("minute hour day month weekday, e.g. 0 */2 * * *")
        for page in (QWidget(), interval, between, at, self.cron):
            self.pages.addWidget(page)
        flush(QVBoxLayout(self), self.mode, self.pages)
        self.set_value(repeat)
        self.mode.activated.connect(self._mode_picked)
        for sp in (self.every, self.b_every, self.b_start, self.b_end):
            sp.editingFinished.connect(self._edited)
        self.unit.activated.connect(self._edited)
        self.at.editingFinished.connect(self._edited)
        self.cron.editingFinished.connect(self._edited)
        for _w, boxes in (self.b_days, self.t_days):
            for b in boxes:
                b.toggled.connect(self._edited)

    @staticmethod
    def _row(*widgets) -> QWidget:
        w = QWidget()
        h = QHBoxLayout(w)
        h.setContentsMargins(0, 0, 0, 0)
        for x in widgets:
            h.addWidget(x)
        h.addStretch(1)
        return w

    @staticmethod
    def _day_boxes():
        w = QWidget()
        g = QGridLayout(w)
        g.setContentsMargins(0, 0, 0, 0)
        g.setHorizontalSpacing(4)
        boxes = []
        for k, d in enumerate(DAYS):
            b = QCheckBox(d)
            b.setObjectName(f"day:{d}")
            g.addWidget(b, k // 4, k % 4)
            boxes.append(b)
        return w, boxes

    @staticmethod
    def _cron_day(k: int) -> int:
        return (k + 1) % 7  # Mon..Sun → 1..6, 0

    def set_value(self, r: Repeat) -> None:
        widgets = [self.mode, self.every, self.unit, self.b_every, self.b_start, self.b_end, self.at, self.cron,
                   *self.b_days[1], *self.t_days[1]]
        for w in widgets:
            w.blockSignals(True)
        self.mode.setCurrentIndex(MODES.index(r.mode))
        self.pages.setCurrentIndex(MODES.index(r.mode))
        self.every.setValue(r.every if r.mode == "interval" else 1)
        self.unit.setCurrentIndex(max(0, self.unit.findData(r.unit)))
        self.b_every.setValue(r.every if r.mode == "between" else 5)
        self.b_start.setValue(r.start)
        self.b_end.setValue(r.end if r.mode == "between" else 24)
        self.at.setTime(QTime(r.hour, r.minute))
        self.cron.setText(r.cron)
        for _w, boxes in (self.b_days, self.t_days):
            for k, b in enumerate(boxes):
                b.setChecked(self._cron_day(k) in r.days)
        for w in widgets:
            w.blockSignals(False)
        self._last = self.value()

    def value(self) -> Repeat:
        m = self.mode.currentData()
        boxes = self.b_days[1] if m == "between" else self.t_days[1]
        days = tuple(sorted(self._cron_day(k) for k, b in enumerate(boxes) if b.isChecked()))
        if m == "interval":
            return Repeat(m, every=self.every.value(), unit=self.unit.currentData())
        if m == "between":
            return Repeat(m, every=self.b_every.value(), unit="minutes", start=self.b_start.value(),
                          end=self.b_end.value(), days=days or tuple(range(7)))
        if m == "time":
            t = self.at.time()
            return Repeat(m, hour=t.hour(), minute=t.minute(), days=days or tuple(range(7)))
        if m == "cron":
            return Repeat(m, cron=self.cron.text().strip())
        return Repeat()

    def _mode_picked(self, _k: int) -> None:
        self.pages.setCurrentIndex(self.mode.currentIndex())
        self._edited()

    def _edited(self, *_a) -> None:
        v = self.value()
        if v.attributes() != self._last.attributes():
            self._last = v
            self.committed.emit()
