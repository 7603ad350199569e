"""Mutants of AUCX archives: bytes of the ZIP, its members, and its headers.

Structure-aware mutants are rebuilt from the seed's members (AUCX 1.0 format
document: manifest.json, experiment.json, provenance.json, arrays/*.npy,
checksums.sha256): JSON members get type changes, NaN/Infinity, deep nesting
and huge integers (:mod:`fuzz.mutators.values`); ``.npy`` members get
corrupted headers, shapes, dtypes and data; members are duplicated, renamed
to unsafe names, dropped, added, or stored with another compression.  Then
``checksums.sha256`` is RECOMPUTED (most of the time) so the mutant gets
past the checksum pass to the code that reads the content.  Last, ZIP
headers may be patched in place: declared sizes, CRCs, flags, methods,
names and the end-of-central-directory record.
"""

from __future__ import annotations

import ast
import hashlib
import io
import random
import struct
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz.mutators import values
from fuzz.mutators.bytelevel import mutate_bytes, signature_offsets

ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"PK\x07\x08")
CHECKSUMS = "checksums.sha256"

HOT = {
    "manifest.json": (
        "aucx_format_version", "checksum_algorithm", "parts", "parts[]", "observations",
        "observations.mode", "observations.n_points", "observations.n_scans",
        "observations.scan_ids", "observations.scan_ids[]", "observations.radius_unit",
        "observations.signal_unit", "observations.arrays", "observations.arrays.signal",
        "observations.arrays.signal.shape", "observations.arrays.signal.dtype",
        "observations.arrays.signal.path", "observations.arrays.radius.shape",
        "observations.arrays.mask.dtype", "observations.arrays.mask.shape", "exported_at",
        "created_by", "created_by.version",
    ),
    "experiment.json": (
        "scans", "scans[]", "scans[].scan_id", "scans[].index", "scans[].elapsed_time",
        "scans[].elapsed_time.value", "scans[].optical_system", "scans[].wavelength",
        "metadata", "metadata.experiment_id", "metadata.experiment_type", "samples", "instrument",
    ),
    "provenance.json": (
        "export", "export.member_count", "export.aucx_format_version", "import",
        "import.source_checksums", "import.source_checksums[].value", "import.sha256",
        "import.parser_name", "import.assumptions",
    ),
}
"""Paths of each JSON member that the AUCX reader checks (AUCX 1.0 format document)."""


@dataclass
class Member:
    """One ZIP member to write: its name, bytes and compression method."""

    name: str
    data: bytes
    method: int = zipfile.ZIP_DEFLATED


def mutate(rng: random.Random, seed: Path, corpus: list[Path], case: Path
           ) -> tuple[str, list[dict[str, Any]]]:
    """Write a mutant of ``seed`` into ``case``; return its name there and the ops."""
    target = case / seed.name
    raw = seed.read_bytes()
    members = read_members(raw)
    if members is None or rng.random() < 0.3:
        others = [rng.choice(corpus).read_bytes()] if corpus else []
        new, ops = mutate_bytes(rng, raw, hot=signature_offsets(raw, ZIP_SIGNATURES), reach=46,
                                others=others)
        target.write_bytes(new)
        return target.name, ops
    ops = _edit_members(rng, members)
    ops.append(_checksum_policy(rng, members))
    data = write_zip(members, rng, ops)
    if rng.random() < 0.2:
        data, op = patch_headers(rng, data)
        ops.append(op)
    if rng.random() < 0.08:
        data, more = mutate_bytes(rng, data, hot=signature_offsets(data, ZIP_SIGNATURES),
                                  reach=46, n_ops=1)
        ops.extend(more)
    if data == raw:
        data, more = mutate_bytes(rng, data, n_ops=1)
        ops.extend(more)
    target.write_bytes(data)
    return target.name, ops


