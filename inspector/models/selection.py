"""The selected trials of one document, shared by every view of it.

One :class:`TrialSelection` per document (docs/architecture.md, "Seams":
selection is one model per document, so every view shows the same
selection).  Views set it with :meth:`TrialSelection.set_trials`, naming
themselves as ``source``, and follow :attr:`TrialSelection.changed`; a view
ignores the changes it made itself, so no selection echoes back and forth.

Stimuli are matched to trials by typed ID (``TrialStructure.trial_stim_ids``,
VneuroTK on-disk notes §3): stimulus ``1`` and stimulus ``"1"`` are not
shown by the same trials.  An empty selection means "no trial chosen" (the
views then show every trial unselected).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal

from inspector.formats.analysis.trial_conditions import Condition
from inspector.formats.analysis.trial_matrix import condition_of_value
from inspector.formats.document import Document


def trial_count(doc: Document) -> int | None:
    """The number of trials of ``doc``, or None when it has no trial structure.

    Taken from the first that is present: the per-trial stimulus IDs, the
    ``trial_meta`` rows, the stimulus onsets, the trials of an epochs array.
    """
    trials = doc.trials
    if trials is None:
        return None
    if trials.trial_stim_ids is not None:
        return len(trials.trial_stim_ids)
    meta = doc.trial_table()
    if meta is not None:
        return len(meta)
    if trials.vision_onsets is not None:
        return int(trials.vision_onsets.shape[0])
    ref = doc.neural_array()
    if trials.data_mode == "epochs" and ref is not None and ref.ndim == 3:
        return int(ref.shape[0])
    return None


class TrialSelection(QObject):
    """The selected trial indices (positions ``0 .. trials - 1``) of one document.

    Args:
        trials: number of trials.
        stim_ids: the typed stimulus ID of each trial, or None.

    Signals:
        changed(object source): the selection changed; ``source`` is the
            object that changed it (None when unnamed).
    """

    changed = Signal(object)

    def __init__(self, trials: int, stim_ids: Iterable[Any] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.n_trials = int(trials)
        self._selected = np.empty(0, dtype=np.int64)
        ids = list(stim_ids) if stim_ids is not None else None
        self._ids = ids if ids is not None and len(ids) == trials else None
        self._kinds: list[Condition] = []  # the distinct typed IDs
        self._codes: np.ndarray | None = None  # per trial: position in _kinds (-1: missing)

    def _stimulus_codes(self) -> np.ndarray | None:
        """Per trial, the position of its typed stimulus ID in ``_kinds`` (-1: missing).

        Worked out on first use (a stimulus chosen), not when the document's
        views are built: about 5 µs per trial.
        """
        if self._codes is None and self._ids is not None:
            position: dict[Condition, int] = {}
            codes = np.full(len(self._ids), -1, dtype=np.int64)
            for i, v in enumerate(self._ids):
                c = condition_of_value(v)
                if not c.missing:
                    codes[i] = position.setdefault(c, len(position))
            self._kinds, self._codes = list(position), codes
        return self._codes

    @classmethod
    def for_document(cls, doc: Document, parent: QObject | None = None) -> TrialSelection | None:
        """The selection of ``doc``'s trials, or None when it has none."""
        n = trial_count(doc)
        if n is None:
            return None
        return cls(n, doc.trials.trial_stim_ids if doc.trials is not None else None, parent)

    # -- trials -------------------------------------------------------------------
    @property
    def trials(self) -> np.ndarray:
        """int64 ``(k,)`` selected trials, ascending (a copy)."""
        return self._selected.copy()

    @property
    def count(self) -> int:
        return int(self._selected.shape[0])

    def is_empty(self) -> bool:
        return self._selected.shape[0] == 0

    def set_trials(self, trials: Iterable[int] | np.ndarray, source: object = None) -> None:
        """Select exactly ``trials`` (indices out of range are dropped); emits
        :attr:`changed` only when the selection differs."""
        a = np.asarray(list(trials) if not isinstance(trials, np.ndarray) else trials)
        a = np.unique(a.astype(np.int64).reshape(-1)) if a.size else np.empty(0, np.int64)
        a = a[(a >= 0) & (a < self.n_trials)]
        if np.array_equal(a, self._selected):
            return
        self._selected = a
        self.changed.emit(source)

    def clear(self, source: object = None) -> None:
        self.set_trials(np.empty(0, np.int64), source)

    def text(self) -> str:
        """The status-bar note: ``"3 of 10 trials selected"`` (``""`` when none)."""
        if self.is_empty():
            return ""
        unit = "trial" if self.n_trials == 1 else "trials"
        return f"{self.count:,} of {self.n_trials:,} {unit} selected"

    # -- stimuli ------------------------------------------------------------------
    def trials_of_stimuli(self, stim_ids: Iterable[Any]) -> np.ndarray:
        """int64 trials that showed any of ``stim_ids`` (typed match), ascending."""
        all_codes = self._stimulus_codes()
        if all_codes is None:
            return np.empty(0, dtype=np.int64)
        wanted = {condition_of_value(v) for v in stim_ids}
        picks = [k for k, c in enumerate(self._kinds) if c in wanted]
        return np.flatnonzero(np.isin(all_codes, picks)).astype(np.int64)

    def stimuli_of_trials(self, trials: Iterable[int] | np.ndarray) -> set[Condition]:
        """The typed stimulus IDs (as conditions) shown by ``trials``."""
        all_codes = self._stimulus_codes()
        if all_codes is None:
            return set()
        t = np.asarray(trials if isinstance(trials, np.ndarray) else list(trials), np.int64)
        t = t[(t >= 0) & (t < self.n_trials)]
        codes = np.unique(all_codes[t])
        return {self._kinds[k] for k in codes.tolist() if k >= 0}

    def select_stimuli(self, stim_ids: Iterable[Any], source: object = None) -> None:
        """Select the trials that showed any of ``stim_ids``."""
        self.set_trials(self.trials_of_stimuli(stim_ids), source)
