#!/usr/bin/env bash
# The system tools some tests drive, from Debian's packages (pip cannot install them): bubblewrap
# (the sandbox every run of a flow goes through), a real X
# server with a window manager and xdotool (end-to-end window checks), the X client libraries
# Qt's xcb plugin loads, desktop-file-utils (the launcher checks) and Chromium (the HTML report
# opened in a browser), and Node.js with npm when no `node` is on the PATH (the tests install and
# start a private Node-RED 4, as the studio does on first use). Installs what is missing when it can (root, or sudo without a password);
# otherwise names the packages in one line and carries on: those tests then skip, saying why.
set -u
PACKAGES=(bubblewrap xvfb xdotool x11-utils openbox desktop-file-utils chromium
          libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0
          libxcb-xinerama0 libxcb-randr0 libxcb-shape0 libxkbcommon-x11-0)

command -v node >/dev/null || PACKAGES+=(nodejs npm)
command -v dpkg-query >/dev/null || { echo "install-test-tools: not a Debian system; the X server and browser tests will skip"; exit 0; }
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    echo "install-test-tools: to run every test, apt-get install ${missing[*]} (those tests skip meanwhile)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/install-test-tools.log 2>&1; then
    "${as_root[@]}" apt-get update -q >>/tmp/install-test-tools.log 2>&1
    "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/install-test-tools.log 2>&1 \
        || echo "install-test-tools: apt-get could not install ${missing[*]} (see /tmp/install-test-tools.log); those tests skip"
fi
exit 0
