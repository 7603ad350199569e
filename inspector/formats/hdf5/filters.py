"""HDF5 filters a dataset needs that this installation cannot apply.

A chunked dataset names the filters its chunks were written through (the
filter pipeline message; HDF5 File Format Specification, "Filter Pipeline
Message").  HDF5 applies deflate, shuffle, Fletcher-32, n-bit and
scale-offset itself; any other filter (blosc, lz4, zstd, bitshuffle...) is a
plugin (HDF Group, "Registered Filter Plugins").  When the plugin is not
installed the dataset's layout can be listed, but reading its values fails
with HDF5's plugin-search message; :func:`missing_filters` names the filter
instead, for the tree (``data.filter-unavailable``, a warning) and for a read
that fails (``data.unreadable``).
"""

from __future__ import annotations

from typing import Any

import h5py

#: Registered HDF5 filter identifiers (HDF Group, "Registered Filter Plugins") by name.
KNOWN_FILTERS = {
    1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit", 6: "scaleoffset",
    305: "lzf", 307: "bzip2", 32000: "lzf", 32001: "blosc", 32004: "lz4", 32008: "bitshuffle",
    32013: "zfp", 32015: "zstd", 32017: "sz", 32018: "fcidecomp", 32024: "sz3",
    32026: "blosc2",
}


def _name(code: int, stored: Any) -> str:
    """``blosc (HDF5 filter 32001)``: the registered name, else the name the file stores."""
    name = KNOWN_FILTERS.get(code)
    if name is None and isinstance(stored, bytes) and stored.strip(b"\0"):
        name = stored.split(b"\0", 1)[0].decode("ascii", "replace")
    return f"{name} (HDF5 filter {code})" if name else f"HDF5 filter {code}"


def create_plist(ds: Any) -> Any:
    """The creation property list of dataset ``ds`` (``H5Dget_create_plist``), fetched
    once per h5py dataset object: h5py keeps it for its own properties (``chunks``,
    ``compression``, ``is_virtual``: ``Dataset._dcpl``), and every check here shares
    it.  Any object without that cache is asked directly.

    Raises:
        OSError, RuntimeError, ValueError, AttributeError: HDF5 cannot give it.
    """
    if isinstance(ds, h5py.Dataset):
        return ds._dcpl
    return ds.id.get_create_plist()


def missing_filters(ds: Any) -> list[str]:
    """The filters of dataset ``ds`` that HDF5 cannot apply here, named
    (``["blosc (HDF5 filter 32001)"]``); [] when none is missing or the dataset's
    creation properties cannot be read (another finding says why)."""
    try:
        dcpl = create_plist(ds)
        found = [dcpl.get_filter(i) for i in range(dcpl.get_nfilters())]
    except (OSError, RuntimeError, ValueError, AttributeError, TypeError):
        return []
    return [_name(int(code), stored) for code, _flags, _values, stored in found
            if not _available(int(code))]


#: Filters found available (``H5Zfilter_avail``); one found missing is asked again, as
#: its plugin may be installed since.
_AVAILABLE: set[int] = set()


def _available(code: int) -> bool:
    if code in _AVAILABLE:
        return True
    try:
        available = bool(h5py.h5z.filter_avail(code))
    except (OSError, RuntimeError, ValueError):
        return False
    if available:
        _AVAILABLE.add(code)
    return available


def missing_text(ds: Any) -> str | None:
    """``"it is compressed with blosc (HDF5 filter 32001), which is not installed here"``,
    or None when every filter of ``ds`` can be applied."""
    missing = missing_filters(ds)
    if not missing:
        return None
    return (f"it is written through {' and '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed here (the hdf5plugin "
            "package provides the common ones)")
