"""Two classes found by the HDF5 fuzz campaign of seed 123 (10 000 mutants).

* A variable-length datatype whose type field (class bit field bits 0-3) is
  neither 0 (sequence) nor 1 (string): HDF5 2.0.0 decodes it without
  complaint and crashes (SIGSEGV) converting the value (mutants 3073 and
  9765: one bit flipped in an attribute's datatype).  The attribute is now
  refused from its stored datatype, read by our own parser, before HDF5
  reads the value (``object_header.datatype_problem``); a dataset of such a type
  likewise, before its values are read.
* A damaged free-space manager header of the root group's dense attribute
  storage (a bit flip in its "size of serialized section list used", so its
  checksum fails) makes ``H5Oget_info`` fail on the root; the tree's cycle
  check asked it for the object's address, fell back to the path, and an
  external link back to ``/`` of the same file was walked again and again
  (mutant 9087).  Objects are now identified by their header address alone
  (``object_header.object_identity``) and the damage is reported.

Each mutant is rebuilt here from its seed fixture and the mutation ops the
campaign recorded; opening runs in a child interpreter, so that a regression
crashes or hangs a child, not the suite.
"""

from __future__ import annotations

import json
import shutil
import signal
import struct
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats.hdf5 import heap as hdf5_heap
from inspector.formats.hdf5 import object_header
from tests.heap_guard import every_object, registered
from tests.window_child import run_python

FIXTURES = Path(__file__).parent / "fixtures" / "vneurotk"

OPEN = ("import json, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a regression fails\n"
        "from inspector.formats import open_document\n"
        "doc = open_document(sys.argv[1])\n"
        "doc.verify()\n"
        "def walk(node, out):\n"
        "    out.append([node.location, node.kind, node.value if isinstance(node.value, str)\n"
        "                else None, node.detail])\n"
        "    for child in node.children:\n"
        "        walk(child, out)\n"
        "    return out\n"
        "print(json.dumps({'findings': [[f.severity, f.code, f.location, f.message]\n"
        "                               for f in doc.findings],\n"
        "                  'nodes': walk(doc.tree, []) if doc.tree is not None else []}))\n")


def _open_in_child(path: Path) -> dict:
    return json.loads(run_python(OPEN, str(path), timeout=120).splitlines()[-1])


def _flip(path: Path, at: int, bits: list[int]) -> None:
    """The campaign's ``bit-flip`` op (fuzz/mutators/bytelevel.py)."""
    data = bytearray(path.read_bytes())
    for b in bits:
        data[at] ^= 1 << b
    path.write_bytes(bytes(data))


# -- a variable-length type field out of range -----------------------------------------------
VLEN_CASES = [
    # (seed fixture, byte flipped (bit 1), object, attribute)
    ("v1/continuous_uncompressed_i16.h5", 857, "/", "vneurotk_format"),
    ("edited/hdr_version_2.h5", 132123, "/stimuli_db/2/image", "kind"),
]


@pytest.mark.parametrize("seed, at, obj, name", VLEN_CASES, ids=["s123-03073", "s123-09765"])
@pytest.mark.slow
def test_a_variable_length_type_out_of_range_is_refused_before_hdf5_crashes(
        tmp_path, seed, at, obj, name):
    path = tmp_path / Path(seed).name
    shutil.copyfile(FIXTURES / seed, path)
    pristine = path.read_bytes()
    # the flipped byte is the class bit field of the attribute's variable-length string
    # datatype (version 1, class 9; type 1 = string), right after the 8-byte padded name
    assert pristine[at - 1:at + 1] == b"\x19\x01"
    _flip(path, at, [1])  # type 1 -> 3 (reserved)

    got = _open_in_child(path)
    loc = f"{obj}@{name}"
    refused = [f for f in got["findings"] if f[1] == "tree.attribute-unreadable"]
    assert [(s, c, where) for s, c, where, _m in refused] == [("warning",
                                                              "tree.attribute-unreadable", loc)]
    assert "variable-length of type 3" in refused[0][3]
    assert not any(c.startswith("internal.") for _s, c, _l, _m in got["findings"])
    nodes = {where: (kind, value, detail) for where, kind, value, detail in got["nodes"]}
    assert nodes[loc] == ("attribute", None, "unreadable")
    # every other attribute of the file is still shown, text with the value h5py reads
    others = _attribute_values(FIXTURES / seed)
    del others[loc]
    assert len(others) > 5
    for where, value in others.items():
        shown = nodes[where]
        assert shown[0] == "attribute" and shown[2] != "unreadable", where
        if isinstance(value, str):
            assert shown[1] == value


