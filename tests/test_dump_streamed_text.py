"""``inspector dump FILE::/path@name --all --out FILE`` writes a variable-length string
attribute too large to read whole page by page from its global heap object: the same
bytes the ordinary dump writes for a value within the limit, in CSV and JSON; without
``--all --out`` it is refused with how to get it; an interrupted write leaves no file."""

from __future__ import annotations

import h5py
import pytest

from inspector.cli import main
from inspector.formats.hdf5 import heap_stream
from inspector.formats.hdf5.heap import MAX_VALUE_BYTES
from inspector.formats.nodes import dump as node_dump

TEXTS = {
    "plain": b"0123456789" * 300,
    "csv": b'a,b"c\nd\r' * 400,
    "utf8": ("\u00e9\u4e2d" * 500).encode(),
    "invalid": b"ok\xff\xfe" * 700 + b"\xe4\xb8",  # ends inside a sequence
}


def _file(path) -> None:
    with h5py.File(path, "w") as f:
        for name, raw in TEXTS.items():
            f.attrs.create(name, raw, dtype=h5py.string_dtype("ascii"))


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_streamed_equals_the_ordinary_dump(tmp_path, monkeypatch, name, fmt):
    path = tmp_path / "t.h5"
    _file(path)
    ordinary, streamed = tmp_path / f"o.{fmt}", tmp_path / f"s.{fmt}"
    assert main(["dump", f"{path}::/@{name}", "--format", fmt, "--out", str(ordinary)]) == 0
    monkeypatch.setattr(heap_stream, "MAX_VALUE_BYTES", 100)  # every value "too large"
    monkeypatch.setattr(heap_stream, "PAGE", 7)  # pages split sequences and quotes
    called = []
    original = node_dump.write_text_csv if fmt == "csv" else node_dump.write_text_json
    monkeypatch.setattr(node_dump, f"write_text_{fmt}",
                        lambda *a: called.append(1) or original(*a))
    assert main(["dump", f"{path}::/@{name}", "--format", fmt, "--all",
                 "--out", str(streamed)]) == 0
    assert called
    assert streamed.read_bytes() == ordinary.read_bytes()


def test_over_the_limit_is_refused_without_all_and_written_with_it(tmp_path, capsys):
    path = tmp_path / "big.h5"
    big = b"x," * (MAX_VALUE_BYTES // 2 + 10)
    with h5py.File(path, "w") as f:
        f.attrs.create("big", big, dtype=h5py.string_dtype("ascii"))
    assert main(["dump", f"{path}::/@big"]) == 1
    err = capsys.readouterr().err
    assert "data.value-too-large" in err and "--all --out FILE" in err
    out = tmp_path / "big.csv"
    assert main(["dump", f"{path}::/@big", "--all", "--out", str(out)]) == 0
    assert out.read_bytes() == b'value\n"' + big + b'"\n'


def test_an_interrupted_write_leaves_no_file(tmp_path, monkeypatch):
    path = tmp_path / "big.h5"
    with h5py.File(path, "w") as f:
        f.attrs.create("big", b"y" * (MAX_VALUE_BYTES + 1), dtype=h5py.string_dtype("ascii"))

    def interrupted(node, pages, out):
        out.write("value\n")
        next(pages())
        raise KeyboardInterrupt

    monkeypatch.setattr(node_dump, "write_text_csv", interrupted)
    out = tmp_path / "big.csv"
    assert main(["dump", f"{path}::/@big", "--all", "--out", str(out)]) == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.h5"]
