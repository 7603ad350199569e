"""A dataset stored in its own file is judged from its creation properties alone.

Contiguous, chunked and compact datasets whose creation properties name no
external-storage file open no other file when read (HDF5 User Guide, "Dataset
storage"; ``H5Pget_external_count``, ``H5Pget_layout``), so
:func:`external_guard.examine` answers them without resolving the document's
bounds or keeping a verdict per dataset; external storage and virtual datasets
are still examined in full (tests/test_hostile_external.py).
"""

from __future__ import annotations

import h5py
import numpy as np

from inspector.formats.hdf5 import external_guard


def _file(tmp_path):
    path = tmp_path / "doc.h5"
    raw = tmp_path / "raw.bin"
    raw.write_bytes(np.arange(4, dtype="<i4").tobytes())
    with h5py.File(path, "w") as f:
        f.create_dataset("contiguous", data=np.arange(6))
        f.create_dataset("chunked", data=np.arange(64), chunks=(8,), compression="gzip")
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        space = h5py.h5s.create_simple((3,))
        h5py.h5d.create(f.id, b"compact", h5py.h5t.STD_I32LE, space, dcpl=dcpl)
        f.create_dataset("stored", shape=(4,), dtype="<i4", external=[(str(raw), 0, 16)])
    return path, raw


def test_datasets_in_their_own_file_keep_no_verdict(tmp_path):
    path, raw = _file(tmp_path)
    with h5py.File(path, "r") as f:
        external_guard.register(f, path)
        try:
            scope = external_guard.scope_of(f.filename)
            for name in ("contiguous", "chunked", "compact"):
                verdict = external_guard.examine(f[name])
                assert verdict.files == () and verdict.refusals == ()
                assert verdict.readable and verdict.note() == ""
            assert scope.cache == {}  # judged from the properties, nothing kept
            stored = external_guard.examine(f["stored"])
            assert stored.files == (str(raw),) and stored.readable
            assert len(scope.cache) == 1  # external storage is examined and kept
            assert list(f["stored"][()]) == [0, 1, 2, 3]
        finally:
            external_guard.unregister(f)
