"""Parse a large ``experiment.json`` as it inflates, its scans straight into columns.

``experiment.json`` grows by about 480 bytes a scan (the writer's indented form): a
million scans make about 480 MB of text, and ``json.loads`` would hold some 3 KB of
objects a scan.  :func:`parse_experiment_stream` reads the member in blocks, parses
the top-level object key by key and the ``scans`` array element by element (each
with the rules of :func:`.jsonmember.parse_json_member`: RFC 8259, NaN/Infinity read
as openauc reads them with a note, nesting at most :data:`.jsonmember.MAX_DEPTH`, no
lone surrogates), and appends each scan object to a
:class:`~inspector.formats.auc.scan_records.ScanRecords`.  Memory is bounded by the
columns (about 100 bytes a scan) and one element at a time (at most
:data:`ELEMENT_LIMIT`).  The result equals ``json.loads`` of the whole text.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.aucx.jsonmember import MAX_DEPTH, _check_tree, _lenient, _Rejected
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.aucx.zipscan import ZipEntry

#: Largest single value (a scan object, the metadata, the samples) parsed, in characters.
ELEMENT_LIMIT = 16 << 20
#: Inflated bytes handed to the parser at a time.
BLOCK = 1 << 20
#: Most scan records read (Inspector's limit, as for CSV/TSV tables).
MAX_SCANS = 1_000_000
_WS = " \t\n\r"


class StreamRejected(ValueError):
    """The text is not acceptable JSON (or breaks a limit); the message says why."""


class _Text:
    """The member's text, decoded as it inflates; ``buf[pos:]`` is not yet parsed."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self.blocks = blocks
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0
        self.consumed = 0  # characters dropped from the front of ``buf``
        self.eof = False

    def more(self) -> bool:
        """Read another block; False at the end of the member."""
        if self.eof:
            return False
        if self.pos > (1 << 20):
            self.consumed += self.pos
            self.buf, self.pos = self.buf[self.pos:], 0
        block = next(self.blocks, None)
        try:
            text = self.decoder.decode(block or b"", final=block is None)
        except UnicodeDecodeError as exc:
            raise StreamRejected(f"it is not UTF-8 text ({exc.reason} near character "
                                 f"{self.consumed + len(self.buf)})") from exc
        self.eof = block is None
        self.buf += text
        return True

    def peek(self) -> str:
        """The next character after white space ("" at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos:self.pos + 1]

    def expect(self, chars: str) -> str:
        found = self.peek()
        if not found or found not in chars:
            shown = repr(found) if found else "the end"
            raise StreamRejected(f"expected {' or '.join(repr(c) for c in chars)} at "
                                 f"character {self.consumed + self.pos}, found {shown}")
        self.pos += 1
        return found

    def value(self, decoder: json.JSONDecoder, depth: int = 1) -> Any:
        """The next JSON value (whole: at most :data:`ELEMENT_LIMIT` characters), found
        at nesting level ``depth`` of the document (the top level is 1)."""
        self.peek()
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > ELEMENT_LIMIT or not self.more():
                    raise StreamRejected(self._where(exc)) from exc
                continue
            if end == len(self.buf) and self.more():
                continue  # a number may go on in the next block
            text = self.buf[self.pos:end]
            self.pos = end
            if text.count("[") + text.count("{") > MAX_DEPTH - depth or "\\u" in text:
                nested = value
                for _ in range(depth - 1):
                    nested = [nested]
                why = _check_tree(nested)
                if why is not None:
                    raise StreamRejected(why)
            return value

    def _where(self, exc: json.JSONDecodeError) -> str:
        if len(self.buf) - self.pos > ELEMENT_LIMIT:
            return (f"a value at character {self.consumed + self.pos} is longer than "
                    f"{ELEMENT_LIMIT} characters, the most read at once")
        return f"{exc.msg} at character {self.consumed + exc.pos}"


def _scans(text: _Text, decoder: json.JSONDecoder) -> Any:
    """The ``scans`` array: a ScanRecords when every element is an object, else a list."""
    text.expect("[")
    records = ScanRecords()
    others: list[Any] | None = None
    if text.peek() == "]":
        text.pos += 1
        return []
    while True:
        if len(records) + len(others or ()) >= MAX_SCANS:
            raise StreamRejected(f"its scans hold more than {MAX_SCANS:,} records, the "
                                 "most Inspector reads")
        item = text.value(decoder, depth=3)
        if others is None and type(item) is dict:
            records.append(item)
        else:
            if others is None:
                others = list(records)
            others.append(item)
        if text.expect(",]") == "]":
            break
    return others if others is not None else records.sealed()


def _object(text: _Text, decoder: json.JSONDecoder) -> dict[str, Any]:
    text.expect("{")
    out: dict[str, Any] = {}
    if text.peek() == "}":
        text.pos += 1
        return out
    while True:
        key = text.value(decoder)
        if not isinstance(key, str):
            raise StreamRejected("an object key is not a string")
        text.expect(":")
        if key == "scans" and text.peek() == "[":
            out[key] = _scans(text, decoder)
        else:
            out[key] = text.value(decoder, depth=2)
        if text.expect(",}") == "}":
            return out


def parse_experiment_stream(path: Path, entry: ZipEntry,
                            notes: list[str]) -> tuple[Any, str | None, bool]:
    """``(value, None, False)`` for an acceptable ``experiment.json`` member, else
    ``(None, reason, unreadable)``: a reason fit for "<member> is not valid JSON:
    <reason>", or (``unreadable`` True) the inflation problem's message.  A top-level
    object is parsed key by key; any other top-level value is parsed whole when it fits
    :data:`ELEMENT_LIMIT`.  NaN and Infinity are read as Python (and openauc) reads
    them, with one sentence appended to ``notes`` (the rules of
    :func:`.jsonmember.parse_json_member`).

    Raises:
        OSError: the archive cannot be read.
    """
    stream = MemberStream(path, entry, out_block=BLOCK)
    constant, number = _lenient(notes)
    decoder = json.JSONDecoder(parse_constant=constant, parse_float=number)
    text = _Text(iter(stream))
    why: str | None
    try:
        value = _object(text, decoder) if text.peek() == "{" else text.value(decoder)
        if text.peek():
            raise StreamRejected(f"extra data at character {text.consumed + text.pos}")
    except (StreamRejected, _Rejected) as exc:
        why = str(exc)
    except RecursionError:
        why = "its arrays/objects are nested too deeply to parse"
    except ValueError as exc:  # e.g. integers beyond sys.get_int_max_str_digits()
        why = f"it holds a value Python cannot parse: {exc}"
    else:
        why = None
    if why is not None:
        for _ in text.blocks:  # the whole member, for its CRC-32 (read first, as in memory)
            pass
    if stream.result.problem is not None:
        return None, stream.result.problem.message, True
    return (value, None, False) if why is None else (None, why, False)


__all__ = ["ELEMENT_LIMIT", "MAX_SCANS", "StreamRejected", "parse_experiment_stream"]
