"""Desktop integration for the current user: desktop entry, MIME type and icons.

``inspector install-desktop`` calls :func:`install`, ``inspector
install-desktop --uninstall`` calls :func:`uninstall`. Both work under
``$XDG_DATA_HOME`` (default ``~/.local/share``, XDG Base Directory
Specification), never need root and never touch system directories:

- ``applications/org.vneurotk.Inspector.desktop`` (Desktop Entry Specification
  1.4; its ``Exec`` runs the ``inspector`` that is installing it);
- ``mime/packages/org.vneurotk.Inspector.xml`` (Shared MIME-info Database:
  declares ``application/x-aucx``; HDF5 is only claimed as a handler through
  the entry's ``MimeType``, never redefined);
- ``icons/hicolor/<N>x<N>/apps/org.vneurotk.Inspector.png`` for every shipped
  size, ``icons/hicolor/scalable/apps/org.vneurotk.Inspector.svg``, and the
  same under ``mimetypes/`` for ``application-x-aucx`` (Icon Theme
  Specification).

Then ``update-desktop-database``, ``update-mime-database`` and
``gtk-update-icon-cache`` are run on those directories, each only if it is on
``PATH``.

This module is also the single source of the desktop entry and MIME XML
texts: ``packaging/org.vneurotk.Inspector.desktop`` and
``packaging/org.vneurotk.Inspector.xml`` are :func:`desktop_entry` and
:func:`mime_xml` written out (``python -m inspector.desktop --write-packaging
packaging``); ``tests/test_desktop.py`` checks they agree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from inspector import APP_ID, APP_NAME
from inspector.resources_access import APP_ICON, AUCX_ICON, ICON_SIZES, icon_path

AUCX_MIME = "application/x-aucx"
"""MIME type of AUCX archives, declared by :func:`mime_xml`."""

HANDLED_MIME_TYPES: tuple[str, ...] = (AUCX_MIME, "application/x-hdf5", "application/x-hdf")
"""MIME types the desktop entry claims to open.