def read_members(raw: bytes) -> list[Member] | None:
    """The seed's members in order, or None when Python's zipfile cannot read them all."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with zipfile.ZipFile(io.BytesIO(raw)) as zf:
                return [Member(i.filename, zf.read(i), i.compress_type) for i in zf.infolist()]
    except Exception:  # noqa: BLE001 - a broken seed is only mutated byte-wise
        return None


def _edit_members(rng: random.Random, members: list[Member]) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        kind = rng.choices(["json", "npy", "npy-consistent", "member", "checksums-text"],
                           weights=[40, 22, 10, 22, 6])[0]
        try:
            ops.extend(_EDITORS[kind](rng, members))
        except Exception as exc:  # noqa: BLE001 - this edit does not fit the seed: note it
            ops.append({"op": kind, "failed": f"{type(exc).__name__}: {exc}"[:200]})
    return ops


def _find(members: list[Member], name: str) -> Member | None:
    return next((m for m in members if m.name == name), None)


def _edit_json(rng: random.Random, members: list[Member]) -> list[dict[str, Any]]:
    names = [n for n in ("manifest.json", "experiment.json", "provenance.json")
             if _find(members, n)]
    name = rng.choices(names, weights=[50 if n == "manifest.json" else 25 for n in names])[0]
    m = _find(members, name)
    assert m is not None
    m.data, ops = values.mutate_json(rng, m.data, HOT[name])
    return [{**op, "member": name} for op in ops]


# -- .npy members ------------------------------------------------------------------

_DESCRS = ("'<f4'", "'>f8'", "'<i8'", "'|b1'", "'|u1'", "'<c16'", "'|O'", "'<U8'", "'|S4'",
           "'|V8'", "'<M8[ns]'", "'<m8[s]'", "'<f2'", "[('a', '<f8')]", "'x'", "''", "'<f16'",
           "'<f8'", "None", "8")
_SHAPES = ("()", "(0,)", "(-1,)", "(1152921504606846976,)", "(2147483648, 2147483648)",
           "(1.5,)", "[2, 3]", "'abc'", "(2, 3, 1)", "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
           "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)", "(None,)", "(True,)")


def parse_npy(data: bytes) -> tuple[tuple[int, int], dict[str, Any], bytes]:
    """``(version, header dict, payload)`` of a NumPy ``.npy`` member.

    Raises:
        ValueError: not an ``.npy`` byte string this parser understands.
    """
    if data[:6] != b"\x93NUMPY":
        raise ValueError("no NumPy magic")
    major, minor = data[6], data[7]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin-1"))
    if not isinstance(header, dict):
        raise ValueError("header is not a dict")
    return (major, minor), header, data[start + hlen:]


def build_npy(header_text: str, payload: bytes, version: tuple[int, int] = (1, 0),
              *, length_delta: int = 0) -> bytes:
    """An ``.npy`` byte string with ``header_text`` as written (padded to 64 bytes)."""
    long_len = version[0] >= 2
    pre = 12 if long_len else 10
    text = header_text.encode("latin-1", "replace")
    pad = (-(pre + len(text) + 1)) % 64
    text += b" " * pad + b"\n"
    size = struct.pack("<I" if long_len else "<H", max(0, min(len(text) + length_delta,
                                                              2 ** 32 - 1 if long_len else 65535)))
    return b"\x93NUMPY" + bytes(version) + size + text + payload


def _header_text(header: dict[str, Any], edits: dict[str, str]) -> str:
    fields = {"descr": repr(header.get("descr")),
              "fortran_order": repr(header.get("fortran_order")),
              "shape": repr(tuple(header.get("shape", ())))}
    fields.update(edits)
    return "{" + "".join(f"'{k}': {v}, " for k, v in fields.items() if v != "<drop>") + "}"


def _edit_npy(rng: random.Random, members: list[Member]) -> list[dict[str, Any]]:
    npys = [m for m in members if m.name.endswith(".npy")]
    m = rng.choice(npys)
    version, header, payload = parse_npy(m.data)
    kind = rng.choice(["descr", "shape", "fortran", "version", "length", "magic", "not-dict",
                       "expression", "extra-key", "drop-key", "huge-header", "payload"])
    op: dict[str, Any] = {"op": f"npy-{kind}", "member": m.name}
    edits: dict[str, str] = {}
    new_version, delta = (1, 0), 0
    if kind == "descr":
        edits["descr"] = op["descr"] = rng.choice(_DESCRS)
    elif kind == "shape":
        edits["shape"] = op["shape"] = rng.choice(_SHAPES)
    elif kind == "fortran":
        edits["fortran_order"] = op["value"] = rng.choice(["True", "'yes'", "1", "None"])
    elif kind == "version":
        new_version = op["version"] = rng.choice([(2, 0), (3, 0), (9, 9), (1, 1), (0, 0)])
    elif kind == "length":
        delta = op["delta"] = rng.choice([-1, 1, -40, 1000, 70000])
    elif kind == "magic":
        m.data = rng.choice([b"\x93NUMPZ", b"\x00NUMPY", b"PK\x03\x04"]) + m.data[6:]
        return [op]
    elif kind == "not-dict":
        m.data = build_npy(rng.choice(["[1, 2]", "'descr'", "None", "{", "{'descr': '<f8',"]),
                           payload)
        return [op]
    elif kind == "expression":
        edits["shape"] = op["shape"] = rng.choice(["__import__('os').getpid()", "(2**64,)",
                                                   "(1 + 1,)", "tuple(range(3))"])
    elif kind == "extra-key":
        edits["extra"] = "1"
    elif kind == "drop-key":
        edits[op.setdefault("key", rng.choice(["descr", "fortran_order", "shape"]))] = "<drop>"
    elif kind == "huge-header":
        edits["pad"] = op["pad"] = "'" + "x" * rng.choice([9000, 70000]) + "'"
        new_version = (2, 0)
    else:
        payload, op["payload"] = _edit_payload(rng, payload)
    m.data = build_npy(_header_text(header, edits), payload, new_version, length_delta=delta)
    return [op]


def _edit_payload(rng: random.Random, payload: bytes) -> tuple[bytes, str]:
    kind = rng.choice(["truncate", "extend", "random", "empty", "nan"])
    if kind == "truncate":
        return payload[: rng.randrange(max(1, len(payload)))], kind
    if kind == "extend":
        return payload + b"\x00" * rng.choice([1, 8, 4096]), kind
    if kind == "random":
        return bytes(rng.randrange(256) for _ in range(len(payload))), kind
    if kind == "empty":
        return b"", kind
    return struct.pack("<d", float("nan")) * (len(payload) // 8), kind


def _edit_npy_consistent(rng: random.Random, members: list[Member]) -> list[dict[str, Any]]:
    """An array changed in its header AND in manifest.json, so the shapes agree."""
    import json

    manifest = _find(members, "manifest.json")
    if manifest is None:
        raise ValueError("no manifest")
    doc = json.loads(manifest.data)
    arrays = doc["observations"]["arrays"]
    key = rng.choice(sorted(arrays))
    member = _find(members, arrays[key]["path"])
    if member is None:
        raise ValueError("array member missing")
    _version, header, payload = parse_npy(member.data)
    shape = list(header["shape"])
    kind = rng.choice(["grow", "shrink", "ndim", "dtype", "zero", "bomb"])
    descr, items = str(header["descr"]), int(max(1, _prod(shape)))
    itemsize = max(1, len(payload) // items)
    if kind == "grow":
        shape[-1] += rng.choice([1, 1000])
    elif kind == "shrink":
        shape[-1] = max(0, shape[-1] - 1)
    elif kind == "ndim":
        shape = shape + [1] if rng.random() < 0.5 else shape[:1]
    elif kind == "zero":
        shape = [0] * len(shape)
    elif kind == "bomb":  # 16 MiB of zeros: a few KiB deflated
        shape = [shape[0], max(1, (1 << 24) // max(1, shape[0] * itemsize))]
    else:
        descr = rng.choice(["<f4", "<i8", "|b1", "|u1", ">f8", "<f2"])
        itemsize = int(descr[-1]) if descr[-1].isdigit() else 1
    body = b"\x00" * (_prod(shape) * itemsize)
    member.data = build_npy(_header_text(header, {"descr": repr(descr),
                                                  "shape": repr(tuple(shape))}), body)
    arrays[key]["shape"], arrays[key]["dtype"] = shape, _dtype_name(descr)
    manifest.data = values.dumps(doc).encode()
    return [{"op": "npy-consistent", "array": key, "kind": kind, "shape": shape, "descr": descr}]


def _prod(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _dtype_name(descr: str) -> str:
    return {"<f4": "float32", "<i8": "int64", "|b1": "bool", "|u1": "uint8", ">f8": "float64",
            "<f2": "float16", "<f8": "float64"}.get(descr, descr)


# -- members -----------------------------------------------------------------------

_UNSAFE = ("../{n}", "/{n}", "{b}", "C:/{n}", "arrays/../../{n}", "./{n}", "{n}/", "",
           "{N}", "{n} ", "\uff4d{n}", "a" * 300 + "{n}", "{n}\u0301", "//{n}", "~/{n}")


def _edit_member(rng: random.Random, members: list[Member]) -> list[dict[str, Any]]:
    kind = rng.choice(["duplicate", "unsafe-name", "remove", "add", "directory", "reorder",
                       "method", "many", "bomb"])
    m = rng.choice(members)
    if kind == "duplicate":
        copy = Member(m.name, rng.choice([m.data, m.data[::-1], b"", b"{}"]), m.method)
        members.insert(rng.choice([0, len(members)]), copy)
    elif kind == "unsafe-name":
        pattern = rng.choice(_UNSAFE)
        m.name = pattern.format(n=m.name, N=m.name.upper(), b=m.name.replace("/", "\\"))
        return [{"op": "member-unsafe-name", "name": m.name[:120]}]
    elif kind == "remove":
        members.remove(m)
    elif kind == "add":
        members.append(Member(rng.choice(["extra.json", "arrays/extra.npy", "notes.txt",
                                          "arrays/signal.npy.bak"]), b'{"x": 1}\n'))
    elif kind == "directory":
        members.insert(rng.randrange(len(members) + 1), Member("arrays/", b"", zipfile.ZIP_STORED))
    elif kind == "reorder":
        rng.shuffle(members)
    elif kind == "method":
        m.method = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
    elif kind == "many":
        members.extend(Member(f"pad/{i:05d}", b"x", zipfile.ZIP_STORED)
                       for i in range(rng.choice([500, 3000])))
    else:
        members.append(Member("bomb.bin", b"\x00" * rng.choice([1 << 22, 1 << 24])))
    return [{"op": f"member-{kind}", "member": m.name}]


def _edit_checksums_text(rng: random.Random, members: list[Member]) -> list[dict[str, Any]]:
    m = _find(members, CHECKSUMS)
    if m is None:
        raise ValueError("no checksums member")
    lines = m.data.decode("utf-8", "replace").splitlines()
    kind = rng.choice(["upper", "star", "crlf", "no-newline", "dot-slash", "dup", "tab", "bom"])
    if kind == "upper":
        lines = [ln.upper() for ln in lines]
    elif kind == "star":
        lines = [ln.replace("  ", " *", 1) for ln in lines]
    elif kind == "dot-slash":
        lines = [ln.replace("  ", "  ./", 1) for ln in lines]
    elif kind == "dup" and lines:
        lines.append(rng.choice(lines))
    elif kind == "tab":
        lines = [ln.replace("  ", "\t", 1) for ln in lines]
    sep = "\r\n" if kind == "crlf" else "\n"
    text = sep.join(lines) + ("" if kind == "no-newline" else sep)
    m.data = (b"\xef\xbb\xbf" if kind == "bom" else b"") + text.encode()
    return [{"op": "checksums-text", "kind": kind}]


_EDITORS = {"json": _edit_json, "npy": _edit_npy, "npy-consistent": _edit_npy_consistent,
            "member": _edit_member, "checksums-text": _edit_checksums_text}


def _checksum_policy(rng: random.Random, members: list[Member]) -> dict[str, Any]:
    """Recompute checksums.sha256 (85 %), keep it stale (10 %) or drop it (5 %)."""
    roll = rng.random()
    m = _find(members, CHECKSUMS)
    if roll < 0.05 and m is not None:
        members.remove(m)
        return {"op": "checksums", "policy": "dropped"}
    if roll < 0.15:
        return {"op": "checksums", "policy": "stale"}
    lines = sorted(f"{hashlib.sha256(x.data).hexdigest()}  {x.name}"
                   for x in members if x.name != CHECKSUMS and not x.name.endswith("/"))
    text = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    if m is None:
        members.append(Member(CHECKSUMS, text))
    else:
        m.data = text
    return {"op": "checksums", "policy": "recomputed"}


def write_zip(members: list[Member], rng: random.Random, ops: list[dict[str, Any]]) -> bytes:
    """The members as a ZIP (fixed 1980 timestamps; duplicates written as given).

    A few members get a hostile extra field; each is noted in ``ops``.
    """
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(buf, "w") as zf:
            for m in members:
                info = zipfile.ZipInfo(m.name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = m.method
                info.external_attr = 0o644 << 16
                if rng.random() < 0.03:
                    info.extra = rng.choice([b"\x01\x00\x08\x00" + b"\xff" * 8,
                                             b"\x55\x54\x05\x00\x01", b"\xff\xff\xff\x7f"])
                    ops.append({"op": "zip-extra-field", "member": m.name,
                                "extra": info.extra.hex()})
                zf.writestr(info, m.data)
    return buf.getvalue()


# -- header patches ----------------------------------------------------------------

def central_entries(data: bytes) -> tuple[int, list[int]]:
    """The end-of-central-directory offset and each central header's offset."""
    eocd = data.rfind(b"PK\x05\x06")
    if eocd < 0:
        raise ValueError("no end of central directory")
    count, _size, start = struct.unpack("<HII", data[eocd + 10:eocd + 20])
    out, pos = [], start
    for _ in range(count):
        if data[pos:pos + 4] != b"PK\x01\x02":
            break
        out.append(pos)
        n, e, c = struct.unpack("<HHH", data[pos + 28:pos + 34])
        pos += 46 + n + e + c
    return eocd, out


