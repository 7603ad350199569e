"""Member names a ZIP writer allows and an AUCX reader must refuse: NUL and line breaks.

zipfile is the oracle of what the archive holds (it cuts a name at its NUL, as C tools do:
the name Inspector reads and reports is the whole one).
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from inspector.cli import format_report
from inspector.formats import open_document
from inspector.formats.findings import printable
from tests.conftest import FIXTURES

BASE = FIXTURES / "aucx" / "syn_equilibrium_s1_6x200.aucx"


def archive_with(path: Path, name: str) -> Path:
    """The base archive plus member ``name`` (written under a same-length placeholder, whose
    bytes are then replaced in the local and central headers), listed in the checksums."""
    with zipfile.ZipFile(BASE) as zf:
        members = {n: zf.read(n) for n in zf.namelist() if n != "checksums.sha256"}
    placeholder = "Q" * len(name.encode())
    members[placeholder] = b"not an array"
    sums = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(members.items()))
    members["checksums.sha256"] = sums.replace(placeholder, name).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    raw = path.read_bytes()
    assert raw.count(placeholder.encode()) == 2  # the local and the central header
    path.write_bytes(raw.replace(placeholder.encode(), name.encode()))
    return path


@pytest.mark.parametrize("name", ["arrays/evil\x00name.npy", "arrays/two\nlines.npy",
                                  "arrays/bell\x07.npy"])
def test_a_control_character_in_a_member_name_is_unsafe(tmp_path, name):
    path = archive_with(tmp_path / "names.aucx", name)
    with zipfile.ZipFile(path) as zf:
        assert name.split("\x00")[0] in zf.namelist()
    doc = open_document(path)
    doc.verify()
    unsafe = [f for f in doc.findings if f.code == "zip.unsafe-name"]
    assert [f.location for f in unsafe] == [name] and not doc.ok
    assert "control character" in unsafe[0].message and name not in unsafe[0].message
    report = format_report(doc)
    assert printable(name) in report and name not in report
    assert not any(ord(c) < 0x20 and c != "\n" for c in report)
    assert "internal.reader-failed" not in {f.code for f in doc.findings}


def test_printable_escapes_only_control_characters():
    assert printable("a\x00b\tc\x7fé/ü") == "a\\x00b\\x09c\\x7fé/ü"
