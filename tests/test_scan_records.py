"""Scan records held as columns (``ScanRecords``) read as the list of dicts they hold.

Generators: random records (every value kind a scan record can carry), the CSV/TSV
corpus and scan-level mutants of it (``fuzz.equivalence.scan_mutant``).  Oracles: the
list of dicts itself, the structure facts gathered from that list, and the CSV/TSV
reader's scan-by-scan path (``_scan``), which the column-by-column path must equal.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fuzz.equivalence import _LONG_SEEDS, scan_mutant
from inspector.formats.auc import structure_facts
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.auc.structure import examine
from inspector.formats.delimited import model as delimited_model
from inspector.formats.delimited.loader import run_import
from inspector.formats.delimited.stages import Stages
from inspector.formats.delimited.view import scans_columns, scans_table
from inspector.formats.table import PlainColumn, Table

FIXTURES = Path(__file__).parent / "fixtures" / "auc-delimited"


def _quantity(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.15:
        return "not a quantity"
    value = rng.choice([rng.uniform(-5, 5), 1.5, float("inf"), float("nan"), 3, True, None,
                        "7"])
    q = {"value": value, "unit": rng.choice(["s", "nm", "rpm", 5, None]),
         "unit_label": rng.choice([None, "AU"]),
         "status": rng.choice(["present", "present", "missing", "unknown", ["x"]]),
         "provenance": "supplied"}
    if rng.random() < 0.1:
        del q["status"]
    return q


def _record(rng: random.Random, i: int) -> dict[str, Any]:
    record: dict[str, Any] = {
        "scan_id": rng.choice([f"s{i}", f"s{i % 3}", 7, None]),
        "index": rng.choice([i, i, True, 2 ** 70, "3"]),
        "elapsed_time": _quantity(rng),
        "acquired_at": rng.choice([None, "2024-01-02T03:04:05"]),
        "cell": rng.choice(["1", "2", None, 3]),
        "channel": rng.choice(["A", None]),
        "wavelength": _quantity(rng),
        "optical_system": rng.choice(["absorbance", "interference", None, ""]),
        "rotor_speed": _quantity(rng),
        "temperature": _quantity(rng),
        "annotations": rng.choice([[], ["a=b"], ["x", {"y": [1]}]]),
    }
    if rng.random() < 0.2:
        del record[rng.choice(list(record))]
    if rng.random() < 0.1:
        record["extra"] = rng.random()
    return record


@pytest.mark.parametrize("seed", range(30))
def test_records_read_as_the_dicts_they_hold(seed: int) -> None:
    rng = random.Random(seed)
    records = [_record(rng, i) for i in range(rng.randint(0, 40))]
    held = ScanRecords.of(records)
    assert len(held) == len(records)
    # repr: same keys in the same order, same types (1, 1.0, True differ) and values
    # (a NaN read back is another NaN object, so == would compare it unequal)
    assert [repr(r) for r in held] == [repr(r) for r in records]
    assert [repr(r) for r in held[2:5]] == [repr(r) for r in records[2:5]]
    if records:
        held[0].setdefault("annotations", []).append("changed")
        held[0]["scan_id"] = "changed"
        assert repr(held[0]) == repr(records[0])  # each access is a fresh dict
        assert repr(held[-1]) == repr(records[-1])


def _same_facts(a: structure_facts.Facts, b: structure_facts.Facts) -> None:
    assert a.scan_ids == b.scan_ids
    assert a.cells == b.cells and a.channels == b.channels
    assert a.systems.tolist() == b.systems.tolist()
    for field in structure_facts.SCAN_QUANTITIES:
        qa, qb = a.scan_q[field], b.scan_q[field]
        assert qa.status.tolist() == qb.status.tolist(), field
        assert qa.unit.tolist() == qb.unit.tolist(), field
        np.testing.assert_array_equal(qa.value, qb.value, err_msg=field)


def _facts(scans: Any) -> structure_facts.Facts:
    return structure_facts.gather_parts(
        metadata={}, instrument=None, provenance=None, scans=scans, samples=[],
        scan_ids=[], mode="shared", signal_unit="AU", radius_unit="cm", n_obs=0,
        observations=structure_facts.observation_facts("shared", np.zeros(0), np.zeros(0), 0))


@pytest.mark.parametrize("seed", range(30))
def test_facts_of_columns_equal_facts_of_the_dicts(seed: int) -> None:
    rng = random.Random(1000 + seed)
    records = [_record(rng, i) for i in range(rng.randint(0, 40))]
    _same_facts(_facts(ScanRecords.of(records)), _facts(records))


def _imports(paths: list[Path]) -> list[Any]:
    out = []
    for path in paths:
        res = run_import(path)
        if res.experiment is not None:
            out.append(res)
    return out


def _mutants(tmp_path: Path, count: int) -> list[Path]:
    found = []
    for index in range(count):
        rng = random.Random(f"test_scan_records/{index}")
        seed = FIXTURES / rng.choice(_LONG_SEEDS)
        found.append(Path(scan_mutant(rng, seed, tmp_path / f"m{index}")))
    return found


def test_column_path_equals_scan_by_scan_path(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The CSV/TSV reader builds a long table's records column by column when no scan
    carries a finding; they equal the records ``_scan`` builds scan by scan, and the
    document's findings and summary are the same either way."""
    built: list[tuple[Any, Any]] = []
    fast = delimited_model._fast_scans

    def spy(parsed: Any, manifest: Any, source: str) -> Any:
        records = fast(parsed, manifest, source)
        if records is not None:
            slow = [delimited_model._scan(si, i, manifest, source, Stages())
                    for i, si in enumerate(parsed.inputs)]
            built.append((records, slow))
        return records

    monkeypatch.setattr(delimited_model, "_fast_scans", spy)
    paths = sorted(p for p in FIXTURES.iterdir() if p.is_dir()) + _mutants(tmp_path, 60)
    results = _imports(paths)
    assert len(built) >= 20, len(built)  # the column path ran on most imports
    for records, slow in built:
        assert isinstance(records, ScanRecords)
        assert list(records) == slow
    for res in results:
        exp = res.experiment
        as_list = examine(exp)
        exp.scans = list(exp.scans)
        plain = examine(exp)
        assert [f.to_json() for f in as_list.findings] == [f.to_json() for f in plain.findings]
        assert as_list.summary == plain.summary


