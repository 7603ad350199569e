"""Trial arrays and the trial-structure contract.

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

from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import h5py
import numpy as np

from inspector.formats.findings import Finding, Rule
from inspector.formats.hdf5.arrays import H5DatasetRef
from inspector.formats.hdf5.source import H5Source, RuleError, read_whole
from inspector.formats.vneurotk import rules as R

#: The per-trial marker arrays: file name -> :class:`TrialArrays` attribute.
MARKERS = {"trial_starts": "starts", "trial_ends": "ends", "vision_onsets": "onsets"}


@dataclass
class TrialArrays:
    """The trial arrays of a recording (None where absent).

    Attributes:
        trial: the per-sample trial array, lazy.
        starts, ends, onsets: the per-trial arrays as stored (any dtype and
            shape; the contract checks them), read at open.
    """

    trial: H5DatasetRef | None
    starts: np.ndarray | None
    ends: np.ndarray | None
    onsets: np.ndarray | None
    problems: list[RuleError] = field(default_factory=list)
    """Arrays present but not read (``trials.not-dataset``, ``trials.too-large``)."""

    @classmethod
    def read(cls, source: H5Source, f: h5py.File) -> TrialArrays:
        """Read the per-trial arrays; keep ``trial`` lazy.

        An array that is not a dataset with data, or declares more elements
        than a recording needs (``trials.too-large``; nothing of it is read),
        is None with its broken rule in ``problems``; the others are read.

        Raises:
            OSError: HDF5 cannot read an array (see :meth:`H5Source.read`).
        """
        problems: list[RuleError] = []

        def small(name: str) -> np.ndarray | None:
            obj = f.get(name)
            if obj is None:
                return None
            try:
                if not isinstance(obj, h5py.Dataset) or obj.shape is None:
                    raise RuleError(R.TRIALS_NOT_DATASET, f"/{name} must be a dataset with data",
                                    f"/{name}")
                return np.asarray(read_whole(obj, R.TRIALS_TOO_LARGE, source=source,
                                             location=f"/{name}"))
            except RuleError as exc:
                problems.append(exc)
                return None

        trial = f.get("trial")
        ref = None
        if trial is not None and (not isinstance(trial, h5py.Dataset) or trial.shape is None):
            problems.append(RuleError(R.TRIALS_NOT_DATASET, "/trial must be a dataset with data",
                                      "/trial"))
        elif trial is not None:
            ref = H5DatasetRef(source, trial, "trial", location="/trial")
        arrays = cls(ref, small("trial_starts"), small("trial_ends"), small("vision_onsets"))
        arrays.problems = problems
        return arrays

    def onset_positions(self, mode: str | None, shape: tuple[int, ...] | None) -> list[int]:
        """Flat label positions of each trial's onset (continuous: onset; epochs: i*time+onset)."""
        if self.onsets is None or shape is None:
            return []
        on = self.onsets.astype(np.int64).reshape(-1)
        if mode == "epochs":
            return [int(i * shape[1] + o) for i, o in enumerate(on)]
        return [int(o) for o in on]


@dataclass
class Parts:
    """What the contract is checked against (the parts read at open)."""

    mode: str
    shape: tuple[int, ...]
    neuro_info: dict[str, Any] | None
    labels: Any
    vision_info: dict[str, Any] | None
    trials: TrialArrays | None
    trial_info: dict[str, Any] | None
    trial_meta: Any


def validate_state(schema: int, parts: Parts, report: Callable[[Finding], None]) -> bool:
    """Check the trial-structure contract; report each problem; True when it holds.

    Schema 1: problems are errors (the reference rejects the file on load).
    Schema 0: problems are their ``trials-v0.*`` warnings (the reference
    checks them only to align vision data; the caller reports that as an
    error when it matters).
    """
    problems = contract_problems(parts)
    for p in problems:
        rule = p.rule if schema >= 1 else R.TRIALS_V0[p.rule]
        report(rule.finding(p.message, p.location))
    unread = parts.trials is not None and bool(parts.trials.problems)
    return not problems and not unread


def _problem(rule: Rule, message: str, location: str) -> RuleError:
    return RuleError(rule, message, location)


