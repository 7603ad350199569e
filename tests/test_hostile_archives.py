"""Hostile AUCX archives found by a tester: each must open, verify and
serialise (``verify --json``) with findings at the member concerned, in
bounded time and memory (seed 002 "Safety"; AUCX on-disk notes §1; RFC 8259).

Every archive is built in ``tmp_path`` from the corpus archive
``syn_equilibrium_s1_6x200.aucx`` (6 scans x 200 points, shared radius) with
a correct ``checksums.sha256``, so only the crafted fault remains.
"""

from __future__ import annotations

import hashlib
import json
import struct
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.aucx import checksums as checksums_mod
from inspector.formats.aucx import open_archive, zipscan
from inspector.formats.aucx.jsonmember import MAX_DEPTH, parse_json_member
from inspector.formats.aucx.reader import JSON_MEMBER_LIMIT, MAX_JSON_CONTAINERS
from inspector.formats.aucx.state import MAX_SUMMARY_MEMBERS
from inspector.formats.aucx.trees import MAX_CHILDREN, json_node
from inspector.formats.aucx.zipscan import MANY_MEMBERS, ZipEntry, _check_overlaps
from inspector.formats.findings import MAX_PER_CODE
from tests.conftest import FIXTURES

BASE = FIXTURES / "aucx" / "syn_equilibrium_s1_6x200.aucx"
MEMBERS = ("manifest.json", "experiment.json", "provenance.json", "arrays/radius.npy",
           "arrays/signal.npy", "arrays/mask.npy", "checksums.sha256")


def base_members() -> dict[str, bytes]:
    with zipfile.ZipFile(BASE) as zf:
        return {n: zf.read(n) for n in zf.namelist() if n != "checksums.sha256"}


