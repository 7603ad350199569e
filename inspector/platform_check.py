"""Before Qt starts: can its window-system plugin load here, and if not, why.

Qt aborts the process when its ``xcb`` platform plugin cannot load, and its
message always names ``xcb-cursor0`` whatever library is really missing.
:func:`preflight` asks the dynamic linker (``ldd``) which shared libraries the
plugin and Qt's GUI libraries need and cannot find, and turns them into one
line naming them and the Debian/Ubuntu packages that provide them.  It never
imports Qt's GUI modules, so it works where they cannot load.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

#: Shared library (soname) -> Debian/Ubuntu package providing it.
DEBIAN_PACKAGES: dict[str, str] = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
}

#: The files whose dependencies are checked, relative to the PySide6 package.
_CHECKED = ("Qt/plugins/platforms/libqxcb.so", "Qt/lib/libQt6XcbQpa.so.6",
            "Qt/lib/libQt6Gui.so.6", "Qt/lib/libQt6Widgets.so.6")


def _pyside_dir() -> Path | None:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def missing_libraries(pyside_dir: Path | None = None) -> list[str]:
    """Sonames Qt's xcb plugin needs and the linker cannot find, sorted.

    Empty when nothing is missing, or when it cannot be told (no ``ldd``, no
    PySide6, not Linux).
    """
    base = pyside_dir or _pyside_dir()
    ldd = shutil.which("ldd")
    if base is None or ldd is None:
        return []
    missing: set[str] = set()
    for rel in _CHECKED:
        target = base / rel
        if not target.is_file():
            continue
        try:
            out = subprocess.run([ldd, str(target)], capture_output=True, text=True,
                                 timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        missing.update(line.split()[0] for line in out.splitlines() if "not found" in line)
    return sorted(missing)


def install_command(sonames: list[str]) -> str:
    """The ``apt-get install`` command for ``sonames`` (unknown ones are named as such)."""
    packages = sorted({DEBIAN_PACKAGES[s] for s in sonames if s in DEBIAN_PACKAGES})
    prefix = "" if os.geteuid() == 0 else "sudo "
    return f"{prefix}apt-get install {' '.join(packages)}" if packages else ""


def screenshot_platform(environ: Mapping[str, str], *,
                        platform: str | None = None) -> str | None:
    """The Qt platform a ``--screenshot`` run should use: ``"offscreen"`` or None (Qt's choice).

    A screenshot is drawn into a PNG and the window is never meant to be seen, so
    where there is no display (neither ``DISPLAY`` nor ``WAYLAND_DISPLAY``) and no
    platform was chosen (Qt's ``-platform`` option, ``QT_QPA_PLATFORM``), it is
    drawn offscreen instead of stopping with "no display".
    """
    if platform or environ.get("QT_QPA_PLATFORM"):
        return None
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    return "offscreen"


def preflight(environ: dict[str, str] | None = None, *,
              platform: str | None = None) -> str | None:
    """Why the GUI cannot start here (one line), or None when it can.

    Only the ``xcb`` platform (Qt's default on Linux) is checked; with Qt's
    ``-platform`` option (``platform``) or ``QT_QPA_PLATFORM`` naming another
    (``offscreen``, ``wayland``) Qt is left to decide.
    """
    env = os.environ if environ is None else environ
    platform = (platform or env.get("QT_QPA_PLATFORM", "")).split(":")[0]
    if platform not in ("", "xcb") or not os.uname().sysname == "Linux":
        return None
    if platform == "" and env.get("WAYLAND_DISPLAY"):
        return None
    missing = missing_libraries()
    if missing:
        command = install_command(missing)
        hint = f"; install them with: {command}" if command else ""
        return ("inspector: the Qt window-system plugin (xcb) cannot load: missing "
                f"{', '.join(missing)}{hint} (see docs/install.md, Troubleshooting)")
    if not env.get("DISPLAY"):
        return ("inspector: no display to open a window on (DISPLAY is not set); run it in a "
                "desktop session or under xvfb-run; '--screenshot OUT.png' and "
                "'inspector verify' need no display")
    return None