def contract_problems(parts: Parts) -> list[RuleError]:
    """Every broken rule of the contract, with its schema-1 rule."""
    shape = parts.shape
    if len(shape) == 0 or any(n <= 0 for n in shape):
        return [_problem(R.TRIALS_SHAPE,
                         f"neural data must have positive dimensions, got {list(shape)}",
                         "/neuro")]
    out = _channel_names(parts)
    if parts.mode == "patterns":
        return out + _patterns(parts)
    if parts.trials is not None and parts.trials.problems:
        return out  # arrays present but not read: already reported, not "missing"
    missing = _missing_fields(parts)
    if missing:
        return out + [missing]
    expected_ndim = 2 if parts.mode == "continuous" else 3
    if len(shape) != expected_ndim:
        return out + [_problem(R.TRIALS_NDIM, f"{parts.mode} neural data must be "
                               f"{expected_ndim}-D, got shape {list(shape)}", "/neuro")]
    kinds = _marker_kinds(parts)
    if kinds:
        return out + kinds
    t = parts.trials
    assert t is not None and t.starts is not None and t.ends is not None and t.onsets is not None
    starts, ends, onsets = (a.astype(np.int64) for a in (t.starts, t.ends, t.onsets))
    n = len(starts)
    if len(ends) != n or len(onsets) != n:
        return out + [_problem(R.TRIALS_LENGTHS,
                               f"trial_starts ({n}), trial_ends ({len(ends)}) and vision_onsets "
                               f"({len(onsets)}) differ in length", "/trial_starts")]
    if parts.mode == "continuous":
        out += _continuous(parts, starts, ends, onsets)
    else:
        out += _epochs(parts, starts, ends, onsets)
    return out + _vision_info(parts) + _meta_rows(parts, n) + _trial_info(parts, n)


def _channel_names(parts: Parts) -> list[RuleError]:
    ch = (parts.neuro_info or {}).get("ch_names")
    if ch is None or (isinstance(ch, list) and len(ch) == parts.shape[-1]):
        return []
    n = len(ch) if isinstance(ch, list) else 1
    return [_problem(R.TRIALS_CH_NAMES, f"neuro_info ch_names has {n} entries for "
                     f"{parts.shape[-1]} channels", "/neuro_info@ch_names")]


def _patterns(parts: Parts) -> list[RuleError]:
    shape, tm = parts.shape, parts.trial_meta
    if len(shape) != 2:
        return [_problem(R.TRIALS_PATTERNS_NDIM,
                         f"patterns neural data must be 2-D, got shape {list(shape)}", "/neuro")]
    if tm is not None and len(tm) != shape[0]:
        return [_problem(R.TRIALS_META_ROWS,
                         f"trial_meta has {len(tm)} rows for {shape[0]} patterns", "/trial_meta")]
    return []


def _missing_fields(parts: Parts) -> RuleError | None:
    t = parts.trials or TrialArrays(None, None, None, None)
    fields = {
        "stim_labels": parts.labels, "trial": t.trial, "trial_starts": t.starts,
        "trial_ends": t.ends, "vision_onsets": t.onsets, "vision_info": parts.vision_info,
        "trial_info": parts.trial_info,
    }
    missing = [k for k, v in fields.items() if v is None]
    if not missing:
        return None
    return _problem(R.TRIALS_MISSING, f"{parts.mode} recording lacks required trial field(s) "
                    f"{', '.join(missing)}", "/" + missing[0])


def _marker_kinds(parts: Parts) -> list[RuleError]:
    """Each marker array must be 1-D and hold non-boolean integers."""
    out = []
    assert parts.trials is not None
    for name, attr in MARKERS.items():
        a = getattr(parts.trials, attr)
        if a.ndim != 1:
            out.append(_problem(R.TRIALS_NOT_1D, f"{name} must be 1-D, got shape "
                                f"{list(a.shape)}", f"/{name}"))
        elif not np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_:
            out.append(_problem(R.TRIALS_NOT_INTEGER, f"{name} must hold non-boolean "
                                f"integers, got {a.dtype}", f"/{name}"))
    return out


