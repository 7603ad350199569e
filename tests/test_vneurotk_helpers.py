"""Small schema-1 VneuroTK recordings written with h5py for tests (no tests here)."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np


def write_typed(group: h5py.Group, name: str, values: list) -> h5py.Group:
    """A typed scalar sequence (spec section 4) of ints/strs/floats/None."""
    codes, payload = [], []
    for v in values:
        if v is None:
            codes.append(5)
            payload.append("")
        elif isinstance(v, bool):
            codes.append(1)
            payload.append("1" if v else "0")
        elif isinstance(v, int):
            codes.append(2)
            payload.append(str(v))
        elif isinstance(v, float):
            codes.append(3)
            payload.append(v.hex())
        else:
            codes.append(4)
            payload.append(str(v))
    g = group.create_group(name)
    g.attrs["encoding"] = "vneurotk_scalar_v1"
    g.create_dataset("types", data=np.asarray(codes, dtype=np.uint8))
    g.create_dataset("values", data=np.asarray(payload, dtype=h5py.string_dtype("utf-8")))
    return g


def write_recording(
    path: Path,
    *,
    mode: str = "continuous",
    n_trials: int = 4,
    n_time: int = 50,
    n_ch: int = 3,
    coo: bool = False,
    data: np.ndarray | None = None,
    chunks: bool = True,
    stim_ids: list | None = None,
    libver: str | None = None,
) -> np.ndarray:
    """Write a valid schema-1 recording; return the logical neural array.

    ``libver="latest"`` writes version-2 object headers (dense attribute storage).
    """
    rng = np.random.default_rng(0)
    ids = stim_ids or [10 * (i % 3 + 1) for i in range(n_trials)]
    with h5py.File(path, "w", libver=libver) as f:
        f.attrs["vneurotk_format"] = "recording"
        f.attrs["vneurotk_schema_version"] = 1
        f.attrs["writer_version"] = "0.1.0"
        f.attrs["data_mode"] = mode
        if mode == "epochs":
            arr = (
                data
                if data is not None
                else rng.poisson(0.3, (n_trials, n_time, n_ch)).astype(np.float32)
            )
            starts = np.zeros(n_trials, np.int64)
            ends = np.full(n_trials, n_time, np.int64)
            onsets = np.full(n_trials, 2, np.int64)
            labels = np.full((n_trials, n_time), np.nan)
            for i, o in enumerate(onsets):
                labels[i, o] = ids[i]
            trial = np.repeat(np.arange(n_trials, dtype=float)[:, None], n_time, axis=1)
        else:
            total = n_trials * n_time
            arr = (
                data if data is not None else rng.standard_normal((total, n_ch)).astype(np.float32)
            )
            starts = np.arange(n_trials, dtype=np.int64) * n_time
            ends = starts + n_time
            onsets = starts + 2
            labels = np.full(total, np.nan)
            labels[onsets] = ids
            trial = np.repeat(np.arange(n_trials, dtype=float), n_time)
        kw = (
            {"chunks": True, "compression": "gzip", "compression_opts": 4, "shuffle": True}
            if chunks
            else {}
        )
        if coo:
            flat = arr.reshape(-1, arr.shape[-1])
            r, c = np.nonzero(flat)
            f.create_dataset("neuro_row", data=r.astype(np.int32), **kw)
            f.create_dataset("neuro_col", data=c.astype(np.int32), **kw)
            f.create_dataset("neuro_data", data=flat[r, c], **kw)
            f.attrs["neuro_format"] = "coo"
            f.attrs["neuro_shape"] = list(arr.shape)
            f.attrs["neuro_dtype"] = str(arr.dtype)
        else:
            f.create_dataset("neuro", data=arr, **kw)
            f.attrs["neuro_format"] = "dense"
        f.create_dataset("stim_labels", data=labels.ravel())
        f.attrs["stim_labels_encoding"] = "native"
        f.attrs["stim_labels_is_str"] = False
        f.attrs["stim_labels_shape"] = list(labels.shape)
        for name, v in (
            ("trial", trial),
            ("trial_starts", starts),
            ("trial_ends", ends),
            ("vision_onsets", onsets),
        ):
            f.create_dataset(name, data=v)
        ni = f.create_group("neuro_info")
        ni.attrs["sfreq"] = 100.0
        ni.attrs["ch_names"] = np.array(
            [f"c{i}" for i in range(arr.shape[-1])], dtype=h5py.string_dtype()
        )
        ni.attrs["shape"] = list(arr.shape)
        vi = f.create_group("vision_info")
        uniq = sorted(set(ids), key=lambda x: (str(type(x)), x))
        vi.attrs["n_stim"] = len(uniq)
        write_typed(vi, "stim_ids", uniq)
        ti = f.create_group("trial_info")
        ti.attrs["baseline"] = np.array([-2, 0])
        ti.attrs["trial_window"] = np.array([-2, n_time - 2])
    return arr
