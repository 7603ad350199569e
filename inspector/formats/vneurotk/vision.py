"""Visual representations (``/vision_store``) and stimulus images (``/stimuli_db``).

Spec section 5 and seed "Schema 1 layout" / "Provenance boundary":

* ``vision_store/<i>`` (numeric order): attributes ``model``,
  ``module_name``, ``module_type``, schema-1 ``extraction_provenance`` JSON;
  ``stim_ids`` (typed sequence, or a plain dataset in schema 0); dataset
  ``array`` with one row per stimulus ID.  Records lacking provenance read
  with every field ``"unknown"`` but keep the model.
* ``stimuli_db`` ``ordered_entries_v1``: entries ``<position>`` each with a
  one-value typed ``id`` and a dataset ``image`` whose ``kind`` attribute is
  ``array``, ``image_bytes`` or ``path``; IDs must be unique.  Legacy layout:
  one dataset per stimulus named after its ID with ``key_type``.

Images decode only on demand (:class:`~inspector.formats.document.Stimulus`).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from inspector.formats.findings import cause
from inspector.formats.hdf5 import external_guard
from inspector.formats.hdf5.heap import check_dataset, read_attribute
from inspector.formats.hdf5.source import (
    H5Source,
    RuleError,
    element_count,
    read_whole,
)
from inspector.formats.hdf5.values import as_text
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.scalars import is_scalar_sequence, read_sequence

PROVENANCE_FIELDS = (
    "serialization_version", "backend", "model_id", "model_revision", "pretrained",
    "preprocessing", "selector", "dependency_versions", "dtype", "device",
    "writer_version", "stimulus_content_hash",
)
UNKNOWN = "unknown"
#: Most bytes of one stimulus image read to decode it.
MAX_IMAGE_BYTES = 1 << 28


def _unknown_provenance(model: str) -> dict[str, Any]:
    """A schema-0 record's provenance: every field ``"unknown"``, the model kept."""
    return {
        "serialization_version": 1, "backend": UNKNOWN, "model_id": model,
        "model_revision": UNKNOWN, "pretrained": UNKNOWN, "preprocessing": UNKNOWN,
        "selector": UNKNOWN, "dependency_versions": {"vneurotk": UNKNOWN}, "dtype": UNKNOWN,
        "device": UNKNOWN, "writer_version": UNKNOWN, "stimulus_content_hash": None,
    }