def build(path: Path, members: dict[str, bytes], *, checksums: bool = True,
          method: int = zipfile.ZIP_DEFLATED) -> Path:
    """Write ``members`` (plus a correct checksums.sha256) to ``path``."""
    members = dict(members)
    if checksums:
        members["checksums.sha256"] = "".join(
            f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(members.items())
        ).encode()
    with zipfile.ZipFile(path, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def with_manifest(path: Path, edit) -> Path:
    m = base_members()
    manifest = json.loads(m["manifest.json"])
    edit(manifest)
    m["manifest.json"] = json.dumps(manifest).encode()
    return build(path, m)


def verified(path: Path):
    doc = open_document(path)
    doc.verify()
    # what `inspector verify --json` prints: strict JSON, encodable as UTF-8
    json.dumps(doc.to_json(), allow_nan=False, ensure_ascii=False).encode("utf-8")
    return doc


def openauc_accepts(path: Path) -> bool:
    """The reference's verdict (``validate_aucx`` and ``load``; any exception refuses)."""
    openauc = pytest.importorskip("openauc")
    try:
        return openauc.validate_aucx(path).is_valid and openauc.load(path) is not None
    except Exception:  # noqa: BLE001 - any exception is a refusal
        return False


def codes(doc) -> set[tuple[str, str]]:
    return {(f.code, f.location) for f in doc.findings if f.severity == "error"}


def statuses(doc) -> dict[str, str]:
    return {m.name: m.status for m in doc.members}


def assert_rest_checked(doc) -> None:
    """The other checks still ran: every member was hashed against its
    recorded digest and the three arrays were read."""
    assert statuses(doc) == {n: "ok" for n in MEMBERS}
    assert doc.arrays["signal"].shape == (6, 200)
    assert doc.arrays["radius"].shape == (200,)
    assert "internal.reader-failed" not in {f.code for f in doc.findings}


# -- P4: many members -------------------------------------------------------
@pytest.mark.slow
def test_many_members_are_listed_hashed_and_capped(tmp_path):
    """9 000 extra members (an AUCX archive has 7): a warning, every member
    listed and hashed, and the per-member findings capped (the overlap and
    lookup steps were quadratic: 100 000 members never finished)."""
    m = base_members()
    n_extra = 9_000
    for i in range(n_extra):
        m[f"junk/{i}"] = b""
    doc = open_document(build(tmp_path / "many.aucx", m, method=zipfile.ZIP_STORED))
    calls: list[tuple[int, int]] = []
    doc.verify(progress=lambda p: calls.append((p.done, p.total)))
    json.dumps(doc.to_json(), allow_nan=False)
    # throttled above 1000 members, so a window doing O(n) work per call stays linear
    assert 200 <= len(calls) <= 201 and calls[-1] == (n_extra + 7, n_extra + 7)
    assert [f.severity for f in doc.findings if f.code == "zip.many-members"] == ["warning"]
    assert len(doc.members) == n_extra + 7
    # listed in checksums.sha256 but not in the manifest parts
    assert statuses(doc)["junk/8999"] == "ok"
    assert all(m.computed == hashlib.sha256(b"").hexdigest()
               for m in doc.members if m.name.startswith("junk/"))
    not_in_parts = [f for f in doc.findings if f.code == "manifest.member-not-in-parts"]
    assert len(not_in_parts) == MAX_PER_CODE + 1
    assert not_in_parts[-1].location == ""
    assert f"{n_extra - MAX_PER_CODE} more" in not_in_parts[-1].message
    assert len(doc.tree.children) == n_extra + 7
    assert MANY_MEMBERS < n_extra < zipscan.MAX_ENTRIES
    # the verify --json line lists the first rows and says how many it left out
    assert doc.summary["members"][-1] == {"omitted": n_extra + 7 - MAX_SUMMARY_MEMBERS}
    assert len(json.dumps(doc.to_json())) < 400_000


def _entry(name: str, index: int, start: int, end: int) -> ZipEntry:
    return ZipEntry(name=name, index=index, flags=0, method=0, crc=0, compressed_size=0,
                    file_size=0, header_offset=start, date_time=(1980, 1, 1, 0, 0, 0),
                    external_attr=0, create_system=3, create_version=20, span_end=end)


def test_overlap_check_finds_spans_inside_an_earlier_long_span():
    """Sorted sweep with the furthest end so far: B and C both lie inside A
    although C does not touch its neighbour B; D starts exactly where A ends."""
    entries = [_entry("D", 0, 1000, 1100), _entry("C", 1, 300, 400),
               _entry("A", 2, 0, 1000), _entry("B", 3, 100, 200)]
    found = _check_overlaps(entries)
    flagged = {p.location: p.message for p in found if p.code == "zip.overlap"}
    assert set(flagged) == {"B", "C"}
    assert "'A'" in flagged["C"]
    assert [e.safe for e in entries] == [True, False, True, False]


# -- P5: NaN / Infinity ------------------------------------------------------
# Python's json module (so openauc's loader) reads these tokens as non-finite floats:
# a warning says so, and the place that needs something else is an error of its own rule.
@pytest.mark.parametrize("member, edit, token, error", [
    ("manifest.json", lambda j: j["observations"].__setitem__("radius_unit", float("nan")), "NaN",
     ("manifest.observations-invalid", "manifest.json:observations.radius_unit")),
    ("manifest.json", lambda j: j.__setitem__("aucx_format_version", float("nan")), "NaN",
     ("manifest.version-missing", "manifest.json")),
    ("manifest.json", lambda j: j["observations"].__setitem__("n_points", float("-inf")),
     "-Infinity", ("manifest.observations-invalid", "manifest.json:observations.n_points")),
    ("provenance.json", lambda j: j["export"].__setitem__("member_count", float("nan")), "NaN",
     ("json.model-invalid", "provenance.json:export.member_count")),
    ("experiment.json", lambda j: j["scans"][0].__setitem__("index", float("inf")), "Infinity",
     ("json.model-invalid", "experiment.json:scans[0].index")),
])
def test_nan_and_infinity_literals_are_findings(tmp_path, member, edit, token, error):
    m = base_members()
    payload = json.loads(m[member])
    edit(payload)
    m[member] = json.dumps(payload).encode()  # Python writes NaN / Infinity literals
    assert token.encode() in m[member]
    doc = verified(build(tmp_path / "nan.aucx", m))
    msgs = [f.message for f in doc.findings
            if f.code == "json.non-finite-number" and f.location == member]
    assert len(msgs) == 1
    assert msgs[0].startswith(f"{member}: {token} is not a JSON number")
    assert codes(doc) == {error}
    assert_rest_checked(doc)


@pytest.mark.slow
def test_nan_where_openauc_reads_nothing_is_only_a_warning(tmp_path):
    path = with_manifest(tmp_path / "free.aucx",
                         lambda j: j["created_by"].__setitem__("version", float("nan")))
    doc = verified(path)
    assert doc.ok
    assert [f.code for f in doc.findings if f.scope == "integrity"] == ["json.non-finite-number"]
    assert openauc_accepts(path)


def test_overflowing_number_is_a_finding(tmp_path):
    m = base_members()
    m["manifest.json"] = m["manifest.json"].replace(b'"radius_unit": "cm"',
                                                    b'"radius_unit": 1e999')
    doc = verified(build(tmp_path / "inf.aucx", m))
    assert codes(doc) == {("manifest.observations-invalid",
                           "manifest.json:observations.radius_unit")}
    assert "1e999 is not a JSON number" in next(
        f.message for f in doc.findings if f.code == "json.non-finite-number")
    assert doc.summary["radius_unit"] == "Infinity"


# -- P6: lone surrogates ------------------------------------------------------
@pytest.mark.parametrize("where", ["scan_id", "key"])
def test_lone_surrogate_is_a_finding(tmp_path, where):
    m = base_members()
    if where == "scan_id":
        m["manifest.json"] = m["manifest.json"].replace(b'"scan_001"', b'"\\ud800"')
    else:
        m["manifest.json"] = m["manifest.json"].replace(b'"software"', b'"\\udcff"')
    doc = verified(build(tmp_path / "sur.aucx", m))
    msgs = [f.message for f in doc.findings if f.code == "manifest.not-json"]
    assert len(msgs) == 1 and "lone surrogate" in msgs[0]
    assert doc.summary["scan_ids"] == []
    assert_rest_checked(doc)


def test_surrogate_pair_is_accepted():
    assert parse_json_member(b'["\\ud83d\\ude00"]') == (["\U0001F600"], None)


# -- P9: parse failures other than JSONDecodeError ---------------------------
@pytest.mark.parametrize("member", ["manifest.json", "experiment.json"])
def test_deep_nesting_is_a_finding(tmp_path, member):
    m = base_members()
    m[member] = b"[" * 100_000 + b"]" * 100_000
    doc = verified(build(tmp_path / "deep.aucx", m))
    code = "manifest.not-json" if member == "manifest.json" else "json.invalid"
    assert (code, member) in codes(doc)
    assert_rest_checked(doc)
    if member == "experiment.json":  # the manifest was still read
        assert doc.summary["scan_ids"] == [f"scan_{i:03d}" for i in range(1, 7)]


def test_nesting_limit_is_exact():
    ok = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert parse_json_member(ok)[1] is None
    deeper = b"{\"a\":" + ok + b"}"
    value, why = parse_json_member(deeper)
    assert value is None and why == f"nesting is deeper than {MAX_DEPTH} levels"


def test_integer_beyond_digit_limit_is_a_finding(tmp_path):
    m = base_members()
    m["manifest.json"] = m["manifest.json"].replace(b'"n_scans": 6',
                                                    b'"n_scans": ' + b"9" * 5000)
    doc = verified(build(tmp_path / "bigint.aucx", m))
    msgs = [f.message for f in doc.findings if f.code == "manifest.not-json"]
    assert len(msgs) == 1 and "4300 digits" in msgs[0]
    assert_rest_checked(doc)


# -- P11: oversize members ---------------------------------------------------
def test_oversize_manifest_is_not_parsed(tmp_path):
    m = base_members()
    m["manifest.json"] = b'{"x": "' + b"a" * JSON_MEMBER_LIMIT + b'"}'
    doc = verified(build(tmp_path / "big.aucx", m))
    msgs = [f.message for f in doc.findings if f.code == "member.too-large"]
    assert len(msgs) == 1 and f"declares {JSON_MEMBER_LIMIT + 9} bytes" in msgs[0]
    assert [f.location for f in doc.findings if f.code == "member.too-large"] == ["manifest.json"]
    assert statuses(doc)["manifest.json"] == "ok"  # still hashed


def test_too_many_containers_are_not_parsed(tmp_path):
    m = base_members()
    m["provenance.json"] = b"[" + b"[]," * MAX_JSON_CONTAINERS + b"0]"
    doc = verified(build(tmp_path / "containers.aucx", m))
    msgs = [f.message for f in doc.findings if f.code == "json.invalid"]
    assert len(msgs) == 1 and f"{MAX_JSON_CONTAINERS + 1} arrays/objects" in msgs[0]
    assert_rest_checked(doc)


def test_checksum_lines_are_capped(tmp_path):
    m = base_members()
    lines = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(m.items()))
    filler = "".join(f"{'0' * 64}  absent/{i}\n" for i in range(checksums_mod.MAX_LINES))
    m["checksums.sha256"] = (lines + filler).encode()
    doc = verified(build(tmp_path / "lines.aucx", m, checksums=False))
    too_many = [f for f in doc.findings if f.code == "checksums.too-many-lines"]
    assert len(too_many) == 1 and too_many[0].location == "checksums.sha256"
    missing = [f for f in doc.findings if f.code == "checksums.listed-missing"]
    # the first MAX_LINES lines were read: 6 real members, the rest absent
    assert len(missing) == MAX_PER_CODE + 1
    assert f"{checksums_mod.MAX_LINES - 6 - MAX_PER_CODE} more" in missing[-1].message
    assert statuses(doc)["arrays/signal.npy"] == "ok"


