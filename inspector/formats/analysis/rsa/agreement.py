"""Agreement of two dissimilarity matrices: Spearman correlation and a permutation test.

:func:`spearman` is the Pearson correlation of the average ranks of the two
upper triangles (``scipy.stats.spearmanr``; rsatoolbox
``compare(method="spearman")``), ties sharing their average rank
(``scipy.stats.rankdata(method="average")``); dissimilarities within
:data:`TIE_RELATIVE` of the largest are tied, so that rounding in the
products never orders two equal dissimilarities.

:func:`agreement` adds a permutation p-value (Kriegeskorte, Mur and
Bandettini 2008, "stimulus-label randomization test"): the stimulus labels of
one matrix are permuted (rows and columns together) ``permutations`` times
with ``numpy.random.default_rng(seed)``, and
``p = (1 + #{rho_perm >= rho}) / (1 + permutations)`` (one-sided: agreement
greater than chance).  The ranks are computed once; a permutation only
re-indexes the ranked matrix, and only the cross product changes (the ranks'
mean and variance do not), so one permutation costs one gather and one dot
product of ``m x m`` values.  The ranks are held as two ``m x m`` matrices of
centred, doubled ranks (integers, so that sums are exact in float64 while
they stay below 2**53: about 400 stimuli); float32 above
:data:`FLOAT64_STIMULI` stimuli, to bound memory.

Nothing here reads a file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from inspector.formats.analysis.rsa.features import square_form
from inspector.formats.analysis.trial_average import Cancelled
from inspector.formats.capabilities import CancelFn, Progress, ProgressFn

#: Default number of permutations.
PERMUTATIONS = 1000
#: Default seed of the permutations.
SEED = 0
#: Above this many stimuli the permutation test holds its ranks as float32.
FLOAT64_STIMULI = 4096
#: Dissimilarities within this fraction of the largest one are tied (rounding
#: must not order two stimulus pairs whose dissimilarities are equal).
TIE_RELATIVE = 1e-10
#: Up to this many stimuli, several permutations are gathered at once.
BATCH_STIMULI = 64
#: Values gathered at once by a batch of permutations.
BATCH_VALUES = 1 << 20


def rankdata(values: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """Average ranks (1-based, float64) of a 1-D array; ties share their mean rank.

    Equal to ``scipy.stats.rankdata(values, method="average")`` for finite
    values when ``tolerance`` is 0; otherwise sorted neighbours closer than
    ``tolerance`` are tied too.
    """
    v = np.asarray(values).reshape(-1)
    order = np.argsort(v, kind="stable")
    sv = v[order]
    new = np.empty(sv.shape[0], dtype=bool)
    if sv.shape[0]:
        new[0] = True
        new[1:] = (sv[1:] - sv[:-1]) > tolerance
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], sv.shape[0])
    mean_rank = (starts + ends + 1) / 2.0
    ranks = np.empty(v.shape[0])
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


def tie_tolerance(values: np.ndarray) -> float:
    """Dissimilarities closer than this are tied: :data:`TIE_RELATIVE` of the largest."""
    return float(np.abs(values).max()) * TIE_RELATIVE if values.size else 0.0


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman correlation of two condensed matrices (NaN when one is constant).

    Raises:
        ValueError: the vectors differ in length or hold NaN.
    """
    if a.shape != b.shape:
        raise ValueError(f"matrices of different sizes: {a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("the dissimilarities hold NaN or infinity")
    ra, rb = rankdata(a, tie_tolerance(a)), rankdata(b, tie_tolerance(b))
    ra -= ra.mean()
    rb -= rb.mean()
    den = math.sqrt(float(ra @ ra) * float(rb @ rb))
    return float(ra @ rb) / den if den > 0 else math.nan


@dataclass(frozen=True)
class Agreement:
    """The agreement of two matrices over ``stimuli`` stimuli.

    Attributes:
        rho: Spearman correlation of the upper triangles (NaN when either is constant).
        p_value: permutation p-value (NaN when ``rho`` is, or with no permutation).
        permutations: permutations drawn.
        seed: their seed.
        stimuli: number of stimuli.
    """

    rho: float
    p_value: float
    permutations: int
    seed: int
    stimuli: int


def _centred_ranks(condensed: np.ndarray, m: int, dtype: type) -> np.ndarray:
    """``(m, m)`` matrix of ``2 * rank - (M + 1)`` (zero diagonal): integers, mean zero."""
    r = rankdata(condensed, tie_tolerance(condensed))
    r *= 2.0
    r -= condensed.shape[0] + 1
    return square_form(r, m, dtype)


def _permuted_sums(ra: np.ndarray, rb: np.ndarray, perms: list[np.ndarray]) -> np.ndarray:
    """``sum(ra * rb[p][:, p])`` for each permutation ``p`` (``rb``'s labels permuted)."""
    if len(perms) == 1:
        p = perms[0]
        return np.array([float(np.einsum("ij,ij->", ra, rb.take(p, axis=0).take(p, axis=1)))])
    idx = np.stack(perms)
    gathered = rb[idx[:, :, None], idx[:, None, :]]
    return np.einsum("bij,ij->b", gathered, ra, dtype=np.float64)


def agreement(a: np.ndarray, b: np.ndarray, m: int, *, permutations: int = PERMUTATIONS,
              seed: int = SEED, progress: ProgressFn | None = None,
              cancelled: CancelFn | None = None) -> Agreement:
    """Spearman correlation of two condensed ``m``-stimulus matrices and its p-value.

    Args:
        a, b: float64 condensed matrices (``m (m - 1) / 2``), finite; the
            stimulus labels of ``a`` (the neural matrix) are permuted.
        m: number of stimuli.
        permutations: stimulus-label permutations (0: no p-value).
        seed: seed of ``numpy.random.default_rng``.
        progress: ``Progress(done, permutations)`` after each batch.
        cancelled: polled between batches; True raises ``Cancelled``.

    Raises:
        ValueError: sizes disagree, values are not finite, fewer than 3 stimuli.
        Cancelled: ``cancelled()`` returned True.
    """
    if m < 3 or a.shape != (m * (m - 1) // 2,):
        raise ValueError(f"need at least 3 stimuli and {m * (m - 1) // 2} dissimilarities")
    rho = spearman(a, b)
    if permutations <= 0 or math.isnan(rho):
        return Agreement(rho, math.nan, max(0, permutations), seed, m)
    dtype = np.float64 if m <= FLOAT64_STIMULI else np.float32
    ra, rb = _centred_ranks(a, m, dtype), _centred_ranks(b, m, dtype)
    observed = float(np.einsum("ij,ij->", ra, rb))
    tol = 0.0 if dtype is np.float64 else abs(observed) * 1e-5
    rng = np.random.default_rng(seed)
    batch = max(1, min(permutations, BATCH_VALUES // (m * m))) if m <= BATCH_STIMULI else 1
    hits = done = 0
    while done < permutations:
        if cancelled is not None and cancelled():
            raise Cancelled()
        perms = [rng.permutation(m) for _ in range(min(batch, permutations - done))]
        hits += int(np.count_nonzero(_permuted_sums(rb, ra, perms) >= observed - tol))
        done += len(perms)
        if progress is not None:
            progress(Progress(done, permutations))
    return Agreement(rho, (1 + hits) / (1 + permutations), permutations, seed, m)
