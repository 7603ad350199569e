"""What ``inspector verify`` is asked to check, as an ordered list of entries.

An input is a URL (``scheme://...``, passed through unchanged to
:func:`inspector.formats.open_document`), a path to a file (verified as
named, whatever it holds), a folder (every document under it, recognised
by content or claimed by name: :mod:`inspector.formats.sources.discovery`) or a
glob pattern (``*``, ``?``, ``[...]``, ``**`` for any depth) that names no
existing path: the files it matches are verified as the shell's expansion
would name them, the folders it matches are walked.  A list (``--from
LIST``, ``-`` for standard input) holds one input per line; blank lines
and lines starting with ``#`` are ignored.

Entries keep the order of the inputs; a folder's documents and a pattern's
matches are sorted by name.  A pattern's match inside a folder that is one
document (``'run/**'`` matches a run folder and its scan files) is read as
part of that document, not again alone.  A file named more than once (by several
arguments, patterns, list lines, or a folder and a pattern) is one entry,
at its first place: paths are compared resolved (:func:`os.path.realpath`),
URLs as written.  A folder or pattern that names no document is one
*empty* entry, reported as such, so that nothing asked for vanishes from
the report silently; the files a folder walk met that are not documents
are *skipped* (:attr:`Gathered.skipped`), unless an input names them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from inspector.batch.pattern import expand_pattern
from inspector.formats.sources.discovery import walk

__all__ = ["Entry", "Gathered", "expand", "gather", "is_url", "read_list"]

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


@dataclass
class Gathered:
    """What the inputs name: the entries to verify, in order, and the files skipped.

    Attributes:
        entries: one :class:`Entry` per document, file named, URL or empty
            folder or pattern, each at most once.
        skipped: the files met while walking folders that are no document
            (by content or name) and that no input names, in walk order.
    """

    entries: list[Entry] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set, repr=False)
    _folders: set[str] = field(default_factory=set, repr=False)
    _passed: dict[str, str] = field(default_factory=dict, repr=False)

    def add(self, entry: Entry) -> None:
        """Append ``entry`` unless an entry for the same file is already there."""
        key = _key(entry.name)
        if key not in self._seen:
            self._seen.add(key)
            self.entries.append(entry)

    def add_folder_document(self, path: str) -> None:
        """:meth:`add` a folder that is one document (a scan folder, a run folder)."""
        self.add(Entry(path))
        self._folders.add(_key(path))

    def in_folder_document(self, path: str) -> bool:
        """True when ``path`` lies directly in a folder document already added."""
        return _key(os.path.dirname(os.path.abspath(path))) in self._folders

    def skip(self, path: str) -> None:
        """Note ``path``, met by a walk, as skipped (unless an input names it)."""
        self._passed.setdefault(_key(path), path)

    def finish(self) -> Gathered:
        """Settle :attr:`skipped`: the walked non-documents that no entry names."""
        self.skipped = [p for k, p in self._passed.items() if k not in self._seen]
        return self


def _key(name: str) -> str:
    """What identifies the file ``name``: a URL as written, a path resolved."""
    return name if is_url(name) else os.path.realpath(name)


def gather(inputs: Iterable[str]) -> Gathered:
    """The entries and the skipped files of ``inputs`` (see the module documentation)."""
    out = Gathered()
    for text in inputs:
        _expand_one(text, out)
    return out.finish()


def expand(inputs: Iterable[str]) -> list[Entry]:
    """The entries of ``inputs``, in order, each file once (:func:`gather` without the
    skipped files)."""
    return gather(inputs).entries


def _expand_one(text: str, out: Gathered) -> None:
    if is_url(text):
        out.add(Entry(text))
    elif os.path.isdir(text):
        _folder(text, out, report_empty=True)
    elif not os.path.lexists(text) and _GLOB_CHARS & set(text):
        _pattern(text, out)
    else:
        out.add(Entry(text))


def _folder(folder: str, out: Gathered, *, report_empty: bool) -> bool:
    """Add the documents under ``folder``; True when there was one."""
    found = False
    for item in walk(folder):
        if item.document and item.path.is_dir():
            found = True
            out.add_folder_document(os.fspath(item.path))
        elif item.document:
            found = True
            out.add(Entry(os.fspath(item.path)))
        else:
            out.skip(os.fspath(item.path))
    if not found and report_empty:
        out.add(Entry(folder, empty="no file under this folder is a document by its content "
                                    "or name"))
    return found


def _pattern(pattern: str, out: Gathered) -> None:
    found = False
    for match in expand_pattern(pattern):
        if os.path.isdir(match):
            found |= _folder(match, out, report_empty=False)
        elif out.in_folder_document(match):
            found = True  # a file of a scan or run folder the pattern matched too: read there
        else:
            found = True
            out.add(Entry(match))
    if not found:
        out.add(Entry(pattern, empty="the pattern matches no document"))
