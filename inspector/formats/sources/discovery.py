"""Which paths under a folder are documents, recognised by content or claimed by name.

``inspector verify FOLDER`` verifies every document under ``FOLDER``
(docs/architecture.md, "Flows", "Verify many").  The walk asks the
registered readers (:mod:`.registry`):

* a folder that a reader with ``opens_folders`` recognises (a CSV/TSV scan
  folder holding a manifest, a Beckman run folder) is one document; inside
  it, the walk still reports the documents of *other* formats (an archive
  or a recording kept in a run folder) and walks its sub-folders, but the
  files that reader reads are part of the folder document;
* any other folder is walked, its entries in sorted order, depth first;
* a file is a document when a reader recognises it by its content, or when
  its name matches a reader's ``walk_patterns`` (``*.aucx``, ``*.h5``,
  Beckman scan names): such a file is reported whatever it holds, so that
  a destroyed archive or an empty recording is verified (and found
  unreadable) rather than left out;
* every other file is *skipped*: :func:`walk` yields it as such, so that
  ``verify`` can count it.

A reader may define ``recognises_in_folder(path) -> bool`` for the stricter
question asked during a walk ("is this, met among other files, one document
of my format?"); without it the walk asks ``sniff``.  The CSV/TSV reader
uses it: its ``sniff`` accepts any folder and any ``.csv`` file, which is
right for a path the user names, not for every folder and spreadsheet met
on the way.

Entries whose name starts with ``.`` are neither walked nor counted, and
symbolic links to folders are not followed (a link cycle cannot make the
walk endless); links to files are followed.  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspector.formats.reader_api import FormatReader
from inspector.formats.registry import claims_name, readers

__all__ = ["Found", "claimed_by_name", "documents_under", "is_folder_document",
           "recognised_in_folder", "walk"]


@dataclass(frozen=True)
class Found:
    """One file or folder met by :func:`walk`.

    Attributes:
        path: the folder walked joined with the names found (not resolved).
        document: True for a document (recognised by content, or a file
            claimed by name); False for a file skipped (no reader claims it).
    """

    path: Path
    document: bool


def _recognises(reader: FormatReader, path: Path) -> bool:
    """``reader``'s walk question for ``path``; never raises."""
    ask = getattr(reader, "recognises_in_folder", None) or reader.sniff
    try:
        return bool(ask(path))
    except Exception:  # noqa: BLE001 - a sniffer bug must not stop a walk of a million files
        # nor drop the file from the report: a file is opened (and the failure
        # reported by open_document's wrapper); a folder is walked into
        return path.is_file()


def claimed_by_name(path: Path) -> bool:
    """True when a registered reader claims files named like ``path`` (``walk_patterns``)."""
    return any(claims_name(r, path.name) for r in readers())


def _folder_reader(folder: Path) -> FormatReader | None:
    """The reader that opens ``folder`` as one document, or None."""
    return next((r for r in readers() if r.opens_folders and _recognises(r, folder)), None)


def is_folder_document(folder: Path) -> bool:
    """True when a reader that opens folders recognises ``folder`` as one document."""
    return _folder_reader(folder) is not None


def _file_is_document(path: Path, owner: FormatReader | None = None) -> bool:
    """True when a reader other than ``owner`` claims the file ``path`` by name or content."""
    others = [r for r in readers() if r is not owner]
    return (any(claims_name(r, path.name) for r in others)
            or any(_recognises(r, path) for r in others))


def recognised_in_folder(path: Path) -> bool:
    """True when ``path`` is a document: a recognised folder, or a file claimed by a
    reader by its content or its name."""
    if path.is_dir():
        return is_folder_document(path)
    return _file_is_document(path)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The visible entries of ``folder``, sorted by name; empty when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:
        return []


def walk(folder: str | os.PathLike[str]) -> Iterator[Found]:
    """Every document and every skipped file under ``folder``, depth first, sorted.

    ``folder`` itself comes first, as a document, when a folder reader
    recognises it.  Never raises: a folder that cannot be listed
    contributes nothing.
    """
    root = Path(folder)
    owner = _folder_reader(root)
    if owner is not None:
        yield Found(root, True)
    yield from _walk(root, owner)


def documents_under(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Every document under ``folder`` (:func:`walk` without the skipped files)."""
    return (found.path for found in walk(folder) if found.document)


def _walk(folder: Path, owner: FormatReader | None) -> Iterator[Found]:
    """What ``folder`` holds; ``owner`` is the reader that opens ``folder`` itself as one
    document (its files are then part of it: neither documents nor skipped)."""
    for entry in _entries(folder):
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            yield from walk(path)
        elif not _is_file(entry):
            continue
        elif _file_is_document(path, owner):
            yield Found(path, True)
        elif owner is None:
            yield Found(path, False)


def _is_file(entry: os.DirEntry[str]) -> bool:
    """True for a regular file, or a link to one."""
    try:
        return entry.is_file()
    except OSError:
        return False