def test_scans_table_columns_equal_the_frame_of_rows(tmp_path: Path) -> None:
    paths = sorted(p for p in FIXTURES.iterdir() if p.is_dir()) + _mutants(tmp_path, 30)
    results = _imports(paths)
    assert len(results) >= 10
    for res in results:
        table = scans_columns(res.experiment)
        assert table.plain
        frame = scans_table(res.experiment)
        pd.testing.assert_frame_equal(table.frame(), frame, check_exact=True)
        assert list(table.dtype_names) == [str(d) for d in frame.dtypes]


def test_lazy_table_is_built_once_when_first_read() -> None:
    calls = []

    def build() -> tuple[PlainColumn, ...]:
        calls.append(1)
        values = np.array([1.5, math.nan])
        values.setflags(write=False)
        return (PlainColumn("x", values, "float64"),)

    table = Table.of_lazy_columns(build, range(2))
    assert len(table) == 2 and table.plain and not calls  # nothing built yet
    assert table.labels == ("x",)
    np.testing.assert_array_equal(table.column(0), [1.5, math.nan])
    assert table.frame()["x"].tolist()[0] == 1.5
    assert calls == [1]


_BAD_CELLS = ("x", "", " 1.5", "1e400", "nan", "a" * 80, "0x10")
#: Cells the numpy path leaves to ``float()`` but that are fine numbers.
_ODD_CELLS = ("1e-3", "+0.5", "0.25 ", ".5", "5.")


def _table_with_bad_lines(folder: Path, rng: random.Random, cells_of: tuple[str, ...]) -> Path:
    folder.mkdir()
    (folder / "manifest.json").write_text(
        (FIXTURES / "long_csv" / "manifest.json").read_text(encoding="utf-8"), encoding="utf-8")
    lines = ["scan,radius_cm,signal,elapsed_seconds"]
    for k in range(rng.randint(2000, 6000)):
        cells = [f"s{k // 50}", f"{5.9 + (k % 50) / 100:.2f}", f"{rng.random():.3f}",
                 str(k // 50 * 60)]
        if rng.random() < 0.01:
            cells[rng.randrange(1, 4) if cells_of is _BAD_CELLS else 2] = rng.choice(cells_of)
        lines.append(",".join(cells))
    (folder / "scans.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("seed", range(6))
def test_suspect_lines_read_as_line_by_line(tmp_path: Path, seed: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A table with malformed (or merely unusual) lines here and there gives the findings
    and the experiment of reading every line on its own (the numpy path switched off)."""
    from inspector.formats.delimited import fastrows, layouts

    cells_of = _BAD_CELLS if seed % 2 else _ODD_CELLS
    folder = _table_with_bad_lines(tmp_path / "t", random.Random(seed), cells_of)
    searched: list[int] = []
    suspects = fastrows.suspects
    monkeypatch.setattr(fastrows, "suspects",
                        lambda *a: searched.append(1) or suspects(*a))  # type: ignore[func-returns-value]
    mixed = run_import(folder)
    assert bool(searched) == (cells_of is _BAD_CELLS)  # refused blocks are searched
    monkeypatch.setattr(layouts, "_fast_long_block", lambda *a: False)
    plain = run_import(folder)
    assert [f.to_json() for f in mixed.findings] == [f.to_json() for f in plain.findings]
    assert mixed.stages.has_errors == (cells_of is _BAD_CELLS)
    if not mixed.stages.has_errors:
        a, b = mixed.experiment, plain.experiment
        assert list(a.scans) == list(b.scans) and a.scan_ids == b.scan_ids
        np.testing.assert_array_equal(a.signal, b.signal)
        np.testing.assert_array_equal(a.radius, b.radius)
