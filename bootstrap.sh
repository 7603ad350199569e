#!/usr/bin/env bash
# Set up everything Inspector needs on a Debian or Ubuntu machine and start it:
#   bash bootstrap.sh [inspector arguments...]
# 1. installs the system libraries Qt's window-system plugin needs, when some are
#    missing and this user can (root, or sudo without a password prompt);
# 2. creates the virtual environment .venv, installs Inspector into it and compiles its
#    modules' byte code;
# 3. runs `inspector` with the arguments given (the bundled samples without any).
set -euo pipefail
CALLER_DIR=$PWD  # relative FILE and --screenshot paths are the caller's
cd "$(dirname "$0")"

QT_PACKAGES=(libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
  libxcb-shape0 libxcb-randr0 libxcb-xkb1 libxcb-xfixes0 libxcb-sync1 libxcb-shm0 libxcb-glx0
  libxcb-render0 libxcb-util1 libxcb1 libx11-xcb1 libx11-6 libxkbcommon-x11-0 libxkbcommon0
  libegl1 libgl1 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0)

missing_packages() {
  local p
  for p in "${QT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

install_system_libraries() {
  command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 || {
    echo "bootstrap: not a Debian/Ubuntu system; install Qt's xcb libraries yourself (docs/install.md)" >&2
    return 0
  }
  local missing
  missing=$(missing_packages | tr '\n' ' ')
  [ -z "${missing// }" ] && return 0
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo"
    else
      echo "bootstrap: Qt needs these packages: $missing" >&2
      echo "bootstrap: install them with: sudo apt-get install $missing" >&2
      return 0
    fi
  fi
  echo "bootstrap: installing $missing" >&2
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}

install_system_libraries
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating the virtual environment .venv" >&2
  python3 -m venv .venv
fi
. .venv/bin/activate
echo "bootstrap: installing Inspector and its dependencies into .venv" \
  "(about a minute the first time, seconds after)" >&2
python -m pip install --quiet --disable-pip-version-check -e .
# An editable install leaves Inspector's own modules uncompiled, and a Python told not to
# write byte code (PYTHONDONTWRITEBYTECODE) would compile them again at every start (about
# 0.1 s, in steps that hold the interpreter lock): compile them once here.
python -m compileall -q inspector >/dev/null
echo "bootstrap: starting inspector $*" >&2
INSPECTOR_BIN="$PWD/.venv/bin/inspector"
cd "$CALLER_DIR"
exec "$INSPECTOR_BIN" "$@"
