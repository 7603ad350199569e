"""AUC scan tables aimed at memory and time: CSV/TSV tables, Beckman runs, a ZIP64 record.

* a long CSV of a million scans (one row each: the report must summarise, not list);
* a long CSV of five million rows opened in the window;
* a Beckman run of 30 scan files, 60 MB in all, opened in the window;
* a 64 MB Beckman scan file whose every data line is malformed;
* a 100 MB CSV whose second line opens a quote that is never closed;
* a Beckman header whose cell number (and count) has 5 000 digits;
* an AUCX archive whose ZIP64 extra field puts a local header at offset 2**64 - 2.

Builders write at ``small`` scale (CI: a few MB) or ``full`` scale (the sizes above).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

from fuzz.hostile.case import HostileCase, Scale, static_target

_MANIFEST = {
    "schema_version": "1.0",
    "format": "generic-long",
    "data_file": "scans.csv",
    "experiment": {"experiment_id": "hostile-table", "name": "hostile",
                   "experiment_type": "sedimentation_velocity"},
    "defaults": {"optical_system": "absorbance", "signal_unit": "absorbance_unit",
                 "cell": "1", "channel": "A"},
}
_BLOCK = 1 << 20


def _manifest(folder: Path) -> None:
    (folder / "manifest.json").write_text(json.dumps(_MANIFEST), encoding="utf-8")


def _many_scans(folder: Path, scale: Scale) -> Path:
    """``scans`` scans of one point each (all at radius 6.0: one shared axis)."""
    scans = 1_000_000 if scale == "full" else 50_000
    _manifest(folder)
    with (folder / "scans.csv").open("w", encoding="ascii") as fh:
        fh.write("scan,radius_cm,signal,elapsed_seconds\n")
        step = 10_000
        for start in range(0, scans, step):
            fh.write("".join(f"s{i:07d},6.0,0.{i % 997:03d},{i}\n"
                             for i in range(start, min(start + step, scans))))
    return folder


def _many_rows(folder: Path, scale: Scale) -> Path:
    """``rows`` rows: 1 000 scans of ``rows / 1000`` points on a shared axis."""
    rows = 5_000_000 if scale == "full" else 200_000
    points = rows // 1000
    _manifest(folder)
    radius = [f"{5.9 + 1.3 * k / points:.5f}" for k in range(points)]
    with (folder / "scans.csv").open("w", encoding="ascii") as fh:
        fh.write("scan,radius_cm,signal,elapsed_seconds\n")
        for s in range(1000):
            fh.write("".join(f"scan{s:04d},{r},{(k * 7 + s) % 1000 / 1000:.3f},{s * 60}\n"
                             for k, r in enumerate(radius)))
    return folder


def _beckman_line2(cell: str = "1", count: str = "3") -> str:
    return f"R {cell} 20.0 50000 0000120 1.2345E09 280 {count}"


def _beckman_run(folder: Path, scale: Scale) -> Path:
    """30 RA scan files of about 2 MB each (60 MB; 1 MB in all at small scale)."""
    target = 2 << 20 if scale == "full" else 35_000
    line_bytes = 33
    points = target // line_bytes
    run = folder / "run"
    run.mkdir()
    body = "".join(f"{5.9 + 1.3 * k / points:9.6f} {0.5 + (k % 1000) / 2000:10.5E} "
                   f"{0.00500:10.4E}\r\n" for k in range(points)).encode("ascii")
    for i in range(30):
        head = f"hostile run, cell 1\r\n{_beckman_line2()}\r\n".replace(
            "0000120", f"{120 * (i + 1):07d}").encode("ascii")
        (run / f"{i + 1:05d}.RA1").write_bytes(head + body)
    return run


def _beckman_malformed(folder: Path, scale: Scale) -> Path:
    """One scan file of malformed data lines, 64 MiB less a little (under the reader's cap)."""
    size = (64 << 20) - 4096 if scale == "full" else 2 << 20
    path = folder / "00001.RA1"
    bad = b"5.9 x 0.1 junk\n"
    with path.open("wb") as fh:
        fh.write(f"malformed\n{_beckman_line2()}\n".encode("ascii"))
        written = 0
        block = bad * (_BLOCK // len(bad))
        while written + len(block) <= size:
            fh.write(block)
            written += len(block)
        fh.write(bad * ((size - written) // len(bad)))
    return path


def _beckman_digits(folder: Path, scale: Scale) -> Path:
    """A run folder: a good scan file, then one whose line 2 cell number has 5 000
    digits and one whose count has 5 000 digits."""
    run = folder / "run"
    run.mkdir()
    digits = "1" * 5000
    data = "5.9 0.1 0.01\n6.0 0.2 0.01\n"
    for i, line2 in enumerate((_beckman_line2(), _beckman_line2(cell=digits),
                               _beckman_line2(count=digits)), start=1):
        (run / f"{i:05d}.RA1").write_bytes(f"digits\n{line2}\n{data}".encode("ascii"))
    return run


def _unterminated_quote(folder: Path, scale: Scale) -> Path:
    """A long CSV whose first data line opens a quote never closed (100 MB at full scale)."""
    size = 100 << 20 if scale == "full" else 4 << 20
    _manifest(folder)
    row = b"s1,6.0,0.1,0\n"
    with (folder / "scans.csv").open("wb") as fh:
        fh.write(b'scan,radius_cm,signal,elapsed_seconds\n"s0,6.0,0.1,0\n')
        block = row * (_BLOCK // len(row))
        for _ in range(size // len(block)):
            fh.write(block)
    return folder


def _zip64_offset(folder: Path, scale: Scale) -> Path:
    """An archive whose first member's ZIP64 extra field gives offset 2**64 - 2."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", b"application/x-aucx")
        zf.writestr("manifest.json", b"{}")
    data = bytearray(buf.getvalue())
    cd = data.find(b"PK\x01\x02")
    # entry 0: header offset 0xFFFFFFFF, extra = ZIP64 field holding the offset
    nlen, xlen, clen = struct.unpack_from("<HHH", data, cd + 28)
    extra = struct.pack("<HHQ", 0x0001, 8, (1 << 64) - 2)
    struct.pack_into("<H", data, cd + 30, len(extra))
    struct.pack_into("<I", data, cd + 42, 0xFFFFFFFF)
    name_end = cd + 46 + nlen
    data[name_end:name_end + xlen] = extra
    eocd = data.rfind(b"PK\x05\x06")
    cd_size = struct.unpack_from("<I", data, eocd + 12)[0]
    struct.pack_into("<I", data, eocd + 12, cd_size + len(extra) - xlen)
    path = folder / "zip64.aucx"
    path.write_bytes(bytes(data))
    return path


_VERIFY = ("verify", "--json", "{target}")
_WINDOW = ("--screenshot", "{out}.png", "{target}")

CASES = (
    HostileCase(
        name="csv-million-scans", area="tables", build=static_target(_many_scans),
        commands=(_VERIFY,), time_limit_s=240.0,
        description="a long CSV of 1 000 000 scans of one point (50 000 at small scale)",
    ),
    HostileCase(
        name="csv-five-million-rows-window", area="tables", build=static_target(_many_rows),
        commands=(_WINDOW,), time_limit_s=300.0,
        description="a long CSV of 5 000 000 rows (1 000 scans) opened in the window",
    ),
    HostileCase(
        name="beckman-run-60mb-window", area="tables", build=static_target(_beckman_run),
        commands=(_WINDOW, _VERIFY), time_limit_s=180.0,
        description="a Beckman run of 30 RA files, 60 MB in all, opened in the window",
    ),
    HostileCase(
        name="beckman-64mb-malformed", area="tables", build=static_target(_beckman_malformed),
        commands=(_VERIFY,), expect_codes=frozenset({"beckman.malformed-line"}),
        time_limit_s=30.0, max_line_bytes=2_000_000,
        description="a 64 MB Beckman scan file of malformed data lines",
    ),
    HostileCase(
        name="csv-unterminated-quote", area="tables", build=static_target(_unterminated_quote),
        commands=(_VERIFY,), time_limit_s=40.0,
        description="a 100 MB long CSV whose first data line opens a quote never closed",
    ),
    HostileCase(
        name="beckman-5000-digit-cell", area="tables", build=static_target(_beckman_digits),
        commands=(_VERIFY,), expect_codes=frozenset({"beckman.header-value"}),
        time_limit_s=30.0,
        description="a Beckman header whose cell number and count have 5 000 digits",
    ),
    HostileCase(
        name="zip64-extra-huge-offset", area="tables", build=static_target(_zip64_offset),
        commands=(_VERIFY,), expect_codes=frozenset({"zip.data-out-of-bounds"}),
        time_limit_s=30.0,
        description="a ZIP64 extra field giving a local header offset of 2**64 - 2",
    ),
)
