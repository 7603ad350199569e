"""A virtual dataset of too many mappings in another file is counted before HDF5 opens
it, whether reached through an external link or as a virtual dataset's source
(``vds.too-many-mappings``; HDF5 decodes every mapping when it opens one), and
external storage or links naming a device or socket are refused before any read."""

from __future__ import annotations

import socket

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.hdf5.vds_guard import MAX_MAPPINGS
from tests.hdf5_build import one_element_mappings


def _files(folder, n: int):
    with h5py.File(folder / "other.h5", "w") as f:
        f.create_dataset("src", data=np.arange(n, dtype="<i4"))
        one_element_mappings(f, "many", "src", n)
    doc = folder / "doc.h5"
    with h5py.File(doc, "w") as f:
        f["linked"] = h5py.ExternalLink("other.h5", "/many")
        layout = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        layout[:] = h5py.VirtualSource("other.h5", "many", shape=(n,))[0:4]
        f.create_virtual_dataset("through", layout)
    return doc


@pytest.mark.slow
def test_too_many_mappings_in_another_file_are_refused(tmp_path, capsys):
    doc = _files(tmp_path, MAX_MAPPINGS + 1)
    with open_document(doc) as d:
        refused = sorted(f.location for f in d.findings if f.code == "vds.too-many-mappings")
        assert refused == ["/linked", "/through"]
        assert f"{MAX_MAPPINGS + 1:,} mappings" in next(
            f.message for f in d.findings if f.location == "/linked")
    for where in ("/linked", "/through"):
        assert main(["dump", f"{doc}::{where}"]) == 1
        captured = capsys.readouterr()
        assert "vds.too-many-mappings" in captured.err and captured.out == ""


def test_as_many_mappings_as_are_opened_are_read(tmp_path, capsys):
    doc = _files(tmp_path, 50)
    with open_document(doc) as d:
        assert not [f for f in d.findings if f.code == "vds.too-many-mappings"]
    assert main(["dump", f"{doc}::/through"]) == 0
    assert capsys.readouterr().out.split() == ["value", "0", "1", "2", "3"]


@pytest.mark.parametrize("kind", ["char-device", "socket"])
def test_storage_and_links_to_devices_and_sockets_are_refused(tmp_path, kind):
    if kind == "char-device":
        target = "/dev/zero"
    else:
        target = str(tmp_path / "sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(target)
    doc = tmp_path / "doc.h5"
    with h5py.File(doc, "w") as f:
        f.create_dataset("stored", shape=(8,), dtype="<f8", external=[(target, 0, 64)])
        f["linked"] = h5py.ExternalLink(target, "/x")
        layout = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        layout[:] = h5py.VirtualSource(target, "x", shape=(4,))
        f.create_virtual_dataset("virtual", layout, fillvalue=-1)
    with open_document(doc) as d:
        special = {f.location for f in d.findings if f.code == "external.special-file"}
        assert {"/stored", "/virtual"} <= special
        linked = [f for f in d.findings if f.location == "/linked"]
        assert linked and all(f.severity in ("error", "warning") for f in linked)
        for where in ("/stored", "/virtual", "/linked"):
            node = None
            try:
                node = d.object_data.node(where)
                if node is not None:
                    node.read()
            except Exception as exc:  # noqa: BLE001 - the refusal is the point
                assert getattr(exc, "finding", None) is not None, exc
            else:
                assert node is None, f"{where} was read from {target}"
