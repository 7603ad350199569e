"""The journal of named temporaries: what a killed writer left is removed at the next start.

An export writes its archive unnamed (``O_TMPFILE``, :mod:`.aucx.atomicfile`) and
links it into place whole.  Two moments still give the archive a temporary *name*:
an overwrite links it to a sibling (``.inspector-partial-<pid>-<random>.tmp``) and then
renames that over the destination (no system call links onto an existing name), and
where ``O_TMPFILE`` is not supported the temporary is a named file from the start.
A kill (SIGKILL, power loss) at such a moment would leave that file beside the intact
destination.

So before a name appears, the writer records it here: one small entry per name in
``$XDG_STATE_HOME/inspector/partial`` (``~/.local/state/inspector/partial`` by
default), called ``<pid>-<random>`` and holding the temporary's absolute path; the
entry is removed once the name is gone (renamed over the destination, or unlinked).
Every ``inspector`` start (:func:`clean_left_over`) removes the temporaries of entries
whose writer no longer runs, then the entries.  Only a regular file (never through a
link) whose name has the temporary prefix and suffix is ever removed, and never one
that a live writer holds locked (``flock``).

Light: imports nothing but the standard library's ``os`` and ``stat``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: Name prefix and suffix of named temporaries (shared with :mod:`.aucx.atomicfile`).
TEMP_PREFIX = ".inspector-partial-"
TEMP_SUFFIX = ".tmp"
#: Entries looked at per start at most (the journal holds one per interrupted write).
MAX_ENTRIES = 1000


def journal_folder() -> Path:
    """``$XDG_STATE_HOME/inspector/partial`` (``~/.local/state/inspector/partial``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".local", "state")
    return Path(base) / "inspector" / "partial"


def record(temporary: Path) -> Path | None:
    """Record that ``temporary`` (an absolute path) is about to be given its name.

    Returns the entry to pass to :func:`forget`, or None when the journal cannot be
    written (then a kill at the wrong moment leaves the file for the next export into
    that folder to remove, :func:`.aucx.atomicfile.remove_stale`).
    """
    folder = journal_folder()
    entry = folder / f"{os.getpid()}-{os.urandom(6).hex()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, os.fsencode(os.path.abspath(temporary)))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        return None
    return entry


def forget(entry: Path | None) -> None:
    """Remove a journal entry once its temporary's name is gone (errors ignored)."""
    if entry is None:
        return
    try:
        os.unlink(entry)
    except OSError:
        pass


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def is_temporary_name(name: str) -> bool:
    """True for a name of the form :data:`TEMP_PREFIX` ... :data:`TEMP_SUFFIX`."""
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def remove_unlocked(path: Path) -> bool:
    """Unlink ``path`` if it is a regular file (not followed if a link) with a
    temporary's name that no live writer holds locked; True when removed."""
    if not is_temporary_name(path.name):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:
            pass
        except OSError:
            return False  # a live writer holds it
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def clean_left_over() -> list[str]:
    """Remove the temporaries of journal entries whose writer no longer runs, and those
    entries; return the paths removed.  Never raises (housekeeping at start-up)."""
    folder = journal_folder()
    removed: list[str] = []
    try:
        names = sorted(os.listdir(folder))[:MAX_ENTRIES]
    except OSError:
        return removed
    for name in names:
        pid_text = name.split("-", 1)[0]
        if not pid_text.isdigit() or _running(int(pid_text)):
            continue
        entry = folder / name
        try:
            with open(entry, "rb") as fh:
                target = Path(os.fsdecode(fh.read(4096)))
        except OSError:
            continue
        if target.is_absolute() and remove_unlocked(target):
            removed.append(str(target))
        forget(entry)
    return removed