def test_json_tree_shows_at_most_max_children():
    node = json_node("scan_ids", [f"s{i}" for i in range(MAX_CHILDREN + 5)])
    assert len(node.children) == MAX_CHILDREN + 1
    assert node.children[-1].detail == "5 more item(s) not shown"
    assert node.detail == f"{MAX_CHILDREN + 5} item(s)"


# -- n_scans / n_points --------------------------------------------------------
# openauc reads both with int() and checks them against nothing: a count that int()
# reads but the signal contradicts is a warning, one int() cannot read an error.
def test_huge_n_scans_is_reported(tmp_path):
    path = with_manifest(tmp_path / "n.aucx",
                         lambda j: j["observations"].__setitem__("n_scans", 10**30))
    doc = verified(path)
    msgs = [f.message for f in doc.findings if f.code == "array.declared-count"]
    assert len(msgs) == 1
    assert f"n_scans = {10**30} but the signal array has 6 row(s)" in msgs[0]
    assert doc.ok == openauc_accepts(path) is True


def test_n_points_must_match_signal_columns(tmp_path):
    path = with_manifest(tmp_path / "p.aucx",
                         lambda j: j["observations"].__setitem__("n_points", 199))
    doc = verified(path)
    assert [(f.code, f.severity, f.location) for f in doc.findings if f.scope == "integrity"] == [
        ("array.declared-count", "warning", "manifest.json:observations.n_points")]
    assert doc.summary["n_points"] == 199


