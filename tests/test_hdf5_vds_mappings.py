"""A virtual dataset's mappings are counted from the file's bytes before HDF5 opens it.

HDF5 decodes every mapping of a virtual dataset when it opens one (and again for its
creation property list), so one of more than :data:`vds_guard.MAX_MAPPINGS` mappings
is refused (``vds.too-many-mappings``) in the tree, in ``verify``, in the values and in
``dump`` without being opened.  h5py's ``get_virtual_count`` on the same files is the
oracle of the count.
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.hdf5 import heap as hdf5_heap
from inspector.formats.hdf5 import vds_guard
from inspector.formats.nodes.data import NodeReadError
from tests.hdf5_build import one_element_mappings


def _mapped(path: Path, count: int, libver: str | None = None) -> Path:
    """``/many``: one element from each of ``count`` mappings of ``/src``; ``/soft`` a soft
    link to it; ``/plain`` a plain dataset."""
    with h5py.File(path, "w", libver=libver) as f:
        f["src"] = np.arange(count, dtype="<i4")
        one_element_mappings(f, "many", "src", count, fillvalue=-1)
        f["soft"] = h5py.SoftLink("/many")
        f["plain"] = np.arange(3)
    return path


@pytest.fixture(scope="module")
def too_many(tmp_path_factory) -> Path:
    """A file whose ``/many`` has one mapping more than the limit."""
    return _mapped(tmp_path_factory.mktemp("vds") / "many.h5", vds_guard.MAX_MAPPINGS + 1)


@pytest.mark.parametrize("libver", [None, "latest"])  # object headers of version 1 and 2
@pytest.mark.parametrize("count", [1, 7, 300])
def test_the_count_is_read_from_the_layout_message(tmp_path, count, libver):
    path = _mapped(tmp_path / "v.h5", count, libver)
    with h5py.File(path, "r") as f:
        hdf5_heap.register(f, path)
        try:
            guard = hdf5_heap.guard_of(f)
            assert guard is not None
            many = int(f.id.links.get_info(b"many").u)
            plain = int(f.id.links.get_info(b"plain").u)
            oracle = f["many"].id.get_create_plist().get_virtual_count()
            assert vds_guard.mapping_count(guard, many) == oracle == count
            assert vds_guard.mapping_count(guard, plain) is None  # not virtual
        finally:
            hdf5_heap.unregister(f)


@pytest.mark.slow
def test_too_many_mappings_are_refused_before_opening(too_many, capsys):
    count = vds_guard.MAX_MAPPINGS + 1
    with open_document(too_many) as doc:
        doc.verify()
        found = [f for f in doc.findings if f.code == "vds.too-many-mappings"]
        assert {f.location for f in found} == {"/many", "/soft"}
        assert all(f"{count:,} mappings" in f.message for f in found)
        assert "not opened" in doc.tree.find("/many").detail
        assert "not opened" in doc.tree.find("/soft").detail
        for loc in ("/many", "/soft", "/many@x"):
            with pytest.raises(NodeReadError) as err:
                doc.object_data.node(loc)
            assert err.value.finding.code == "vds.too-many-mappings"
        assert doc.object_data.node("/plain").read().columns[0].values.tolist() == [0, 1, 2]
    assert main(["dump", f"{too_many}::/many"]) == 1
    out = capsys.readouterr()
    assert "vds.too-many-mappings" in out.err and f"{count:,} mappings" in out.err
    assert out.out == ""


@pytest.mark.slow
def test_a_count_at_the_limit_is_read(too_many, monkeypatch):
    monkeypatch.setattr(vds_guard, "MAX_MAPPINGS", vds_guard.MAX_MAPPINGS + 1)
    with h5py.File(too_many, "r") as f:  # the oracle
        expected = f["many"][:5].tolist()
    with open_document(too_many) as doc:
        assert not [f for f in doc.findings if f.code == "vds.too-many-mappings"]
        values = doc.object_data.node("/many").read(slice(0, 5)).columns[0].values
        assert values.tolist() == expected == [0, 1, 2, 3, 4]


@pytest.mark.slow
def test_a_virtual_source_with_too_many_mappings_is_not_followed(tmp_path):
    path = tmp_path / "outer.h5"
    with h5py.File(path, "w") as f:
        layout = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        layout[:] = h5py.VirtualSource(".", "/inner", shape=(4,))
        f.create_virtual_dataset("outer", layout, fillvalue=-1)
        _inner(f)
    with open_document(path) as doc:
        codes = {f.code for f in doc.findings if f.location == "/outer"}
        assert "vds.too-many-mappings" in codes
        with pytest.raises(NodeReadError) as err:
            doc.object_data.node("/outer").read()
        assert err.value.finding.code == "vds.too-many-mappings"


def _inner(f: h5py.File) -> None:
    """``/inner`` of ``f``: a virtual dataset of one mapping more than the limit."""
    count = vds_guard.MAX_MAPPINGS + 1
    f["src"] = np.arange(count, dtype="<i4")
    one_element_mappings(f, "inner", "src", count, fillvalue=-1)
