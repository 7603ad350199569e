"""Open a VneuroTK HDF5 recording as a :class:`~inspector.formats.document.Document`.

Order of the checks follows the reference reader (corpus README, "How the
verdict was obtained"): header and data mode, neural array, metadata
(``neuro_info``, labels, ``vision_info``, trial arrays, ``trial_info``,
``trial_meta``), the schema-1 trial-structure contract (VneuroTK on-disk notes §3),
visual representations and their alignment, then the stimulus index.  Each
broken rule becomes an error finding naming the rule and HDF5 location; the
reader never raises for bad input.

Opening reads attributes and small metadata only.  The neural array, the
per-sample ``trial`` array, visual-representation arrays and images stay
lazy; the per-sample labels are scanned once in blocks (see
:mod:`inspector.formats.vneurotk.labels`).  ``hash_arrays=True`` adds the
facts that need every byte: ``neuro.sha256``/``neuro.sum``, vision array
hashes and decoded image facts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pandas as pd

from inspector.formats.capabilities import TrialStructure
from inspector.formats.document import FORMAT_RECORDING, Document, Stimulus
from inspector.formats.vneurotk.arrays import CooNeuroRef, H5DatasetRef
from inspector.formats.vneurotk.checks import RecordingCheck, Step, coo_bounds_step, image_step
from inspector.formats.vneurotk.header import read_data_mode, read_header
from inspector.formats.vneurotk.labels import Labels
from inspector.formats.vneurotk.scalars import read_sequence
from inspector.formats.vneurotk.source import H5Source, OpenError, RuleError
from inspector.formats.vneurotk.summary import (
    build_header_tree,
    build_provenance_tree,
    trial_meta_facts,
)
from inspector.formats.vneurotk.tree import build_tree
from inspector.formats.vneurotk.trial_meta import read_trial_meta
from inspector.formats.vneurotk.trials import TrialArrays, validate_state
from inspector.formats.vneurotk.values import as_text, plain, typed
from inspector.formats.vneurotk.vision import (
    decode_image,
    read_records,
    read_stimuli_index,
    resolve_path,
)

SUMMARY_KEYS = (
    "schema_version", "writer_version", "data_mode", "header", "neuro", "stim_labels",
    "trial_stim_ids", "trial_meta", "neuro_info", "vision_info", "trial_info",
    "vision_records", "stimuli",
)


class _Ctx:
    """State shared by the steps of one open."""

    def __init__(self, doc: Document, src: H5Source, hash_arrays: bool) -> None:
        self.doc = doc
        self.src = src
        self.f = src.file
        self.hash_arrays = hash_arrays
        self.name = doc.path.name
        self.steps: list[Step] = []

    def fail(self, exc: RuleError) -> None:
        self.doc.error(exc.code, f"{self.name}: {exc.message}", exc.location)

    def warn(self, exc: RuleError) -> None:
        self.doc.warning(exc.code, f"{self.name}: {exc.message}", exc.location)


def open_recording(path: Path, *, hash_arrays: bool = False) -> Document:
    """Open ``path`` read-only as a VneuroTK recording (schema 0 or 1).

    Args:
        path: the ``.h5`` file.
        hash_arrays: also compute the facts that read whole arrays: the
            SHA-256 of the neural array's C-order bytes and its float64 sum,
            visual-representation array hashes, decoded image shape/dtype/hash.

    Returns:
        A Document of format ``"vneurotk-recording"`` whose ``summary`` has
        the keys of the corpus ``expected.json`` (see :data:`SUMMARY_KEYS`),
        ``arrays["neuro"]`` and ``arrays["vision_store/<i>"]`` lazy array
        references, ``tables["trial_meta"]``, ``stimuli``, ``header``,
        ``tree`` and ``provenance`` trees.  ``extra`` holds
        ``trial_starts``/``trial_ends``/``vision_onsets`` (int64 arrays or
        None), ``trial_stim_ids`` (list), ``stim_labels`` (a lazy
        :class:`~inspector.formats.vneurotk.labels.Labels` or None),
        ``trial`` (lazy ArrayRef or None) and ``schema_version``.

    Never raises for bad input: every problem is a finding.
    """
    path = Path(path)
    doc = Document(path, format=FORMAT_RECORDING, kind_label=KIND_RECORDING,
                   tree_title="HDF5 objects")
    doc.summary = {k: None for k in SUMMARY_KEYS}
    doc.header.add("format", "VneuroTK recording (HDF5)")
    try:
        src = H5Source(path)
    except OpenError as exc:
        doc.error(exc.code, exc.message, "")
        return doc
    doc.on_close(src.close)
    if src.lock_warning:
        doc.warning("file.locked", src.lock_warning, "")
    ctx = _Ctx(doc, src, hash_arrays)
    try:
        _read(ctx)
        if ctx.steps:
            doc.checks.append(RecordingCheck(steps=ctx.steps))
    except RuleError as exc:
        ctx.fail(exc)
    except (OSError, RuntimeError, KeyError) as exc:
        doc.error("file.corrupt", f"{path.name}: HDF5 could not read the file structure (damaged file?): {exc}", "")
    except Exception as exc:  # noqa: BLE001 - bad input must never escape as an exception
        import traceback

        doc.error("internal.reader-failed",
                  f"{path.name}: the recording reader failed unexpectedly: {type(exc).__name__}: {exc}", "")
        doc.traceback = traceback.format_exc()
    if doc.tree is not None and not _looks_like_recording(ctx.f):
        doc.kind_label = KIND_PLAIN_HDF5
    return doc


#: ``Document.kind_label`` of a recording, and of an HDF5 file that is not one.
KIND_RECORDING = "VneuroTK recording"
KIND_PLAIN_HDF5 = "HDF5 file (not a VneuroTK recording)"
#: Root attributes that only a VneuroTK recording carries (notes §1, §2).
RECORDING_ATTRS = ("vneurotk_format", "vneurotk_schema_version", "data_mode", "neuro_format")


def _looks_like_recording(f: h5py.File) -> bool:
    """False for an HDF5 file with no VneuroTK header, no data mode and no
    neural data: not a recording at all (its objects are still listed)."""
    try:
        if any(k in f.attrs for k in RECORDING_ATTRS):
            return True
        return any(n in f for n in ("neuro", "neuro_row"))
    except (OSError, RuntimeError, KeyError, ValueError):
        return True


def _read(ctx: _Ctx) -> None:
    doc, f = ctx.doc, ctx.f

    def report(sev: str, code: str, msg: str, loc: str) -> None:
        getattr(doc, sev)(code, f"{ctx.name}: {msg}", loc)

    doc.tree = build_tree(f, doc.path, report)
    hdr = read_header(f)
    doc.summary["header"] = hdr.raw
    doc.summary["schema_version"] = hdr.schema_version
    doc.summary["writer_version"] = hdr.writer_version
    for e in hdr.errors:
        ctx.fail(e)
    if not hdr.accepted:
        build_header_tree(doc, None)
        return
    schema = int(hdr.schema_version or 0)
    mode, mode_errors = read_data_mode(f, schema)
    for e in mode_errors:
        ctx.fail(e)
    if schema == 0:
        doc.info("schema.historical", f"{ctx.name}: no format header: historical schema 0 "
                 "(VneuroTK format, 'Compatibility policy'); read without modifying it", "/")

    neuro = _guard(ctx, lambda: _read_neuro(ctx, mode))
    shape = tuple(neuro.shape) if neuro is not None else None
    neuro_info = _guard(ctx, lambda: _read_neuro_info(ctx, shape)) if shape is not None else None
    labels = _guard(ctx, lambda: Labels(ctx.src, f) if "stim_labels" in f else None)
    vision_info = _guard(ctx, lambda: _read_vision_info(ctx))
    trials = _guard(ctx, lambda: TrialArrays.read(ctx.src, f))
    trial_info = _guard(ctx, lambda: _read_attr_group(f, "trial_info"))
    trial_meta = _guard(ctx, lambda: read_trial_meta(f["trial_meta"], ctx.fail) if "trial_meta" in f else None)
    if trial_meta is not None:
        doc.tables["trial_meta"] = trial_meta
        doc.table_locations["trial_meta"] = "/trial_meta"
    if neuro is not None:
        neuro.attrs["data_mode"] = mode
        if neuro.attrs.get("sfreq") is None and trial_info and "sfreq" in trial_info:
            sf = plain(trial_info["sfreq"])
            neuro.attrs["sfreq"] = sf if isinstance(sf, (int, float)) and not isinstance(sf, bool) else None

    if neuro is not None and mode is not None and shape is not None:
        ok = validate_state(ctx, schema, mode, shape, neuro_info, labels, vision_info, trials, trial_info, trial_meta)
    else:
        ok = False

    # labels scan: summary facts and the labels at trial onsets
    trial_ids = None
    if labels is not None:
        positions = trials.onset_positions(mode, shape) if (ok and trials is not None) else []
        scan = _guard(ctx, lambda: labels.scan(positions))
        if scan is not None:
            doc.summary["stim_labels"] = {
                "count": labels.count, "shape": list(labels.shape), "dtype": labels.dtype,
                "first": [typed(v) for v in scan.first],
                "non_missing_count": scan.non_missing_count,
                "first_non_missing": [typed(v) for v in scan.first_non_missing],
            }
            if ok and mode in ("continuous", "epochs"):
                trial_ids = _trial_stim_ids(labels, scan, positions, vision_info)
    if ok and mode == "patterns":
        trial_ids = _pattern_stim_ids(trial_meta, shape)
    if mode is not None and neuro is not None:
        doc.trials = _trial_structure(mode, trials, trial_ids, labels, neuro_info, neuro)
    if trial_ids is not None:
        doc.summary["trial_stim_ids"] = {"count": len(trial_ids), "first": [typed(v) for v in trial_ids[:5]]}

    # vision data (reference stage 3 and 4)
    has_vs, has_db = "vision_store" in f, "stimuli_db" in f
    records = []
    if has_vs or has_db:
        if trial_ids is None and neuro is not None and mode is not None:
            why = ("patterns need trial_meta['stim_index'] with one ID per row"
                   if mode == "patterns" else "the trial structure is incomplete or invalid")
            ctx.fail(RuleError("vision.unaligned",
                               f"vision data cannot be aligned to trials/rows because explicit stimulus IDs are "
                               f"missing ({why}; VneuroTK on-disk notes §3 and 5)", "/vision_store" if has_vs else "/stimuli_db"))
        if has_vs:
            got = _guard(ctx, lambda: read_records(f))
            if got is not None:
                records, warns = got
                for w in warns:
                    ctx.warn(w)
        doc.summary["vision_records"] = _vision_facts(ctx, records, trial_ids)
        if has_db:
            _read_stimuli(ctx)

    if neuro is not None and ctx.hash_arrays:
        _hash_neuro(ctx, neuro)
    doc.summary["data_mode"] = mode
    doc.summary["neuro_info"] = neuro_info
    if vision_info is not None and "vision_info" in f:
        doc.summary["vision_info"] = _vision_info_facts(vision_info)
    if trial_info is not None:
        doc.summary["trial_info"] = plain(trial_info)
    if trial_meta is not None:
        doc.summary["trial_meta"] = trial_meta_facts(trial_meta)
    build_header_tree(doc, {"mode": mode, "neuro": neuro, "labels": labels, "trials": trials,
                            "records": records, "neuro_info": neuro_info})
    build_provenance_tree(doc, hdr.writer_version, records, schema)


def _guard(ctx: _Ctx, fn):
    """Run one step; a broken rule or unreadable object becomes an error finding."""
    try:
        return fn()
    except RuleError as exc:
        ctx.fail(exc)
    except (OSError, RuntimeError, KeyError) as exc:
        ctx.doc.error("file.corrupt", f"{ctx.name}: HDF5 could not read part of the file (damaged file?): "
                      f"{type(exc).__name__}: {exc}", "")
    except (TypeError, ValueError) as exc:
        ctx.doc.error("read.failed", f"{ctx.name}: {type(exc).__name__}: {exc}", "")
    return None


# -- neural array ---------------------------------------------------------------
def _read_neuro(ctx: _Ctx, mode: str | None):
    f = ctx.f
    raw_fmt = f.attrs.get("neuro_format", "dense")
    t = as_text(raw_fmt)
    fmt = t.value if t is not None else str(raw_fmt)
    sample_axis = 1 if mode == "epochs" else 0
    if fmt == "coo":
        for attr in ("neuro_shape", "neuro_dtype"):
            if attr not in f.attrs:
                raise RuleError("neuro.coo-missing-attr", f"COO neural data lacks the required root attribute '{attr}' (VneuroTK on-disk notes §2)", f"/@{attr}")
        missing = [n for n in ("neuro_row", "neuro_col", "neuro_data") if not isinstance(f.get(n), h5py.Dataset)]
        if missing:
            raise RuleError("neuro.coo-missing-dataset",
                            f"COO neural data lacks the required dataset(s) {', '.join(missing)} (VneuroTK on-disk notes §2)",
                            "/" + missing[0])
        raw = np.asarray(f.attrs["neuro_shape"]).reshape(-1)
        try:
            shape = tuple(int(x) for x in raw)
        except (TypeError, ValueError):
            raise RuleError("neuro.coo-shape", f"neuro_shape {raw!r} is not a list of integers (VneuroTK on-disk notes §2)", "/@neuro_shape") from None
        if len(shape) != 3:
            raise RuleError("neuro.coo-shape", f"COO neuro_shape {list(shape)} must have exactly three dimensions (VneuroTK on-disk notes §2)", "/@neuro_shape")
        dt = as_text(f.attrs["neuro_dtype"])
        try:
            dtype = np.dtype(dt.value if dt is not None else str(f.attrs["neuro_dtype"]))
        except TypeError:
            raise RuleError("neuro.coo-dtype", f"neuro_dtype {f.attrs['neuro_dtype']!r} is not a numpy dtype (VneuroTK on-disk notes §2)", "/@neuro_dtype") from None
        if dtype.kind not in NUMERIC_KINDS:
            raise RuleError("neuro.coo-dtype", f"neuro_dtype {dtype.str!r} ({dtype.name}) is not a numeric (bool, int, uint "
                            "or float) dtype; neural data must be a numeric array (VneuroTK on-disk notes §2)", "/@neuro_dtype")
        if any(n < 0 for n in shape):
            raise RuleError("neuro.coo-shape", f"COO neuro_shape {list(shape)} has a negative dimension (VneuroTK on-disk notes §2)", "/@neuro_shape")
        row, col, data = f["neuro_row"], f["neuro_col"], f["neuro_data"]
        for ds, what in ((row, "neuro_row"), (col, "neuro_col")):
            if np.dtype(ds.dtype).kind not in "iu":
                raise RuleError("neuro.coo-index-dtype", f"{what} has dtype {ds.dtype}; COO coordinates must be integers "
                                "(VneuroTK on-disk notes §2)", f"/{what}")
        if np.dtype(data.dtype).kind not in NUMERIC_KINDS:
            raise RuleError("neuro.coo-data-dtype", f"neuro_data has dtype {data.dtype}; neural data must be a numeric array "
                            "(VneuroTK on-disk notes §2)", "/neuro_data")
        lens = {d.name: d.shape for d in (row, col, data)}
        if any(s is None or len(s) != 1 for s in lens.values()) or len({s[0] for s in lens.values()}) != 1:
            raise RuleError("neuro.coo-lengths", f"neuro_row, neuro_col and neuro_data must be 1-D of equal length, got {lens} (VneuroTK on-disk notes §2)", "/neuro_row")
        ref = CooNeuroRef(ctx.src, row, col, data, shape, dtype, sample_axis=sample_axis)
        ctx.doc.arrays["neuro"] = ref
        ctx.steps.append(coo_bounds_step(ctx.src, ref))
        return ref
    if fmt != "dense":
        raise RuleError("neuro.format", f"neuro_format {fmt!r} is not 'dense' or 'coo' (VneuroTK on-disk notes §2)", "/@neuro_format")
    ds = f.get("neuro")
    if not isinstance(ds, h5py.Dataset):
        what = "missing" if ds is None else "not a dataset"
        hint = ""
        if ds is None and not any(k in f.attrs for k in ("vneurotk_format", "vneurotk_schema_version", "data_mode")):
            hint = ("; with no VneuroTK header, no data_mode and no neural data this HDF5 file is "
                    "probably not a VneuroTK recording at all (its objects are still listed)")
        raise RuleError("neuro.missing", f"dense neural data: the required dataset '/neuro' is {what}{hint} (VneuroTK on-disk notes §2)", "/neuro")
    if ds.shape is None:
        raise RuleError("neuro.empty", "dense '/neuro' has a null dataspace (no data) (VneuroTK on-disk notes §2)", "/neuro")
    kind = np.dtype(ds.dtype).kind
    if kind not in NUMERIC_KINDS + "c":
        raise RuleError("neuro.dtype", f"dense '/neuro' has dtype {ds.dtype}: neural data must be a numeric array "
                        "(bool, int, uint or float) (VneuroTK on-disk notes §2)", "/neuro")
    if kind in "bc":
        ctx.warn(RuleError("neuro.dtype-unusual", f"dense '/neuro' has {'boolean' if kind == 'b' else 'complex'} dtype "
                           f"{ds.dtype}; neural samples are expected to be real numbers (int, uint or float); "
                           "shown as stored (VneuroTK on-disk notes §2)", "/neuro"))
    ref = H5DatasetRef(ctx.src, ds, "neuro", location="/neuro", storage="dense", sample_axis=sample_axis)
    ctx.doc.arrays["neuro"] = ref
    return ref


#: dtype kinds accepted as neural samples: bool, signed/unsigned int, float.
NUMERIC_KINDS = "biuf"
#: Largest neural array (logical bytes) materialised for ``--hash-arrays``.
MAX_HASH_BYTES = 4 << 30


def _hash_neuro(ctx: _Ctx, neuro) -> None:
    logical = float(np.prod([float(n) for n in neuro.shape])) * np.dtype(neuro.dtype).itemsize
    if logical > MAX_HASH_BYTES:
        ctx.doc.warning("neuro.too-large-to-hash",
                        f"{ctx.name}: the neural array {list(neuro.shape)} {np.dtype(neuro.dtype).name} is "
                        f"{logical / 2**30:.3g} GiB (logical size), too large to hash (limit "
                        f"{MAX_HASH_BYTES / 2**30:.0f} GiB); sha256 and sum are not reported", neuro.location)
        return
    h = hashlib.sha256()
    total = 0.0
    chunks = []
    try:
        for block in neuro.read_raw_blocks():
            h.update(np.ascontiguousarray(block).tobytes())
            chunks.append(block)
            if sum(c.nbytes for c in chunks) > (64 << 20):
                total += sum(float(np.asarray(c, dtype=np.float64).sum()) for c in chunks)
                chunks = []
        if chunks:
            arr = np.concatenate([np.asarray(c, dtype=np.float64).reshape(-1) for c in chunks])
            total += float(arr.sum())
    except (OSError, ValueError, TypeError) as exc:
        ctx.doc.error("neuro.unreadable", f"{ctx.name}: the neural array cannot be read whole: {exc}", neuro.location)
        return
    n = ctx.doc.summary["neuro"]
    n["sha256"] = h.hexdigest()
    from inspector.formats.vneurotk.values import json_float

    n["sum"] = json_float(total)


def _read_neuro_info(ctx: _Ctx, shape: tuple[int, ...]) -> dict[str, Any]:
    f = ctx.f
    info: dict[str, Any] = {}
    neuro = ctx.doc.arrays["neuro"]
    ctx.doc.summary["neuro"] = {"storage": neuro.storage, "shape": list(shape), "dtype": np.dtype(neuro.dtype).name}
    if "neuro_info" in f:
        g = f["neuro_info"]
        for k in g.attrs:
            info[k] = g.attrs[k]
    raw_shape = info.get("shape")
    if raw_shape is not None:
        try:
            declared = tuple(int(x) for x in np.asarray(raw_shape).reshape(-1))
        except (TypeError, ValueError):
            raise RuleError("neuro-info.shape", f"neuro_info shape {raw_shape!r} is not an integer shape (VneuroTK on-disk notes §2)", "/neuro_info@shape") from None
        if declared != tuple(shape):
            where = "/neuro" if ctx.doc.arrays["neuro"].storage == "dense" else "/@neuro_shape"
            raise RuleError("neuro-info.shape-mismatch",
                            f"neuro_info/shape {list(declared)} contradicts the neural array shape {list(shape)} of {where} (VneuroTK on-disk notes §2)",
                            "/neuro_info@shape")
    out = {k: plain(v) for k, v in info.items()}
    out["shape"] = list(shape)
    ref = ctx.doc.arrays["neuro"]
    sfreq = out.get("sfreq")
    ref.attrs["sfreq"] = sfreq if isinstance(sfreq, (int, float)) and not isinstance(sfreq, bool) else None
    ch = out.get("ch_names")
    ref.attrs["ch_names"] = [str(c) for c in ch] if isinstance(ch, list) else None
    if isinstance(ch, list):
        bad = [i for i, c in enumerate(ch) if not isinstance(c, str)]
        if bad:
            ctx.warn(RuleError("neuro-info.ch-names-type",
                               f"neuro_info ch_names holds {len(bad)} non-string entr{'y' if len(bad) == 1 else 'ies'} "
                               f"(first at index {bad[0]}: {ch[bad[0]]!r}); channel names should be strings, one per "
                               "channel (VneuroTK on-disk notes §2, neuro_info)", "/neuro_info@ch_names"))
    # The unit of the samples, when neuro_info names one (free attributes: "units", "unit", "unit_type").
    unit = next((out[k] for k in ("units", "unit", "unit_type") if isinstance(out.get(k), str) and out[k]), None)
    if unit is not None:
        ref.attrs["unit"] = unit
    return out


def _read_attr_group(f: h5py.File, name: str) -> dict[str, Any] | None:
    if name not in f:
        return None
    g = f[name]
    return {k: g.attrs[k] for k in g.attrs}


def _read_vision_info(ctx: _Ctx) -> dict[str, Any]:
    f = ctx.f
    if "vision_info" not in f:
        return {}
    g = f["vision_info"]
    info: dict[str, Any] = {k: plain(g.attrs[k]) for k in g.attrs}
    if "stim_ids" in g:
        obj = g["stim_ids"]
        if isinstance(obj, h5py.Group):
            info["stim_ids"] = read_sequence(obj, "/vision_info/stim_ids")
        else:
            raw = np.asarray(obj[()])
            info["stim_ids"] = raw.tolist()
    return info


def _vision_info_facts(info: dict[str, Any]) -> dict[str, Any]:
    out = dict(info)
    if "stim_ids" in out:
        out["stim_ids"] = [typed(v) for v in out["stim_ids"]]
    return out


# -- trial stimulus IDs -------------------------------------------------------------
def _trial_stim_ids(labels: Labels, scan, positions: list[int], vision_info: dict | None) -> list[Any]:
    values = [scan.at.get(int(p)) for p in positions]
    if labels.dtype != "object" and vision_info is not None:
        # The reference maps each numeric label to the first vision_info ID equal
        # to it (so 10.0 reads as the int ID 10); a dict keeps Python equality.
        first: dict[Any, Any] = {}
        for k in vision_info.get("stim_ids", []) or []:
            try:
                first.setdefault(k, k)
            except TypeError:
                continue
        out = []
        for v in values:
            try:
                out.append(first.get(v, v))
            except TypeError:
                out.append(v)
        values = out
    return values


def _pattern_stim_ids(trial_meta: pd.DataFrame | None, shape: tuple[int, ...]) -> list[Any] | None:
    if trial_meta is None or "stim_index" not in trial_meta.columns:
        return None
    col = trial_meta["stim_index"]
    if isinstance(col, pd.DataFrame) or len(col) != shape[0]:
        return None
    arr = np.asarray(col)
    return [v.item() if isinstance(v, np.generic) else v for v in arr.tolist()]


# -- vision -----------------------------------------------------------------
def _vision_facts(ctx: _Ctx, records, trial_ids) -> list[dict[str, Any]]:
    out = []
    for r in records:
        name = f"vision_store/{r.key}"
        ref = H5DatasetRef(ctx.src, r.array, name, location=f"{r.location}/array", storage="dense", sample_axis=0)
        ref.attrs.update({"model": r.model, "module_name": r.module_name, "module_type": r.module_type,
                          "stim_ids": r.stim_ids})
        ctx.doc.arrays[name] = ref
        arr = {"shape": list(ref.shape), "dtype": ref.dtype.name}
        if ctx.hash_arrays:
            try:
                h = hashlib.sha256()
                for block in ref.read_raw_blocks():
                    h.update(block.tobytes())
                arr["sha256"] = h.hexdigest()
            except OSError as exc:
                ctx.doc.error("vision.unreadable", f"{ctx.name}: {r.location}/array cannot be read: {exc}", f"{r.location}/array")
        aligned = None
        if trial_ids is not None:
            have = set()
            for s in r.stim_ids:
                try:
                    have.add(s)
                except TypeError:
                    pass
            missing = []
            for s in trial_ids:
                try:
                    if s not in have:
                        missing.append(s)
                except TypeError:
                    missing.append(s)
            if missing:
                uniq = list(dict.fromkeys(repr(m) for m in missing))
                ctx.fail(RuleError("vision.ids-not-covered",
                                   f"{r.location}/stim_ids do not cover the trial stimulus IDs: missing {len(uniq)} ID(s) "
                                   f"{', '.join(uniq[:5])} (records must align to every trial/row, VneuroTK on-disk notes §5)",
                                   f"{r.location}/stim_ids"))
            else:
                aligned = [len(trial_ids)] + list(ref.shape[1:])
        out.append({
            "model": r.model, "module_name": r.module_name, "module_type": r.module_type,
            "provenance": r.provenance, "provenance_as_read": r.provenance_as_read,
            "stim_ids": [typed(v) for v in r.stim_ids], "array": arr, "aligned_shape": aligned,
        })
    return out


def _read_stimuli(ctx: _Ctx) -> None:
    got = _guard(ctx, lambda: read_stimuli_index(ctx.f))
    if got is None:
        return
    entries, problems = got
    for p in problems:
        ctx.fail(p)
    folder = ctx.doc.path.parent
    images = []
    for e in entries:
        ctx.doc.stimuli.append(Stimulus(e.stim_id, e.kind, e.location,
                                        (lambda e=e: decode_image(ctx.src, e, folder))))
        fact: dict[str, Any] = {"id": typed(e.stim_id), "kind": e.kind}
        if e.kind not in ("array", "image_bytes", "path"):
            ctx.warn(RuleError("stimuli.unknown-kind", f"{e.location}@kind {e.kind!r} is not array, image_bytes or path; shown as stored pixels (VneuroTK on-disk notes §5)", f"{e.location}@kind"))
        if e.kind == "path":
            try:
                target = resolve_path(e, folder)
            except (OSError, ValueError) as exc:
                ctx.fail(RuleError("stimuli.path-unreadable", f"{e.location}: path cannot be read: {exc}", e.location))
                target = None
            if target is not None and not target.is_file():
                ctx.fail(RuleError("stimuli.path-missing",
                                   f"{e.location}: legacy image path {target} does not exist (relative paths resolve "
                                   "from the recording's folder; VneuroTK format, 'Compatibility policy')", e.location))
        if ctx.hash_arrays:
            try:
                img = decode_image(ctx.src, e, folder)
                fact.update({"shape": list(img.shape), "dtype": img.dtype.name,
                             "sha256": hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()})
            except (OSError, ValueError) as exc:
                ctx.fail(RuleError("stimuli.undecodable", f"stimulus image cannot be decoded: {exc}", e.location))
        elif e.kind == "array" and e.dataset.shape is not None:
            fact.update({"shape": list(e.dataset.shape), "dtype": np.dtype(e.dataset.dtype).name})
        images.append(fact)
    ctx.doc.summary["stimuli"] = {"count": len(entries), "ids": [typed(e.stim_id) for e in entries], "images": images}
    if not ctx.hash_arrays and any(e.kind == "image_bytes" for e in entries):
        ctx.steps.append(image_step(ctx.src, entries, folder))


def _int64_markers(a: np.ndarray | None) -> np.ndarray | None:
    """A marker array as int64 ``(trials,)``, or None when it is not a 1-D
    non-boolean integer array (the trial-structure rules report why)."""
    if a is None or a.ndim != 1 or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        return None
    return a.astype(np.int64)


def _trial_structure(mode: str, trials: TrialArrays | None, trial_ids: list[Any] | None,
                     labels: Labels | None, neuro_info: dict[str, Any] | None,
                     neuro: Any) -> TrialStructure:
    """The :class:`TrialStructure` capability of an opened recording."""
    sfreq = neuro.attrs.get("sfreq")
    unit = (neuro_info or {}).get("time_unit")
    return TrialStructure(
        data_mode=mode,
        trial_starts=_int64_markers(trials.starts) if trials is not None else None,
        trial_ends=_int64_markers(trials.ends) if trials is not None else None,
        vision_onsets=_int64_markers(trials.onsets) if trials is not None else None,
        trial_stim_ids=tuple(trial_ids) if trial_ids is not None else None,
        stim_labels=labels,
        sampling_rate_hz=float(sfreq) if sfreq is not None else None,
        time_unit=unit if isinstance(unit, str) else "",
        trial=trials.trial if trials is not None else None,
    )
