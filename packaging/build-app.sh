#!/usr/bin/env bash
# Build the one-folder desktop app with PyInstaller: dist/app/gindex-studio/gindex-studio runs on a
# Linux machine without Python (the interpreter, Qt with its plugins, the native search extension
# and resources/ are inside the folder).
#
#   python3 -m pip install '.[app]'      # PyInstaller (once)
#   packaging/build-app.sh               # -> dist/app/gindex-studio/
#   dist/app/gindex-studio/gindex-studio [FILE...|COMMAND ...]
#
# The bundle is made from this checkout's gindex_studio (not from whatever is installed), with the
# native search compiled in place first; when no C compiler is available the bundle uses the
# pure-Python search and says so here.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${GINDEX_APP_DIST:-$REPO/dist/app}"
WORK="$REPO/build/app"
PY="${PYTHON:-python3}"
cd "$REPO"

"$PY" -c 'import PyInstaller' 2>/dev/null || {
    echo "build-app.sh: PyInstaller is not installed; install it with: $PY -m pip install '.[app]'" >&2; exit 1; }

"$PY" setup.py -q build_ext --inplace >/dev/null 2>&1 || true
if ! ls gindex_studio/core/scoring/_mcsplit*.so >/dev/null 2>&1; then
    echo "build-app.sh: warning: the native search could not be compiled; the app uses the pure-Python search" >&2
fi

rm -rf "$OUT/gindex-studio"
mkdir -p "$OUT" "$WORK"
# --paths: this checkout first. --collect-submodules: subcommand modules are imported by name
# (gindex_studio.cli.commands). --add-data: resources/ becomes the package data gindex_studio/resources,
# as in the wheel. Excluded: the optional Dask cluster support and test tools (size; --dask-workers
# in the app says to install the Python package instead) and Qt bindings we do not use.
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
    --onedir --name gindex-studio \
    --distpath "$OUT" --workpath "$WORK" --specpath "$WORK" \
    --paths "$REPO" \
    --collect-submodules gindex_studio \
    --add-data "$REPO/resources:gindex_studio/resources" \
    --exclude-module distributed --exclude-module dask --exclude-module tornado \
    --exclude-module pytest --exclude-module hypothesis --exclude-module IPython \
    --exclude-module tkinter --exclude-module matplotlib --exclude-module PyQt5 --exclude-module PyQt6 \
    --exclude-module PySide2 --exclude-module OpenGL \
    "$REPO/packaging/app_main.py"

APP="$OUT/gindex-studio"
echo "built $APP ($(du -sh "$APP" | cut -f1)); start it with: $APP/gindex-studio"
