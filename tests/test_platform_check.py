"""The start-up check that explains, in one line, why Qt's xcb plugin cannot load."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from inspector import platform_check


def test_missing_libraries_are_exactly_those_the_linker_cannot_load() -> None:
    missing = platform_check.missing_libraries()
    for soname in missing:  # the dynamic linker is the oracle
        with pytest.raises(OSError):
            ctypes.CDLL(soname)
    for soname in ("libxcb.so.1", "libc.so.6"):
        if soname not in missing:
            ctypes.CDLL(soname)


def test_canned_ldd_output_names_the_libraries_and_the_packages(monkeypatch, tmp_path) -> None:
    (tmp_path / "Qt" / "plugins" / "platforms").mkdir(parents=True)
    (tmp_path / "Qt" / "plugins" / "platforms" / "libqxcb.so").write_bytes(b"\x7fELF")
    out = ("\tlibxcb-icccm.so.4 => not found\n\tlibxcb.so.1 => /usr/lib/libxcb.so.1 (0x1)\n"
           "\tlibxcb-keysyms.so.1 => not found\n\tlibfoo.so.9 => not found\n")
    monkeypatch.setattr(subprocess, "run",
                        lambda *a, **k: subprocess.CompletedProcess(a, 0, out, ""))
    missing = platform_check.missing_libraries(tmp_path)
    assert missing == ["libfoo.so.9", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    command = platform_check.install_command(missing)
    assert command.endswith("apt-get install libxcb-icccm4 libxcb-keysyms1")


def test_preflight_line(monkeypatch) -> None:
    monkeypatch.setattr(platform_check, "missing_libraries", lambda: ["libxcb-icccm.so.4"])
    line = platform_check.preflight({"DISPLAY": ":0"})
    assert line is not None and "\n" not in line
    assert "libxcb-icccm.so.4" in line and "apt-get install libxcb-icccm4" in line
    assert platform_check.preflight({"QT_QPA_PLATFORM": "offscreen"}) is None
    monkeypatch.setattr(platform_check, "missing_libraries", lambda: [])
    assert platform_check.preflight({"DISPLAY": ":0"}) is None
    no_display = platform_check.preflight({})
    assert no_display is not None and "DISPLAY" in no_display


def test_gui_entry_prints_the_line_and_exits_1_instead_of_aborting(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "xcb"
    proc = subprocess.run([sys.executable, "-m", "inspector"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("inspector: ")
    missing = platform_check.missing_libraries()
    expected = ", ".join(missing) if missing else "DISPLAY"
    assert expected in lines[0]


def test_qt_platform_option_is_honoured(monkeypatch) -> None:
    from inspector.cli import _qt_platform

    monkeypatch.setattr(platform_check, "missing_libraries", lambda: ["libxcb-icccm.so.4"])
    assert platform_check.preflight({"DISPLAY": ":0"}, platform="offscreen") is None
    assert _qt_platform(["-style", "Fusion", "-platform", "offscreen"]) == "offscreen"
    assert _qt_platform(["--platform=minimal"]) == "minimal" and _qt_platform([]) is None
