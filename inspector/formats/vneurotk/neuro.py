"""The neural array of a recording: dense or COO, its ``neuro_info`` and its hash.

Recording notes §2: ``neuro_format`` is ``dense`` (the default: dataset
``/neuro``) or ``coo`` (root attributes ``neuro_shape``, exactly three
integers, and ``neuro_dtype``, a numeric numpy dtype; 1-D datasets
``neuro_row``, ``neuro_col``, ``neuro_data`` of equal length).  Group
``neuro_info`` holds free attributes; its ``shape``, when present, must equal
the neural shape, and ``ch_names`` are expected to be strings.

Nothing here reads neural data except :func:`hash_neuro` (``--hash-arrays``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import h5py
import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.decoding.inflate import ChunkOverflow
from inspector.formats.findings import Rule
from inspector.formats.hdf5.arrays import H5DatasetRef
from inspector.formats.hdf5.attributes import attribute_values
from inspector.formats.hdf5.chunk_guard import stored_overflow
from inspector.formats.hdf5.heap import read_attribute
from inspector.formats.hdf5.source import H5Source, RuleError
from inspector.formats.hdf5.values import as_text, json_float, plain
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.coo import CooNeuroRef

#: ``report(rule, message, location)``.
Report = Callable[[Rule, str, str], Any]

#: dtype kinds accepted as neural samples: bool, signed/unsigned int, float.
NUMERIC_KINDS = "biuf"
#: Largest neural array (logical bytes) materialised for ``--hash-arrays``.
MAX_HASH_BYTES = 4 << 30
#: Root attributes of a COO neural array.
COO_DATASETS = ("neuro_row", "neuro_col", "neuro_data")


def _text_attr(f: h5py.File, name: str, default: str) -> str:
    raw = read_attribute(f, name, default)
    t = as_text(raw)
    return t.value if t is not None else str(raw)


def _coo_shape(f: h5py.File) -> tuple[int, int, int]:
    raw = np.asarray(read_attribute(f, "neuro_shape")).reshape(-1)
    try:
        shape = tuple(int(x) for x in raw)
    except (TypeError, ValueError, OverflowError):
        raise RuleError(R.COO_SHAPE, f"neuro_shape {raw.tolist()!r} is not a list of integers",
                        "/@neuro_shape") from None
    if len(shape) != 3:
        raise RuleError(R.COO_SHAPE,
                        f"COO neuro_shape {list(shape)} must have exactly three dimensions",
                        "/@neuro_shape")
    return shape[0], shape[1], shape[2]


def _coo_dtype(f: h5py.File) -> np.dtype:
    raw = read_attribute(f, "neuro_dtype")
    dt = as_text(raw)
    try:
        dtype = np.dtype(dt.value if dt is not None else str(raw))
    except TypeError:
        raise RuleError(R.COO_DTYPE, f"neuro_dtype {raw!r} is not a numpy dtype",
                        "/@neuro_dtype") from None
    if dtype.kind not in NUMERIC_KINDS:
        raise RuleError(R.COO_DTYPE,
                        f"neuro_dtype {dtype.str!r} ({dtype.name}) is not a numeric (bool, int, "
                        "uint or float) dtype; neural data must be a numeric array",
                        "/@neuro_dtype")
    return dtype


def _coo_datasets(f: h5py.File) -> tuple[h5py.Dataset, h5py.Dataset, h5py.Dataset]:
    row, col, data = (f[n] for n in COO_DATASETS)
    for ds, what in ((row, "neuro_row"), (col, "neuro_col")):
        if np.dtype(ds.dtype).kind not in "iu":
            raise RuleError(R.COO_INDEX_DTYPE,
                            f"{what} has dtype {ds.dtype}; COO coordinates must be integers",
                            f"/{what}")
    if np.dtype(data.dtype).kind not in NUMERIC_KINDS:
        raise RuleError(R.COO_DATA_DTYPE,
                        f"neuro_data has dtype {data.dtype}; neural data must be a numeric array",
                        "/neuro_data")
    lens = {d.name: d.shape for d in (row, col, data)}
    if (any(s is None or len(s) != 1 for s in lens.values())
            or len({s[0] for s in lens.values() if s}) != 1):
        raise RuleError(R.COO_LENGTHS, "neuro_row, neuro_col and neuro_data must be 1-D of "
                        f"equal length, got {lens}", "/neuro_row")
    return row, col, data


def read_coo(src: H5Source, f: h5py.File, sample_axis: int) -> CooNeuroRef:
    """The COO neural array (nothing read but attributes and dataset headers).

    Raises:
        RuleError: a rule of notes §2 is broken.
    """
    for attr in ("neuro_shape", "neuro_dtype"):
        if attr not in f.attrs:
            raise RuleError(R.COO_MISSING_ATTR,
                            f"COO neural data lacks the required root attribute '{attr}'",
                            f"/@{attr}")
    missing = [n for n in COO_DATASETS if not isinstance(f.get(n), h5py.Dataset)]
    if missing:
        raise RuleError(R.COO_MISSING_DATASET,
                        f"COO neural data lacks the required dataset(s) {', '.join(missing)}",
                        "/" + missing[0])
    shape = _coo_shape(f)
    dtype = _coo_dtype(f)
    if any(n < 0 for n in shape):
        raise RuleError(R.COO_SHAPE, f"COO neuro_shape {list(shape)} has a negative dimension",
                        "/@neuro_shape")
    row, col, data = _coo_datasets(f)
    return CooNeuroRef(src, row, col, data, shape, dtype, sample_axis=sample_axis)


def _missing_dense(f: h5py.File, ds: Any) -> RuleError:
    what = "missing" if ds is None else "not a dataset"
    hint = ""
    if ds is None and not any(k in f.attrs for k in
                              ("vneurotk_format", "vneurotk_schema_version", "data_mode")):
        hint = ("; with no VneuroTK header, no data_mode and no neural data this HDF5 file is "
                "probably not a VneuroTK recording at all (its objects are still listed)")
    return RuleError(R.NEURO_MISSING,
                     f"dense neural data: the required dataset '/neuro' is {what}{hint}", "/neuro")


def read_dense(src: H5Source, f: h5py.File, sample_axis: int, report: Report) -> H5DatasetRef:
    """The dense neural array ``/neuro`` (not read).

    Raises:
        RuleError: missing, null dataspace, or not numeric (notes §2).
    """
    ds = f.get("neuro")
    if not isinstance(ds, h5py.Dataset):
        raise _missing_dense(f, ds)
    if ds.shape is None:
        raise RuleError(R.NEURO_EMPTY, "dense '/neuro' has a null dataspace (no data)", "/neuro")
    kind = np.dtype(ds.dtype).kind
    if kind not in NUMERIC_KINDS + "c":
        raise RuleError(R.NEURO_DTYPE, f"dense '/neuro' has dtype {ds.dtype}: neural data must "
                        "be a numeric array (bool, int, uint or float)", "/neuro")
    if kind in "bc":
        report(R.NEURO_DTYPE_UNUSUAL,
               f"dense '/neuro' has {'boolean' if kind == 'b' else 'complex'} dtype {ds.dtype}; "
               "neural samples are expected to be real numbers (int, uint or float); shown as "
               "stored", "/neuro")
    overflow = stored_overflow(ds)
    if overflow is not None:
        report(R.DATA_CHUNK_OVERFLOW, f"dense '/neuro': {overflow}", "/neuro")
    return H5DatasetRef(src, ds, "neuro", location="/neuro", storage="dense",
                        sample_axis=sample_axis, unreadable_rule=R.NEURO_UNREADABLE)


def read_neuro(src: H5Source, f: h5py.File, mode: str | None,
               report: Report) -> H5DatasetRef | CooNeuroRef:
    """The neural array selected by ``neuro_format`` (notes §2).

    Its ``sample_axis`` is 1 for epochs (``(trials, time, channels)``), else 0.

    Raises:
        RuleError: see :func:`read_coo` and :func:`read_dense`; ``neuro.format``
            for any other format.
    """
    fmt = _text_attr(f, "neuro_format", "dense")
    sample_axis = 1 if mode == "epochs" else 0
    if fmt == "coo":
        return read_coo(src, f, sample_axis)
    if fmt != "dense":
        raise RuleError(R.NEURO_FORMAT, f"neuro_format {fmt!r} is not 'dense' or 'coo'",
                        "/@neuro_format")
    return read_dense(src, f, sample_axis, report)


def _declared_shape(info: dict[str, Any], shape: tuple[int, ...], storage: str) -> None:
    raw_shape = info.get("shape")
    if raw_shape is None:
        return
    try:
        declared = tuple(int(x) for x in np.asarray(raw_shape).reshape(-1))
    except (TypeError, ValueError, OverflowError):
        raise RuleError(R.NEURO_INFO_SHAPE,
                        f"neuro_info shape {plain(raw_shape)!r} is not an integer shape",
                        "/neuro_info@shape") from None
    if declared != tuple(shape):
        where = "/neuro" if storage == "dense" else "/@neuro_shape"
        raise RuleError(R.NEURO_INFO_SHAPE_MISMATCH,
                        f"neuro_info/shape {list(declared)} contradicts the neural array shape "
                        f"{list(shape)} of {where}", "/neuro_info@shape")


def _channel_names(out: dict[str, Any], ref: ArrayRef, report: Report) -> None:
    ch = out.get("ch_names")
    ref.attrs["ch_names"] = [str(c) for c in ch] if isinstance(ch, list) else None
    if not isinstance(ch, list):
        return
    bad = [i for i, c in enumerate(ch) if not isinstance(c, str)]
    if bad:
        report(R.NEURO_INFO_CH_NAMES_TYPE,
               f"neuro_info ch_names holds {len(bad)} non-string "
               f"entr{'y' if len(bad) == 1 else 'ies'} (first at index {bad[0]}: "
               f"{ch[bad[0]]!r}); channel names should be strings, one per channel",
               "/neuro_info@ch_names")


def read_neuro_info(f: h5py.File, ref: ArrayRef, report: Report) -> dict[str, Any]:
    """``neuro_info`` as plain JSON (its ``shape`` replaced by the neural shape).

    Sets ``ref.attrs`` ``sfreq`` (Hz or None), ``ch_names`` and ``unit`` (the
    unit of the samples when one of the free attributes ``units``, ``unit``,
    ``unit_type`` names it).

    Raises:
        RuleError: ``neuro-info.shape`` or ``neuro-info.shape-mismatch``.
    """
    shape = tuple(ref.shape)
    g = f.get("neuro_info")
    info = attribute_values(g) if isinstance(g, h5py.Group) else {}
    _declared_shape(info, shape, ref.storage)
    out = {k: plain(v) for k, v in info.items()}
    out["shape"] = list(shape)
    sfreq = out.get("sfreq")
    ref.attrs["sfreq"] = sfreq if _is_number(sfreq) else None
    _channel_names(out, ref, report)
    unit = next((out[k] for k in ("units", "unit", "unit_type")
                 if isinstance(out.get(k), str) and out[k]), None)
    if unit is not None:
        ref.attrs["unit"] = unit
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def hash_neuro(ref: H5DatasetRef | CooNeuroRef, report: Report) -> dict[str, Any] | None:
    """``{"sha256": hex of the C-order bytes, "sum": float64 sum}`` of the neural array.

    Reads the whole array in blocks of at most 64 MiB; arrays larger than
    :data:`MAX_HASH_BYTES` (logical) are not hashed (``neuro.too-large-to-hash``).
    Returns None when it is not hashed or cannot be read (``neuro.unreadable``).
    """
    dtype = np.dtype(ref.dtype)
    logical = float(np.prod([float(n) for n in ref.shape])) * dtype.itemsize
    if logical > MAX_HASH_BYTES:
        report(R.NEURO_TOO_LARGE_TO_HASH,
               f"the neural array {list(ref.shape)} {dtype.name} is {logical / 2**30:.3g} GiB "
               f"(logical size), too large to hash (limit {MAX_HASH_BYTES / 2**30:.0f} GiB); "
               "sha256 and sum are not reported", ref.location)
        return None
    h = hashlib.sha256()
    total = 0.0
    try:
        for block in ref.read_raw_blocks():
            h.update(np.ascontiguousarray(block).tobytes())
            total += float(np.asarray(block, dtype=np.float64).sum())
    except ChunkOverflow as exc:
        report(R.DATA_CHUNK_OVERFLOW, f"the neural array cannot be read whole: {exc}",
               exc.dataset or ref.location)
        return None
    except (OSError, ValueError, TypeError) as exc:
        report(R.NEURO_UNREADABLE, f"the neural array cannot be read whole: {exc}", ref.location)
        return None
    return {"sha256": h.hexdigest(), "sum": json_float(total)}
