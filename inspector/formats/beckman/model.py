"""Turn one group of scan files into the canonical :class:`AucExperiment`.

Per scan (canonical model ``openauc==0.1.0a1``, ``ScanMetadata``): the scan id
and source file are the file name; elapsed time (s), temperature (degC), rotor
speed (rpm) and wavelength (nm) come from line 2 as recorded (UltraScan rounds
the speed to 100 rpm; this reader does not); cell from line 2 (equal to the
name's digit), channel from the name's letter (unset when there is none);
optical system and signal unit from the file type: RA absorbance ``AU``, RI
intensity ``instrument_unit``, IP interference ``fringe``, FI fluorescence
``instrument_unit``.  The observations are per-scan: each scan keeps its own
recorded radii (cm), never interpolated or sorted.  What the model has no
field for is said in the import provenance: omega^2t and the count are kept
verbatim as scan annotations, the description line as the experiment
description (or as a scan annotation where the files differ), and the third
data column is not exported.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from inspector import __version__
from inspector.formats.auc.model import AucExperiment
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.beckman.names import SCAN_TYPES
from inspector.formats.beckman.run import Group, Run, number_text
from inspector.formats.beckman.scanfile import ScanFile
from inspector.formats.findings import Severity

#: ``provenance.parser_name`` of this reader.
PARSER_NAME = "beckman-xl"
#: What each type's third column holds, in words.
THIRD_COLUMN = {"std_dev": "standard deviation", "second_reading": "second intensity reading",
                "third_column": "third column (ignored by UltraScan)"}


def quantity(value: float, unit: str) -> dict[str, Any]:
    """A present, supplied quantity ``{value, unit, unit_label, status, provenance}``."""
    return {"value": float(value), "unit": unit, "unit_label": None, "status": "present",
            "provenance": "supplied"}


def format_time(dt: datetime) -> str:
    """ISO-8601 as the reference model writes it (``...T12:00:00Z``, microseconds if any)."""
    dt = dt.astimezone(UTC) if dt.tzinfo else dt.replace(tzinfo=UTC)
    text = dt.strftime("%Y-%m-%dT%H:%M:%S")
    return text + (f".{dt.microsecond:06d}" if dt.microsecond else "") + "Z"


def common_description(files: list[ScanFile]) -> str | None:
    """The description line when every file has the same one, else None."""
    texts = {f.description for f in files}
    return next(iter(texts)) if len(texts) == 1 else None


def _scan(f: ScanFile, index: int, shared: str | None) -> dict[str, Any]:
    """The scan object of ``f`` (reference ``to_dict()`` form)."""
    h = f.header
    assert h is not None
    stype = SCAN_TYPES[f.name.type]
    notes = [f"omega2t_rad2_per_s={h.fields[5]}", f"count={h.fields[7]}"]
    if shared is None:
        notes.append(f"description={f.description}")
    return {
        "scan_id": f.name.name,
        "index": index,
        "elapsed_time": quantity(h.seconds, "s"),
        "acquired_at": None,
        "cell": str(h.cell),
        "channel": f.name.channel,
        "wavelength": quantity(h.position, "nm"),
        "optical_system": stype.optical_system,
        "rotor_speed": quantity(h.rpm, "rpm"),
        "temperature": quantity(h.temperature, "degC"),
        "source_file": f.name.name,
        "annotations": notes,
    }


def padded(files: list[ScanFile], attr: str) -> np.ndarray:
    """float64 ``(scans, width)`` of one column of every file, NaN-padded on the right."""
    width = max((f.points for f in files), default=0)
    out = np.full((len(files), width), np.nan)
    for i, f in enumerate(files):
        out[i, : f.points] = getattr(f, attr)
    return out


def mask_of(files: list[ScanFile]) -> np.ndarray:
    """bool ``(scans, width)``: True where a scan has a recorded point."""
    width = max((f.points for f in files), default=0)
    counts = np.asarray([f.points for f in files], dtype=np.int64)
    return np.arange(width)[None, :] < counts[:, None]


def experiment_id(run: Run, g: Group) -> str:
    """``<run name>-<group key>`` (the files state no identifier)."""
    return f"{run.name}-{g.key}"


def _assumptions(g: Group, shared: str | None) -> list[str]:
    """The parser's assumption strings for group ``g``."""
    stype = SCAN_TYPES[g.type]
    third = sum(1 for f in g.files if f.third_points)
    out = [
        "layout: Beckman XL-A/XL-I legacy scan files (one scan per file), as UltraScan III "
        "US_DataIO::readLegacyFile reads them",
        f"group {g.key}: type {g.type} ({stype.title}), cell {g.cell}, channel "
        f"{g.channel or 'not stated'}, wavelength {number_text(g.position)} nm; "
        f"{len(g.files)} scan file(s) in file-number order",
        "data column 1 interpreted as radius in centimetres",
        f"data column 2 interpreted as {stype.optical_system} in {stype.signal_unit!r} "
        f"(from the file type {g.type})",
        "radius axis: per_scan (each scan keeps its recorded radii; nothing interpolated)",
        "rotor speed as recorded (UltraScan rounds it to the nearest 100 rpm; not done here)",
        "omega^2t (line 2 field 6, rad^2/s) has no model field: kept verbatim as scan "
        "annotation 'omega2t_rad2_per_s=...'",
        "line 2 field 8 (count; meaning not documented) kept verbatim as scan annotation "
        "'count=...'",
        "description line (line 1) kept as metadata.description" if shared is not None else
        "description lines differ between the scan files: each kept as scan annotation "
        "'description=...'",
        f"third data column ({THIRD_COLUMN[stype.third_column]}) present in {third} of "
        f"{len(g.files)} scan(s): not exported (the observations hold one value per point); "
        "it stays in the source files listed with their SHA-256",
        "experiment_id made from the run folder name and the group (the files state none)",
    ]
    if g.channel is None:
        out.append("channel: not stated in the file names (UltraScan assumes A); left unset")
    return out