@pytest.mark.parametrize(("value", "ok", "n"), [
    (-1, True, -1), (6.0, True, 6), (6.9, True, 6), (True, True, 1), ("6", True, 6),
    (" 6 ", True, 6), (None, False, 0), ([6], False, 0), ("6.0", False, 0), ("six", False, 0),
])
def test_n_scans_is_read_as_int_reads_it(tmp_path, value, ok, n):
    path = with_manifest(tmp_path / "t.aucx",
                         lambda j: j["observations"].__setitem__("n_scans", value))
    doc = verified(path)
    assert doc.ok == ok == openauc_accepts(path)
    msgs = [f.message for f in doc.findings if f.code == "manifest.observations-invalid"]
    assert len(msgs) == (0 if ok else 1)
    if not ok:
        assert "observations.n_scans is not an integer int() can read" in msgs[0]
    assert doc.summary["n_scans"] == n
    declared = [f for f in doc.findings if f.code == "array.declared-count"]
    assert len(declared) == (1 if ok and n != 6 else 0)


def test_unmodified_base_is_clean(tmp_path):
    """The builder itself introduces no fault (guards every test above)."""
    doc = verified(build(tmp_path / "ok.aucx", base_members()))
    assert doc.ok and [f for f in doc.findings if f.scope == "integrity"] == []
    assert doc.structure_ok
    assert doc.summary["n_scans"] == 6 and doc.summary["n_points"] == 200
    assert open_archive(BASE).summary["scan_ids"] == doc.summary["scan_ids"]


