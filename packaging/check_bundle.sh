#!/usr/bin/env bash
# Build the PyInstaller bundle, then prove it starts: --version, --help and a
# headless verify of a corpus archive. Exit status 0 only if all of them work.
#
#   bash packaging/check_bundle.sh            # build, then check
#   SKIP_BUILD=1 bash packaging/check_bundle.sh   # check an existing dist/inspector
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [[ -z "${SKIP_BUILD:-}" ]]; then
    start=$(date +%s)
    bash packaging/build_bundle.sh
    echo "build took $(( $(date +%s) - start )) s"
fi
APP="$ROOT/dist/inspector/inspector"
[[ -x "$APP" ]] || { echo "check_bundle.sh: $APP was not built" >&2; exit 1; }

# Run from an unrelated folder: resources must come from the bundle, not the checkout.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp tests/fixtures/aucx/src_demo_experiment.aucx "$work/"
cd "$work"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"

"$APP" --version
"$APP" --help | grep -q "install-desktop"
set +e
"$APP" verify --json src_demo_experiment.aucx > verify.json
status=$?
set -e
cat verify.json
# verify exits 0 (ok) or 1 (not ok); anything else means the bundle is broken.
[[ $status -le 1 ]] || { echo "check_bundle.sh: verify exited $status" >&2; exit 1; }
"$ROOT/dist/inspector/inspector" install-desktop --help > /dev/null
echo "bundle OK"
