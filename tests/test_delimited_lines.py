"""The data file's lines, read in chunks: the same numbered lines as splitting the whole
text, a line over the limit counted and never held, invalid UTF-8 at its file offset."""

from __future__ import annotations

import io
import json
import random
import shutil
import tracemalloc
from pathlib import Path

from inspector.cli import format_report
from inspector.formats import open_document
from inspector.formats.delimited.lines import MAX_LINE_BYTES, LongLine, scan_lines
from tests.conftest import FIXTURES

DEMO = FIXTURES / "auc-delimited/demo_experiment"
PIECES = ["scan_001", "5.90", ",", "\t", " ", "é", "€", "\n", "\r\n", "\r", "\x0c", "\u2028",
          "\x85", "\n\n", "\r\r\n"]


def _oracle(text: str) -> list[tuple[int, str]]:
    """What the reader kept before it read in chunks: the whole text split."""
    return [(i, line) for i, line in enumerate(text.splitlines(), start=1)
            if line and not line.isspace()]


def test_chunked_lines_are_the_lines_of_the_whole_text():
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60)))
        raw = text.encode("utf-8")
        chunk = rng.randint(1, 9)
        scan = scan_lines(io.BytesIO(raw), cap=10_000, chunk=chunk)
        assert scan.lines == _oracle(text), (text, chunk)
        assert scan.long == [] and scan.bad_utf8 is None


def test_a_line_over_the_limit_is_counted_and_dropped():
    text = "a,b\n" + "x" * 50 + "\r\n1,2\n" + "y" * 31 + "\n" + "z" * 200
    for chunk in (1, 3, 8, 30):
        scan = scan_lines(io.BytesIO(text.encode()), cap=30, chunk=chunk)
        assert scan.lines == [(1, "a,b"), (3, "1,2")]
        assert scan.long == [LongLine(2, 50), LongLine(4, 31), LongLine(5, 200)]
    # exactly at the limit is kept
    assert scan_lines(io.BytesIO(b"q" * 30), cap=30, chunk=7).lines == [(1, "q" * 30)]


def test_invalid_utf8_is_reported_at_its_offset_in_the_file():
    raw = "scan,€\nrow,1\n".encode() + b"ok,\xff\n"
    want = None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        want = exc.start
    for chunk in (1, 2, 5, 64):
        assert scan_lines(io.BytesIO(raw), cap=100, chunk=chunk).bad_utf8 == want


class _OneLongLine(io.RawIOBase):
    """A file of ``size`` bytes without a line break, made as it is read."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return b"7," * (n // 2) + b"7" * (n % 2)


def test_one_enormous_line_is_never_held():
    size = 3 * MAX_LINE_BYTES  # 48 MiB
    tracemalloc.start()
    try:
        scan = scan_lines(_OneLongLine(size))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scan.lines == [] and scan.long == [LongLine(1, size)]
    assert peak < MAX_LINE_BYTES + (8 << 20)  # at most one line's worth, not the file


def test_the_import_refuses_a_table_with_a_line_over_the_limit(tmp_path: Path):
    folder = tmp_path / "one_line"
    shutil.copytree(DEMO, folder)
    data = folder / "scans.csv"
    head = data.read_text().splitlines(keepends=True)
    long = "scan_001,5.90," + "0" * MAX_LINE_BYTES + ",0\n"
    data.write_text("".join(head[:3]) + long + "".join(head[3:]))
    with open_document(folder) as doc:
        doc.verify()
        found = [f for f in doc.findings if f.code == "table.line-too-long"]
        assert len(found) == 1 and found[0].severity == "error"
        assert found[0].location == "scans.csv:4"
        assert f"line 4 has {len(long) - 1:,} bytes" in found[0].message
        assert "one_line" not in found[0].message and "scans.csv" not in found[0].message
        assert not doc.ok
        assert "one_line" in format_report(doc)
        assert len(json.dumps(doc.to_json())) < 100_000  # the line is not echoed
