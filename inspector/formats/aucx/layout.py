"""AUCX 1.0 member names, units and timestamp rules shared by reader and writer.

Sources: AUCX 1.0 format document ("Structure", "Checksums",
"Determinism") and AUCX on-disk notes (``spec/aucx-archive.md``) §1-2.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

AUCX_FORMAT_VERSION = "1.0"
MANIFEST = "manifest.json"
EXPERIMENT = "experiment.json"
PROVENANCE = "provenance.json"
RADIUS = "arrays/radius.npy"
SIGNAL = "arrays/signal.npy"
MASK = "arrays/mask.npy"
CHECKSUMS = "checksums.sha256"

#: Payload members in write order (manifest first, checksums last).
PAYLOAD = (EXPERIMENT, PROVENANCE, RADIUS, SIGNAL, MASK)
WRITE_ORDER = (MANIFEST, *PAYLOAD, CHECKSUMS)
ARRAY_MEMBERS = {"radius": RADIUS, "signal": SIGNAL, "mask": MASK}

MODES = ("shared", "per_scan")
#: The fixed unit strings of the reference model (AUCX on-disk notes §1).
UNITS = ("cm", "s", "rpm", "degC", "nm", "cm2/s", "AU", "fringe", "instrument_unit",
         "calibrated_unit", "other", "unknown")


def parse_timestamp(value: str | datetime | None) -> datetime | None:
    """A timezone-aware datetime from an ISO-8601 string or datetime.

    ``"Z"`` and ``"+00:00"`` are both accepted.  A naive value is taken as UTC
    (the spec requires an offset).  Raises ``ValueError`` for text that is
    not ISO-8601.
    """
    if value is None:
        return None
    dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).strip())
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt


def manifest_timestamp(dt: datetime | None) -> str | None:
    """``manifest.json`` ``exported_at``: ``datetime.isoformat()`` (``+00:00``).

    Spec README "canonical export": the manifest writes ``+00:00`` while the
    provenance export record writes ``Z``.
    """
    return None if dt is None else dt.isoformat()


def record_timestamp(dt: datetime | None) -> str | None:
    """``provenance.json`` ``export.exported_at``: ISO-8601, UTC written as ``Z``.

    Other offsets are written ``+HH:MM`` (seconds of an offset dropped);
    microseconds appear only when non-zero, as six digits.  This is how the
    reference's export record serialises timestamps (observed in the corpus:
    ``2026-01-01T00:00:00Z``; ``2025-12-31T23:59:58.123456Z``).
    """
    if dt is None:
        return None
    base = dt.replace(tzinfo=None).isoformat()
    off = dt.utcoffset()
    if off is None:
        return base
    if off == timedelta(0):
        return base + "Z"
    sign = "-" if off < timedelta(0) else "+"
    minutes = abs(int(off.total_seconds())) // 60
    return f"{base}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def normalise_record_timestamp(value: object) -> object:
    """Re-write a stored timestamp string in :func:`record_timestamp` form.

    Values that are not parseable ISO-8601 strings are returned unchanged.
    """
    if not isinstance(value, str):
        return value
    try:
        return record_timestamp(parse_timestamp(value))
    except ValueError:
        return value
