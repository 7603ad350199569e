"""Trial arrays and the trial-structure contract (VneuroTK on-disk notes §3).

Root datasets ``trial`` (per sample), ``trial_starts``, ``trial_ends`` and
``vision_onsets`` (per trial).  The per-trial arrays are small and read at
open; ``trial`` is as long as the recording and stays lazy (only its shape is
checked).

Contract (checked as a whole on load for schema 1; for schema 0 it is only
needed to align vision data): positive neural dimensions; ``ch_names`` one per
channel; patterns are 2-D with one ``trial_meta`` row per pattern;
continuous is 2-D with labels and ``trial`` of shape ``(time,)`` and
in-recording, non-overlapping trials; epochs is 3-D with labels and ``trial``
of shape ``(trials, time)``, one start/end/onset per epoch and
``0 <= start < end <= time``, onsets inside the epoch; ``vision_info`` has
``stim_ids`` and a matching ``n_stim``; ``trial_meta`` has one row per
trial; ``trial_info`` has ``baseline`` and ``trial_window`` of shape
``(2,)`` or ``(trials, 2)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import h5py
import numpy as np

from inspector.formats.vneurotk.arrays import H5DatasetRef
from inspector.formats.vneurotk.source import H5Source, RuleError

SPEC = "VneuroTK on-disk notes §3"


@dataclass
class TrialArrays:
    """The trial arrays of a recording (None where absent)."""

    trial: H5DatasetRef | None
    starts: np.ndarray | None
    ends: np.ndarray | None
    onsets: np.ndarray | None

    @classmethod
    def read(cls, source: H5Source, f: h5py.File) -> TrialArrays:
        """Read the per-trial arrays; keep ``trial`` lazy."""
        def small(name: str) -> np.ndarray | None:
            obj = f.get(name)
            if obj is None:
                return None
            if not isinstance(obj, h5py.Dataset) or obj.shape is None:
                raise RuleError("trials.not-dataset", f"/{name} must be a dataset with data ({SPEC})", f"/{name}")
            return np.asarray(source.read(obj, ()))

        trial = f.get("trial")
        if trial is not None and (not isinstance(trial, h5py.Dataset) or trial.shape is None):
            raise RuleError("trials.not-dataset", f"/trial must be a dataset with data ({SPEC})", "/trial")
        ref = H5DatasetRef(source, trial, "trial", location="/trial") if trial is not None else None
        return cls(ref, small("trial_starts"), small("trial_ends"), small("vision_onsets"))

    def onset_positions(self, mode: str | None, shape: tuple[int, ...] | None) -> list[int]:
        """Flat label positions of each trial's onset (continuous: onset; epochs: i*time+onset)."""
        if self.onsets is None or shape is None:
            return []
        on = self.onsets.astype(np.int64).reshape(-1)
        if mode == "epochs":
            return [int(i * shape[1] + o) for i, o in enumerate(on)]
        return [int(o) for o in on]


def validate_state(ctx: Any, schema: int, mode: str, shape: tuple[int, ...], neuro_info: dict | None,
                   labels: Any, vision_info: dict | None, trials: TrialArrays | None,
                   trial_info: dict | None, trial_meta: Any) -> bool:
    """Check the contract; report each problem; return True when it holds.

    Schema 1: problems are errors (the reference rejects the file on load).
    Schema 0: problems are warnings (the reference checks them only to align
    vision data; the caller reports that as an error when it matters).
    """
    problems = _problems(mode, shape, neuro_info, labels, vision_info, trials, trial_info, trial_meta)
    for code, msg, loc in problems:
        exc = RuleError(code, msg + f" ({SPEC})", loc)
        if schema >= 1:
            ctx.fail(exc)
        else:
            ctx.warn(exc)
    return not problems


