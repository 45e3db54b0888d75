"""The studio's preferences, kept with QSettings, and the dialog that edits them.

``Preferences.load(settings)`` / ``save(settings)``: theme (system / light / dark), the default
scoring profile and deadline for new compare windows, the Dask scheduler experiments are computed
on (empty: this computer), snap to grid and the grid's visibility, the user's node library
folders (read when the studio starts, before the library loads), the Node-RED that Deploy & run and
Run Probes use (empty: the studio's private one) with its admin token, and the nrlint rules.

The admin token is never written to the settings file: it is kept in the desktop keyring, else in
a file only the user can read beside the settings (core.nodered.token_store); the dialog says
which. A token an older studio left in the settings file is moved there when the settings are
read, and removed from the file.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.nodered.lint import DEFAULT_RULES, RULES
from gindex_studio.core.nodered.token_store import TokenStore
from gindex_studio.core.support import profiles
from gindex_studio.ui.theme import MODES

# the profiles that score Node-RED flows (the compare window's default profile)
PROFILES = tuple(n for n in profiles.names() if profiles.get(n).reads_flow_json)


def _bool(v, default: bool) -> bool:
    if v is None:
        return default
    if isinstance(v, str):
        return v.lower() in ("true", "1", "yes")
    return bool(v)


#: the settings key an older studio kept the token under, in plain text
_PLAIN_TOKEN = "prefs/node_red_token"


def token_store(settings: QSettings) -> TokenStore:
    """Where the Node-RED token of these settings is kept: the desktop keyring, else a private file
    in the settings file's folder (the user's config folder for the studio's own settings)."""
    name = settings.fileName()
    folder = Path(name).parent if name and Path(name).is_absolute() else \
        Path(QStandardPaths.writableLocation(QStandardPaths.AppConfigLocation))
    return TokenStore(folder)


@dataclass
class Preferences:
    theme: str = "system"
    profile: str = field(default_factory=lambda: profiles.default().name)
    deadline: float = 0.0  # seconds; 0 = exact, no deadline
    snap: bool = True
    show_grid: bool = True
    library_folders: list[str] = field(default_factory=list)
    scheduler: str = ""  # a Dask scheduler address (tcp://HOST:PORT); "" = this computer
    node_red_url: str = ""  # a running Node-RED's admin URL; "" = the studio's private runtime
    node_red_token: str = ""  # its admin token (kept by token_store(settings), never in the settings file)
    node_red_trust: bool = False  # run a model's flows there, outside any sandbox (needed to use it)
    lint_rules: list[str] = field(default_factory=lambda: sorted(DEFAULT_RULES))  # nrlint rules on

    @classmethod
    def load(cls, settings: QSettings, store: TokenStore | None = None) -> "Preferences":
        """The preferences in ``settings``, the token from ``store`` (default ``token_store(settings)``);
        a plain token in the settings file (an older studio's) is moved to the store first."""
        store = store or token_store(settings)
        plain = str(settings.value(_PLAIN_TOKEN, "") or "").strip()
        if settings.contains(_PLAIN_TOKEN):
            try:
                if plain and not store.get():
                    store.set(plain)
                settings.remove(_PLAIN_TOKEN)
                settings.sync()
            except OSError:
                pass  # the config folder cannot be written: the token stays where it was, nothing is lost
        d = cls()
        theme = settings.value("prefs/theme", d.theme)
        profile = settings.value("prefs/profile", d.profile)
        try:
            deadline = max(0.0, float(settings.value("prefs/deadline", d.deadline)))
        except (TypeError, ValueError):
            deadline = 0.0
        folders = settings.value("prefs/library_folders", [])
        if isinstance(folders, str):
            folders = [folders]
        rules = settings.value("prefs/lint_rules", None)
        if rules is None:
            rules = d.lint_rules
        elif isinstance(rules, str):
            rules = [rules] if rules else []
        return cls(
            theme=theme if theme in MODES else d.theme,
            profile=profile if profile in PROFILES else d.profile,
            deadline=deadline,
            snap=_bool(settings.value("prefs/snap"), d.snap),
            show_grid=_bool(settings.value("prefs/show_grid"), d.show_grid),
            library_folders=[f for f in (folders or []) if isinstance(f, str) and f],
            scheduler=str(settings.value("prefs/scheduler", "") or "").strip(),
            node_red_url=str(settings.value("prefs/node_red_url", "") or "").strip(),
            node_red_token=store.get(),
            node_red_trust=_bool(settings.value("prefs/node_red_trust"), d.node_red_trust),
            lint_rules=sorted(r for r in (rules or []) if r in RULES),
        )

    def save(self, settings: QSettings, store: TokenStore | None = None) -> None:
        """Write the preferences to ``settings`` and the token to ``store`` (default ``token_store(settings)``)."""
        store = store or token_store(settings)
        if store.get() != self.node_red_token.strip():
            store.set(self.node_red_token)
        settings.setValue("prefs/theme", self.theme)
        settings.setValue("prefs/profile", self.profile)
        settings.setValue("prefs/deadline", self.deadline)
        settings.setValue("prefs/snap", self.snap)
        settings.setValue("prefs/show_grid", self.show_grid)
        settings.setValue("prefs/library_folders", list(self.library_folders))
        settings.setValue("prefs/scheduler", self.scheduler)
        settings.setValue("prefs/node_red_url", self.node_red_url)
        settings.remove(_PLAIN_TOKEN)
        settings.setValue("prefs/node_red_trust", self.node_red_trust)
        # an empty list would read back as "unset" (the default rules): store one empty string instead
        settings.setValue("prefs/lint_rules", list(self.lint_rules) or "")
        settings.sync()