def _check_provenance_types(raw: dict[str, Any]) -> None:
    version = raw.get("serialization_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version != 1:
        raise RuleError(R.VISION_PROVENANCE_VERSION,
                        f"unsupported extraction provenance serialization version {version!r}")
    if not isinstance(raw.get("dependency_versions", {}), dict):
        raise RuleError(R.VISION_PROVENANCE_FIELD,
                        "extraction provenance dependency_versions must be an object")
    if not isinstance(raw.get("pretrained", UNKNOWN), (bool, str)):
        raise RuleError(R.VISION_PROVENANCE_FIELD,
                        "extraction provenance pretrained must be a bool or 'unknown'")


def provenance_as_read(raw: dict[str, Any] | None, model: str) -> dict[str, Any]:
    """Provenance the way the reference reports it (absent fields are ``"unknown"``).

    ``raw`` None (schema-0 record): every field ``"unknown"``, the model kept,
    ``dependency_versions = {"vneurotk": "unknown"}`` (seed, "Provenance boundary").

    Raises:
        RuleError: unsupported serialization version or wrongly typed fields.
    """
    if raw is None:
        return _unknown_provenance(model)
    _check_provenance_types(raw)
    deps = raw.get("dependency_versions", {})
    h = raw.get("stimulus_content_hash")
    out: dict[str, Any] = {"serialization_version": 1}
    for name in ("backend", "model_id", "model_revision"):
        out[name] = str(raw.get(name, UNKNOWN))
    out["pretrained"] = raw.get("pretrained", UNKNOWN)
    for name in ("preprocessing", "selector"):
        out[name] = str(raw.get(name, UNKNOWN))
    out["dependency_versions"] = {str(k): (str(v) if v is not None else UNKNOWN)
                                  for k, v in sorted(deps.items())}
    for name in ("dtype", "device", "writer_version"):
        out[name] = str(raw.get(name, UNKNOWN))
    out["stimulus_content_hash"] = None if h is None else str(h)
    return out


@dataclass
class VisionRecord:
    """One ``vision_store/<key>`` record (array not read).

    Attributes:
        problems: the rules it breaks; a record with an error problem is
            rejected (not offered as an array) but its provenance is still shown.
        provenance_text: the stored ``extraction_provenance`` text when it
            could not be read as provenance, else None.
    """

    key: str
    location: str
    model: str = UNKNOWN
    module_name: str = UNKNOWN
    module_type: str = UNKNOWN
    provenance: dict[str, Any] | None = None
    provenance_as_read: dict[str, Any] = field(default_factory=dict)
    stim_ids: list[Any] = field(default_factory=list)
    array: h5py.Dataset | None = None
    problems: list[RuleError] = field(default_factory=list)
    provenance_text: str | None = None

    @property
    def rejected(self) -> bool:
        """True when the record breaks a rule of severity error."""
        return any(p.rule.severity == R.ERROR for p in self.problems)


@dataclass
class VisionStore:
    """What ``/vision_store`` holds.

    Attributes:
        records: the accepted records, in numeric key order.
        rejected: records breaking a rule (shown with their provenance only).
        problems: every broken rule, errors and warnings, in discovery order.
    """

    records: list[VisionRecord] = field(default_factory=list)
    rejected: list[VisionRecord] = field(default_factory=list)
    problems: list[RuleError] = field(default_factory=list)


def _text(group: h5py.Group, name: str, loc: str) -> str:
    if name not in group.attrs:
        raise RuleError(R.VISION_MISSING_ATTR, f"{loc} lacks attribute '{name}'", f"{loc}@{name}")
    value = read_attribute(group, name)
    t = as_text(value)
    return t.value if t is not None else str(value)


def plain_ids(obj: h5py.Dataset, location: str) -> list[Any]:
    """Schema-0 ID dataset: text decoded to str, numbers to Python scalars.

    Raises:
        RuleError: ``vision.ids-length`` for a null dataspace; ``vision.too-large``
            when it declares more IDs than are read at open.
    """
    raw = read_whole(obj, R.VISION_TOO_LARGE, location=location)
    if isinstance(raw, h5py.Empty):
        raise RuleError(R.VISION_IDS_LENGTH,
                        f"{location} has a null dataspace: it holds no stimulus IDs", location)
    flat = np.asarray(raw).reshape(-1)
    if flat.dtype.kind in ("S", "O", "U"):
        out = []
        for v in flat:
            t = as_text(v)
            out.append(t.value if t is not None else str(v))
        return out
    return list(flat.tolist())


def read_ids(obj: Any, location: str) -> list[Any]:
    """Stimulus IDs stored as a typed sequence (schema 1) or a plain dataset (schema 0).

    Raises:
        RuleError: see :func:`plain_ids` and :func:`~.scalars.read_sequence`.
    """
    if isinstance(obj, h5py.Group):
        return read_sequence(obj, location)
    if not isinstance(obj, h5py.Dataset):
        raise RuleError(R.VISION_IDS_LENGTH, f"{location} is neither a group nor a dataset",
                        location)
    return plain_ids(obj, location)


def _nonstandard_constant(name: str, loc: str, warnings: list[RuleError]) -> str:
    """``parse_constant`` hook: keep ``NaN``/``Infinity``/``-Infinity`` as the
    string of the same name (the corpus ``expected.json`` convention for
    non-finite floats) so summaries stay valid JSON, and record a warning
    (RFC 8259 JSON has no such constants)."""
    where = f"{loc}@extraction_provenance"
    warnings.append(RuleError(R.VISION_PROVENANCE_NONSTANDARD,
                              f"non-standard JSON constant {name} in extraction_provenance; "
                              f"kept as the string {name!r}", where))
    return name


def numeric_keys(group: h5py.Group, loc: str) -> list[str]:
    """Child names in numeric order; a non-numeric name breaks the rule."""
    keys = list(group.keys())
    bad = [k for k in keys if not k.lstrip("-").isdigit()]
    if bad:
        raise RuleError(R.VISION_NON_NUMERIC_KEY,
                        f"{loc}/{bad[0]}: entries must be named by integers in numeric order",
                        f"{loc}/{bad[0]}")
    return sorted(keys, key=int)


def _record_attrs(grp: h5py.Group, rec: VisionRecord) -> None:
    """model, module_name, module_type (missing ones stay ``"unknown"``)."""
    for name in ("model", "module_name", "module_type"):
        try:
            setattr(rec, name, _text(grp, name, rec.location))
        except RuleError as exc:
            rec.problems.append(exc)


def _parse_provenance(grp: h5py.Group, rec: VisionRecord) -> dict[str, Any] | None:
    """The ``extraction_provenance`` JSON object, or None when absent."""
    if "extraction_provenance" not in grp.attrs:
        return None
    where = f"{rec.location}@extraction_provenance"
    value = read_attribute(grp, "extraction_provenance")
    t = as_text(value)
    rec.provenance_text = t.value if t is not None else repr(value)
    try:
        raw = json.loads(t.value if t is not None else "", parse_constant=lambda c: (
            _nonstandard_constant(c, rec.location, rec.problems)))
    except json.JSONDecodeError as exc:
        raise RuleError(R.VISION_PROVENANCE_JSON,
                        f"{where} is not valid JSON: {exc}", where) from exc
    if not isinstance(raw, dict):
        raise RuleError(R.VISION_PROVENANCE_JSON, f"{where} must hold a JSON object", where)
    return raw


def _record_provenance(grp: h5py.Group, rec: VisionRecord) -> None:
    """Parse and check the provenance; on a broken rule keep the stored text."""
    where = f"{rec.location}@extraction_provenance"
    try:
        raw = _parse_provenance(grp, rec)
        try:
            as_read = provenance_as_read(raw, rec.model)
        except RuleError as exc:
            raise RuleError(exc.rule, f"{rec.location}: {exc.message}", where) from exc
        if as_read["model_id"] not in (rec.model, UNKNOWN):
            raise RuleError(R.VISION_PROVENANCE_MODEL,
                            f"{rec.location}: provenance model_id {as_read['model_id']!r} does "
                            f"not match the record model {rec.model!r}", where)
    except RuleError as exc:
        rec.problems.append(exc)
        return
    rec.provenance, rec.provenance_as_read, rec.provenance_text = raw, as_read, None


def _record_data(grp: h5py.Group, rec: VisionRecord) -> None:
    """The stimulus IDs and the array, checked against each other (notes §5)."""
    loc = rec.location
    missing = [n for n in ("stim_ids", "array") if n not in grp]
    if missing:
        raise RuleError(R.VISION_MISSING, f"{loc} lacks {', '.join(missing)}", loc)
    ids = read_ids(grp["stim_ids"], f"{loc}/stim_ids")
    arr = grp["array"]
    if not isinstance(arr, h5py.Dataset) or arr.shape is None or len(arr.shape) == 0:
        raise RuleError(R.VISION_ARRAY_SHAPE,
                        f"{loc}/array must be a dataset with at least one dimension",
                        f"{loc}/array")
    if len(ids) != arr.shape[0]:
        raise RuleError(R.VISION_IDS_LENGTH,
                        f"{loc}: {len(ids)} stim_ids but the array has {arr.shape[0]} rows "
                        "(one row per stimulus)", f"{loc}/stim_ids")
    if len({_hashable(i) for i in ids}) != len(ids):
        raise RuleError(R.VISION_DUPLICATE_IDS,
                        f"{loc}/stim_ids holds repeated stimulus IDs; records store unique "
                        "stimuli", f"{loc}/stim_ids")
    rec.stim_ids, rec.array = ids, arr


def read_record(grp: Any, key: str) -> VisionRecord:
    """One ``vision_store/<key>`` record with every rule it breaks in ``problems``."""
    loc = f"/vision_store/{key}"
    rec = VisionRecord(key, loc)
    if not isinstance(grp, h5py.Group):
        rec.problems.append(RuleError(R.VISION_NOT_GROUP, f"{loc} must be a group", loc))
        return rec
    _record_attrs(grp, rec)
    _record_provenance(grp, rec)
    try:
        _record_data(grp, rec)
    except RuleError as exc:
        rec.problems.append(exc)
    return rec


def _shared_ids(store: VisionStore) -> None:
    """Every accepted record must share the first one's stimulus IDs (notes §5)."""
    if not store.records:
        return
    first = store.records[0]
    keep = [first]
    for r in store.records[1:]:
        if tuple(r.stim_ids) == tuple(first.stim_ids):
            keep.append(r)
            continue
        exc = RuleError(R.VISION_IDS_DIFFER,
                        f"{r.location}/stim_ids differ from {first.location}/stim_ids; all "
                        "records must share the same stimulus IDs", f"{r.location}/stim_ids")
        r.problems.append(exc)
        store.problems.append(exc)
        store.rejected.append(r)
    store.records = keep


def read_records(f: h5py.File) -> VisionStore:
    """Read every record of ``/vision_store`` (metadata only).

    Duplicate model/module records (the reference silently keeps the first)
    are warnings and left out; records breaking a rule are rejected but kept
    with their provenance for display.

    Raises:
        RuleError: ``/vision_store`` is not a group or has a non-numeric key.
    """
    vs = f["vision_store"]
    if not isinstance(vs, h5py.Group):
        raise RuleError(R.VISION_NOT_GROUP, "/vision_store must be a group", "/vision_store")
    store = VisionStore()
    seen: set[tuple[str, str]] = set()
    for key in numeric_keys(vs, "/vision_store"):
        rec = read_record(vs[key], key)
        store.problems.extend(rec.problems)
        if rec.rejected:
            store.rejected.append(rec)
            continue
        if (rec.model, rec.module_name) in seen:
            store.problems.append(RuleError(
                R.VISION_DUPLICATE_RECORD,
                f"{rec.location} repeats model {rec.model!r} module {rec.module_name!r}; the "
                "reference keeps only the first such record", rec.location))
            continue
        seen.add((rec.model, rec.module_name))
        store.records.append(rec)
    _shared_ids(store)
    return store


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


@dataclass
class StimulusEntry:
    """One stimulus image entry (not decoded)."""

    stim_id: Any
    kind: str
    location: str
    dataset: h5py.Dataset


def _ordered_entry(db: h5py.Group, key: str, seen: dict[Any, str],
                   problems: list[RuleError]) -> StimulusEntry | None:
    """One ``ordered_entries_v1`` entry; None for a duplicate ID (reported)."""
    loc = f"/stimuli_db/{key}"
    entry = db[key]
    if not isinstance(entry, h5py.Group) or not is_scalar_sequence(entry.get("id")):
        raise RuleError(R.STIMULI_BAD_ENTRY,
                        f"{loc} must be a group with a typed 'id' sequence", loc)
    ids = read_sequence(entry["id"], f"{loc}/id")
    if len(ids) != 1:
        raise RuleError(R.STIMULI_BAD_ID,
                        f"{loc}/id must hold exactly one value, got {len(ids)}", f"{loc}/id")
    sid = ids[0]
    k = (type(sid).__name__ if isinstance(sid, str) else "num", _hashable(sid))
    if k in seen:
        problems.append(RuleError(
            R.STIMULI_DUPLICATE_ID,
            f"{loc}/id repeats stimulus ID {sid!r} of {seen[k]}; stimulus IDs must be unique",
            f"{loc}/id"))
        return None
    seen[k] = loc
    img = entry.get("image")
    if not isinstance(img, h5py.Dataset):
        raise RuleError(R.STIMULI_MISSING_IMAGE, f"{loc} lacks the 'image' dataset",
                        f"{loc}/image")
    return StimulusEntry(sid, _kind(img), f"{loc}/image", img)


def _legacy_id(name: str, key_type: str) -> Any:
    """A legacy entry's ID from its name and ``key_type`` (``str``/``int``/``float``)."""
    convert = {"int": int, "float": float}.get(key_type)
    if convert is None:
        return name
    try:
        return convert(name)
    except ValueError:
        return name


def _legacy_entries(db: h5py.Group) -> list[StimulusEntry]:
    entries = []
    for name in db:
        obj = db[name]
        ds = obj.get("image") if isinstance(obj, h5py.Group) else obj
        if not isinstance(ds, h5py.Dataset):
            raise RuleError(R.STIMULI_BAD_ENTRY,
                            f"/stimuli_db/{name} is neither an image dataset nor a group "
                            "holding one", f"/stimuli_db/{name}")
        kt = as_text(read_attribute(obj, "key_type", "str"))
        sid = _legacy_id(name, kt.value if kt is not None else "str")
        entries.append(StimulusEntry(sid, _kind(ds), ds.name, ds))
    return entries


def read_stimuli_index(f: h5py.File) -> tuple[list[StimulusEntry], list[RuleError]]:
    """Index ``/stimuli_db`` (IDs, kinds) without reading image data.

    Returns the entries in the reference's index order and the problems
    found (duplicate IDs are errors: seed, 'Safe scalar identifiers').

    Raises:
        RuleError: the layout is broken (non-numeric entry names, missing id).
    """
    db = f["stimuli_db"]
    if not isinstance(db, h5py.Group):
        raise RuleError(R.STIMULI_NOT_GROUP, "/stimuli_db must be a group", "/stimuli_db")
    enc = as_text(read_attribute(db, "encoding", "legacy"))
    if enc is None or enc.value != "ordered_entries_v1":
        return _legacy_entries(db), []
    problems: list[RuleError] = []
    seen: dict[Any, str] = {}
    entries = []
    for key in numeric_keys(db, "/stimuli_db"):
        e = _ordered_entry(db, key, seen, problems)
        if e is not None:
            entries.append(e)
    return entries, problems


def _kind(ds: h5py.Dataset) -> str:
    t = as_text(read_attribute(ds, "kind", "array"))
    return t.value if t is not None else "array"


def resolve_path(entry: StimulusEntry, folder: Path) -> Path:
    """The file a ``kind="path"`` entry points at (relative to the recording's folder).

    Raises:
        OSError: the stored path is too large to be a path or cannot be read.
    """
    if element_count(entry.dataset.shape) > 1 << 16:
        raise OSError(f"{entry.location} declares {element_count(entry.dataset.shape)} "
                      "elements: too large to be a path")
    check_dataset(entry.dataset)
    with external_guard.watched(entry.dataset):
        raw = entry.dataset[()]
    t = as_text(raw)
    text = t.value if t is not None else str(raw)
    p = Path(text)
    return p if p.is_absolute() else folder / p


def _pillow_rgb(opener: Any, what: str) -> np.ndarray:
    """Decode an image with Pillow to an RGB ``(height, width, 3)`` uint8 array.

    Every Pillow failure becomes ``OSError`` naming ``what``: unknown
    formats, corrupt data, and decompression bombs (images declaring more
    than ``PIL.Image.MAX_IMAGE_PIXELS`` pixels: ``DecompressionBombWarning``
    is raised as an error here, ``DecompressionBombError`` is caught), so a
    hostile header never allocates gigabytes or escapes as a traceback.
    """
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(opener()) as im:
                return np.asarray(im.convert("RGB"))
    except MemoryError as exc:
        raise OSError(f"{what}: image too large to decode ({exc})") from exc
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise OSError(f"{what}: refused to decode a possible decompression bomb: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on hostile input
        raise OSError(f"{what}: {cause(exc)}") from exc


def decode_image(source: H5Source, entry: StimulusEntry, folder: Path) -> np.ndarray:
    """Decode one stimulus image the way the reference does.

    ``array``: the stored pixels; ``image_bytes``: an encoded image file
    decoded with Pillow to RGB; ``path``: the file (relative paths resolved
    from ``folder``) decoded to RGB.

    Raises:
        OSError: the file changed, the path is missing, or Pillow cannot decode.
        ValueError: the stored value has the wrong shape for its kind, or an
            ``array`` stimulus holds no numbers (strings, compounds...).
    """
    source.check()
    ds = entry.dataset
    nbytes = element_count(ds.shape) * max(1, np.dtype(ds.dtype).itemsize)
    if nbytes > MAX_IMAGE_BYTES:
        raise OSError(f"stimulus {entry.stim_id!r}: {entry.location} declares {nbytes} bytes, "
                      f"more than the {MAX_IMAGE_BYTES} an image may use")
    if entry.kind == "path":
        path = resolve_path(entry, folder)
        return _pillow_rgb(lambda: path,
                           f"stimulus {entry.stim_id!r}: cannot load image file {path}")
    if entry.kind == "image_bytes":
        data = np.asarray(source.read(entry.dataset, ()))
        return _pillow_rgb(lambda: io.BytesIO(data.tobytes()),
                           f"stimulus {entry.stim_id!r}: image_bytes at {entry.location}")
    if np.dtype(ds.dtype).kind not in "biuf":
        raise ValueError(f"stimulus {entry.stim_id!r}: {entry.location} holds "
                         f"{np.dtype(ds.dtype)} values, not pixel numbers")
    whole = () if ds.shape == () else slice(None)
    return np.asarray(source.read(ds, whole))