def test_structured_signal_is_not_handed_out_for_plotting(tmp_path):
    """A structured .npy signal gets array.dtype and no plottable array (the
    AUC plot raised TypeError converting it to float64)."""
    import io

    import numpy as np
    m = base_members()
    buf = io.BytesIO()
    np.save(buf, np.zeros((6, 200), dtype=[("a", "<f8"), ("b", "<f8")]))
    m["arrays/signal.npy"] = buf.getvalue()
    doc = verified(build(tmp_path / "structured.aucx", m))
    assert ("array.dtype", "arrays/signal.npy") in codes(doc)
    assert "signal" not in doc.arrays and doc.arrays["radius"].shape == (200,)


# -- mutated .npy headers ------------------------------------------------------------
def _npy_with_header(text: str, data: bytes) -> bytes:
    """A format 1.0 .npy member whose header dict is ``text`` (any bytes NumPy may choke on)."""
    raw = text.encode("latin1") + b"\n"
    return b"\x93NUMPY\x01\x00" + len(raw).to_bytes(2, "little") + raw + data


_GOOD = "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 200), "


# The reasons are in words: NumPy's TokenError, TypeError and ValueError are not named (the
# window shows findings to users; Python's exception names are for bug reports).
@pytest.mark.parametrize("text, why", [
    (_GOOD, "not a Python literal"),  # no closing brace: NumPy's Python-2 filter fails
    (_GOOD + "'x': '''abc}", "not a Python literal"),  # unterminated triple-quoted string
    (_GOOD + "[1]: 2}", "unhashable type"),  # unhashable key
    ("{'descr': '<f8', 'fortran_order': False, 'shape': " + "(" * 5000 + ")" * 5000 + "}",
     "cannot be parsed"),  # nesting beyond the parser's limit
    ("{'descr': [1, 2], 'fortran_order': False, 'shape': (6, 200)}",
     "not a valid dtype descriptor"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (None,)}", "shape is not valid"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (6, 200), 'extra': 1}",
     "does not contain the correct keys"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (6, -200)}", "negative dimension"),
])
def test_mutated_npy_header_is_a_finding_at_the_member(tmp_path, text, why):
    from inspector.formats.aucx.npyfmt import NpyHeaderError, parse_header

    member = _npy_with_header(text, b"\0" * (6 * 200 * 8))
    with pytest.raises(NpyHeaderError, match=why):
        parse_header(member[:70_000])
    m = base_members()
    m["arrays/signal.npy"] = member
    doc = verified(build(tmp_path / "npy.aucx", m))
    unreadable = [f for f in doc.findings if f.code == "array.unreadable"]
    assert [f.location for f in unreadable] == ["arrays/signal.npy"]
    assert why in unreadable[0].message and len(unreadable[0].message) < 300
    assert "Error" not in unreadable[0].message
    assert "internal.reader-failed" not in {f.code for f in doc.findings}
    assert "signal" not in doc.arrays and doc.arrays["radius"].shape == (200,)
    assert statuses(doc) == {n: "ok" for n in MEMBERS}  # still hashed against its digest


