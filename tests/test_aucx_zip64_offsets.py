"""ZIP64 records whose offsets reach 2**63 and beyond, and sniffers that raise.

Any 8-byte ZIP64 value is representable; one past the file (or past what an
``fseek`` takes) must be a finding, never a traceback, and a file that makes a
sniffer raise must still be reported, alone and in a folder walk.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.formats import open_document, registry
from tests.conftest import FIXTURES

BASE = FIXTURES / "aucx" / "src_demo_experiment.aucx"
EOCD_SIG = b"PK\x05\x06"


def _with_locator(path: Path, offset: int) -> Path:
    """The base archive with a ZIP64 end-of-central-directory locator pointing at
    ``offset`` just before its end record (APPNOTE 4.3.15)."""
    data = BASE.read_bytes()
    at = data.rindex(EOCD_SIG)
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, offset, 1)
    path.write_bytes(data[:at] + locator + data[at:])
    return path


def _with_zip64_offset(path: Path, offset: int) -> Path:
    """The base archive whose first central directory entry takes its local header
    offset from a ZIP64 extra field holding ``offset`` (APPNOTE 4.5.3)."""
    data = bytearray(BASE.read_bytes())
    at = data.rindex(EOCD_SIG)
    cd_size, cd_offset = struct.unpack_from("<II", data, at + 12)
    entry = cd_offset
    nlen, xlen = struct.unpack_from("<HH", data, entry + 28)
    extra = struct.pack("<HHQ", 0x0001, 8, offset)
    struct.pack_into("<H", data, entry + 30, xlen + len(extra))
    struct.pack_into("<I", data, entry + 42, 0xFFFFFFFF)
    insert = entry + 46 + nlen + xlen
    data[insert:insert] = extra
    struct.pack_into("<I", data, at + len(extra) + 12, cd_size + len(extra))
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("offset", [2**63, 2**64 - 1, 2**40])
def test_a_locator_beyond_the_file_is_a_finding(tmp_path, capsys, offset):
    path = _with_locator(tmp_path / "loc.aucx", offset)
    assert main(["verify", "--json", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == "aucx" and report["ok"] is False
    assert report["structure_ok"] is None
    codes = [f["code"] for f in report["findings"]]
    assert codes[0] == "zip.truncated" and "internal.reader-failed" not in codes
    assert str(offset) in report["findings"][0]["message"]


@pytest.mark.parametrize("offset", [2**63, 2**64 - 1])
def test_a_zip64_extra_offset_beyond_the_file_refuses_that_member(tmp_path, offset):
    path = _with_zip64_offset(tmp_path / "extra.aucx", offset)
    with open_document(path) as doc:
        doc.verify()
        codes = [f.code for f in doc.findings]
        assert "zip.data-out-of-bounds" in codes and "internal.reader-failed" not in codes
        assert doc.traceback is None
        assert any(m.status == "refused" for m in doc.members)


@pytest.mark.slow
def test_the_folder_walk_reports_them(tmp_path, capsys):
    folder = tmp_path / "store"
    folder.mkdir()
    _with_locator(folder / "loc.aucx", 2**63)
    _with_zip64_offset(folder / "extra.aucx", 2**63)
    shutil.copy(BASE, folder / "good.aucx")
    assert main(["verify", "--json", "--jobs", "2", str(folder)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()
             if line.startswith("{")]
    by_name = {Path(x["path"]).name: x for x in lines if "path" in x}
    assert {"loc.aucx", "extra.aucx", "good.aucx"} <= set(by_name)
    assert by_name["loc.aucx"]["ok"] is False and by_name["extra.aucx"]["ok"] is False
    assert by_name["good.aucx"]["ok"] is True


class _Exploding:
    format_id = "exploding"
    display_name = "Exploding"
    file_patterns = ("*.boom",)
    priority = -1
    opens_folders = False

    def sniff(self, path: Path) -> bool:
        raise OverflowError("int too large to convert to C long")

    def mismatch_reason(self, path: Path) -> str:
        raise RuntimeError("no reason")

    def open(self, path: Path, options: object) -> object:  # pragma: no cover - never reached
        raise AssertionError


def test_a_raising_sniffer_is_reported_not_raised(tmp_path, monkeypatch):
    """Every sniffer runs inside the registry's never-raise wrapper."""
    monkeypatch.setattr(registry, "_READERS", [_Exploding(), *registry.readers()])
    path = tmp_path / "x.bin"
    path.write_bytes(b"\0" * 64)
    doc = registry.open_document(path)
    assert [f.code for f in doc.findings] == ["internal.reader-failed"]
    assert "OverflowError" in doc.findings[0].message and doc.traceback