_FIELDS = {  # name: (central offset, local offset, struct format)
    "flags": (8, 6, "<H"), "method": (10, 8, "<H"), "crc": (16, 14, "<I"),
    "compressed_size": (20, 18, "<I"), "uncompressed_size": (24, 22, "<I"),
    "external_attr": (38, None, "<I"), "local_offset": (42, None, "<I"),
}


def patch_headers(rng: random.Random, data: bytes) -> tuple[bytes, dict[str, Any]]:
    """One in-place edit of a ZIP header field (a central and/or local header, or the EOCD)."""
    buf = bytearray(data)
    eocd, entries = central_entries(data)
    if not entries or rng.random() < 0.15:
        field = rng.choice([(8, "<H"), (10, "<H"), (12, "<I"), (16, "<I"), (20, "<H")])
        value = rng.choice([0, 1, 0xFFFF, 7]) if field[1] == "<H" else rng.choice([0, 1, 2 ** 31])
        struct.pack_into(field[1], buf, eocd + field[0], value)
        return bytes(buf), {"op": "zip-eocd", "offset": field[0], "value": value}
    cd = rng.choice(entries)
    local = struct.unpack("<I", data[cd + 42:cd + 46])[0]
    name = rng.choice(sorted(_FIELDS) + ["name-bytes"])
    if name == "name-bytes":
        return _patch_name(rng, buf, cd, local)
    c_off, l_off, fmt = _FIELDS[name]
    old = struct.unpack(fmt, data[cd + c_off:cd + c_off + struct.calcsize(fmt)])[0]
    value = _field_value(rng, name, old)
    where = rng.choice(["central", "local", "both"]) if l_off is not None else "central"
    if where in ("central", "both"):
        struct.pack_into(fmt, buf, cd + c_off, value)
    if where in ("local", "both") and l_off is not None and local + l_off + 4 <= len(buf):
        struct.pack_into(fmt, buf, local + l_off, value)
    return bytes(buf), {"op": "zip-header", "field": name, "value": value, "where": where}


