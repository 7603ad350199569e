#!/usr/bin/env bash
# Build the PyInstaller bundle, then prove it works from an unrelated folder:
#   --version and --help; `verify --json` on a corpus archive, whose output must
#   equal that of `python -m inspector verify --json` run from the checkout;
#   install-desktop/--uninstall into a scratch XDG_DATA_HOME (needs the bundled
#   icons, and must point Exec= at the bundle); a --screenshot of the window.
# Exit status 0 only if all of them work.
#
#   bash packaging/check_bundle.sh                 # build, then check
#   SKIP_BUILD=1 bash packaging/check_bundle.sh    # check an existing dist/inspector
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python}"
cd "$ROOT"
if [[ -z "${SKIP_BUILD:-}" ]]; then
    start=$(date +%s)
    bash packaging/build_bundle.sh
    echo "build took $(( $(date +%s) - start )) s"
fi
APP="$ROOT/dist/inspector/inspector"
# The sources the bundle was built from (build_bundle.sh stages them); the checkout otherwise.
SRC="$ROOT/build/bundle-stage/site"
[[ -d "$SRC/inspector" ]] || SRC="$ROOT"
[[ -x "$APP" ]] || { echo "check_bundle.sh: $APP was not built" >&2; exit 1; }
fail() { echo "check_bundle.sh: FAILED: $*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
SAMPLE=src_demo_experiment.aucx
cp "tests/fixtures/aucx/$SAMPLE" "$work/"
cd "$work"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"

version="$("$APP" --version)"
[[ "$version" == "$(PYTHONPATH="$SRC" "$PYTHON" -m inspector --version)" ]] \
    || fail "--version printed '$version'"
echo "$version"
"$APP" --help | grep -q "^  install-desktop " || fail "--help does not list install-desktop"

set +e
"$APP" verify --json "$SAMPLE" > bundle.json; status=$?
PYTHONPATH="$SRC" "$PYTHON" -m inspector verify --json "$SAMPLE" > source.json; source_status=$?
set -e
cat bundle.json
[[ $status -eq $source_status ]] || fail "verify exited $status, the source tree $source_status"
cmp -s bundle.json source.json || { diff source.json bundle.json || true; fail "verify output differs"; }

export XDG_DATA_HOME="$work/xdg"
"$APP" install-desktop > install.txt
grep -qx "Exec=$APP %F" "$XDG_DATA_HOME/applications/org.vneurotk.Inspector.desktop" \
    || fail "desktop entry does not run the bundle"
cmp -s "$XDG_DATA_HOME/icons/hicolor/256x256/apps/org.vneurotk.Inspector.png" \
    "$ROOT/resources/icons/org.vneurotk.Inspector-256.png" || fail "installed icon differs"
"$APP" install-desktop --uninstall > uninstall.txt
[[ ! -e "$XDG_DATA_HOME/applications/org.vneurotk.Inspector.desktop" ]] || fail "uninstall left the entry"
echo "install-desktop: $(grep -c '^wrote ' install.txt) files written, $(grep -c '^removed ' uninstall.txt) removed"

"$APP" --screenshot shot.png --size 800x600 "$SAMPLE" || fail "GUI --screenshot exited $?"
[[ "$(head -c 8 shot.png | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || fail "no PNG screenshot"
echo "screenshot: $(stat -c %s shot.png) bytes"
echo "bundle OK"
