"""Whether a file named by a document stays inside the document's folder.

A document may name other files: a CSV manifest its ``data_file``, a Beckman run
folder its scan files, an HDF5 file its external storage, virtual-dataset sources
and external links.  Each reader reads such a file by default only when it
resolves, symbolic links followed, to a regular file inside the document's own
folder tree (docs/architecture.md, "Contracts": nothing outside the document is
read without being named).  This module is the one place that decides it.
Nothing here imports Qt.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: What :func:`file_kind` says of a path.
REGULAR, MISSING, SPECIAL = "regular", "missing", "special"


def real(path: str | os.PathLike[str]) -> str:
    """``path`` absolute with every symbolic link resolved (``os.path.realpath``);
    a path that cannot be resolved (a link loop, a NUL) is returned absolute."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """True when ``path`` resolves (links followed) to ``folder`` itself or below it.

    Both are resolved with :func:`real`, so ``..`` components and a link that leads
    out of the folder count where they lead.
    """
    target, base = real(path), real(folder)
    if target == base:
        return True
    base = base if base.endswith(os.sep) else base + os.sep
    return target.startswith(base)


def inside_any(path: str | os.PathLike[str], folders: tuple[str, ...]) -> str | None:
    """The first of ``folders`` that ``path`` resolves inside (:func:`inside`), or None."""
    return next((f for f in folders if inside(path, f)), None)


def file_kind(path: str | os.PathLike[str]) -> str:
    """:data:`REGULAR`, :data:`MISSING` (absent, a dangling link, not statable) or
    :data:`SPECIAL` (a folder, named pipe, socket or device: reading one may block or
    never end), links followed.  Never opens the file."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return MISSING
    return REGULAR if stat.S_ISREG(mode) else SPECIAL


def escapes(entry: Path, folder: Path) -> bool:
    """True when the folder entry ``entry`` is a symbolic link resolving outside
    ``folder`` (links followed all the way); a plain entry never escapes."""
    return entry.is_symlink() and not inside(entry, folder)


# -- folders the user allowed ------------------------------------------------------------
#: The environment variable holding the allowed folders (``os.pathsep``-separated):
#: ``--allow-external DIR`` sets it, so worker processes of ``verify`` inherit it.
ALLOW_ENV = "INSPECTOR_ALLOW_EXTERNAL"
_HINT = "allow it with --allow-external "


def allow_folder(folder: str | os.PathLike[str]) -> str:
    """Let documents read data they name from regular files inside ``folder`` (resolved)
    from now on, in this process and the processes it starts; returns the resolved
    folder.  Named pipes, sockets and devices stay refused."""
    resolved = real(folder)
    if resolved not in allowed_folders():
        current = os.environ.get(ALLOW_ENV, "")
        os.environ[ALLOW_ENV] = os.pathsep.join(filter(None, (current, resolved)))
    return resolved


def forget_allowed() -> None:
    """Withdraw every :func:`allow_folder` (and the environment's)."""
    os.environ.pop(ALLOW_ENV, None)


def allowed_folders() -> tuple[str, ...]:
    """The allowed folders (:func:`allow_folder` and ``INSPECTOR_ALLOW_EXTERNAL``), resolved."""
    raw = os.environ.get(ALLOW_ENV, "")
    return tuple(dict.fromkeys(real(p) for p in raw.split(os.pathsep) if p))


def allow_hint(folder: str) -> str:
    """The end of a finding's message naming the folder that would allow the read."""
    return f"({_HINT}{folder})"


def allowable_folder(message: str) -> str | None:
    """The folder an :func:`allow_hint` at the end of ``message`` names, or None."""
    head, hint, folder = message.rpartition(_HINT)
    if not hint or not head.endswith("(") or not folder.endswith(")"):
        return None
    return folder[:-1] or None
