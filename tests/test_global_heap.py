"""A corrupt global heap collection is refused before HDF5 decodes it (it would loop in C).

Found by fuzzing (seeds 72 to 75): a free-space object of size 0 in a
collection makes ``H5HG__cache_heap_deserialize`` loop forever while a
variable-length string attribute is read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.hdf5 import heap as hdf5_heap
from inspector.formats.hdf5 import heap_sizes
from inspector.formats.nodes.data import NodeReadError
from tests.heap_guard import every_object, registered
from tests.window_child import run_python

FIXTURES = Path(__file__).parent / "fixtures" / "vneurotk"
V1 = FIXTURES / "v1"


def _collections(data: bytes) -> list[int]:
    """Byte offsets of every ``GCOL`` signature followed by version 1."""
    out, at = [], data.find(b"GCOL")
    while at >= 0:
        if data[at + 4:at + 5] == b"\x01":
            out.append(at)
        at = data.find(b"GCOL", at + 1)
    return out


def _free_space_size_field(data: bytes, start: int) -> int | None:
    """Offset of the size field of the collection's free-space object (index 0)."""
    size = int.from_bytes(data[start + 8:start + 16], "little")
    pos, end = start + 16, start + size
    while pos + 16 <= end:
        index = int.from_bytes(data[pos:pos + 2], "little")
        osize = int.from_bytes(data[pos + 8:pos + 16], "little")
        if index == 0:
            return pos + 8
        pos += 16 + ((osize + 7) & ~7)
    return None


def _zero_free_space(path: Path) -> int:
    data = bytearray(path.read_bytes())
    zeroed = 0
    for start in _collections(bytes(data)):
        field = _free_space_size_field(bytes(data), start)
        if field is not None:
            data[field:field + 8] = bytes(8)
            zeroed += 1
    path.write_bytes(bytes(data))
    return zeroed


def _open_in_child(path: Path) -> dict:
    """Open in a fresh interpreter, so that a regression hangs a child, not the suite."""
    code = ("import json, sys\n"
            "from inspector.formats import open_document\n"
            "doc = open_document(sys.argv[1])\n"
            "print(json.dumps([[f.severity, f.code, f.location] for f in doc.findings]))\n")
    return {"findings": json.loads(run_python(code, str(path), timeout=120).splitlines()[-1])}


@pytest.mark.slow
def test_zero_sized_free_space_is_refused_and_reading_goes_on(tmp_path):
    p = tmp_path / "heap.h5"
    shutil.copy(V1 / "continuous_dense_f32_intids.h5", p)
    os.chmod(p, 0o644)
    with h5py.File(p, "r") as f:
        writer_version = f.attrs["writer_version"]
    assert writer_version  # a variable-length string in the pristine copy
    assert _zero_free_space(p) >= 1
    got = _open_in_child(p)
    codes = {(s, c, loc) for s, c, loc in got["findings"]}
    assert ("error", "tree.global-heap-corrupt", "/@writer_version") in codes
    assert not any(c.startswith("internal.") for _, c, _ in codes)


def test_walk_rules_match_the_format():
    objhdr = 16
    valid = bytearray(4096)
    valid[:8] = b"GCOL\x01\x00\x00\x00"
    valid[8:16] = (4096).to_bytes(8, "little")
    # object 1: 5 bytes of data (padded to 8), then the free space (index 0) to the end
    valid[16:18] = (1).to_bytes(2, "little")
    valid[24:32] = (5).to_bytes(8, "little")
    free_at = 16 + objhdr + 8
    valid[free_at + 8:free_at + 16] = (4096 - free_at).to_bytes(8, "little")
    walk = heap_sizes.walk_objects(bytes(valid), 8, "c")
    assert walk.problem is None and walk.sizes == {1: 5}

    looping = bytearray(valid)
    looping[free_at + 8:free_at + 16] = bytes(8)
    walk = heap_sizes.walk_objects(bytes(looping), 8, "c")
    assert "size 0" in walk.problem and walk.sizes == {1: 5}

    overrun = bytearray(valid)
    overrun[24:32] = (1 << 40).to_bytes(8, "little")
    walk = heap_sizes.walk_objects(bytes(overrun), 8, "c")
    assert "runs past" in walk.problem and walk.sizes == {}


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.h5")), ids=lambda p: p.name)
@pytest.mark.slow
def test_no_collection_of_a_real_file_is_refused(path):
    doc = open_document(path)
    try:
        assert "tree.global-heap-corrupt" not in {f.code for f in doc.findings}
    finally:
        doc.close()