def _sample_shapes(parts: Parts, expected: tuple[int, ...]) -> list[RuleError]:
    """Labels and the per-sample trial array must have the sample axes' shape."""
    out = []
    mode = parts.mode
    assert parts.trials is not None and parts.trials.trial is not None
    if tuple(parts.labels.shape) != expected:
        out.append(_problem(R.TRIALS_LABELS_SHAPE, f"{mode} stim_labels must have shape "
                            f"{expected}, got {tuple(parts.labels.shape)}", "/stim_labels"))
    tshape = tuple(parts.trials.trial.shape)
    if tshape != expected:
        out.append(_problem(R.TRIALS_TRIAL_SHAPE,
                            f"{mode} trial must have shape {expected}, got {tshape}", "/trial"))
    return out


def _continuous(parts: Parts, starts: np.ndarray, ends: np.ndarray,
                onsets: np.ndarray) -> list[RuleError]:
    ntime = parts.shape[0]
    out = _sample_shapes(parts, (ntime,))
    if np.any(onsets < 0) or np.any(onsets >= ntime):
        out.append(_problem(R.TRIALS_ONSETS, "vision_onsets must lie within the recording "
                            f"(0..{ntime - 1})", "/vision_onsets"))
    if np.any(ends <= starts):
        out.append(_problem(R.TRIALS_BOUNDS, "every trial end must be greater than its start",
                            "/trial_ends"))
    if np.any(starts < 0) or np.any(ends > ntime):
        out.append(_problem(R.TRIALS_BOUNDS, "trial boundaries must lie within the recording "
                            f"(0..{ntime})", "/trial_starts"))
    order = np.argsort(starts, kind="stable")
    if np.any(starts[order][1:] < ends[order][:-1]):
        out.append(_problem(R.TRIALS_OVERLAP, "continuous trials must not overlap",
                            "/trial_starts"))
    return out


def _epochs(parts: Parts, starts: np.ndarray, ends: np.ndarray,
            onsets: np.ndarray) -> list[RuleError]:
    shape = parts.shape
    out = _sample_shapes(parts, tuple(shape[:2]))
    if len(starts) != shape[0]:
        out.append(_problem(R.TRIALS_COUNT, "there must be one start/end/onset per epoch "
                            f"({shape[0]}), got {len(starts)}", "/trial_starts"))
    ntime = shape[1]
    if np.any(onsets < 0) or np.any(onsets >= ntime):
        out.append(_problem(R.TRIALS_ONSETS, "vision_onsets must lie inside each epoch "
                            f"(0..{ntime - 1})", "/vision_onsets"))
    if np.any(ends <= starts):
        out.append(_problem(R.TRIALS_BOUNDS, "every epoch end must be greater than its start",
                            "/trial_ends"))
    if np.any(starts < 0) or np.any(ends > ntime):
        out.append(_problem(R.TRIALS_BOUNDS, "epoch boundaries must satisfy "
                            f"0 <= start < end <= {ntime}", "/trial_starts"))
    return out


def _vision_info(parts: Parts) -> list[RuleError]:
    info = parts.vision_info or {}
    ids, n_stim = info.get("stim_ids"), info.get("n_stim")
    if not isinstance(ids, list):
        return [_problem(R.TRIALS_VISION_IDS, "vision_info needs stim_ids (a 1-D sequence)",
                         "/vision_info/stim_ids")]
    if isinstance(n_stim, bool) or not isinstance(n_stim, Integral) or int(n_stim) != len(ids):
        return [_problem(R.TRIALS_N_STIM, f"vision_info n_stim {n_stim!r} must equal the "
                         f"number of stim_ids ({len(ids)})", "/vision_info@n_stim")]
    return []


def _meta_rows(parts: Parts, n: int) -> list[RuleError]:
    tm = parts.trial_meta
    if tm is None or len(tm) == n:
        return []
    return [_problem(R.TRIALS_META_ROWS, f"trial_meta has {len(tm)} rows for {n} trials",
                     "/trial_meta")]


def _trial_info(parts: Parts, n: int) -> list[RuleError]:
    out = []
    info = parts.trial_info or {}
    for name in ("baseline", "trial_window"):
        v = info.get(name)
        if v is None:
            out.append(_problem(R.TRIALS_INFO, f"trial_info lacks '{name}'",
                                f"/trial_info@{name}"))
            continue
        s = np.asarray(v).shape
        if s not in ((2,), (n, 2)):
            out.append(_problem(R.TRIALS_INFO, f"trial_info {name} must have shape (2,) or "
                                f"({n}, 2), got {s}", f"/trial_info@{name}"))
    return out
