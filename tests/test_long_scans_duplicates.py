"""LongScans.duplicates against a brute-force oracle on random observations."""

from __future__ import annotations

import numpy as np
import pytest

from inspector.formats.delimited.long_scans import LongScans


def _oracle(ids: list[str], radii: list[float], lines: list[int],
            listed: int) -> tuple[list[tuple[int, str, float, int]], int]:
    """Each observation repeating an earlier (by line) radius of its scan, in line order,
    with the line of that scan's first observation at the radius."""
    first: dict[tuple[str, float], int] = {}
    repeats = []
    for i in sorted(range(len(lines)), key=lambda k: lines[k]):
        key = (ids[i], radii[i])
        if key in first:
            repeats.append((lines[i], ids[i], radii[i], first[key]))
        else:
            first[key] = lines[i]
    return repeats[:listed], len(repeats)


@pytest.mark.parametrize("in_file_order", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_duplicates_are_those_of_a_plain_scan_of_the_lines(seed, in_file_order):
    """Rows in file order (as the reader appends them) and rows in any order."""
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = int(rng.integers(0, 70))
        scans = [f"s{k}" for k in range(int(rng.integers(1, 6)))]
        ids = [scans[int(k)] for k in rng.integers(0, len(scans), n)]
        radii = [float(r) for r in rng.integers(0, int(rng.integers(1, 25)), n)]
        lines = [int(x) * 2 + 2 for x in (range(n) if in_file_order else rng.permutation(n))]
        table = LongScans()
        for i in range(n):
            table.add(ids[i], radii[i], 0.5, lines[i])
        listed = int(rng.integers(0, 12))
        assert table.duplicates(listed) == _oracle(ids, radii, lines, listed)


def test_duplicates_walk_the_sorted_order_in_stretches(monkeypatch):
    """Stretches shorter than the table: a repeat across a stretch's edge is counted once,
    and the first rows are gathered over several stretches."""
    from inspector.formats.delimited import long_scans

    monkeypatch.setattr(long_scans, "_WALK", 3)
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 40))
        ids = [f"s{int(k)}" for k in rng.integers(0, 3, n)]
        radii = [float(r) for r in rng.integers(0, 6, n)]
        lines = list(range(2, n + 2))
        table = LongScans()
        for i in range(n):
            table.add(ids[i], radii[i], 0.5, lines[i])
        listed = int(rng.integers(0, 9))
        assert table.duplicates(listed) == _oracle(ids, radii, lines, listed)
