"""Test helpers around the HDF5 heap guard (inspector.formats.hdf5.heap)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import h5py

from inspector.formats.hdf5 import heap as hdf5_heap


@contextmanager
def registered(f: h5py.File, path: Path) -> Iterator[h5py.File]:
    """``f`` (opened from ``path``) with its heap guard registered, as the readers open
    files; unregistered on exit."""
    hdf5_heap.register(f, path)
    try:
        yield f
    finally:
        hdf5_heap.unregister(f)


def every_object(f: h5py.File) -> list[Any]:
    """The root group and every object below it, in h5py's visiting order."""
    objects: list[Any] = [f]
    f.visititems(lambda _name, obj: objects.append(obj))
    return objects
