"""Stimuli matched between a vision record and the trials, by typed ID.

A record's row and a trial group are the same stimulus when their IDs are
equal as typed scalars (VneuroTK format document, "Safe scalar
identifiers"): the str ``"1"`` is not the int ``1``, and the bool ``True`` is
neither; an int and a float of equal value (``3`` and ``3.0``) are one
number, as the reference reader aligns them (a dict lookup of the label,
``vneurotk.vision.data.VisionData``).  Never by position.

Nothing here reads the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from inspector.formats.analysis.trial_conditions import Condition
from inspector.formats.analysis.trial_matrix import condition_of_value


def id_key(value: Any) -> tuple[str, Any]:
    """The key two stimulus IDs share when they name the same stimulus.

    ``("number", v)`` for ints and floats (``3 == 3.0``), ``("bool", v)``,
    ``("str", v)``, else ``(type name, v)``; numpy scalars count as the Python
    scalar they hold.
    """
    cond = value if isinstance(value, Condition) else condition_of_value(value)
    kind = "number" if cond.kind in ("int", "float") else cond.kind
    return kind, cond.value


@dataclass(frozen=True)
class StimulusMatch:
    """How a record's rows and the trials' stimuli pair up.

    Attributes:
        rows: int64 ``(m,)`` record rows of the matched stimuli, ascending.
        groups: int64 ``(m,)`` the trial group (index into the ``groups``
            given) of each matched row.
        ids: the record's ID of each matched row (typed, as stored).
        features_only: record IDs no trial shows, in row order.
        trials_only: trial groups (their conditions) without a record row,
            in the order given; missing labels are not listed.
        ambiguous: trial groups whose ID equals another group's as a
            number (``3`` and ``3.0`` both among the trials): left out.
    """

    rows: np.ndarray
    groups: np.ndarray
    ids: tuple[Any, ...]
    features_only: tuple[Any, ...]
    trials_only: tuple[Condition, ...]
    ambiguous: tuple[Condition, ...]

    @property
    def count(self) -> int:
        """Number of matched stimuli."""
        return int(self.rows.shape[0])


def match_stimuli(record_ids: Sequence[Any], groups: Sequence[Condition]) -> StimulusMatch:
    """Pair each record row with the trial group of the same typed ID.

    Args:
        record_ids: the record's ``stim_ids``, one per row (unique: the
            reader rejects a record repeating one, ``vision.duplicate-ids``).
        groups: the trials' stimulus conditions (``condition_of_trials(doc,
            "stimulus")``), each once; :data:`~.trial_average.MISSING` is ignored.

    Returns:
        The :class:`StimulusMatch`.
    """
    by_key: dict[tuple[str, Any], int] = {}
    ambiguous: list[Condition] = []
    clash: set[tuple[str, Any]] = set()
    for g, cond in enumerate(groups):
        if cond.missing:
            continue
        key = id_key(cond)
        if key in by_key:
            clash.add(key)
            ambiguous.append(cond)
            continue
        by_key[key] = g
    for key in clash:
        ambiguous.append(groups[by_key.pop(key)])
    rows: list[int] = []
    hit: list[int] = []
    ids: list[Any] = []
    only: list[Any] = []
    for r, sid in enumerate(record_ids):
        found = by_key.get(id_key(sid))
        if found is None:
            only.append(sid)
            continue
        rows.append(r)
        hit.append(found)
        ids.append(sid)
    used = set(hit)
    trials_only = tuple(c for g, c in enumerate(groups)
                        if not c.missing and g not in used and c not in ambiguous)
    return StimulusMatch(np.asarray(rows, dtype=np.int64), np.asarray(hit, dtype=np.int64),
                         tuple(ids), tuple(only), trials_only, tuple(ambiguous))
