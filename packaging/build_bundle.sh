#!/usr/bin/env bash
# Build the self-contained one-folder application dist/inspector/ with PyInstaller.
#
#   bash packaging/build_bundle.sh          # needs: pip install pyinstaller
#
# Uses the current Python environment for the third-party packages; installs
# this checkout (not editable) into build/bundle-stage/site first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python}"
STAGE="$ROOT/build/bundle-stage"
cd "$ROOT"

"$PYTHON" -c "import PyInstaller" 2>/dev/null || {
    echo "build_bundle.sh: PyInstaller is not installed (pip install pyinstaller)" >&2; exit 2; }

# PEP 639 licence fields need setuptools>=77; build isolation fetches it when the
# environment's setuptools is older.
isolation=(--no-build-isolation)
"$PYTHON" - <<'PY' || isolation=()
import sys
import setuptools
sys.exit(0 if int(setuptools.__version__.split(".")[0]) >= 77 else 1)
PY

rm -rf "$STAGE"
"$PYTHON" -m pip install --quiet --no-deps "${isolation[@]}" --target "$STAGE/site" "$ROOT"
rm -rf "$STAGE/site/bin"

INSPECTOR_BUNDLE_SITE="$STAGE/site" "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$STAGE/work" "$ROOT/packaging/pyinstaller/inspector.spec"
echo "built $ROOT/dist/inspector/inspector ($(du -sh "$ROOT/dist/inspector" | cut -f1))"
