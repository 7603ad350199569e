"""Versions of the libraries the format layer reads files with (for About and bug reports)."""

from __future__ import annotations


def library_versions() -> dict[str, str]:
    """``{"h5py": ..., "HDF5": ..., "numpy": ..., "pandas": ...}``."""
    import h5py
    import numpy
    import pandas

    return {
        "h5py": h5py.version.version,
        "HDF5": h5py.version.hdf5_version,
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
    }
