"""The entries of a run folder: a local folder, or a folder URL (``s3://bucket/run/``).

The one place the Beckman reader lists a folder, so that a run at a URL is
read by the same code as a run on disk: each entry is a name and a path
object (a :class:`~pathlib.Path`, or a
:class:`~inspector.formats.remote_path.RemotePath` whose bytes are fetched
whole when the scan is read).  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from inspector.formats.remote_path import RemotePath


@dataclass(frozen=True)
class Entry:
    """One entry of a folder: its name, its path, and whether it is a regular file."""

    name: str
    path: Path
    is_file: bool


@dataclass(frozen=True)
class Entries:
    """The entries of a folder in name order; ``truncated`` when a listing was cut."""

    items: tuple[Entry, ...]
    truncated: bool = False


def folder_entries(folder: Path) -> Entries:
    """The entries of ``folder`` (a local folder or a folder URL), in name order.

    Raises:
        OSError: the folder cannot be listed (a
            :class:`~inspector.formats.remote_transport.RemoteError` naming
            the URL for a folder URL).
    """
    if isinstance(folder, RemotePath):
        from inspector.formats.remote_folder import list_folder  # boto3/urllib3 on demand

        listing = list_folder(folder)
        return Entries(tuple(Entry(p.name, p, True) for p in listing.files), listing.truncated)
    with os.scandir(folder) as it:
        found = sorted(it, key=lambda e: e.name)
    return Entries(tuple(Entry(e.name, Path(e.path), e.is_file()) for e in found))