def _attribute_values(path: Path) -> dict[str, object]:
    """``{"/group@name": value}`` of every attribute of the pristine file (h5py)."""
    out: dict[str, object] = {}
    with h5py.File(path, "r") as f:
        for o in every_object(f):
            for n in o.attrs:
                out[f"{o.name}@{n}"] = o.attrs[n]
    return out


def _vlen(kind: int, base: bytes) -> bytes:
    """A version 1 variable-length datatype of ``kind`` over ``base``."""
    return bytes([0x19, kind, 0, 0]) + struct.pack("<I", 16) + base


UINT8 = bytes([0x10, 0, 0, 0]) + struct.pack("<I", 1) + struct.pack("<HH", 0, 8)


def test_datatype_rules():
    assert object_header.datatype_problem(_vlen(1, UINT8)) is None  # a string
    assert object_header.datatype_problem(_vlen(0, UINT8)) is None  # a sequence
    for kind in (2, 3, 5, 9, 15):
        problem = object_header.datatype_problem(_vlen(kind, UINT8))
        assert problem is not None and f"type {kind} " in problem
    # nested: an array (version 3, one dimension of 2) of a bad sequence
    array = bytes([0x3A, 0, 0, 0]) + struct.pack("<I", 32) + b"\x01" + struct.pack("<I", 2)
    assert "type 3" in object_header.datatype_problem(array + _vlen(3, UINT8))
    assert object_header.datatype_problem(array + _vlen(1, UINT8)) is None
    # nested: the second member of a compound (version 3): an int, then the bad string
    compound = bytes([0x36, 2, 0, 0]) + struct.pack("<I", 24)
    members = b"a\x00" + b"\x00" + UINT8 + b"b\x00" + b"\x08" + _vlen(4, UINT8)
    assert "type 4" in object_header.datatype_problem(compound + members)
    # what cannot be parsed is left to HDF5
    assert object_header.datatype_problem(b"\x19\x03") is None
    assert object_header.datatype_problem(b"") is None


@pytest.mark.slow
def test_no_attribute_datatype_of_the_fixtures_is_refused(tmp_path):
    """Every stored attribute datatype of the corpus and of a file of every kind of
    type h5py writes parses to its end and passes."""
    typed = tmp_path / "types.h5"
    with h5py.File(typed, "w", libver="latest") as f:
        f.attrs["s"] = "x"
        f.attrs.create("vl", [np.arange(3, dtype="i4"), np.arange(2, dtype="i4")],
                       dtype=h5py.vlen_dtype(np.int32))
        ct = np.dtype([("a", "<i4"), ("name", h5py.string_dtype()), ("arr", "(2,3)f8"),
                       ("vv", h5py.vlen_dtype(np.float32))])
        value = np.zeros(2, dtype=ct)
        value["name"] = ["a", "bb"]
        value["vv"] = [np.zeros(1, np.float32), np.ones(2, np.float32)]
        f.attrs.create("comp", value, dtype=ct)
        f.attrs.create("en", 1, dtype=h5py.enum_dtype({"A": 0, "B": 1}, basetype="i1"))
        f.attrs.create("arrs", np.zeros((2,), dtype="(2,)f4"))
        f.attrs["ref"] = f.ref
        f.attrs.create("op", np.void(b"12345678"))
    files = [typed, *sorted((FIXTURES / "v1").glob("*.h5")),
             *sorted((FIXTURES / "edited").glob("*.h5"))]
    checked = 0
    for path in files:
        try:
            f = h5py.File(path, "r")
        except OSError:
            continue  # the fixtures that are not HDF5 files or are truncated
        with f, registered(f, path):
            checked += _check_datatypes(f)
    assert checked > 500


def _check_datatypes(f: h5py.File) -> int:
    guard = hdf5_heap._GUARDS[f.id.fileno]
    checked = 0
    for obj in every_object(f):
        for name in obj.attrs:
            stored = guard._attribute_message(obj, name.encode())
            if stored is None or stored[0] is None:
                continue
            end, problem = object_header._type_at(stored[0], 0, 0)
            assert problem is None and end <= len(stored[0]), (obj.name, name)
            hdf5_heap.check_attribute(obj, name)
            checked += 1
    return checked


