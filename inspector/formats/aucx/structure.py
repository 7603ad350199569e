"""The facts of an archive's experiment for structural validation, at any size.

The structural checks and readiness (:mod:`inspector.formats.auc.structure`)
read two kinds of facts: the description (``experiment.json``, the import
provenance, the manifest's ``observations``), small and already parsed at
open, and per-row reductions of the radius and mask arrays
(:class:`~inspector.formats.auc.structure_facts.ObservationFacts`).  The
signal is never needed.

* :func:`facts_in_memory`: the arrays read whole (archives whose radius and
  mask are small, at open);
* :func:`facts_streamed`: the radius and mask members inflated together in
  row blocks of at most :data:`BLOCK_BYTES` (plus one row), never the whole
  array; used by the deferred verification for larger archives.

Both fold the same per-row reductions, so they give the same facts.  The one
hard limit: a single radius row (the shared axis, or one per-scan row) larger
than :data:`ROW_LIMIT` bytes, or an array stored in Fortran order, is not
folded when streaming; the caller then says the structure was not checked
and why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np

from inspector.formats.auc.structure_facts import (
    Facts,
    ObservationFacts,
    ObservationFold,
    gather_parts,
    observation_facts,
    radius_rows,
)
from inspector.formats.aucx import layout as L
from inspector.formats.aucx.model import scan_records
from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.aucx.state import ModelParts
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.aucx.zipscan import ZipScan

__all__ = ["BLOCK_BYTES", "ROW_LIMIT", "NotChecked", "facts_in_memory", "facts_streamed",
           "facts_from_parts"]

#: Radius bytes folded per block when streaming (the mask block is 1/8 of it
#: for float64); at least one row is always taken.
BLOCK_BYTES = 4 << 20
#: Largest single radius row (bytes) folded when streaming: 8 million float64
#: positions, far beyond any instrument (an XL-I scan has about 1 600).
ROW_LIMIT = 64 << 20


class NotChecked(Exception):
    """The facts cannot be gathered; the message says why (no archive path)."""


def facts_from_parts(parts: ModelParts, n_obs: int, observations: ObservationFacts) -> Facts:
    """The facts of the experiment described by ``parts`` with ``n_obs`` signal rows,
    mapped as :func:`.model.build_experiment` maps them."""
    exp = parts.experiment
    obs = parts.observations
    return gather_parts(
        metadata=exp.get("metadata") or {}, instrument=exp.get("instrument"),
        provenance=parts.imported, scans=scan_records(exp.get("scans")),
        samples=list(exp.get("samples") or []),
        scan_ids=list(obs.get("scan_ids") or []), mode=str(obs.get("mode")),
        signal_unit=str(obs.get("signal_unit")), radius_unit=str(obs.get("radius_unit")),
        n_obs=n_obs, observations=observations)


def facts_in_memory(parts: ModelParts, n_obs: int, radius: np.ndarray,
                    mask: np.ndarray) -> Facts:
    """The facts from the radius and mask arrays read whole (any shapes: arrays that
    do not fit the mode give no points, as in :func:`.observation_facts`)."""
    mode = str(parts.observations.get("mode"))
    return facts_from_parts(parts, n_obs, observation_facts(mode, radius, mask, n_obs))


class _Rows:
    """Whole rows of one ``.npy`` member, inflated as they are asked for."""

    def __init__(self, path: Path, scan: ZipScan, member: str, header: NpyHeader,
                 width: int) -> None:
        entry = scan.first(member)
        if entry is None:
            raise NotChecked(f"{member} is missing")
        self.member = member
        self.stream = MemberStream(path, entry, crc=False)
        self._blocks: Iterator[bytes] = iter(self.stream)
        self._buf = bytearray()
        self._skip = header.data_offset
        self.dtype = header.dtype
        self.width = width
        self.row_bytes = width * header.dtype.itemsize

    def take(self, k: int) -> np.ndarray:
        """The next ``k`` rows, ``(k, width)``.

        Raises:
            NotChecked: the member ends early or cannot be inflated.
            OSError: the archive cannot be read.
        """
        need = self._skip + k * self.row_bytes
        while len(self._buf) < need:
            block = next(self._blocks, None)
            if block is None:
                problem = self.stream.result.problem
                why = problem.message if problem is not None else "it ends before its last row"
                raise NotChecked(f"{self.member} could not be read: {why}")
            self._buf += block
        start = self._skip
        self._skip = 0
        rows = np.frombuffer(bytes(self._buf[start:need]), dtype=self.dtype)
        del self._buf[:need]
        return rows.reshape(k, self.width)


def _shape_problem(mode: str, headers: Mapping[str, NpyHeader]) -> str | None:
    """Why the radius and mask cannot be folded row by row, or None."""
    radius, mask = headers.get("radius"), headers.get("mask")
    if radius is None or mask is None or "signal" not in headers:
        return "an array member's header could not be read"
    if radius.fortran_order or (mode != "shared" and mask.fortran_order):
        return ("an array is stored in Fortran (column) order, which is not folded row by row "
                "(a documented limit for archives too large to load)")
    width = radius.nbytes if mode == "shared" else (
        radius.shape[-1] * radius.dtype.itemsize if radius.shape else 0)
    if width > ROW_LIMIT:
        return (f"one radius row holds {width} bytes, more than the {ROW_LIMIT} bytes "
                "folded at once (a documented hard limit)")
    return None


def facts_streamed(path: Path, scan: ZipScan, parts: ModelParts,
                   headers: Mapping[str, NpyHeader],
                   cancelled: Callable[[], bool] | None = None) -> Facts | None:
    """The facts with the radius and mask streamed in row blocks.

    Memory: one block of :data:`BLOCK_BYTES` radius bytes (at least one row)
    and its mask rows, plus a few bytes per row.

    Returns None when ``cancelled()`` became true between blocks.

    Raises:
        NotChecked: the arrays cannot be folded (see the module docstring),
            or a member ends early or is corrupt.
        OSError: the archive cannot be read.
    """
    mode = str(parts.observations.get("mode"))
    why = _shape_problem(mode, headers)
    if why is not None:
        raise NotChecked(why)
    rh, mh = headers["radius"], headers["mask"]
    n_obs = headers["signal"].shape[0] if headers["signal"].shape else 0
    fold = ObservationFold()
    if mode == "shared":
        width = int(np.prod(rh.shape))
        fold.add(_Rows(path, scan, L.RADIUS, rh, width).take(1).astype(np.float64))
        return facts_from_parts(parts, n_obs,
                                fold.finish(np.full(n_obs, width, dtype=np.int64)))
    if rh.shape != mh.shape or len(rh.shape) != 2 or rh.shape[0] != n_obs:
        return facts_in_memory(parts, n_obs, np.zeros(rh.shape[:1]), np.zeros(0, bool))
    width = rh.shape[1]
    radius = _Rows(path, scan, L.RADIUS, rh, width)
    mask = _Rows(path, scan, L.MASK, mh, width)
    step = max(1, BLOCK_BYTES // max(1, radius.row_bytes))
    for start in range(0, n_obs, step):
        if cancelled is not None and cancelled():
            return None
        k = min(step, n_obs - start)
        points, rows = radius_rows(radius.take(k), mask.take(k).astype(bool))
        fold.add(rows, points)
    return facts_from_parts(parts, n_obs, fold.finish())
