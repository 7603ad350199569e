"""A table built from rows is ``pd.DataFrame(rows)``: plain columns when they are, else the frame.

pandas is the oracle: for the scans of every AUCX archive of the corpus, the
bundled sample archives and hand-made rows, the table's frame equals
``pd.DataFrame(rows)`` and its cells, labels and dtypes equal those of that frame.
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from inspector.formats.aucx.model import scan_rows
from inspector.formats.table import Table, table_of_rows
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
ARCHIVES = sorted([*(FIXTURES / "aucx").glob("*.aucx"),
                   *(ROOT / "resources" / "samples").glob("*.aucx")])


def _scans(path: Path) -> list | None:
    try:
        with zipfile.ZipFile(path) as z:
            experiment = json.loads(z.read("experiment.json"))
    except (zipfile.BadZipFile, KeyError, ValueError, RuntimeError, OSError):
        return None
    scans = experiment.get("scans") if isinstance(experiment, dict) else None
    return scans if isinstance(scans, list) else None


def _same_as_frame(table: Table, rows: list[dict], columns: list[str] | None = None) -> None:
    expected = pd.DataFrame(rows, columns=columns)
    reference = Table.of_frame(expected)
    assert len(table) == len(expected)
    assert table.labels == reference.labels and table.dtype_names == reference.dtype_names
    assert table.facts() == reference.facts()
    for col in range(table.n_columns):
        got, want = table.column(col).tolist(), reference.column(col).tolist()
        assert all(a == b or (a != a and b != b) for a, b in zip(got, want, strict=True))
        assert [type(v) for v in got] == [type(v) for v in want]
    pd.testing.assert_frame_equal(table.frame(), expected, check_exact=True)


def test_the_corpus_archives_have_scans():
    assert sum(_scans(p) is not None for p in ARCHIVES) >= 10


@pytest.mark.parametrize("path", ARCHIVES, ids=lambda p: p.name)
@pytest.mark.slow
def test_an_archives_scans_table_is_the_frame_of_its_rows(path):
    scans = _scans(path)
    if scans is None:
        return  # (an archive without a readable scan list: no table)
    rows = scan_rows(scans)
    _same_as_frame(table_of_rows(rows), rows)


PLAIN = {
    "numbers": [{"a": 1, "b": 0.5, "c": True, "d": "x"}, {"a": 2, "b": math.nan, "c": False,
                                                          "d": ""}],
    "one row": [{"scan_id": "s1", "points": 3}],
    "a column of None": [{"a": 1, "at": None}, {"a": 2, "at": None}],
}
NOT_PLAIN = {
    "a missing value": [{"a": 1, "s": None}, {"a": 2, "s": "present"}],
    "int and float": [{"a": 1}, {"a": 2.5}],
    "a bool among ints": [{"a": 1}, {"a": True}],
    "keys differ": [{"a": 1, "b": 2}, {"a": 1}],
    "keys in another order": [{"a": 1, "b": 2}, {"b": 2, "a": 1}],
    "beyond int64": [{"a": 2**63}, {"a": 1}],
    "numpy floats": [{"a": np.float64(1.5)}, {"a": np.float64(2.5)}],
    "a list": [{"a": [1, 2]}, {"a": [3]}],
    "no rows": [],
}


@pytest.mark.parametrize("name", list(PLAIN) + list(NOT_PLAIN))
def test_rows_make_the_frame_pandas_makes(name):
    rows = PLAIN.get(name, NOT_PLAIN.get(name))
    table = table_of_rows(rows)
    assert table.plain is (name in PLAIN)
    _same_as_frame(table, rows)


def test_named_columns_in_the_rows_order_stay_plain_and_others_do_not():
    rows = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
    assert table_of_rows(rows, ["a", "b"]).plain
    _same_as_frame(table_of_rows(rows, ["a", "b"]), rows, ["a", "b"])
    other = table_of_rows(rows, ["b", "a"])
    assert not other.plain
    _same_as_frame(other, rows, ["b", "a"])
