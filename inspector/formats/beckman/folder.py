"""The entries of a run folder: a local folder, or a folder URL (``s3://bucket/run/``).

The one place the Beckman reader lists a folder, so that a run at a URL is
read by the same code as a run on disk: each entry is a name and a path
object (a :class:`~pathlib.Path`, or a
:class:`~inspector.formats.remote.path.RemotePath` whose bytes are fetched
whole when the scan is read).  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from inspector.formats.remote.path import RemotePath
from inspector.formats.sources.folder_bounds import escapes


@dataclass(frozen=True)
class Entry:
    """One entry of a folder: its name, its path, whether it is a regular file (links
    followed), and whether it is a symbolic link leading out of the folder
    (:func:`~inspector.formats.sources.folder_bounds.escapes`; such an entry is never read)."""

    name: str
    path: Path
    is_file: bool
    outside: bool = False


@dataclass(frozen=True)
class Entries:
    """The entries of a folder in name order; ``truncated`` when a listing was cut."""

    items: tuple[Entry, ...]
    truncated: bool = False


def folder_entries(folder: Path) -> Entries:
    """The entries of ``folder`` (a local folder or a folder URL), in name order.

    Raises:
        OSError: the folder cannot be listed (a
            :class:`~inspector.formats.remote.transport.RemoteError` naming
            the URL for a folder URL).
    """
    if isinstance(folder, RemotePath):
        from inspector.formats.remote.folder import list_folder  # boto3/urllib3 on demand

        listing = list_folder(folder)
        return Entries(tuple(Entry(p.name, p, True) for p in listing.files), listing.truncated)
    with os.scandir(folder) as it:
        found = sorted(it, key=lambda e: e.name)
    return Entries(tuple(_local_entry(e, folder) for e in found))


def _local_entry(entry: os.DirEntry[str], folder: Path) -> Entry:
    """An entry of a local folder; a link out of the folder is marked, never followed
    further (its target is not even asked whether it is a file)."""
    path = Path(entry.path)
    if entry.is_symlink() and escapes(path, folder):
        return Entry(entry.name, path, False, outside=True)
    return Entry(entry.name, path, entry.is_file())
