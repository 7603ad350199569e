"""A required ``writer_version`` that cannot be read is an error, never a warning."""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import pytest

from inspector.formats import open_document
from inspector.formats.vneurotk import header
from tests.conftest import FIXTURES

BASE = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def _with_writer(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rec.h5"
    shutil.copy(BASE, path)
    with h5py.File(path, "r+") as f:
        f.attrs.create("writer_version", text, dtype=h5py.string_dtype())
    return path


def test_the_base_recording_is_clean():
    with open_document(BASE) as doc:
        doc.verify()
        assert doc.ok and not [f for f in doc.findings if f.code.startswith("header.")]


def test_a_writer_version_over_the_limit_is_an_error(tmp_path, monkeypatch):
    """A variable-length string larger than the reader takes (the limit lowered so the
    file stays small: 200 000 characters against 1 000)."""
    monkeypatch.setattr(header, "MAX_WRITER_VERSION_CHARS", 1000)
    path = _with_writer(tmp_path, "x" * 200_000)
    with open_document(path) as doc:
        doc.verify()
        found = [f for f in doc.findings if f.code == "header.writer-version-unreadable"]
        assert [(f.severity, f.location) for f in found] == [("error", "/@writer_version")]
        assert "200000 characters" in found[0].message
        assert not doc.ok


def test_a_writer_version_that_cannot_be_read_is_an_error(tmp_path, monkeypatch):
    path = _with_writer(tmp_path, "0.1.0")
    real = header.read_attribute

    def refuse(obj, name, *default):
        if name == "writer_version":
            raise MemoryError("Unable to allocate 1.00 GiB")
        return real(obj, name, *default)

    monkeypatch.setattr(header, "read_attribute", refuse)
    with open_document(path) as doc:
        doc.verify()
        codes = [(f.severity, f.code) for f in doc.findings if f.code.startswith("header.")]
        assert codes == [("error", "header.writer-version-unreadable")]
        assert not doc.ok


@pytest.mark.parametrize("text", ["0.1.0", "y" * 1000])
def test_a_readable_writer_version_is_kept(tmp_path, monkeypatch, text):
    monkeypatch.setattr(header, "MAX_WRITER_VERSION_CHARS", 1000)
    with open_document(_with_writer(tmp_path, text)) as doc:
        doc.verify()
        assert doc.ok
        assert doc.summary.get("writer_version") == text
