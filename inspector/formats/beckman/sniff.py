"""Recognise a Beckman XL-A/XL-I run by its content.

A folder holding a file named like a scan (:mod:`.names`) whose line 2 parses
as the eight-field header line (:mod:`.header`), or such a file itself.  Only
the first two lines of at most :data:`MAX_TRIED` files are read.
"""

from __future__ import annotations

from pathlib import Path

from inspector.formats.beckman.folder import folder_entries
from inspector.formats.beckman.header import Header, parse_header
from inspector.formats.beckman.names import parse_name

#: Bytes read from a file to find its first two lines.
HEAD_BYTES = 4096
#: Scan-named files of a folder tried at most.
MAX_TRIED = 5


def header_parses(path: Path) -> bool:
    """True when line 2 of ``path`` parses as a header line; never raises."""
    try:
        with path.open("rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        return False
    lines = head.splitlines()
    if len(lines) < 2:
        return False
    return isinstance(parse_header(lines[1].decode("ascii", errors="replace")), Header)


def is_beckman_source(path: Path) -> bool:
    """True for a scan file with a parsing header line, or a folder holding one."""
    try:
        if path.is_dir():
            tried = 0
            for entry in folder_entries(path).items:
                if parse_name(entry.name) is None or not entry.is_file:
                    continue
                if header_parses(entry.path):
                    return True
                tried += 1
                if tried >= MAX_TRIED:
                    return False
            return False
        return parse_name(path.name) is not None and path.is_file() and header_parses(path)
    except OSError:
        return False