_SUPPLIED = [
    "metadata.description: line 1", "scans[*].cell: line 2 field 2 and the file name",
    "scans[*].channel: the file name's letter", "scans[*].optical_system: the file name's type",
    "scans[*].temperature: line 2 field 3", "scans[*].rotor_speed: line 2 field 4",
    "scans[*].elapsed_time: line 2 field 5", "scans[*].wavelength: line 2 field 7",
    "scans[*].annotations: line 2 fields 6 and 8", "observations.radius: data column 1",
    "observations.signal: data column 2",
]


def _provenance(run: Run, g: Group, shared: str | None, when: datetime) -> dict[str, Any]:
    """The ``provenance`` object (reference ``ImportProvenance`` form)."""
    names = {f.name.name for f in g.files}
    warnings = [f"{f.location}: {f.message}" for f in run.findings
                if f.severity is Severity.WARNING and f.location.split(":")[0] in names]
    return {
        "source_path": str(run.path),
        "source_filename": run.name,
        "sha256": None,
        "source_checksums": [{"role": "scan_file", "filename": f.name.name, "algorithm": "sha256",
                              "value": f.sha256, "byte_size": f.size} for f in g.files],
        "parser_name": PARSER_NAME,
        "parser_version": __version__,
        "imported_at": format_time(when),
        "transformations": [],
        "warnings": warnings,
        "assumptions": _assumptions(g, shared),
        "supplied_values": list(_SUPPLIED),
        "converted_values": [],
        "inferred_values": ["metadata.experiment_id", "metadata.name"],
        "user_confirmed_values": [],
        "unknown_values": ["metadata.acquired_at", "metadata.experiment_type", "instrument",
                           "scans[*].acquired_at"],
    }


def build_experiment(run: Run, g: Group, imported_at: datetime | None = None) -> AucExperiment:
    """The experiment of the radial group ``g`` of ``run`` (every file read without error).

    Arrays: radius and signal float64 ``(scans, width)`` NaN-padded, mask bool
    ``(scans, width)``; radius in cm, signal in the type's unit.  The scan records are
    a :class:`~inspector.formats.auc.scan_records.ScanRecords` (columns, not a dict
    per scan).
    """
    stype = SCAN_TYPES[g.type]
    shared = common_description(g.files)
    return AucExperiment(
        metadata={"experiment_id": experiment_id(run, g), "name": run.name,
                  "description": shared, "experiment_type": "unknown", "acquired_at": None,
                  "operator": None, "notes": None},
        instrument=None,
        samples=[],
        scans=ScanRecords.of(_scan(f, i, shared) for i, f in enumerate(g.files)),
        provenance=_provenance(run, g, shared, imported_at or datetime.now(UTC)),
        mode="per_scan",
        radius_unit="cm",
        signal_unit=stype.signal_unit,
        scan_ids=[f.name.name for f in g.files],
        radius=padded(g.files, "x"),
        signal=padded(g.files, "value"),
        mask=mask_of(g.files),
    )
