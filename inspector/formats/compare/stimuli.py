"""The stimuli section: stimulus images and visual-representation records by typed ID.

Stimuli are matched by their typed ID (``1`` and ``"1"`` are different
stimuli); a matched pair is compared by its decoded pixels (how the image is
stored, pixels or an encoded file, is representation).  Visual-representation
records are matched by model and module; their extraction provenance goes to
the provenance section.  Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.compare.fields import MISSING, compare_fields, typed, typed_key
from inspector.formats.compare.model import (
    ADDED,
    REMOVED,
    STORAGE,
    Collector,
    Difference,
)
from inspector.formats.compare.values import compare_arrays_in_memory

if TYPE_CHECKING:
    from inspector.formats.capabilities import Stimulus

SECTION = "stimuli"


def compare_stimuli(out: Collector, a: Sequence[Stimulus], b: Sequence[Stimulus]) -> None:
    """Compare two lists of stimuli by typed ID (A's order, then B's others)."""
    by_a = {typed_key(s.stim_id): s for s in a}
    by_b = {typed_key(s.stim_id): s for s in b}
    for k, s in by_a.items():
        if k not in by_b:
            out.add(Difference(SECTION, REMOVED, f"stimulus {_label(s.stim_id)}",
                               typed(s.stim_id), None))
    for k, s in by_b.items():
        if k not in by_a:
            out.add(Difference(SECTION, ADDED, f"stimulus {_label(s.stim_id)}",
                               None, typed(s.stim_id)))
    for k, sa in by_a.items():
        sb = by_b.get(k)
        if sb is not None:
            _compare_image(out, sa, sb)


def _label(stim_id: Any) -> str:
    return repr(stim_id) if isinstance(stim_id, str) else str(stim_id)


def stimulus_path(stim_id: Any) -> str:
    """The ``path`` of a stimulus's differences (``stimulus 15``, ``stimulus '15'``)."""
    return f"stimulus {_label(stim_id)}"


def _compare_image(out: Collector, sa: Stimulus, sb: Stimulus) -> None:
    path = stimulus_path(sa.stim_id)
    if sa.kind != sb.kind:
        out.add(Difference(SECTION, STORAGE, path, sa.kind, sb.kind, content=False))
    try:
        ia, ib = np.asarray(sa.load()), np.asarray(sb.load())
    except (OSError, ValueError) as exc:
        out.skip(SECTION, path, f"the image cannot be decoded: {exc}")
        return
    compare_arrays_in_memory(out, SECTION, path, ia, ib, "pixel values")


def compare_records(out: Collector, a: Any, b: Any) -> None:
    """Compare visual-representation records (the ``vision_records`` facts: model,
    module_name, module_type, stim_ids, array, provenance) by model and module."""
    ra = {_record_key(r): r for r in a or ()}
    rb = {_record_key(r): r for r in b or ()}
    for key in list(ra) + [k for k in rb if k not in ra]:
        x, y = ra.get(key, MISSING), rb.get(key, MISSING)
        path = f"vision record {key}"
        if x is MISSING or y is MISSING:
            out.add(Difference(SECTION, ADDED if x is MISSING else REMOVED, path))
            continue
        content_a = {k: v for k, v in x.items() if not k.startswith("provenance")}
        content_b = {k: v for k, v in y.items() if not k.startswith("provenance")}
        compare_fields(out, SECTION, path, content_a, content_b)
        compare_fields(out, "provenance", f"{path}.provenance", x.get("provenance"),
                       y.get("provenance"), content=False)


def _record_key(record: Any) -> str:
    if not isinstance(record, dict):
        return str(record)
    return f"{record.get('model')} / {record.get('module_name')}"