# -- an external link back to "/" where H5Oget_info fails --------------------------------------
CSR = FIXTURES / "edited" / "neuro_format_csr.h5"
FSHD_AT = 35698  # the free-space manager header of the root's dense attribute storage


def _self_linked(tmp_path: Path) -> Path:
    """The campaign's ``link`` op (kind ``external-self``, path ``neuro_info``)."""
    path = tmp_path / CSR.name  # the link names the file itself
    shutil.copyfile(CSR, path)
    with h5py.File(path, "r+") as f:
        del f["neuro_info"]
        f["neuro_info"] = h5py.ExternalLink(path.name, "/")
    return path


@pytest.mark.slow
def test_a_link_back_to_the_root_is_walked_once_when_the_root_info_is_unreadable(tmp_path):
    path = _self_linked(tmp_path)
    linked_only = _open_in_child(path)
    data = path.read_bytes()
    assert data[FSHD_AT:FSHD_AT + 4] == b"FSHD"
    # byte 1 of "size of serialized section list used" (after signature, version,
    # client id, 4 lengths, 4 two-byte fields and an address): 26 becomes 3098 bytes
    at = FSHD_AT + 4 + 2 + 4 * 8 + 4 * 2 + 8 + 8 + 1
    assert at == 35761 and data[at - 1:at + 1] == b"\x1a\x00"
    _flip(path, at, [3, 2])
    with h5py.File(path, "r") as f, pytest.raises(RuntimeError, match="checksum"):
        h5py.h5o.get_info(f.id)

    got = _open_in_child(path)  # it walked /neuro_info/neuro_info/... until the time limit
    codes = [(s, c, where) for s, c, where, _m in got["findings"]]
    assert ("error", "file.corrupt", "/") in codes
    assert ("warning", "link.external", "/neuro_info") in codes
    assert not any(c.startswith("internal.") for _s, c, _l in codes)
    # the same tree as with the link alone: the link's target is shown once
    assert [n[:3] for n in got["nodes"]] == [n[:3] for n in linked_only["nodes"]]
    assert not any(n[0].startswith("/neuro_info/") for n in got["nodes"])


def test_objects_are_identified_by_their_header_alone(tmp_path):
    """The heap guard and the tree find an object's header address although
    ``H5Oget_info`` fails on it (it reads the attribute storage too)."""
    path = _self_linked(tmp_path)
    _flip(path, 35761, [3, 2])
    with h5py.File(path, "r") as f:
        assert object_header.object_identity(f) == (object_header.object_identity(f)[0], 96)
        assert object_header.object_identity(f["neuro_info"]) == object_header.object_identity(f)
        assert object_header.object_address(f["vision_info"]) == int(
            h5py.h5o.get_info(f["vision_info"].id).addr)


def test_a_dataset_of_a_reserved_variable_length_type_is_refused_before_hdf5_reads_it(tmp_path):
    """The same datatype on a dataset: HDF5 crashes reading its values (shown in a
    child), the guard refuses them from the stored datatype message."""
    path = tmp_path / "ds.h5"
    with h5py.File(path, "w") as f:
        f["s"] = np.array(["a", "bb"], dtype=h5py.string_dtype())
    with h5py.File(path, "r") as f, registered(f, path):
        guard = hdf5_heap._GUARDS[f.id.fileno]
        addr = object_header.object_address(f["s"])
        stored = next(body for mtype, body in guard.messages(addr) if mtype == 0x0003)
        hdf5_heap.check_dataset(f["s"])  # the pristine one passes
    data = bytearray(path.read_bytes())
    at = data.find(stored)
    assert data[at:at + 2] == b"\x19\x01"
    data[at + 1] ^= 1 << 1
    path.write_bytes(bytes(data))

    crashed = subprocess.run(
        [sys.executable, "-c", "import h5py, sys; h5py.File(sys.argv[1], 'r')['s'][()]",
         str(path)], capture_output=True, timeout=120)
    assert crashed.returncode == -signal.SIGSEGV
    with h5py.File(path, "r") as f, registered(f, path):
        with pytest.raises(hdf5_heap.CorruptDatatype, match="variable-length of type 3"):
            hdf5_heap.check_dataset(f["s"])
