"""Which paths under a folder are documents, recognised by content.

``inspector verify FOLDER`` verifies every document under ``FOLDER``
(docs/architecture.md, "Flows", "Verify many").  The walk asks the
registered readers (:mod:`.registry`), never file names:

* a folder that a reader with ``opens_folders`` recognises (a CSV/TSV scan
  folder holding a manifest, a Beckman run folder) is one document, and
  nothing inside it is walked;
* any other folder is walked, its entries in sorted order, depth first;
* a file is a document when a reader recognises it by its content.

A reader may define ``recognises_in_folder(path) -> bool`` for the stricter
question asked during a walk ("is this, met among other files, one document
of my format?"); without it the walk asks ``sniff``.  The CSV/TSV reader
uses it: its ``sniff`` accepts any folder and any ``.csv`` file, which is
right for a path the user names, not for every folder and spreadsheet met
on the way.

Entries whose name starts with ``.`` are skipped, and symbolic links to
folders are not followed (a link cycle cannot make the walk endless);
links to files are followed.  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from inspector.formats.reader_api import FormatReader
from inspector.formats.registry import readers

__all__ = ["documents_under", "is_folder_document", "recognised_in_folder"]


def _recognises(reader: FormatReader, path: Path) -> bool:
    """``reader``'s walk question for ``path``; never raises."""
    ask = getattr(reader, "recognises_in_folder", None) or reader.sniff
    try:
        return bool(ask(path))
    except Exception:  # noqa: BLE001 - a sniffer bug must not stop a walk of a million files
        # nor drop the file from the report: a file is opened (and the failure
        # reported by open_document's wrapper); a folder is walked into
        return path.is_file()


def is_folder_document(folder: Path) -> bool:
    """True when a reader that opens folders recognises ``folder`` as one document."""
    return any(r.opens_folders and _recognises(r, folder) for r in readers())


def recognised_in_folder(path: Path) -> bool:
    """True when ``path`` is a document by content: a recognised folder or file."""
    if path.is_dir():
        return is_folder_document(path)
    return any(_recognises(r, path) for r in readers())


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The visible entries of ``folder``, sorted by name; empty when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:
        return []


def documents_under(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Every document under ``folder``, depth first, entries in sorted order.

    ``folder`` itself is yielded alone when a folder reader recognises it.
    The paths are ``folder`` joined with the names found (not resolved), so
    that they read as the user typed them.  Never raises: a folder that
    cannot be listed contributes nothing.
    """
    root = Path(folder)
    if is_folder_document(root):
        yield root
    else:
        yield from _walk(root)


def _walk(folder: Path) -> Iterator[Path]:
    """The documents inside ``folder`` (not itself a document), depth first."""
    for entry in _entries(folder):
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if is_folder_document(path):
                yield path
            else:
                yield from _walk(path)
        elif _is_file(entry) and recognised_in_folder(path):
            yield path


def _is_file(entry: os.DirEntry[str]) -> bool:
    """True for a regular file, or a link to one."""
    try:
        return entry.is_file()
    except OSError:
        return False
