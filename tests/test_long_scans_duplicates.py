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


@pytest.mark.parametrize("seed", range(8))
def test_duplicates_are_those_of_a_plain_scan_of_the_lines(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = int(rng.integers(0, 70))
        scans = [f"s{k}" for k in range(int(rng.integers(1, 6)))]
        ids = [scans[int(k)] for k in rng.integers(0, len(scans), n)]
        radii = [float(r) for r in rng.integers(0, int(rng.integers(1, 25)), n)]
        lines = [int(x) * 2 + 2 for x in rng.permutation(n)]  # unique, not in file order
        table = LongScans()
        for i in range(n):
            table.add(ids[i], radii[i], 0.5, lines[i])
        listed = int(rng.integers(0, 12))
        assert table.duplicates(listed) == _oracle(ids, radii, lines, listed)
