"""AUC sources at the largest sizes the readers accept: AUCX archives and Beckman runs.

* an AUCX archive of 1 000 000 scans (experiment.json about 480 MB, parsed as it
  inflates; 40 000 scans at small scale, still above the 16 MiB parsed in memory);
* exporting a CSV table of 1 000 000 scans to AUCX (``inspector export``; 5 000 at
  small scale);
* a Beckman run folder of 100 000 scan files (Inspector's limit per folder; 2 000 at
  small scale);
* the window opening the AUCX archive (2 000 scans at small scale).

The archive is written by Inspector's own writer (its read-back verification skipped:
the case's ``verify`` is that check).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fuzz.hostile.case import HostileCase, Scale, static_target
from fuzz.hostile.tables import _manifest
from inspector.formats.auc.model import AucExperiment

STAMP = "2026-01-02T03:04:05Z"


def _experiment(n: int) -> AucExperiment:
    """``n`` scans of one point (radius 6.0 cm), each with its elapsed time and cell."""
    from inspector.formats.auc.scan_records import ScanRecords, coded, integers, quantities

    index = np.arange(n)
    ids = [f"s{i:07d}" for i in range(n)]
    elapsed = {"value": None, "unit": "s", "unit_label": None, "status": "present",
               "provenance": "supplied"}
    scans = ScanRecords.from_columns(n, {
        "scan_id": coded(index, ids),
        "index": integers(index),
        "elapsed_time": quantities(np.ones(n, dtype=bool), elapsed, index * 60.0,
                                   np.zeros(n, dtype=np.int32), []),
        "cell": coded(index % 2, ["1", "2"]),
        "optical_system": coded(np.zeros(n, dtype=np.int32), ["absorbance"]),
    })
    signal = ((index % 997) / 1000.0).reshape(n, 1)
    return AucExperiment(
        metadata={"experiment_id": "hostile-archive", "name": "hostile"}, instrument=None,
        samples=[], scans=scans, provenance=None, mode="shared", radius_unit="cm",
        signal_unit="AU", scan_ids=ids, radius=np.array([6.0]), signal=signal,
        mask=np.ones((n, 1), dtype=bool))


def write_archive(path: Path, n: int) -> Path:
    """An AUCX archive of ``n`` one-point scans at ``path`` (not read back)."""
    from inspector.formats.aucx import writer

    verify = writer._verify_written
    writer._verify_written = lambda *_: None  # the case's own verify reads it back
    try:
        writer.write_aucx(_experiment(n), path, exported_at=STAMP)
    finally:
        writer._verify_written = verify
    return path


def _archive(folder: Path, scale: Scale) -> Path:
    return write_archive(folder / "million.aucx", 1_000_000 if scale == "full" else 40_000)


def _window_archive(folder: Path, scale: Scale) -> Path:
    return write_archive(folder / "scans.aucx", 1_000_000 if scale == "full" else 2_000)


def write_scans_csv(path: Path, scans: int) -> Path:
    """Write ``path``: a long CSV table of ``scans`` one-point scans (``s0000000``, ...),
    10 000 rows at a time."""
    with path.open("w", encoding="ascii") as fh:
        fh.write("scan,radius_cm,signal,elapsed_seconds\n")
        for start in range(0, scans, 10_000):
            fh.write("".join(f"s{i:07d},6.0,0.{i % 997:03d},{i}\n"
                             for i in range(start, min(start + 10_000, scans))))
    return path


def _csv_scans(folder: Path, scale: Scale) -> Path:
    """A long CSV of 1 000 000 one-point scans (5 000 at small scale)."""
    _manifest(folder)
    write_scans_csv(folder / "scans.csv", 1_000_000 if scale == "full" else 5_000)
    return folder


def _beckman_files(folder: Path, scale: Scale) -> Path:
    """A run folder of 100 000 RA scan files of 20 points each (2 000 at small scale)."""
    files = 100_000 if scale == "full" else 2_000
    run = folder / "run"
    run.mkdir()
    body = "".join(f"{5.9 + 0.01 * k:9.4f} {0.5 + k / 100:12.5E} {0.005:13.5E}\n"
                   for k in range(20))
    for i in range(files):
        seconds = 60 * (i + 1)
        line2 = (f"R 1 20.0 50000 {seconds:07d}{seconds * 2.7416e7:11.4E} 280 1"
                 .replace("E+", "E"))
        (run / f"{i + 1:06d}.RA1").write_text(f"many files\n{line2}\n{body}",
                                              encoding="ascii")
    return run


_VERIFY = ("verify", "--json", "{target}")

CASES = (
    HostileCase(
        name="aucx-million-scans", area="tables", build=static_target(_archive),
        commands=(_VERIFY,), time_limit_s=900.0,
        description="an AUCX archive of 1 000 000 scans (40 000 at small scale)",
    ),
    HostileCase(
        name="aucx-export-million-scans", area="tables", build=static_target(_csv_scans),
        commands=(("export", "--exported-at", STAMP, "{target}", "{out}.aucx"),),
        exit_codes=frozenset({0}), time_limit_s=1800.0,
        description="exporting a CSV table of 1 000 000 scans to AUCX (5 000 at small "
                    "scale)",
    ),
    HostileCase(
        name="beckman-100000-files", area="tables", build=static_target(_beckman_files),
        commands=(_VERIFY,), time_limit_s=900.0,
        description="a Beckman run folder of 100 000 scan files (2 000 at small scale)",
    ),
    HostileCase(
        name="aucx-million-scans-window", area="tables",
        build=static_target(_window_archive),
        commands=(("--screenshot", "{out}.png", "{target}"),), time_limit_s=1800.0,
        description="the window opening an AUCX archive of 1 000 000 scans (2 000 at "
                    "small scale)",
    ),
)