# -- many ZIP entries: a documented cap, a capped summary, bounded memory ----------------
_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CDIR = struct.Struct("<4s4B4HL2L5H2L")


def _many_entries(path: Path, n: int, announce: int | None = None) -> Path:
    """A ZIP whose first member is manifest.json followed by ``n - 1`` empty
    stored members, written with struct (fast); the end record announces
    ``announce`` entries (default ``n``; ZIP64 end records above 65 534)."""
    out, cd = bytearray(), bytearray()
    for i in range(n):
        name, data = (b"manifest.json", b"{}") if i == 0 else (f"junk/{i}".encode(), b"")
        crc, off = zlib.crc32(data), len(out)
        out += _LOCAL.pack(b"PK\x03\x04", 20, 0, 0, 0, 0, 33, crc, len(data), len(data),
                           len(name), 0) + name + data
        cd += _CDIR.pack(b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 33, crc, len(data), len(data),
                         len(name), 0, 0, 0, 0, 0o644 << 16, off) + name
    count = n if announce is None else announce
    start = len(out)
    out += cd
    if count < 0xFFFF:
        out += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, len(cd), start, 0)
    else:
        z64 = len(out)
        out += struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count,
                           len(cd), start)
        out += struct.pack("<4sLQL", b"PK\x06\x07", 0, z64, 1)
        out += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                           0xFFFFFFFF, 0)
    path.write_bytes(bytes(out))
    return path


def test_a_million_announced_entries_are_refused_before_reading(tmp_path):
    """The case that took 48 s and 1.95 GB: now refused from the end record."""
    path = _many_entries(tmp_path / "million.aucx", 3, announce=1_000_000)
    tracemalloc.start()
    try:
        doc = verified(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(f.severity, f.code) for f in doc.findings] == [
        ("error", "zip.too-many-members"), ("warning", "structure.not-checked")]
    assert doc.structure_ok is None
    assert f"{zipscan.MAX_ENTRIES} entries" in doc.findings[0].message
    assert doc.checksums is None and doc.tree.children == [] and not doc.checks
    assert len(json.dumps(doc.to_json())) < 4096
    assert peak < 8 * 2**20


def test_a_directory_holding_more_entries_than_announced_stops_at_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(zipscan, "MAX_ENTRIES", 50)
    path = _many_entries(tmp_path / "lying.aucx", 80, announce=7)
    doc = verified(path)
    assert [f.code for f in doc.findings] == ["zip.too-many-members", "structure.not-checked"]
    assert "more than 50 entries" in doc.findings[0].message
    assert doc.tree.children == [] and doc.checksums is None


def test_entries_up_to_the_cap_are_read_and_the_summary_is_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(zipscan, "MAX_ENTRIES", 1500)
    doc = verified(_many_entries(tmp_path / "cap.aucx", 1500))
    assert "zip.too-many-members" not in {f.code for f in doc.findings}
    assert len(doc.members) == 1500 and len(doc.tree.children) == 1500
    members = doc.summary["members"]
    assert len(members) == MAX_SUMMARY_MEMBERS + 1
    assert members[-1] == {"omitted": 1500 - MAX_SUMMARY_MEMBERS}
    assert members[:-1] == [m.to_json() for m in doc.members[:MAX_SUMMARY_MEMBERS]]


