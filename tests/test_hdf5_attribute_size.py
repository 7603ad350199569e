"""Attributes are sized before they are read: one declaring more than the per-value limit
(1 MiB, from its type and shape) is described in the tree, reported as
``data.value-too-large`` with how to read it, and never read by the detail view or
``dump``; one at the limit is read as h5py reads it."""

from __future__ import annotations

import h5py
import numpy as np

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.hdf5.heap import MAX_VALUE_BYTES
from inspector.formats.nodes.data import NodeReadError

BIG = MAX_VALUE_BYTES // 8 + 1  # float64 values: one byte-group over the limit
SMALL = MAX_VALUE_BYTES // 8  # exactly the limit


def _file(path) -> None:
    with h5py.File(path, "w", libver="latest") as f:
        g = f.create_group("meta")
        g.attrs.create("big", np.arange(BIG, dtype="<f8"))
        g.attrs.create("small", np.arange(SMALL, dtype="<f8"))
        g.attrs["note"] = "kept"


def test_tree_reports_the_big_attribute_and_reads_the_small(tmp_path):
    path = tmp_path / "attrs.h5"
    _file(path)
    with open_document(path) as doc:
        found = [f for f in doc.findings if f.code == "data.value-too-large"]
        assert [f.location for f in found] == ["/meta@big"]
        assert f"{BIG * 8:,} bytes" in found[0].message
        assert "h5dump -a '/meta@big'" in found[0].message
        assert doc.tree.find("/meta@big").value is None
        assert "not read" in doc.tree.find("/meta@big").detail
        node = doc.object_data.node("/meta@small")
        assert node.read(slice(SMALL - 2, SMALL)).columns[0].values.tolist() == [
            float(SMALL - 2), float(SMALL - 1)]
        big = doc.object_data.node("/meta@big")
        try:
            big.read(slice(0, 2))
        except NodeReadError as exc:
            assert exc.finding.code == "data.value-too-large"
            assert exc.finding.location == "/meta@big"
        else:
            raise AssertionError("the big attribute was read")


def test_dump_refuses_the_big_attribute_with_how_to_read_it(tmp_path, capsys):
    path = tmp_path / "attrs.h5"
    _file(path)
    assert main(["dump", f"{path}::/meta@big", "--slice", "0:3"]) == 1
    err = capsys.readouterr().err
    assert "data.value-too-large" in err and "h5dump -a" in err
    assert main(["dump", f"{path}::/meta@small", "--slice", "0:3"]) == 0
    assert capsys.readouterr().out.split() == ["value", "0.0", "1.0", "2.0"]
