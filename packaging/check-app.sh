#!/usr/bin/env bash
# Check the studio as a user gets it, on a real X server (Xvfb):
#   1. the wheel: python -m build --wheel, installed into a fresh venv outside the checkout;
#   2. the desktop bundle: packaging/build-app.sh (PyInstaller one-folder), run with the Python
#      installation hidden (when this user may make a mount namespace), spawned pool workers
#      compared with in-process results;
# and for each, packaging/x11_check.py opens the demo, the compare view and the demo experiment,
# takes real-window screenshots (build/check-app/x11-*.png), checks title, icon and pixels, and
# closes each window with its key (exit status 0). Prints sizes and times.
#
#   packaging/check-app.sh [--no-build] [--cold]
#     --no-build  reuse dist/app/gindex-studio (from packaging/build-app.sh)
#     --cold      drop the page cache before the bundle's first start (root only): a cold start
#
# Needs: Debian packages xvfb xdotool x11-utils and Qt's X client libraries (packaging/README.md); Python packages '.[app]' (PyInstaller, Pillow)
# and build. Exit status 1 when any check failed.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$REPO/build/check-app"
PY="${PYTHON:-python3}"
BUILD=1 COLD=0
for a in "$@"; do
    case "$a" in
        --no-build) BUILD=0 ;;
        --cold) COLD=1 ;;
        *) echo "usage: $0 [--no-build] [--cold]" >&2; exit 2 ;;
    esac
done
"$PY" -c 'import PIL, build' 2>/dev/null || { echo "check-app.sh: needs Pillow and build: $PY -m pip install '.[app]' build" >&2; exit 2; }
# Xvfb, xdotool, xprop and the X libraries Qt's xcb plugin loads: named, with their Debian packages
"$PY" "$REPO/packaging/x11_check.py" --name preflight --demo "$REPO" --preflight -- "$PY" >/dev/null || exit 2
rm -rf "$OUT"; mkdir -p "$OUT"
FAIL=0
secs() { "$PY" -c 'import sys, time; print(f"{time.time() - float(sys.argv[1]):.1f}")' "$1"; }

echo "== wheel"
t=$(date +%s.%N)
"$PY" -m build --wheel --outdir "$OUT/dist" "$REPO" >"$OUT/build-wheel.log" 2>&1 || { tail -20 "$OUT/build-wheel.log"; exit 1; }
WHEEL=$(ls "$OUT"/dist/gindex_studio-*.whl)
echo "built $(basename "$WHEEL") in $(secs "$t") s: $(du -h "$WHEEL" | cut -f1)"
# the venv sees the system's site-packages for PySide6 and friends; gindex_studio is the wheel's
"$PY" -m venv --system-site-packages --without-pip "$OUT/venv"
"$PY" -m pip --python "$OUT/venv/bin/python" install -q --no-deps --ignore-installed "$WHEEL"
WDEMO=$(cd "$OUT" && env -u PYTHONPATH "$OUT/venv/bin/python" -c 'from gindex_studio.paths import DEMO_DIR; print(DEMO_DIR)')
case "$WDEMO" in "$OUT/venv/"*) ;; *) echo "FAIL the venv's gindex_studio is not the wheel's: $WDEMO"; FAIL=1 ;; esac
env -u PYTHONPATH "$PY" "$REPO/packaging/x11_check.py" --name wheel --out "$OUT" --demo "$WDEMO" -- "$OUT/venv/bin/gindex-studio" \
    >"$OUT/x11-wheel.out" || FAIL=1
grep -v '^{' "$OUT/x11-wheel.out"

echo "== bundle"
APPDIR="$REPO/dist/app/gindex-studio"
if [ "$BUILD" = 1 ]; then
    t=$(date +%s.%N)
    "$REPO/packaging/build-app.sh" >"$OUT/build-app.log" 2>&1 || { tail -20 "$OUT/build-app.log"; exit 1; }
    echo "built the bundle in $(secs "$t") s"
fi
APP="$APPDIR/gindex-studio"
BDEMO="$APPDIR/_internal/gindex_studio/resources/demo"
echo "bundle: $(du -sh "$APPDIR" | cut -f1) in $(find "$APPDIR" -type f | wc -l) files"

# without Python: hide every Python installation from the bundle (a private mount namespace)
HIDE=""
for d in /usr/lib/python3* /usr/local/lib/python3* "$(dirname "$(dirname "$(readlink -f "$(command -v "$PY")")")")"; do
    [ -d "$d" ] && HIDE="$HIDE mount -t tmpfs none '$d';"
done
if unshare -m true 2>/dev/null; then
    n=$(cd /tmp && env -i PATH=/usr/bin:/bin unshare -m sh -c "$HIDE '$APP' library --json" | "$PY" -c 'import json, sys; print(len(json.load(sys.stdin)["types"]))') || n=0
    g=$(cd /tmp && env -i PATH=/usr/bin:/bin unshare -m sh -c "$HIDE '$APP' gindex '$BDEMO/experiment.json' --workers 2 --json" | "$PY" -c 'import json, sys; print(round(json.load(sys.stdin)["g_index"], 3))') || g=none
    if [ "$n" -ge 103 ] && [ "$g" = "7099.722" ]; then echo "ok   without Python: library $n types, g-index $g"
    else echo "FAIL without Python: library $n types, g-index $g"; FAIL=1; fi
else
    echo "skip without-Python run: unshare -m is not permitted for this user"
fi

# spawned workers (freeze_support): the same Ω as in one process
a=$(cd /tmp && GINDEX_START_METHOD=spawn "$APP" omega --curriculum "$BDEMO/programs" --tasks "$BDEMO/programs/telegram-2-reply" --workers 2 --json)
b=$(cd /tmp && "$APP" omega --curriculum "$BDEMO/programs" --tasks "$BDEMO/programs/telegram-2-reply" --workers 1 --json)
if [ "$a" = "$b" ]; then echo "ok   spawned pool workers in the bundle give the in-process Ω"; else echo "FAIL spawned workers differ"; FAIL=1; fi

if [ "$COLD" = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches && echo "(page cache dropped: the first start is cold)"; fi
"$PY" "$REPO/packaging/x11_check.py" --name bundle --out "$OUT" --demo "$BDEMO" -- "$APP" >"$OUT/x11-bundle.out" || FAIL=1
grep -v '^{' "$OUT/x11-bundle.out"
echo "screenshots and logs: $OUT"
[ "$FAIL" = 0 ] && echo "all checks passed" || echo "SOME CHECKS FAILED"
exit "$FAIL"