def test_every_vlen_attribute_of_the_corpus_reads_as_h5py(tmp_path):
    """The guard changes no value: read through it, each attribute equals h5py's."""
    compared = 0
    for path in sorted(V1.glob("*.h5")):
        with h5py.File(path, "r") as f, registered(f, path):
            compared += _compare_attributes(f)
    assert compared > 50


def _compare_attributes(f: h5py.File) -> int:
    compared = 0
    for obj in every_object(f):
        for name in obj.attrs:
            if not h5py.h5a.open(obj.id, name.encode()).dtype.hasobject:
                continue
            got = hdf5_heap.read_attribute(obj, name)
            want = obj.attrs[name]
            assert str(got) == str(want)
            compared += 1
    return compared


@pytest.mark.parametrize("layout", ["contiguous", "chunked", "deflate", "compact"])
@pytest.mark.slow
def test_a_dataset_pointing_into_a_corrupt_collection_is_refused(tmp_path, layout):
    p = tmp_path / f"{layout}.h5"
    names = [f"stimulus-{i}" for i in range(20)]
    dt = h5py.string_dtype()
    with h5py.File(p, "w") as f:
        if layout == "compact":
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_layout(h5py.h5d.COMPACT)
            f.create_dataset("labels", data=names, dtype=dt, dcpl=dcpl)
        else:
            kw = {"chunks": (5,)} if layout == "chunked" else {}
            kw = {"chunks": (5,), "compression": "gzip"} if layout == "deflate" else kw
            f.create_dataset("labels", data=names, dtype=dt, **kw)
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from inspector.formats.hdf5.source import H5Source\n"
            "from inspector.formats.hdf5.heap import CorruptGlobalHeap\n"
            "src = H5Source(Path(sys.argv[1]))\n"
            "ds = src.file['labels']\n"
            "if sys.argv[2] == 'pristine':\n"
            "    print(list(src.read(ds)[:2]))\n"
            "else:\n"
            "    try:\n"
            "        src.read(ds)\n"
            "    except CorruptGlobalHeap as exc:\n"
            "        print('refused:', exc)\n")

    def run(mode: str) -> str:
        done = subprocess.run([sys.executable, "-c", code, str(p), mode], capture_output=True,
                              text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": os.getcwd()})
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run("pristine") == "[b'stimulus-0', b'stimulus-1']"
    assert _zero_free_space(p) >= 1
    assert run("corrupt").startswith("refused: the global heap collection at byte ")


@pytest.mark.slow
def test_a_length_beyond_its_heap_object_is_refused_before_hdf5_allocates_it(tmp_path):
    """Fuzzing seed 81 (#2700): a descriptor declaring ~4 GB for a 13-byte string made HDF5
    allocate 683 MB before failing; the declared length is now checked against the object."""
    import struct

    p = tmp_path / "length.h5"
    with h5py.File(p, "w") as f:
        f.create_group("g").attrs["note"] = "hello, world!"
    data = bytearray(p.read_bytes())
    (gcol,) = _collections(bytes(data))
    descriptor = struct.pack("<IQ", len("hello, world!"), gcol)
    at = data.find(descriptor)
    assert at > 0 and data.find(descriptor, at + 1) < 0
    data[at:at + 4] = struct.pack("<I", 0xFFFF_FFF0)
    p.write_bytes(bytes(data))
    got = _open_in_child(p)
    codes = {(s, c, loc) for s, c, loc in got["findings"]}
    assert ("error", "tree.global-heap-corrupt", "/g@note") in codes


def test_element_bytes_of_plain_variable_length_types():
    assert hdf5_heap.element_bytes(h5py.string_dtype()) == 1
    assert hdf5_heap.element_bytes(h5py.vlen_dtype("<i4")) == 4
    assert hdf5_heap.element_bytes(h5py.string_dtype(length=8)) is None
    assert hdf5_heap.element_bytes(np.dtype([("a", h5py.string_dtype())])) is None


@pytest.mark.slow
def test_a_descriptor_pointing_outside_the_file_is_refused_before_hdf5_allocates(tmp_path):
    """Fuzzing seed 82 (#3388): stim_ids values declaring 832 MB each at an address past the
    end of the file made HDF5 allocate 840 MB before failing."""
    import struct

    p = tmp_path / "outside.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("labels", data=["a", "bb"], dtype=h5py.string_dtype())
    data = bytearray(p.read_bytes())
    (gcol,) = _collections(bytes(data))
    first = struct.pack("<IQ", 1, gcol)
    at = data.find(first)
    assert at > 0
    data[at:at + 12] = struct.pack("<IQ", 872_415_232, 1 << 61)
    p.write_bytes(bytes(data))
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from inspector.formats.hdf5.source import H5Source\n"
            "from inspector.formats.hdf5.heap import CorruptGlobalHeap\n"
            "src = H5Source(Path(sys.argv[1]))\n"
            "try:\n"
            "    src.read(src.file['labels'])\n"
            "except CorruptGlobalHeap as exc:\n"
            "    print('refused:', exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("refused: a variable-length value of 872415232 bytes points "
                                   f"at byte {1 << 61}, where there is no global heap collection")