``application/x-hdf`` is the type shared-mime-info assigns to ``*.h5`` and
``*.hdf5`` (with the ``\\x89HDF\\r\\n\\x1a\\n`` magic); ``application/x-hdf5`` is the
name other MIME databases use. Neither is defined here.
"""

DESKTOP_FILE = f"{APP_ID}.desktop"
MIME_FILE = f"{APP_ID}.xml"

REFRESH_TOOLS: tuple[str, ...] = ("update-desktop-database", "update-mime-database",
                                  "gtk-update-icon-cache")

# Desktop Entry Specification, "The Exec key": characters that force quoting.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home() -> Path:
    """``$XDG_DATA_HOME`` if set to an absolute path, else ``~/.local/share``.

    Source: XDG Base Directory Specification (relative values are ignored).
    """
    value = os.environ.get("XDG_DATA_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".local" / "share"


def launcher_command() -> list[str]:
    """The command that starts this installation of Inspector.

    In order: the bundle executable when running from a PyInstaller bundle
    (``sys.frozen``); the ``inspector`` script found on ``PATH``; the running
    script when it is called ``inspector``; else ``[sys.executable, "-m",
    "inspector"]``. All paths are absolute.
    """
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    found = shutil.which("inspector")
    if found:
        return [str(Path(found).absolute())]
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "inspector" and argv0.is_file():
        return [str(argv0.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "inspector"]


def exec_quote(arg: str) -> str:
    """Quote one argument for a desktop entry ``Exec`` value.

    Per the Desktop Entry Specification: an argument holding a reserved
    character is put in double quotes with ``"``, `````, ``$`` and ``\\``
    backslash-escaped; ``%`` becomes ``%%``; then, as for every string value,
    each backslash is doubled. Raises ``ValueError`` for an empty argument or
    one holding a newline (cannot be represented).
    """
    if not arg or "\n" in arg or "\r" in arg:
        raise ValueError(f"cannot put {arg!r} in a desktop entry Exec key")
    arg = arg.replace("%", "%%")
    if any(ch in _RESERVED for ch in arg):
        inner = "".join("\\" + ch if ch in '"`$\\' else ch for ch in arg)
        arg = f'"{inner}"'
    return arg.replace("\\", "\\\\")


def desktop_entry(command: Sequence[str] = ("inspector",)) -> str:
    """The text of ``org.vneurotk.Inspector.desktop`` with ``Exec=<command> %F``.

    Validated by ``desktop-file-validate`` (desktop-file-utils 0.26).
    """
    exec_value = " ".join(exec_quote(arg) for arg in command) + " %F"
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        f"Name={APP_NAME}",
        "GenericName=Recording and Archive Inspector",
        "Comment=Inspect VneuroTK HDF5 recordings and AUCX analytical-ultracentrifugation archives",
        f"Exec={exec_value}",
        f"Icon={APP_ICON}",
        "Terminal=false",
        "StartupNotify=true",
        # X11 WM_CLASS class of Qt windows is the application name (checked with xprop)
        f"StartupWMClass={APP_NAME}",
        "Categories=Science;DataVisualization;Qt;",
        "Keywords=HDF5;AUCX;VneuroTK;neuroscience;ultracentrifugation;recording;archive;checksum;",
        "MimeType=" + "".join(f"{m};" for m in HANDLED_MIME_TYPES),
        "",
    ])


def mime_xml() -> str:
    """The shared-mime-info package declaring ``application/x-aucx``.

    An AUCX archive is a ZIP (seed 002), so the type is a sub-class of
    ``application/zip`` recognised by the ``*.aucx`` glob; its icon is
    ``application-x-aucx`` with ``package-x-generic`` as the generic fallback.
    """
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">',
        f'  <mime-type type="{AUCX_MIME}">',
        "    <comment>AUCX analytical-ultracentrifugation archive</comment>",
        "    <acronym>AUCX</acronym>",
        '    <sub-class-of type="application/zip"/>',
        f'    <icon name="{AUCX_ICON}"/>',
        '    <generic-icon name="package-x-generic"/>',
        '    <glob pattern="*.aucx"/>',
        "  </mime-type>",
        "</mime-info>",
        "",
    ])


def _targets(root: Path) -> list[tuple[Path, Path | None, str | None]]:
    """``(destination, source file or None, text or None)`` for everything installed."""
    hicolor = root / "icons" / "hicolor"
    out: list[tuple[Path, Path | None, str | None]] = [
        (root / "applications" / DESKTOP_FILE, None, desktop_entry(launcher_command())),
        (root / "mime" / "packages" / MIME_FILE, None, mime_xml()),
    ]
    for name, context in ((APP_ICON, "apps"), (AUCX_ICON, "mimetypes")):
        for size in ICON_SIZES:
            out.append((hicolor / f"{size}x{size}" / context / f"{name}.png",
                        icon_path(name, size), None))
        out.append((hicolor / "scalable" / context / f"{name}.svg", icon_path(name), None))
    return out


def _refresh(root: Path) -> list[str]:
    """Run the cache tools that exist on PATH; one line per tool."""
    jobs = {
        "update-desktop-database": [str(root / "applications")],
        "update-mime-database": [str(root / "mime")],
        "gtk-update-icon-cache": ["--force", "--ignore-theme-index", "--quiet",
                                  str(root / "icons" / "hicolor")],
    }
    lines = []
    for tool in REFRESH_TOOLS:
        exe = shutil.which(tool)
        if exe is None:
            lines.append(f"skipped {tool} (not installed)")
            continue
        if not Path(jobs[tool][-1]).is_dir():
            lines.append(f"skipped {tool} ({jobs[tool][-1]} does not exist)")
            continue
        cmd = [exe, *jobs[tool]]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            lines.append(f"failed {tool}: {exc}")
            continue
        shown = " ".join([tool, *jobs[tool]])
        if proc.returncode == 0:
            lines.append(f"ran {shown}")
        else:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            lines.append(f"failed {shown}: exit {proc.returncode}"
                         + (f": {detail[-1]}" if detail else ""))
    return lines


def install(root: Path | None = None) -> list[str]:
    """Install the desktop entry, the AUCX MIME type and the icons for the current user.

    ``root`` defaults to :func:`data_home`. Existing files of ours are
    overwritten. Returns one line per file written (``wrote PATH``) and per
    cache tool run or skipped. Raises ``OSError`` if a file cannot be written.
    """
    root = data_home() if root is None else Path(root)
    lines = []
    for dest, source, text in _targets(root):
        dest.parent.mkdir(parents=True, exist_ok=True)
        if text is not None:
            dest.write_text(text, encoding="utf-8")
        else:
            assert source is not None  # (text is None only for a file to copy)
            shutil.copyfile(source, dest)
        dest.chmod(0o644)
        lines.append(f"wrote {dest}")
    return lines + _refresh(root)


def uninstall(root: Path | None = None) -> list[str]:
    """Remove what :func:`install` wrote and refresh the caches.

    ``root`` defaults to :func:`data_home`. Directories are left in place
    (other applications share them). Returns one line per file removed
    (``removed PATH``) and per cache tool run or skipped; files already absent
    are not mentioned.
    """
    root = data_home() if root is None else Path(root)
    lines = []
    for dest, _source, _text in _targets(root):
        if dest.is_file() or dest.is_symlink():
            dest.unlink()
            lines.append(f"removed {dest}")
    return lines + _refresh(root)


def write_packaging(folder: Path) -> list[str]:
    """Write the distribution copies of the desktop entry and MIME XML (``Exec=inspector %F``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in ((DESKTOP_FILE, desktop_entry()), (MIME_FILE, mime_xml())):
        (folder / name).write_text(text, encoding="utf-8")
        out.append(f"wrote {folder / name}")
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write-packaging"] and len(sys.argv) == 3:
        print("\n".join(write_packaging(Path(sys.argv[2]))))
    else:
        print("usage: python -m inspector.desktop --write-packaging FOLDER", file=sys.stderr)
        sys.exit(2)
