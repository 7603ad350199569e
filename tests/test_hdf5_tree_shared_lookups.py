"""The tree walk asks HDF5 for each member's information once and shares it: the
heap guard, the virtual-dataset guard and the cycle check use the address of the
member's hard link (one ``H5Lget_info``), a hard-linked group's identity is its
group's file number and that address (no ``H5Gget_objinfo`` per group), and one
``H5Oget_info`` per group gives its attribute count to the detail, the attribute
listing and the object-information check.  The tree itself is unchanged (see
``python -m fuzz.equivalence --format hdf5`` for the generator comparing old and
new trees of HDF5 mutants)."""

from __future__ import annotations

from collections import Counter

import h5py
import numpy as np

from inspector.formats import open_document
from inspector.formats.hdf5 import tree

GROUPS = 40


def _file(path) -> None:
    with h5py.File(path, "w") as f:
        for i in range(GROUPS):
            g = f.create_group(f"g{i:03d}")
            g.attrs["index"] = i
        f["g000"].create_dataset("values", data=np.arange(4.0))
        f["g001/inner"] = h5py.SoftLink("/g000")
        f["g002/again"] = f["g003"]  # a second hard link: shown once, then a cycle note


def _counting(monkeypatch, module, name, counts: Counter) -> None:
    original = getattr(module, name)

    def counted(*args, **kwargs):
        counts[name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_each_group_is_asked_for_its_information_once(tmp_path, monkeypatch):
    path = tmp_path / "groups.h5"
    _file(path)
    counts: Counter = Counter()
    _counting(monkeypatch, tree, "object_identity", counts)
    _counting(monkeypatch, h5py.h5a, "get_num_attrs", counts)
    _counting(monkeypatch, h5py.h5o, "get_info", counts)
    with open_document(path) as doc:
        root = doc.tree
        assert root.find("/g000").detail == "1 member, 1 attribute"
        assert root.find("/g007").detail == "0 members, 1 attribute"
        assert [c.name for c in root.find("/g007").children] == ["index"]
        assert "already shown" not in root.find("/g003").detail
        assert "already shown: hard-link cycle" in root.find("/g002/again").detail
    # the root (its key, then its file number) and the group reached by the soft link;
    # the hard-linked groups reuse their group's file number
    assert counts["object_identity"] == 3, counts
    assert counts["get_num_attrs"] == 2, counts  # the root's listing and the dataset's
    # one per group reached: the root, 40 groups, the targets of the soft and second hard link
    assert counts["get_info"] == GROUPS + 3, counts