# -- quantities of another kind than the reference's ------------------------
@pytest.mark.parametrize(("field", "value", "where", "said"), [
    ("temperature", {"value": 20.0, "unit": "degC", "status": []}, "temperature.status",
     "Input should be 'present', 'missing', 'unknown' or 'not_applicable'; found []"),
    ("rotor_speed", {"value": 42000, "unit": "rpm", "status": "measured"}, "rotor_speed.status",
     "Input should be 'present', 'missing', 'unknown' or 'not_applicable'; found \"measured\""),
    ("wavelength", {"value": 280, "unit": {"nm": 1}, "status": "present"}, "wavelength.unit",
     "Input should be 'cm', 's', 'rpm',"),
])
def test_a_malformed_scan_quantity_is_a_finding_and_the_rest_is_checked(tmp_path, field,
                                                                       value, where, said):
    """Fuzzing seed 123 (#8415): a list as a temperature's status made the structure facts
    raise (numpy cannot make text of a list beside strings)."""
    m = base_members()
    experiment = json.loads(m["experiment.json"])
    experiment["scans"][2][field] = value
    m["experiment.json"] = json.dumps(experiment).encode()
    path = build(tmp_path / "q.aucx", m)
    doc = verified(path)
    assert codes(doc) == {("json.model-invalid", f"experiment.json:scans[2].{where}")}
    [finding] = [f for f in doc.findings if f.code == "json.model-invalid"]
    assert finding.message.startswith(f"scans[2].{where} breaks openauc's ScanMetadata: ")
    assert said in finding.message
    assert_rest_checked(doc)
    assert doc.structure is None  # (an archive with errors is not examined, as before)
    assert not openauc_accepts(path)


def test_structure_facts_read_a_malformed_quantity_as_no_value():
    from inspector.formats.auc.structure_facts import Quantities

    records = [{"temperature": {"value": 20.0, "unit": "degC", "status": "present"}},
               {"temperature": {"value": 21.0, "unit": "degC", "status": []}},
               {"temperature": {"value": 22.0, "unit": ["degC"], "status": "present"}},
               {}]
    q = Quantities.of(records, "temperature")
    assert q.status.tolist() == ["present", "[]", "present", "absent"]
    assert q.value[0] == 20.0 and np.isnan(q.value[1]) and q.value[2] == 22.0
    assert q.unit.tolist() == ["degC", "", '["degC"]', ""]


def test_three_independent_problems_are_all_reported_whichever_member_is_refused(
        tmp_path, monkeypatch):
    """An oversized signal (refused, never inflated), a manifest scan-ID list that the
    other arrays contradict, and a checksum mismatch in another member: three errors,
    each at its member, none hidden behind the refused one (and the declared n_scans,
    which openauc never compares, a warning)."""
    m = base_members()
    manifest = json.loads(m["manifest.json"])
    manifest["observations"]["scan_ids"].append("extra")  # the arrays hold 6 rows
    manifest["observations"]["n_scans"] = 7
    m["manifest.json"] = json.dumps(manifest).encode()
    path = build(tmp_path / "three.aucx", m)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["provenance.json"] = members["provenance.json"].replace(b"{", b"{ ", 1)
    build(path, {n: d for n, d in members.items() if n != "checksums.sha256"},
          checksums=False)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("checksums.sha256", members["checksums.sha256"])
    signal_size = len(m["arrays/signal.npy"])
    monkeypatch.setattr(zipscan, "MAX_MEMBER_BYTES", signal_size - 1)
    doc = verified(path)
    errors = {(f.code, f.location) for f in doc.findings if f.severity == "error"
              and f.scope == "integrity"}
    assert errors == {("zip.declared-size", "arrays/signal.npy"),
                      ("array.scan-count", "manifest.json"),
                      ("checksums.mismatch", "provenance.json")}
    warnings = {(f.code, f.location) for f in doc.findings if f.severity == "warning"}
    assert ("array.declared-count", "manifest.json:observations.n_scans") in warnings
    assert statuses(doc)["arrays/signal.npy"] == "refused"
    assert doc.structure_ok is None
