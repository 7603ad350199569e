"""The PyInstaller one-folder bundle builds and works (slow: opt in with INSPECTOR_TEST_BUNDLE=1).

Runs ``packaging/check_bundle.sh``: builds ``dist/inspector/`` (about 40 s and
280 MB here), then checks ``--version``, ``--help``, ``verify --json`` on a
corpus archive (same output as the sources it was built from), per-user
``install-desktop``/``--uninstall`` with the bundled icons, and a GUI
``--screenshot``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.bundle,
    pytest.mark.skipif(os.environ.get("INSPECTOR_TEST_BUNDLE") != "1",
                       reason="builds the PyInstaller bundle; set INSPECTOR_TEST_BUNDLE=1"),
]


def test_bundle_builds_and_runs(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(["bash", str(ROOT / "packaging" / "check_bundle.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    (tmp_path / "check_bundle.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[-1] == "bundle OK"
    assert "install-desktop: 20 files written, 20 removed" in lines
    app = ROOT / "dist" / "inspector" / "inspector"
    assert os.access(app, os.X_OK)
    icons = ROOT / "dist" / "inspector" / "_internal" / "inspector" / "resources" / "icons"
    assert (icons / "org.vneurotk.Inspector.svg").is_file()
