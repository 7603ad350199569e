"""``inspector dump FILE::/path`` opens the way to that one object, not the whole file:
the document's tree holds the objects on the path alone, their findings are the whole
tree's findings there, and the values are those h5py reads."""

from __future__ import annotations

import h5py
import numpy as np

from inspector.cli import main
from inspector.formats import open_document


def _wide_file(path, groups: int = 300) -> None:
    with h5py.File(path, "w") as f:
        for i in range(groups):
            f.create_group(f"g{i:06d}")
        last = f[f"g{groups - 1:06d}"]
        last.create_dataset("values", data=np.arange(5.0) * 1.5)
        last.attrs["note"] = "last"
        f["gone"] = h5py.SoftLink("/nowhere")
        f["g000001"]["to_last"] = h5py.SoftLink(f"/g{groups - 1:06d}/values")


def _locations(node) -> list[str]:
    return [n.location for n in node.walk()]


def test_only_opens_the_way_to_the_object(tmp_path):
    path = tmp_path / "wide.h5"
    _wide_file(path)
    with open_document(path, only="/g000299/values") as doc:
        assert doc.tree is not None
        assert _locations(doc.tree) == ["/", "/g000299", "/g000299@note", "/g000299/values"]
        node = doc.object_data.node("/g000299/values")
        assert node is not None
        assert node.read().columns[0].values.tolist() == [0.0, 1.5, 3.0, 4.5, 6.0]
    with open_document(path) as whole:
        assert len(_locations(whole.tree)) > 300


def test_findings_on_the_way_are_those_of_the_whole_tree(tmp_path):
    path = tmp_path / "wide.h5"
    _wide_file(path)
    with open_document(path) as whole:
        expected = [f.to_json() for f in whole.findings if f.location == "/gone"]
    assert [f["code"] for f in expected] == ["link.dangling"]
    with open_document(path, only="/gone") as doc:
        assert [f.to_json() for f in doc.findings if f.location != "/"] == expected
    with open_document(path, only="/g000001/to_last") as doc:
        assert doc.tree.find("/g000001/to_last").kind == "link"
        assert doc.object_data.node("/g000001/to_last").read().columns[0].values[1] == 1.5


def test_dump_prints_values_and_says_what_a_path_is(tmp_path, capsys):
    path = tmp_path / "wide.h5"
    _wide_file(path)
    assert main(["dump", f"{path}::/g000299/values"]) == 0
    assert capsys.readouterr().out.split() == ["value", "0.0", "1.5", "3.0", "4.5", "6.0"]
    assert main(["dump", f"{path}::/g000299@note"]) == 0
    assert capsys.readouterr().out.split() == ["value", "last"]
    assert main(["dump", f"{path}::/g000299"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert sorted(r.split(",")[0] for r in rows[1:]) == ["note", "values"]
    assert main(["dump", f"{path}::/gone"]) == 1
    assert "link.dangling" in capsys.readouterr().err
    assert main(["dump", f"{path}::/g000299/nothing"]) == 1
    assert "names no dataset or attribute" in capsys.readouterr().err