@pytest.mark.slow
def test_the_stimulus_index_reads_its_attributes_through_the_check():
    """Fuzzing seed 83 (#3336): a collection HDF5 loops on, reached first through
    /stimuli_db@encoding in the stimulus index (the reader's later steps read attributes
    too, not only the tree)."""
    got = _open_in_child(Path(__file__).parent / "fixtures" / "fuzz" /
                         "heap_loop_stimuli_db.h5")
    codes = {(c, loc) for _s, c, loc in got["findings"]}
    assert ("tree.global-heap-corrupt", "/stimuli_db@encoding") in codes
    assert not any(c.startswith("internal.") for c, _ in codes)


LIMITED = ("import json, resource, sys\n"
           "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a regression fails\n"
           "from inspector.formats import open_document\n"
           "doc = open_document(sys.argv[1])\n"
           "doc.verify()\n"
           "print(json.dumps([[f.severity, f.code, f.location, f.message]\n"
           "                  for f in doc.findings]))\n")


@pytest.mark.slow
def test_a_root_group_whose_free_list_loops_is_refused_at_open():
    """Fuzzing seed 86 (#5401): HDF5 follows a local heap's free list without checking
    for a cycle and allocates until memory runs out."""
    path = Path(__file__).parent / "fixtures" / "fuzz" / "heap_free_list_cycle_root.h5"
    found = json.loads(run_python(LIMITED, str(path), timeout=120).splitlines()[-1])
    assert [(s, c) for s, c, _loc, _m in found] == [("error", "file.corrupt")]
    assert found[0][3] == ("the root group's member names cannot be looked up: the local heap "
                           "at byte 680 has a free list that returns to offset 40: HDF5 would "
                           "loop")


def _free_list_loop(path: Path, group: str) -> None:
    """Make the free list of ``group``'s local heap name its own first block as the next."""
    with h5py.File(path, "r") as f, registered(f, path):
        guard = hdf5_heap._GUARDS[f.id.fileno]
        addr = int(f.id.links.get_info(group.encode()).u)
        body = next(b for t, b in guard.messages(addr) if t == 0x0011)
    heap = int.from_bytes(body[8:16], "little")
    with open(path, "r+b") as raw:
        raw.seek(heap)
        head = raw.read(32)
        assert head[:4] == b"HEAP"
        free = int.from_bytes(head[16:24], "little")
        data = int.from_bytes(head[24:32], "little")
        assert free != 1, "the heap has a free block"
        raw.seek(data + free)
        raw.write(free.to_bytes(8, "little"))  # next free block: itself


