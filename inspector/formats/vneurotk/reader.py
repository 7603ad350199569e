"""Open a VneuroTK HDF5 recording as a :class:`~inspector.formats.document.Document`.

Order of the checks follows the reference reader (corpus README, "How the
verdict was obtained"): header and data mode, neural array, metadata
(``neuro_info``, labels, ``vision_info``, trial arrays, ``trial_info``,
``trial_meta``), the schema-1 trial-structure contract (recording notes §3),
visual representations and their alignment, then the stimulus index.  Each
broken rule is a finding of a rule declared in
:mod:`inspector.formats.vneurotk.rules`, at its HDF5 location; the reader
never raises for bad input (HDF5's own errors on a damaged file are caught
where each part is read).

Opening reads attributes and small metadata only (each read sized by the
file is capped).  The neural array, the per-sample ``trial`` and
``stim_labels`` arrays, visual-representation arrays and images stay lazy.
Work that reads whole arrays is deferred: the label scan, with the trial
stimulus IDs and the vision alignment that depend on it
(:mod:`.label_check`), the COO bounds and image checks (:mod:`.checks`).
``hash_arrays=True`` adds the facts that need every byte
(``neuro.sha256``/``neuro.sum``, vision array hashes, decoded image facts)
and runs the label scan while opening.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import h5py
import numpy as np

from inspector.formats.capabilities import FormatMismatch, StimulusFeatures, TrialStructure
from inspector.formats.document import FORMAT_RECORDING, Document, Stimulus
from inspector.formats.findings import Finding, Rule
from inspector.formats.hdf5.arrays import H5DatasetRef
from inspector.formats.hdf5.attributes import attribute_values
from inspector.formats.hdf5.data import object_data
from inspector.formats.hdf5.heap import corrupt_groups
from inspector.formats.hdf5.reader import KIND_UNOPENED, KIND_UNREADABLE
from inspector.formats.hdf5.source import (
    STEP_ERRORS,
    H5Source,
    OpenError,
    RuleError,
    read_whole,
    step_finding,
)
from inspector.formats.hdf5.tree import build_path_tree, build_tree
from inspector.formats.hdf5.values import plain, typed
from inspector.formats.remote.path import as_source
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.checks import RecordingCheck, Step, coo_bounds_step, image_step
from inspector.formats.vneurotk.coo import CooNeuroRef
from inspector.formats.vneurotk.header import (
    MAGIC,
    MAGIC_ATTR,
    Header,
    read_data_mode,
    read_header,
)
from inspector.formats.vneurotk.identify import HEADER_ATTRS, NOT_A_RECORDING, recording_mark
from inspector.formats.vneurotk.label_check import (
    Alignment,
    LabelCheck,
    RecordIds,
    aligned_shape,
    unaligned,
)
from inspector.formats.vneurotk.labels import Labels
from inspector.formats.vneurotk.neuro import hash_neuro, read_neuro, read_neuro_info
from inspector.formats.vneurotk.scalars import read_sequence
from inspector.formats.vneurotk.summary import (
    HeaderParts,
    build_header_tree,
    build_provenance_tree,
    plain_header_tree,
    trial_meta_facts,
)
from inspector.formats.vneurotk.trial_meta import read_trial_meta
from inspector.formats.vneurotk.trials import Parts, TrialArrays, validate_state
from inspector.formats.vneurotk.vision import (
    StimulusEntry,
    VisionRecord,
    VisionStore,
    decode_image,
    read_records,
    read_stimuli_index,
    resolve_path,
)

if TYPE_CHECKING:
    from inspector.formats.table import Table

SUMMARY_KEYS = (
    "schema_version", "writer_version", "data_mode", "header", "neuro", "stim_labels",
    "trial_stim_ids", "trial_meta", "neuro_info", "vision_info", "trial_info",
    "vision_records", "stimuli",
)
#: ``Document.kind_label`` of a recording, and of an HDF5 file that is not one.
KIND_RECORDING = "VneuroTK recording"
KIND_PLAIN_HDF5 = "HDF5 file (not a VneuroTK recording)"

T = TypeVar("T")


@dataclass
class _Ctx:
    """State shared by the steps of one open (owned by the opening thread)."""

    doc: Document
    src: H5Source
    hash_arrays: bool
    steps: list[Step] = field(default_factory=list)
    labels: LabelCheck | None = None

    @property
    def f(self) -> h5py.File:
        """The open HDF5 file."""
        return self.src.file

    def add(self, exc: RuleError) -> None:
        """Record a broken rule that stopped a step."""
        self.doc.findings.add(exc.finding())

    def report(self, rule: Rule, message: str, location: str = "") -> Finding:
        """Record a finding of ``rule`` at ``location``."""
        return self.doc.report(rule, message, location)


@dataclass
class _Read:
    """The parts of the recording read at open (None where absent or rejected)."""

    schema: int
    mode: str | None
    neuro: H5DatasetRef | CooNeuroRef | None = None
    neuro_info: dict[str, Any] | None = None
    labels: Labels | None = None
    vision_info: dict[str, Any] | None = None
    trials: TrialArrays | None = None
    trial_info: dict[str, Any] | None = None
    trial_meta: Table | None = None
    valid_trials: bool = False
    trial_ids: list[Any] | None = None
    label_positions: list[int] | None = None
    """The onset positions whose labels are the trial IDs, when the label check reads them."""
    alignment: Alignment | None = None
    """The vision records the label check aligns to those IDs."""
    store: VisionStore = field(default_factory=VisionStore)


def open_recording(path: Path, *, hash_arrays: bool = False,
                   only: str | None = None) -> Document:
    """Open ``path`` read-only as a VneuroTK recording (schema 0 or 1).

    Args:
        path: the ``.h5`` file.
        hash_arrays: also compute the facts that read whole arrays: the
            SHA-256 of the neural array's C-order bytes and its float64 sum,
            visual-representation array hashes, decoded image shape/dtype/hash.
        only: open for the values of this one object (``"/a/b"``, ``"/a@attr"``:
            ``inspector dump``): the tree holds the objects on its way alone
            (:func:`~.tree.build_path_tree`), and nothing else is read or checked.

    Returns:
        A Document of format ``"vneurotk-recording"`` whose ``summary`` has
        the keys of the corpus ``expected.json`` (see :data:`SUMMARY_KEYS`),
        ``arrays["neuro"]`` and ``arrays["vision_store/<i>"]`` lazy array
        references, ``tables["trial_meta"]``, ``stimuli``, ``header``,
        ``tree`` and ``provenance`` trees, ``trials`` (a
        :class:`~inspector.formats.capabilities.TrialStructure` once the
        neural array and data mode are known) and ``checks`` (the deferred
        label scan, COO coordinate and image checks).

    Never raises for bad input: every problem is a finding.
    """
    path = as_source(path)
    doc = Document(path, format=FORMAT_RECORDING, kind_label=KIND_RECORDING,
                   tree_title="HDF5 objects")
    doc.summary = {k: None for k in SUMMARY_KEYS}
    try:
        src = H5Source(path)
    except OpenError as exc:
        doc.report(exc.rule, exc.message)
        doc.kind_label = KIND_UNOPENED.get(exc.rule.code, KIND_UNREADABLE)  # (nothing read)
        doc.header.add("format", doc.kind_label)
        return doc
    doc.header.add("format", "VneuroTK recording (HDF5)")
    doc.on_close(src.close)
    doc.snapshot_check = src.check
    doc.object_data = object_data(src)
    if src.lock_warning:
        doc.report(R.FILE_LOCK_BYPASSED, src.lock_warning)
    if only is not None:
        doc.tree = _guard(_Ctx(doc, src, False),
                          lambda: build_path_tree(src.file, doc.path, doc.report, only))
        return doc
    ctx = _Ctx(doc, src, hash_arrays)
    _read(ctx)
    _add_checks(ctx)
    reason = _not_a_recording(ctx.f) or _other_format(doc)
    if reason is not None:
        _as_plain_hdf5(doc, reason)
    return doc


def _add_checks(ctx: _Ctx) -> None:
    """Offer the deferred checks; with ``hash_arrays`` the label scan runs here."""
    doc = ctx.doc
    if ctx.labels is not None and ctx.hash_arrays:
        doc.apply(ctx.labels, ctx.labels.run())
    elif ctx.labels is not None:
        doc.checks.append(ctx.labels)
    if ctx.steps:
        doc.checks.append(RecordingCheck(steps=ctx.steps))


def _not_a_recording(f: h5py.File) -> str | None:
    """Why an HDF5 file is not a recording at all, or None when it may be one.

    The rules of :mod:`.identify` (the reader's sniff): a file the registry would
    open as a plain HDF5 file, opened here directly, is presented as one.  Where
    HDF5 cannot tell (a damaged file), it may be one.
    """
    try:
        if recording_mark(f) is not None:
            return None
    except (OSError, RuntimeError, KeyError, ValueError, TypeError):
        return None
    return NOT_A_RECORDING.removeprefix("not a VneuroTK recording: ")


def _other_format(doc: Document) -> str | None:
    """Why an HDF5 file whose ``vneurotk_format`` names another format is no recording
    (``header.wrong-magic``: the file says it is something else), or None."""
    if not any(f.code == R.HEADER_WRONG_MAGIC.code for f in doc.findings):
        return None
    raw = (doc.summary.get("header") or {}).get(MAGIC_ATTR) or {}
    value = raw.get("value") if isinstance(raw, dict) else None
    shown = repr(value) if isinstance(value, str) else "not text"
    return f"its root attribute '{MAGIC_ATTR}' is {shown}, not '{MAGIC}'"


def _as_plain_hdf5(doc: Document, reason: str) -> None:
    """Present ``doc`` as the plain HDF5 file it is (``Document.mismatch``).

    The recording findings stay (``verify`` still says it is no valid
    recording); the summary keeps the corpus keys.  The header and the
    provenance, which describe a recording, give way to what the file holds.
    """
    container = {r.code for r in R.HDF5_FILE_RULES}
    codes = frozenset(f.code for f in doc.findings if f.code not in container)
    doc.kind_label = KIND_PLAIN_HDF5
    doc.mismatch = FormatMismatch("HDF5 file", KIND_RECORDING, reason, codes)
    doc.header = plain_header_tree(doc.tree, KIND_PLAIN_HDF5, reason,
                                   "a recording has one of the root attributes "
                                   + ", ".join(HEADER_ATTRS) + ", or a historical recording's "
                                   "neural data")
    doc.provenance = None


def _guard(ctx: _Ctx, fn: Callable[[], T]) -> T | None:
    """Run one step; a broken rule, or HDF5 failing on a damaged part, is a finding
    (:func:`~inspector.formats.hdf5.source.step_finding`)."""
    try:
        return fn()
    except STEP_ERRORS as exc:
        finding = step_finding(exc)
        if not any(f.code == finding.code and f.location == finding.location
                   for f in ctx.doc.findings):  # a refusal the tree reported already
            ctx.doc.findings.add(finding)
    return None


def _read(ctx: _Ctx) -> None:
    doc = ctx.doc
    doc.tree = _guard(ctx, lambda: build_tree(ctx.f, doc.path, doc.report))
    hdr = _guard(ctx, lambda: read_header(ctx.f))
    if hdr is not None and corrupt_groups(ctx.f):  # a lookup in that group would not end
        doc.report(R.FILE_CORRUPT, "the recording's content is not read: a group's member "
                   "names cannot be looked up (see tree.group-unreadable)", "/")
        hdr = None
    if hdr is None:
        build_header_tree(doc, None)
        return
    doc.summary.update(header=hdr.raw, schema_version=hdr.schema_version,
                       writer_version=hdr.writer_version)
    for e in hdr.errors:
        ctx.add(e)
    if not hdr.accepted:
        build_header_tree(doc, None)
        return
    got = _read_parts(ctx, hdr)
    _guard(ctx, lambda: _trial_ids(ctx, got))
    _guard(ctx, lambda: _vision(ctx, got))
    _guard(ctx, lambda: _finish(ctx, hdr, got))
    if got.labels is not None:
        vision_ids = (got.vision_info or {}).get("stim_ids")
        ctx.labels = LabelCheck(got.labels, ctx.doc.trials, got.label_positions, vision_ids,
                                got.alignment)


def _mode(ctx: _Ctx, schema: int) -> str | None:
    got = _guard(ctx, lambda: read_data_mode(ctx.f, schema))
    if got is None:
        return None
    mode, errors = got
    for e in errors:
        ctx.add(e)
    if schema == 0:
        ctx.report(R.SCHEMA_HISTORICAL, "no format header: historical schema 0; read without "
                   "modifying it", "/")
    return mode


def _read_parts(ctx: _Ctx, hdr: Header) -> _Read:
    """Every part read at open, each guarded so that one broken part does not hide the rest."""
    f = ctx.f
    schema = int(hdr.schema_version or 0)
    got = _Read(schema, _mode(ctx, schema))
    got.neuro = _guard(ctx, lambda: read_neuro(ctx.src, f, got.mode, ctx.report))
    if got.neuro is not None:
        ctx.doc.arrays["neuro"] = got.neuro
        if isinstance(got.neuro, CooNeuroRef):
            ctx.steps.append(coo_bounds_step(ctx.src, got.neuro))
        neuro = got.neuro
        ctx.doc.summary["neuro"] = {"storage": neuro.storage, "shape": list(neuro.shape),
                                    "dtype": np.dtype(neuro.dtype).name}
        got.neuro_info = _guard(ctx, lambda: read_neuro_info(f, neuro, ctx.report))
    got.labels = _guard(ctx, lambda: Labels(ctx.src, f) if "stim_labels" in f else None)
    got.vision_info = _guard(ctx, lambda: _read_vision_info(f))
    got.trials = _guard(ctx, lambda: TrialArrays.read(ctx.src, f))
    for p in got.trials.problems if got.trials is not None else ():
        ctx.add(p)
    got.trial_info = _guard(ctx, lambda: _read_attr_group(f, "trial_info"))
    got.trial_meta = _guard(ctx, lambda: read_trial_meta(f["trial_meta"], ctx.add)
                            if "trial_meta" in f else None)
    if got.trial_meta is not None:
        ctx.doc.tables["trial_meta"] = got.trial_meta
        ctx.doc.table_locations["trial_meta"] = "/trial_meta"
    if got.neuro is not None:
        _neuro_attrs(got)
        if got.mode is not None:
            got.valid_trials = validate_state(got.schema, _contract_parts(got),
                                              ctx.doc.findings.add)
    return got


def _neuro_attrs(got: _Read) -> None:
    """Display attributes of the neural array: data mode, sampling rate (neuro_info,
    else trial_info ``sfreq``)."""
    neuro = got.neuro
    assert neuro is not None
    neuro.attrs["data_mode"] = got.mode
    if neuro.attrs.get("sfreq") is None and got.trial_info and "sfreq" in got.trial_info:
        sf = plain(got.trial_info["sfreq"])
        number = isinstance(sf, (int, float)) and not isinstance(sf, bool)
        neuro.attrs["sfreq"] = sf if number else None


def _contract_parts(got: _Read) -> Parts:
    assert got.mode is not None and got.neuro is not None
    return Parts(got.mode, tuple(got.neuro.shape), got.neuro_info, got.labels,
                 got.vision_info, got.trials, got.trial_info, got.trial_meta)


def _read_attr_group(f: h5py.File, name: str) -> dict[str, Any] | None:
    obj = f.get(name)
    if obj is None:
        return None
    return attribute_values(obj)


def _read_vision_info(f: h5py.File) -> dict[str, Any]:
    """``vision_info`` attributes and ``stim_ids`` ({} when absent; notes §5).

    ``stim_ids`` is a list when stored as a typed sequence or a 1-D dataset;
    a scalar or null-dataspace dataset is kept as its value (not a list), which
    the trial-structure contract reports.

    Raises:
        RuleError: ``vision-info.not-group``, or the IDs break a rule.
    """
    g = f.get("vision_info")
    if g is None:
        return {}
    if not isinstance(g, h5py.Group):
        raise RuleError(R.VISION_INFO_NOT_GROUP, "/vision_info must be a group, not a dataset",
                        "/vision_info")
    info: dict[str, Any] = {k: plain(v) for k, v in attribute_values(g).items()}
    obj = g.get("stim_ids")
    if isinstance(obj, h5py.Dataset):
        # Schema 0: the values as stored (byte strings stay bytes, as the reference has them).
        raw = read_whole(obj, R.VISION_TOO_LARGE, location="/vision_info/stim_ids")
        info["stim_ids"] = raw.tolist() if isinstance(raw, np.ndarray) and raw.ndim == 1 else raw
    elif obj is not None:
        info["stim_ids"] = read_sequence(obj, "/vision_info/stim_ids")
    return info


def _vision_info_facts(info: dict[str, Any]) -> dict[str, Any]:
    out = dict(info)
    if "stim_ids" in out:
        ids = out["stim_ids"]
        out["stim_ids"] = [typed(v) for v in ids] if isinstance(ids, list) else typed(ids)
    return out


# -- trial stimulus IDs -------------------------------------------------------------
def _trial_ids(ctx: _Ctx, got: _Read) -> None:
    """Each trial's stimulus ID where the labels are not needed (patterns:
    ``trial_meta``); else note the onsets whose labels the label check reads."""
    shape = tuple(got.neuro.shape) if got.neuro is not None else None
    if got.labels is not None and got.valid_trials and got.mode in ("continuous", "epochs"):
        got.label_positions = (got.trials.onset_positions(got.mode, shape)
                               if got.trials is not None else [])
    if got.valid_trials and got.mode == "patterns" and shape is not None:
        got.trial_ids = _pattern_stim_ids(got.trial_meta, shape)
    if got.trial_ids is not None:
        ctx.doc.summary["trial_stim_ids"] = {"count": len(got.trial_ids),
                                             "first": [typed(v) for v in got.trial_ids[:5]]}


def _pattern_stim_ids(trial_meta: Table | None,
                      shape: tuple[int, ...]) -> list[Any] | None:
    """The ``stim_index`` column of ``trial_meta`` as Python values, when there is
    exactly one such column, with one row per pattern."""
    if trial_meta is None:
        return None
    where = [i for i, label in enumerate(trial_meta.labels)
             if isinstance(label, str) and label == "stim_index"]
    if len(where) != 1 or len(trial_meta) != shape[0]:
        return None
    arr = (trial_meta.column(where[0]) if trial_meta.plain
           else np.asarray(trial_meta.frame().iloc[:, where[0]]))
    return [v.item() if isinstance(v, np.generic) else v for v in arr.tolist()]


# -- vision -----------------------------------------------------------------
def _vision(ctx: _Ctx, got: _Read) -> None:
    """Visual representations and stimulus images (reference stages 3 and 4).

    Records are aligned to the trial IDs here when they are known; when the
    IDs are the labels at the onsets, the label check aligns them.
    """
    f = ctx.f
    has_vs, has_db = "vision_store" in f, "stimuli_db" in f
    if not (has_vs or has_db):
        return
    where = "/vision_store" if has_vs else "/stimuli_db"
    waiting = got.label_positions is not None
    if not waiting and got.trial_ids is None and got.neuro is not None and got.mode is not None:
        ctx.doc.findings.add(unaligned(got.mode, where))
    if has_vs:
        store = _guard(ctx, lambda: read_records(f))
        if store is not None:
            got.store = store
            for p in store.problems:
                ctx.add(p)
    ids = None if waiting else got.trial_ids
    done = [_record_facts(ctx, r, ids) for r in got.store.records]
    facts = [fact for fact, _ in done]
    ctx.doc.summary["vision_records"] = facts
    if waiting and got.mode is not None:
        got.alignment = Alignment(got.mode, where, tuple(r for _, r in done), tuple(facts))
    if has_db:
        _read_stimuli(ctx)


def _array_hash(ctx: _Ctx, r: VisionRecord, ref: H5DatasetRef) -> str | None:
    try:
        h = hashlib.sha256()
        for block in ref.read_raw_blocks():
            h.update(block.tobytes())
        return h.hexdigest()
    except OSError as exc:
        ctx.report(R.VISION_UNREADABLE, f"{r.location}/array cannot be read: {exc}",
                   f"{r.location}/array")
        return None


def feature_axes(ndim: int) -> tuple[str, ...]:
    """The names of the axes of a ``vision_store`` array of ``ndim`` axes: one row per
    stimulus (its ``stim_ids``, recording notes §5), the last axis the features; the
    format names no axis between them."""
    if ndim < 2:
        return ("stimulus",)[:ndim]
    return ("stimulus", *(f"axis {i}" for i in range(1, ndim - 1)), "feature")


def _record_facts(ctx: _Ctx, r: VisionRecord,
                  trial_ids: list[Any] | None) -> tuple[dict[str, Any], RecordIds]:
    """Offer the record's array; its ``vision_records`` summary entry (aligned to
    ``trial_ids`` when given) and what aligning it later needs."""
    name = f"vision_store/{r.key}"
    assert r.array is not None
    ref = H5DatasetRef(ctx.src, r.array, name, location=f"{r.location}/array", storage="dense",
                       sample_axis=0)
    ref.attrs.update({"model": r.model, "module_name": r.module_name,
                      "module_type": r.module_type, "stim_ids": r.stim_ids})
    ctx.doc.arrays[name] = ref
    ctx.doc.features.append(StimulusFeatures(ref, tuple(r.stim_ids), feature_axes(ref.ndim),
                                             source=f"{r.model} {r.module_name}".strip()))
    arr: dict[str, Any] = {"shape": list(ref.shape), "dtype": ref.dtype.name}
    if ctx.hash_arrays:
        digest = _array_hash(ctx, r, ref)
        if digest is not None:
            arr["sha256"] = digest
    ids = RecordIds(r.location, tuple(r.stim_ids), tuple(ref.shape))
    aligned = None
    if trial_ids is not None:
        aligned, problem = aligned_shape(ids, trial_ids)
        if problem is not None:
            ctx.doc.findings.add(problem)
    return {
        "model": r.model, "module_name": r.module_name, "module_type": r.module_type,
        "provenance": r.provenance, "provenance_as_read": r.provenance_as_read,
        "stim_ids": [typed(v) for v in r.stim_ids], "array": arr, "aligned_shape": aligned,
    }, ids


def _read_stimuli(ctx: _Ctx) -> None:
    got = _guard(ctx, lambda: read_stimuli_index(ctx.f))
    if got is None:
        return
    entries, problems = got
    for p in problems:
        ctx.add(p)
    folder = ctx.doc.path.parent
    src = ctx.src
    images = []
    for e in entries:
        ctx.doc.stimuli.append(Stimulus(e.stim_id, e.kind, e.location,
                                        _image_loader(src, e, folder)))
        images.append(_stimulus_fact(ctx, e, folder))
    ctx.doc.summary["stimuli"] = {"count": len(entries),
                                  "ids": [typed(e.stim_id) for e in entries], "images": images}
    if not ctx.hash_arrays and any(e.kind == "image_bytes" for e in entries):
        ctx.steps.append(image_step(ctx.src, entries, folder))


def _image_loader(src: H5Source, e: StimulusEntry, folder: Path) -> Callable[[], np.ndarray]:
    """``Stimulus.load`` of entry ``e``: decodes on demand (see :func:`decode_image`)."""
    return lambda: decode_image(src, e, folder)


def _check_path(ctx: _Ctx, e: StimulusEntry, folder: Path) -> None:
    try:
        target = resolve_path(e, folder)
    except (OSError, ValueError) as exc:
        ctx.report(R.STIMULI_PATH_UNREADABLE, f"{e.location}: path cannot be read: {exc}",
                   e.location)
        return
    if not target.is_file():
        ctx.report(R.STIMULI_PATH_MISSING,
                   f"{e.location}: legacy image path {target} does not exist (relative paths "
                   "resolve from the recording's folder)", e.location)


def _stimulus_fact(ctx: _Ctx, e: StimulusEntry, folder: Path) -> dict[str, Any]:
    """The ``stimuli.images`` summary entry of one stimulus, checking its kind and path."""
    fact: dict[str, Any] = {"id": typed(e.stim_id), "kind": e.kind}
    if e.kind not in ("array", "image_bytes", "path"):
        ctx.report(R.STIMULI_UNKNOWN_KIND,
                   f"{e.location}@kind {e.kind!r} is not array, image_bytes or path; shown as "
                   "stored pixels", f"{e.location}@kind")
    if e.kind == "path":
        _check_path(ctx, e, folder)
    if _holds_no_pixels(ctx, e):
        fact.update({"shape": list(e.dataset.shape or ()), "dtype": np.dtype(e.dataset.dtype).name})
    elif ctx.hash_arrays:
        try:
            img = decode_image(ctx.src, e, folder)
            fact.update({"shape": list(img.shape), "dtype": img.dtype.name,
                         "sha256": hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()})
        except (OSError, ValueError) as exc:
            ctx.report(R.STIMULI_UNDECODABLE, f"stimulus image cannot be decoded: {exc}",
                       e.location)
    elif e.kind == "array" and e.dataset.shape is not None:
        fact.update({"shape": list(e.dataset.shape), "dtype": np.dtype(e.dataset.dtype).name})
    return fact


def _holds_no_pixels(ctx: _Ctx, e: StimulusEntry) -> bool:
    """Report an ``array`` stimulus of strings, compounds... (what ``decode_image`` refuses),
    known from its header alone, so that verify says what the window would find."""
    if e.kind != "array":
        return False
    dtype = np.dtype(e.dataset.dtype)
    if dtype.kind in "biuf":
        return False
    ctx.report(R.STIMULI_UNDECODABLE,
               f"stimulus image cannot be decoded: it holds {dtype} values, not pixel numbers",
               e.location)
    return True


# -- summary, trees and capabilities ------------------------------------------------
def _finish(ctx: _Ctx, hdr: Header, got: _Read) -> None:
    doc, f = ctx.doc, ctx.f
    if got.neuro is not None and ctx.hash_arrays:
        digest = hash_neuro(got.neuro, ctx.report)
        if digest is not None and doc.summary.get("neuro") is not None:
            doc.summary["neuro"].update(digest)
    doc.summary["data_mode"] = got.mode
    doc.summary["neuro_info"] = got.neuro_info
    if got.vision_info is not None and "vision_info" in f:
        doc.summary["vision_info"] = _vision_info_facts(got.vision_info)
    if got.trial_info is not None:
        doc.summary["trial_info"] = plain(got.trial_info)
    if got.trial_meta is not None:
        doc.summary["trial_meta"] = trial_meta_facts(got.trial_meta)
    build_header_tree(doc, HeaderParts(got.mode, got.neuro, got.labels, got.trials,
                                       got.store.records))
    shown = sorted(got.store.records + got.store.rejected, key=lambda r: int(r.key))
    build_provenance_tree(doc, hdr.writer_version, shown)
    if got.mode is not None and got.neuro is not None:
        doc.trials = _trial_structure(got)


def _int64_markers(a: np.ndarray | None) -> np.ndarray | None:
    """A marker array as int64 ``(trials,)``, or None when it is not a 1-D
    non-boolean integer array (the trial-structure rules report why)."""
    if a is None or a.ndim != 1 or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        return None
    return a.astype(np.int64)


def _trial_offsets(got: _Read, name: str) -> np.ndarray | None:
    """``trial_info`` ``name`` (``trial_window`` or ``baseline``) as int64
    ``(2,)`` or ``(trials, 2)`` sample offsets from each onset, or None.

    None when absent or not integral numbers of that shape with
    ``start < stop``: the ``trials.info`` rule reports the shape (VneuroTK
    recording notes (spec/vneurotk-recording.md) §5; the reference writes
    both in samples, ``vneurotk.neuro.trial``).
    """
    raw = (got.trial_info or {}).get(name)
    if raw is None or got.neuro is None:
        return None
    a = np.asarray(raw)
    if a.dtype == np.bool_ or a.dtype.kind not in "iuf" or a.size == 0:
        return None
    shape = tuple(got.neuro.shape)
    n = int(shape[0]) if got.mode == "epochs" and shape else None
    onsets = got.trials.onsets if got.trials is not None else None
    if n is None and onsets is not None:
        n = int(np.asarray(onsets).reshape(-1).shape[0])
    if a.shape != (2,) and (n is None or a.shape != (n, 2)):
        return None
    if not np.all(np.isfinite(a)) or np.any(a != np.rint(a)) or np.any(a[..., 1] <= a[..., 0]):
        return None
    return a.astype(np.int64)


def _trial_structure(got: _Read) -> TrialStructure:
    """The :class:`TrialStructure` capability of an opened recording."""
    assert got.mode is not None and got.neuro is not None
    sfreq = got.neuro.attrs.get("sfreq")
    unit = (got.neuro_info or {}).get("time_unit")
    t = got.trials
    return TrialStructure(
        data_mode=got.mode,
        trial_starts=_int64_markers(t.starts) if t is not None else None,
        trial_ends=_int64_markers(t.ends) if t is not None else None,
        vision_onsets=_int64_markers(t.onsets) if t is not None else None,
        trial_stim_ids=tuple(got.trial_ids) if got.trial_ids is not None else None,
        stim_labels=got.labels,
        sampling_rate_hz=float(sfreq) if sfreq is not None else None,
        time_unit=unit if isinstance(unit, str) else "",
        trial=t.trial if t is not None else None,
        trial_window=_trial_offsets(got, "trial_window"),
        baseline=_trial_offsets(got, "baseline"),
        stim_ids_pending=got.label_positions is not None,
        neural=got.neuro,
        table=got.trial_meta,
    )
