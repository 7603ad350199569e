"""The metadata reader (``attribute_values``: ``neuro_info``, ``vision_info``...) sizes
every attribute before reading it and holds it to the tree's per-value limit (1 MiB,
from its type and shape): a larger one is never read, the tree reports it as
``data.value-too-large`` with the ``h5dump -a`` command that reads it, and the
attributes within the limit feed the verdict as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import numpy as np

from inspector.formats import open_document
from inspector.formats.hdf5.attributes import MAX_ATTRIBUTE_BYTES, attribute_values

FIXTURES = Path(__file__).parent / "fixtures" / "vneurotk" / "v1"
BIG = MAX_ATTRIBUTE_BYTES // 8 + 1  # float64 values: 8 bytes over the limit


def _recording(tmp_path: Path) -> Path:
    path = tmp_path / "rec.h5"
    shutil.copy(FIXTURES / "continuous_uncompressed_i16.h5", path)
    with h5py.File(path, "r+", libver="latest") as f:  # dense attribute storage
        kept = {k: f["neuro_info"].attrs[k] for k in f["neuro_info"].attrs}
        del f["neuro_info"]
        info = f.create_group("neuro_info")
        for k, v in kept.items():
            info.attrs[k] = v
        info.attrs.create("big", np.arange(BIG, dtype="<f8"))
        info.attrs.create("edge", np.arange(MAX_ATTRIBUTE_BYTES // 8, dtype="<f8"))
    return path


def _reads(monkeypatch) -> list[str]:
    """The names of the attributes read through h5py's attribute manager."""
    read: list[str] = []
    original = h5py.AttributeManager.__getitem__

    def spy(self, name):
        read.append(name.decode() if isinstance(name, bytes) else name)
        return original(self, name)

    monkeypatch.setattr(h5py.AttributeManager, "__getitem__", spy)
    return read


def test_an_attribute_over_the_limit_is_not_read_by_the_metadata_reader(tmp_path, monkeypatch):
    path = _recording(tmp_path)
    read = _reads(monkeypatch)
    with h5py.File(path, "r") as f:
        values = attribute_values(f["neuro_info"])
        expected = {k: f["neuro_info"].attrs[k] for k in f["neuro_info"].attrs if k != "big"}
    assert "big" not in values and "big" not in read
    assert set(values) == set(expected)
    assert values["edge"].tolist() == expected["edge"].tolist()  # at the limit: read


def test_the_recording_reports_what_was_not_read_and_how(tmp_path, monkeypatch):
    path = _recording(tmp_path)
    read = _reads(monkeypatch)
    with open_document(path) as doc:
        doc.verify()
        found = [f for f in doc.findings if f.code == "data.value-too-large"]
        assert [f.location for f in found] == ["/neuro_info@big"]
        assert "h5dump -a '/neuro_info@big'" in found[0].message
        assert f"{BIG * 8:,} bytes" in found[0].message
        assert doc.summary.get("sfreq") is not None or doc.neural_array() is not None
    assert "big" not in read