@pytest.mark.slow
def test_a_subgroup_whose_free_list_loops_is_not_opened_and_nothing_else_is_read(tmp_path):
    """HDF5 loops on such a group as soon as it is asked for its info or its size."""
    path = tmp_path / "loop.h5"
    shutil.copy(V1 / "continuous_dense_f32_intids.h5", path)
    os.chmod(path, 0o644)
    with h5py.File(path, "r+", libver="earliest") as f:
        f.create_group("zz_notes").create_dataset("a", data=[1])
    _free_list_loop(path, "zz_notes")
    found = json.loads(run_python(LIMITED, str(path), timeout=120).splitlines()[-1])
    assert [(c, loc) for _s, c, loc, _m in found] == [("tree.group-unreadable", "/zz_notes"),
                                                       ("file.corrupt", "/")]
    message = found[0][3]
    assert message.startswith("/zz_notes: members cannot be listed: the local heap at byte ")
    assert message.endswith(": HDF5 would loop") and "has a free list that returns" in message
    with open_document(path) as doc:  # in this process too: nothing loops
        node = next(n for n in doc.tree.children if n.name == "zz_notes")
        assert node.detail == "members cannot be listed"
        with pytest.raises(NodeReadError) as refused:  # FILE::/zz_notes/a typed by hand
            doc.object_data.node("/zz_notes/a")
        assert refused.value.finding.code == "file.corrupt"
        assert "a group on the way cannot be read: the local heap" in refused.value.finding.message
        assert doc.object_data.node("/neuro") is not None  # the rest of the file still reads


def test_free_list_walk_rules():
    segment = bytearray(64)
    segment[8:16] = (1).to_bytes(8, "little")  # block at 8: the last one
    assert hdf5_heap._free_list_problem(bytes(segment), 8, 8, "h") is None
    segment[8:16] = (24).to_bytes(8, "little")
    segment[24:32] = (8).to_bytes(8, "little")  # 8 -> 24 -> 8
    assert "returns to offset 8" in hdf5_heap._free_list_problem(bytes(segment), 8, 8, "h")
    assert hdf5_heap._free_list_problem(bytes(segment), 60, 8, "h") is None  # HDF5's own check


@pytest.mark.parametrize("value", ["/zz_notes", "zz_notes", "/alias/.", "alias"])
@pytest.mark.slow
def test_a_soft_link_to_a_group_whose_free_list_loops_is_not_followed(tmp_path, value):
    """The soft link's target is checked as a hard link's is, through every soft link on
    its path (a relative value resolved from the link's group)."""
    path = tmp_path / "loop.h5"
    shutil.copy(V1 / "continuous_dense_f32_intids.h5", path)
    os.chmod(path, 0o644)
    with h5py.File(path, "r+", libver="earliest") as f:
        f.create_group("zz_notes").create_dataset("a", data=[1])
        f["alias"] = h5py.SoftLink("/zz_notes")
        f["zz_link"] = h5py.SoftLink(value)
    _free_list_loop(path, "zz_notes")
    found = json.loads(run_python(LIMITED, str(path), timeout=120).splitlines()[-1])
    codes = [(c, loc) for _s, c, loc, _m in found]
    assert ("tree.group-unreadable", "/zz_link") in codes and ("file.corrupt", "/") in codes
    message = next(m for _s, c, loc, m in found if loc == "/zz_link")
    assert message.startswith("/zz_link: members cannot be listed: the local heap at byte ")
    with open_document(path) as doc:
        link = next(n for n in doc.tree.children if n.name == "zz_link")
        assert link.detail == f"soft link to {value}; its target's members cannot be listed"


def test_path_problem_follows_soft_links_and_stops_after_hdf5s_limit(tmp_path):
    path = tmp_path / "chain.h5"
    with h5py.File(path, "w", libver="earliest") as f:
        f.create_group("g").create_dataset("d", data=[1])
        for i in range(hdf5_heap.MAX_SOFT_LINKS + 2):  # l0 -> g, l1 -> l0, ...
            f[f"l{i}"] = h5py.SoftLink("/g" if i == 0 else f"/l{i - 1}")
    _free_list_loop(path, "g")
    with h5py.File(path, "r") as f, registered(f, path):
        assert "free list that returns" in hdf5_heap.path_problem(f, b"/l0/d")
        deep = hdf5_heap.MAX_SOFT_LINKS - 1
        assert "free list that returns" in hdf5_heap.path_problem(f, f"/l{deep}".encode())
        # one hop more than HDF5 follows: HDF5 refuses the path itself, nothing to check
        assert hdf5_heap.path_problem(f, f"/l{deep + 2}".encode()) is None