def add_library_folders_to_environment(prefs: Preferences) -> None:
    """Put the preferred library folders on ``$GINDEX_LIBRARY_PATH`` (before the library loads)."""
    have = [p for p in os.environ.get("GINDEX_LIBRARY_PATH", "").split(os.pathsep) if p]
    extra = [f for f in prefs.library_folders if f not in have]
    if extra:
        os.environ["GINDEX_LIBRARY_PATH"] = os.pathsep.join(have + extra)


#: File → Run System…'s fields as last run (``remembered_run``): text fields and whole numbers
RUN_TEXT = ("system", "base_url", "model", "api_key_env", "command", "curriculum", "tasks", "output")
RUN_NUMBERS = ("attempts", "concurrency")


def remembered_run(settings: QSettings) -> dict:
    """The Run System dialog's fields as last accepted (only those stored; never an API key: the
    dialog stores the NAME of the key's variable)."""
    out = {}
    for key in RUN_TEXT:
        v = settings.value(f"run/{key}")
        if isinstance(v, str):
            out[key] = v
    for key in RUN_NUMBERS:
        try:
            out[key] = int(settings.value(f"run/{key}"))
        except (TypeError, ValueError):
            pass
    return out


def remember_run(settings: QSettings, fields: dict) -> None:
    """Keep the Run System dialog's accepted fields (those of ``RUN_TEXT`` and ``RUN_NUMBERS``)."""
    for key in RUN_TEXT + RUN_NUMBERS:
        if key in fields:
            settings.setValue(f"run/{key}", fields[key])
    settings.sync()