def _field_value(rng: random.Random, name: str, old: int) -> int:
    if name == "flags":
        return old | rng.choice([0x1, 0x8, 0x40, 0x800, 0x2000])
    if name == "method":
        return rng.choice([0, 1, 6, 9, 12, 14, 93, 99, 0xFFFF])
    if name == "external_attr":
        return rng.choice([0o120777 << 16, 0o040755 << 16, 0o104755 << 16, 0xFFFFFFFF])
    big = 0xFFFFFFFF
    return rng.choice([0, 1, max(0, old - 1), old + 1, old * 1000 % (big + 1), big, 2 ** 31])


def _patch_name(rng: random.Random, buf: bytearray, cd: int, local: int
                ) -> tuple[bytes, dict[str, Any]]:
    n = struct.unpack("<H", buf[cd + 28:cd + 30])[0]
    if n == 0:
        raise ValueError("empty name")
    at = rng.randrange(n)
    byte = rng.choice([b"\x00", b"\xff", b"\\", b"/", b"\x80", b":"])
    where = rng.choice(["central", "local", "both"])
    if where in ("central", "both"):
        buf[cd + 46 + at:cd + 47 + at] = byte
    if where in ("local", "both") and local + 30 + at < len(buf):
        buf[local + 30 + at:local + 31 + at] = byte
    if rng.random() < 0.5:
        struct.pack_into("<H", buf, cd + 8, struct.unpack("<H", buf[cd + 8:cd + 10])[0] | 0x800)
    return bytes(buf), {"op": "zip-name-byte", "at": at, "byte": byte.hex(), "where": where}