def _problems(mode, shape, neuro_info, labels, vision_info, trials, trial_info, trial_meta):
    out: list[tuple[str, str, str]] = []
    if len(shape) == 0 or any(n <= 0 for n in shape):
        return [("trials.shape", f"neural data must have positive dimensions, got {list(shape)}", "/neuro")]
    ch = (neuro_info or {}).get("ch_names")
    if ch is not None and (not isinstance(ch, list) or len(ch) != shape[-1]):
        n = len(ch) if isinstance(ch, list) else 1
        out.append(("trials.ch-names", f"neuro_info ch_names has {n} entries for {shape[-1]} channels", "/neuro_info@ch_names"))
    if mode == "patterns":
        if len(shape) != 2:
            out.append(("trials.patterns-ndim", f"patterns neural data must be 2-D, got shape {list(shape)}", "/neuro"))
        elif trial_meta is not None and len(trial_meta) != shape[0]:
            out.append(("trials.meta-rows", f"trial_meta has {len(trial_meta)} rows for {shape[0]} patterns", "/trial_meta"))
        return out
    t = trials or TrialArrays(None, None, None, None)
    fields = {
        "stim_labels": labels, "trial": t.trial, "trial_starts": t.starts, "trial_ends": t.ends,
        "vision_onsets": t.onsets, "vision_info": vision_info, "trial_info": trial_info,
    }
    missing = [k for k, v in fields.items() if v is None]
    if missing:
        out.append(("trials.missing", f"{mode} recording lacks required trial field(s) {', '.join(missing)}",
                    "/" + missing[0]))
        return out
    expected_ndim = 2 if mode == "continuous" else 3
    if len(shape) != expected_ndim:
        out.append(("trials.ndim", f"{mode} neural data must be {expected_ndim}-D, got shape {list(shape)}", "/neuro"))
        return out
    arrs = {"trial_starts": t.starts, "trial_ends": t.ends, "vision_onsets": t.onsets}
    for name, a in arrs.items():
        if a.ndim != 1:
            out.append(("trials.not-1d", f"{name} must be 1-D, got shape {list(a.shape)}", f"/{name}"))
        elif not np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_:
            out.append(("trials.not-integer", f"{name} must hold non-boolean integers, got {a.dtype}", f"/{name}"))
    if out:
        return out
    starts, ends, onsets = (a.astype(np.int64) for a in arrs.values())
    n = len(starts)
    if len(ends) != n or len(onsets) != n:
        return out + [("trials.lengths", f"trial_starts ({n}), trial_ends ({len(ends)}) and vision_onsets ({len(onsets)}) differ in length", "/trial_starts")]
    tshape = tuple(t.trial.shape)
    if mode == "continuous":
        ntime = shape[0]
        if tuple(labels.shape) != (ntime,):
            out.append(("trials.labels-shape", f"continuous stim_labels must have shape ({ntime},), got {tuple(labels.shape)}", "/stim_labels"))
        if tshape != (ntime,):
            out.append(("trials.trial-shape", f"continuous trial must have shape ({ntime},), got {tshape}", "/trial"))
        if np.any(onsets < 0) or np.any(onsets >= ntime):
            out.append(("trials.onsets", f"vision_onsets must lie within the recording (0..{ntime - 1})", "/vision_onsets"))
        if np.any(ends <= starts):
            out.append(("trials.bounds", "every trial end must be greater than its start", "/trial_ends"))
        if np.any(starts < 0) or np.any(ends > ntime):
            out.append(("trials.bounds", f"trial boundaries must lie within the recording (0..{ntime})", "/trial_starts"))
        order = np.argsort(starts, kind="stable")
        if np.any(starts[order][1:] < ends[order][:-1]):
            out.append(("trials.overlap", "continuous trials must not overlap", "/trial_starts"))
    else:
        exp = tuple(shape[:2])
        if tuple(labels.shape) != exp:
            out.append(("trials.labels-shape", f"epochs stim_labels must have shape {exp}, got {tuple(labels.shape)}", "/stim_labels"))
        if tshape != exp:
            out.append(("trials.trial-shape", f"epochs trial must have shape {exp}, got {tshape}", "/trial"))
        if n != shape[0]:
            out.append(("trials.count", f"there must be one start/end/onset per epoch ({shape[0]}), got {n}", "/trial_starts"))
        ntime = shape[1]
        if np.any(onsets < 0) or np.any(onsets >= ntime):
            out.append(("trials.onsets", f"vision_onsets must lie inside each epoch (0..{ntime - 1})", "/vision_onsets"))
        if np.any(ends <= starts):
            out.append(("trials.bounds", "every epoch end must be greater than its start", "/trial_ends"))
        if np.any(starts < 0) or np.any(ends > ntime):
            out.append(("trials.bounds", f"epoch boundaries must satisfy 0 <= start < end <= {ntime}", "/trial_starts"))
    ids = vision_info.get("stim_ids")
    n_stim = vision_info.get("n_stim")
    if not isinstance(ids, list):
        out.append(("trials.vision-ids", "vision_info needs stim_ids (a 1-D sequence)", "/vision_info/stim_ids"))
    elif isinstance(n_stim, bool) or not isinstance(n_stim, Integral) or int(n_stim) != len(ids):
        out.append(("trials.n-stim", f"vision_info n_stim {n_stim!r} must equal the number of stim_ids ({len(ids)})", "/vision_info@n_stim"))
    if trial_meta is not None and len(trial_meta) != n:
        out.append(("trials.meta-rows", f"trial_meta has {len(trial_meta)} rows for {n} trials", "/trial_meta"))
    for name in ("baseline", "trial_window"):
        v = trial_info.get(name)
        if v is None:
            out.append(("trials.info", f"trial_info lacks '{name}'", f"/trial_info@{name}"))
            continue
        s = np.asarray(v).shape
        if s not in ((2,), (n, 2)):
            out.append(("trials.info", f"trial_info {name} must have shape (2,) or ({n}, 2), got {s}", f"/trial_info@{name}"))
    return out