class PreferencesDialog(QDialog):
    """Edits a copy of the preferences; ``value()`` after Accept."""

    def __init__(self, prefs: Preferences, parent=None, store: TokenStore | None = None):
        """``store``: where the token will be kept (default: the studio settings' store), said under its field."""
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.setObjectName("preferences")
        self.theme = QComboBox()
        self.theme.setObjectName("pref-theme")
        for mode, text in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")):
            self.theme.addItem(text, mode)
        self.theme.setCurrentIndex(self.theme.findData(prefs.theme))
        self.profile = QComboBox()
        self.profile.setObjectName("pref-profile")
        self.profile.addItems(PROFILES)
        self.profile.setCurrentText(prefs.profile)
        self.profile.setToolTip("The profile new compare windows score with")
        self.deadline = QDoubleSpinBox()
        self.deadline.setObjectName("pref-deadline")
        self.deadline.setRange(0, 600)
        self.deadline.setDecimals(2)
        self.deadline.setSuffix(" s")
        self.deadline.setSpecialValueText("none (exact)")
        self.deadline.setValue(prefs.deadline)
        self.scheduler = QLineEdit(prefs.scheduler)
        self.scheduler.setObjectName("pref-scheduler")
        self.scheduler.setPlaceholderText("this computer" + (f" ($GINDEX_SCHEDULER: {os.environ['GINDEX_SCHEDULER']})"
                                                            if os.environ.get("GINDEX_SCHEDULER") else ""))
        self.scheduler.setToolTip("Compute experiments' g-index (Ω of every task) on the Dask cluster of this "
                                  "scheduler, e.g. tcp://10.0.0.5:8786; empty: on this computer")
        self.snap = QCheckBox("Snap moved nodes to the grid")
        self.snap.setObjectName("pref-snap")
        self.snap.setChecked(prefs.snap)
        self.grid = QCheckBox("Show the grid")
        self.grid.setObjectName("pref-grid")
        self.grid.setChecked(prefs.show_grid)
        self.node_red = QLineEdit(prefs.node_red_url)
        self.node_red.setObjectName("pref-node-red")
        self.node_red.setPlaceholderText("the studio's private Node-RED")
        self.node_red.setToolTip("Deploy & run and Run Probes use the Node-RED at this admin URL (e.g. "
                                 "http://127.0.0.1:1880): the flow is added as a tab of its own and removed "
                                 "afterwards. Empty: the studio starts its own private Node-RED")
        self.node_red_token = QLineEdit(prefs.node_red_token)
        self.node_red_token.setObjectName("pref-node-red-token")
        self.node_red_token.setEchoMode(QLineEdit.Password)
        self.node_red_token.setPlaceholderText("admin token, if its admin API needs one")
        self.token_where = QLabel(f"Kept in {(store or token_store(studio_settings())).where}")
        self.token_where.setObjectName("pref-node-red-token-where")
        self.token_where.setWordWrap(True)
        self.token_where.setEnabled(False)
        self.node_red_trust = QCheckBox("Run the models' flows in this Node-RED")
        self.node_red_trust.setObjectName("pref-node-red-trust")
        self.node_red_trust.setChecked(prefs.node_red_trust)
        self.node_red_trust.setToolTip("A flow a model wrote is hostile input. The studio's private Node-RED runs it in "
                                       "a sandbox; your own Node-RED runs it with all its rights (your files, network "
                                       "and programs). Deploy & run and Run Probes use it only when this is ticked")
        self.lint = QListWidget()
        self.lint.setObjectName("pref-lint-rules")
        self.lint.setMaximumHeight(120)
        for name, what in RULES.items():
            it = QListWidgetItem(name)
            it.setToolTip(what)
            it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
            it.setCheckState(Qt.Checked if name in prefs.lint_rules else Qt.Unchecked)
            self.lint.addItem(it)
        self.folders = QListWidget()
        self.folders.setObjectName("pref-folders")
        self.folders.addItems(prefs.library_folders)
        self.folders.setMaximumHeight(90)
        self.folder_edit = QLineEdit()
        self.folder_edit.setObjectName("pref-folder-path")
        self.folder_edit.setPlaceholderText("a folder of node type JSON files")
        add = QPushButton("Add")
        add.setObjectName("pref-folder-add")
        add.clicked.connect(self._add_folder)
        self.folder_edit.returnPressed.connect(self._add_folder)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        remove = QPushButton("Remove")
        remove.setObjectName("pref-folder-remove")
        remove.clicked.connect(lambda: [self.folders.takeItem(self.folders.row(i)) for i in self.folders.selectedItems()])
        self.folder_error = QLabel()
        self.folder_error.setObjectName("pref-folder-error")
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        for b in (add, browse, remove):
            row.addWidget(b)
        lib = QWidget()
        lv = QVBoxLayout(lib)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.folders)
        lv.addLayout(row)
        lv.addWidget(self.folder_error)
        note = QLabel("Library folders are read when the studio starts.")
        note.setEnabled(False)
        lv.addWidget(note)

        form = QFormLayout()
        form.addRow("Theme", self.theme)
        form.addRow("Default profile", self.profile)
        form.addRow("Default deadline", self.deadline)
        form.addRow("Dask scheduler", self.scheduler)
        form.addRow("Canvas", self.snap)
        form.addRow("", self.grid)
        form.addRow("Node library folders", lib)
        form.addRow("Node-RED", self.node_red)
        form.addRow("Node-RED token", self.node_red_token)
        form.addRow("", self.token_where)
        form.addRow("", self.node_red_trust)
        form.addRow("nrlint rules", self.lint)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        v = QVBoxLayout(self)
        v.addLayout(form)
        v.addWidget(buttons)

    def _add_folder(self) -> None:
        path = self.folder_edit.text().strip()
        if not path:
            return
        if not os.path.isdir(path):
            self.folder_error.setText(f"No such folder: {path}")
            return
        self.folder_error.setText("")
        if not self.folders.findItems(path, Qt.MatchExactly):
            self.folders.addItem(path)
        self.folder_edit.clear()

    def _browse(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path = QFileDialog.getExistingDirectory(self, "A node library folder")
        if path:
            self.folder_edit.setText(path)
            self._add_folder()

    def value(self) -> Preferences:
        return Preferences(
            theme=self.theme.currentData(), profile=self.profile.currentText(), deadline=self.deadline.value(),
            snap=self.snap.isChecked(), show_grid=self.grid.isChecked(),
            library_folders=[self.folders.item(k).text() for k in range(self.folders.count())],
            scheduler=self.scheduler.text().strip(),
            node_red_url=self.node_red.text().strip(), node_red_token=self.node_red_token.text().strip(),
            node_red_trust=self.node_red_trust.isChecked(),
            lint_rules=sorted(self.lint.item(k).text() for k in range(self.lint.count())
                              if self.lint.item(k).checkState() == Qt.Checked),
        )


#: the settings the studio window reads (set by it; the user's QSettings when no window made it)
STUDIO_SETTINGS: list[QSettings] = []


def studio_settings() -> QSettings:
    return STUDIO_SETTINGS[-1] if STUDIO_SETTINGS else QSettings("gindex-studio", "studio")


def apply_to_compare(window) -> None:
    """Give a new compare window the preferred profile and deadline, and the cluster its
    experiments are computed on."""
    from gindex_studio.core.scoring.divergence import ScoreOptions

    prefs = Preferences.load(studio_settings())
    view = getattr(window, "view", None)
    if view is not None and hasattr(view, "set_options"):
        view.set_options(ScoreOptions(profile=prefs.profile, deadline=prefs.deadline or None))
    controller = getattr(window, "controller", None)
    if controller is not None:
        controller.scheduler = prefs.scheduler or os.environ.get("GINDEX_SCHEDULER") or None


def preferred_remote() -> tuple[str | None, str | None]:
    """(URL, token) of the Node-RED chosen in Preferences, or (None, None) for the private one."""
    prefs = Preferences.load(studio_settings())
    return (prefs.node_red_url or None, prefs.node_red_token or None)


def preferred_trust() -> bool:
    """Whether Preferences allow running the models' flows in the user's own Node-RED."""
    return Preferences.load(studio_settings()).node_red_trust


def preferred_lint_rules() -> frozenset[str]:
    """The nrlint rules turned on in Preferences."""
    return frozenset(Preferences.load(studio_settings()).lint_rules)
