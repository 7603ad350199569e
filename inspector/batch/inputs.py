"""What ``inspector verify`` is asked to check, as an ordered list of entries.

An input is a URL (``scheme://...``, passed through unchanged to
:func:`inspector.formats.open_document`), a path to a file (verified as
named, whatever it holds), a folder (every document under it, recognised
by content: :mod:`inspector.formats.discovery`) or a glob pattern (``*``,
``?``, ``[...]``, ``**`` for any depth) that names no existing path: the
files it matches are verified as the shell's expansion would name them,
the folders it matches are walked.  A list (``--from LIST``, ``-`` for
standard input) holds one input per line; blank lines and lines starting
with ``#`` are ignored.

Entries keep the order of the inputs; a folder's documents and a pattern's
matches are sorted by name.  A folder or pattern that names no document is
one *empty* entry, reported as such, so that nothing asked for vanishes
from the report silently.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from inspector.formats.discovery import documents_under

__all__ = ["Entry", "expand", "is_url", "read_list"]

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Entry:
    """One thing to verify.

    Attributes:
        name: what ``open_document`` receives: a path as text, or a URL unchanged.
        empty: for a folder or pattern that named no document (``name`` is
            then the folder or the pattern), why: the message of its
            ``verify.no-documents`` finding; ``""`` for a real entry.
    """

    name: str
    empty: str = ""


def is_url(text: str) -> bool:
    """True for ``scheme://...`` (http, https, s3, ...): never globbed or walked here."""
    return _URL.match(text) is not None


def read_list(source: str, stdin: TextIO) -> list[str]:
    """The inputs of a ``--from`` list: one a line, blank lines and ``#`` comments dropped.

    ``source`` is a file name, or ``-`` for ``stdin``.  Surrounding white
    space of a line is dropped (a path cannot start or end with a space here).

    Raises:
        OSError: the list cannot be read.
        UnicodeDecodeError: the list is not UTF-8.
    """
    if source == "-":
        text = stdin.read()
    else:
        with open(source, encoding="utf-8") as fh:
            text = fh.read()
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def expand(inputs: Iterable[str]) -> Iterator[Entry]:
    """The entries of ``inputs``, in order (see the module documentation)."""
    for text in inputs:
        yield from _expand_one(text)


def _expand_one(text: str) -> Iterator[Entry]:
    if is_url(text):
        yield Entry(text)
    elif os.path.isdir(text):
        yield from _folder(text, report_empty=True)
    elif not os.path.lexists(text) and _GLOB_CHARS & set(text):
        yield from _pattern(text)
    else:
        yield Entry(text)


def _folder(folder: str, *, report_empty: bool) -> Iterator[Entry]:
    found = False
    for path in documents_under(folder):
        found = True
        yield Entry(os.fspath(path))
    if not found and report_empty:
        yield Entry(folder, empty="no file under this folder is a document by its content")


def _pattern(pattern: str) -> Iterator[Entry]:
    found = False
    for match in sorted(glob.glob(pattern, recursive=True)):
        for entry in (_folder(match, report_empty=False) if os.path.isdir(match)
                      else iter([Entry(match)])):
            found = True
            yield entry
    if not found:
        yield Entry(pattern, empty="the pattern matches no document")
