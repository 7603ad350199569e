"""Write an :class:`AucExperiment` as an AUCX 1.0 archive, crash-proof and
byte-for-byte deterministically.

Layout, JSON encoding and ZIP metadata: AUCX 1.0 format document
("Structure", "Determinism", "Atomic writes") and AUCX on-disk notes
(``spec/aucx-archive.md``) §1-3; placement: :mod:`.atomicfile`.  Observed
details reproduced so a re-export of a reference archive is byte-identical:

* ``manifest.json`` ``exported_at`` is ``datetime.isoformat()`` (``+00:00``),
  ``provenance.json`` ``export.exported_at`` writes UTC as ``Z``;
* ``export.member_count`` is 6 (payload members plus the manifest);
* the import provenance is carried unchanged, in the reference model's JSON
  form (every field present, digests lower-case, timestamps with ``Z``);
* arrays are float64/bool ``.npy`` format 1.0, per-scan rows compacted left.
"""

from __future__ import annotations

import errno
import gc
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import numpy as np

import inspector
from inspector.formats.auc.model import AucExperiment, Handoff
from inspector.formats.aucx import layout as L
from inspector.formats.aucx.atomicfile import AtomicFile, new_file_mode
from inspector.formats.aucx.checksums import checksum_document
from inspector.formats.aucx.model import normalise_arrays
from inspector.formats.aucx.npyfmt import header_bytes
from inspector.formats.aucx.reader import read_archive
from inspector.formats.aucx.zipscan import MAX_MEMBER_BYTES, MAX_TOTAL_BYTES
from inspector.formats.aucx.zipwrite import ZipStreamWriter

_BLOCK = 4 << 20

#: Fields of the reference ``ImportProvenance`` JSON form, with defaults.
_IMPORT_DEFAULTS: dict[str, Any] = {
    "source_path": None, "source_filename": None, "sha256": None, "source_checksums": [],
    "parser_name": None, "parser_version": None, "imported_at": None, "transformations": [],
    "warnings": [], "assumptions": [], "supplied_values": [], "converted_values": [],
    "inferred_values": [], "user_confirmed_values": [], "unknown_values": [],
}
_CHECKSUM_DEFAULTS: dict[str, Any] = {"algorithm": "sha256", "byte_size": None}


class ArchiveWriteError(Exception):
    """The experiment cannot be written as a valid AUCX 1.0 archive, or the
    written archive failed its read-back verification (nothing is left at the
    destination)."""


def dumps(payload: Any) -> bytes:
    """Deterministic JSON (AUCX on-disk notes §2): sorted keys, indent 2, ``": "``,
    non-ASCII kept, trailing newline.  Raises ``ValueError`` for NaN/inf."""
    text = json.dumps(payload, sort_keys=True, indent=2, separators=(",", ": "),
                      ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def _norm_ts(value: Any) -> Any:
    """A timestamp string in the reference JSON form; naive stays naive."""
    if not isinstance(value, str):
        return value
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        return value
    return L.record_timestamp(dt)


def _norm_quantities(value: Any) -> Any:
    """Quantity values as floats (``{value, unit, status}`` objects), recursively."""
    if isinstance(value, dict):
        out = {k: _norm_quantities(v) for k, v in value.items()}
        if {"value", "unit", "status"} <= out.keys():
            v = out["value"]
            if isinstance(v, int) and not isinstance(v, bool):
                out["value"] = float(v)
        return out
    if isinstance(value, list | tuple):
        return [_norm_quantities(v) for v in value]
    return value


def import_record(provenance: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``provenance.json`` ``import`` object for ``provenance``.

    Every reference field is present (defaults filled: None or ``[]``),
    ``sha256`` and source-checksum values lower-case, ``imported_at`` in
    ``Z`` form; other keys are kept as given.  None stays None.
    """
    if provenance is None:
        return None
    out = {**_IMPORT_DEFAULTS, **provenance}
    if isinstance(out.get("sha256"), str):
        out["sha256"] = out["sha256"].lower()
    out["imported_at"] = _norm_ts(out.get("imported_at"))
    checks = []
    for entry in out.get("source_checksums") or []:
        if isinstance(entry, dict):
            entry = {**_CHECKSUM_DEFAULTS, **entry}
            if isinstance(entry.get("value"), str):
                entry["value"] = entry["value"].lower()
        checks.append(entry)
    out["source_checksums"] = checks
    for key, default in _IMPORT_DEFAULTS.items():
        if isinstance(default, list) and isinstance(out.get(key), tuple):
            out[key] = list(out[key])
    return out


def _scan_record(scan: dict[str, Any]) -> dict[str, Any]:
    """One scan object as ``experiment.json`` holds it (quantity values as floats,
    ``acquired_at`` in the reference JSON form)."""
    s = _norm_quantities(dict(scan))
    if "acquired_at" in s:
        s["acquired_at"] = _norm_ts(s["acquired_at"])
    return s


def _description(exp: AucExperiment) -> dict[str, Any]:
    """The ``experiment.json`` object without its ``scans``."""
    metadata = _norm_quantities(dict(exp.metadata))
    if "acquired_at" in metadata:
        metadata["acquired_at"] = _norm_ts(metadata["acquired_at"])
    return {
        "metadata": metadata,
        "instrument": _norm_quantities(exp.instrument) if exp.instrument is not None else None,
        "samples": [_norm_quantities(s) for s in exp.samples],
    }


def experiment_record(exp: AucExperiment) -> dict[str, Any]:
    """The ``experiment.json`` object: metadata, instrument, samples, scans."""
    return {**_description(exp), "scans": [_scan_record(scan) for scan in exp.scans]}


def experiment_blocks(exp: AucExperiment) -> Iterator[bytes]:
    """``dumps(experiment_record(exp))`` in blocks of about :data:`_BLOCK` bytes, one
    scan object encoded at a time (the whole text is never held: a million scans make
    about 480 MB of it).  The keys sort as ``instrument, metadata, samples, scans``, so
    the scans come last, at indent level 1 of the top-level object.

    Raises:
        ValueError, TypeError: a value cannot be encoded (as :func:`dumps`).
    """
    head = dumps(_description(exp))
    assert head.endswith(b"\n}\n")
    out = bytearray(head[:-3])
    out += b',\n  "scans": '
    first = True
    for scan in exp.scans:
        out += b"[\n    " if first else b",\n    "
        first = False
        out += dumps(_scan_record(scan))[:-1].replace(b"\n", b"\n    ")
        if len(out) >= _BLOCK:
            yield bytes(out)
            out.clear()
    out += b"[]\n}\n" if first else b"\n  ]\n}\n"
    yield bytes(out)


def _check_fields(exp: AucExperiment, signal: np.ndarray) -> list[str]:
    """Mode, units, scan ids and experiment id (AUCX on-disk notes §1)."""
    problems = []
    if exp.mode not in L.MODES:
        problems.append(f"radius axis mode {exp.mode!r} is not 'shared' or 'per_scan'")
    for what, unit in (("radius", exp.radius_unit), ("signal", exp.signal_unit)):
        if unit not in L.UNITS:
            problems.append(f"{what} unit {unit!r} is not one of {', '.join(L.UNITS)}")
    if signal.ndim != 2:
        problems.append(f"signal must be 2-D (scan, point), got {signal.ndim}-D")
    elif len(exp.scan_ids) != signal.shape[0]:
        problems.append(f"{len(exp.scan_ids)} scan id(s) for {signal.shape[0]} signal row(s)")
    if len(set(exp.scan_ids)) != len(exp.scan_ids):
        problems.append("scan ids repeat")
    if not str(exp.metadata.get("experiment_id") or "").strip():
        problems.append("metadata has no experiment_id")
    return problems


def _check_arrays(exp: AucExperiment, radius: np.ndarray, signal: np.ndarray,
                  mask: np.ndarray) -> list[str]:
    """Shapes, finiteness and sizes (AUCX 1.0 format document, "Both radius
    modes" and "Safety")."""
    problems = []
    if signal.ndim == 2 and exp.mode == "shared":
        if radius.shape != (signal.shape[1],):
            problems.append(f"shared radius shape {radius.shape} does not fit signal "
                            f"{signal.shape}")
        elif not (np.isfinite(radius).all() and np.isfinite(signal).all()):
            problems.append("shared-axis radius/signal hold non-finite values")
        if np.asarray(exp.mask).size and not np.asarray(exp.mask, dtype=bool).all():
            problems.append("shared-axis mask is not all true; export in per-scan mode "
                            "(AUCX 1.0 format, 'Both radius modes')")
    elif signal.ndim == 2:
        if radius.shape != signal.shape or mask.shape != signal.shape:
            problems.append("per-scan radius, signal and mask shapes differ")
        elif not (np.isfinite(radius[mask]).all() and np.isfinite(signal[mask]).all()):
            problems.append("a masked-in radius/signal value is non-finite")
    for what, a in (("radius", radius), ("signal", signal), ("mask", mask)):
        if a.nbytes + 128 > MAX_MEMBER_BYTES:
            problems.append(f"{what} array is {a.nbytes} bytes, above the 512 MiB member "
                            "limit readers enforce")
    if radius.nbytes + signal.nbytes + mask.nbytes > MAX_TOTAL_BYTES - (1 << 20):
        problems.append("arrays exceed the 2 GiB archive limit readers enforce")
    return problems


def _npy_blocks(a: np.ndarray) -> Iterator[bytes | memoryview]:
    yield header_bytes(a.dtype, a.shape)
    flat = memoryview(np.ascontiguousarray(a).reshape(-1).view(np.uint8).data)
    for i in range(0, len(flat), _BLOCK):
        yield flat[i : i + _BLOCK]


def _manifest(exp: AucExperiment, arrays: dict[str, np.ndarray], when: datetime | None,
              creator: tuple[str, str]) -> dict[str, Any]:
    """The ``manifest.json`` object (AUCX on-disk notes §1)."""
    software, version = creator
    signal = arrays[L.SIGNAL]
    return {
        "aucx_format_version": L.AUCX_FORMAT_VERSION,
        "created_by": {"software": software, "version": version},
        "exported_at": L.manifest_timestamp(when),
        "checksum_algorithm": "sha256",
        "parts": list(L.PAYLOAD),
        "observations": {
            "mode": exp.mode,
            "radius_unit": exp.radius_unit,
            "signal_unit": exp.signal_unit,
            "scan_ids": [str(s) for s in exp.scan_ids],
            "n_scans": int(signal.shape[0]),
            "n_points": int(signal.shape[1]),
            "arrays": {
                key: {"path": member, "dtype": str(arrays[member].dtype),
                      "shape": list(arrays[member].shape)}
                for key, member in L.ARRAY_MEMBERS.items()
            },
        },
    }


def _export_record(when: datetime | None, creator: tuple[str, str]) -> dict[str, Any]:
    """The ``provenance.json`` ``export`` object (AUCX on-disk notes §1)."""
    software, version = creator
    return {
        "aucx_format_version": L.AUCX_FORMAT_VERSION,
        "software": software,
        "software_version": version,
        "exported_at": L.record_timestamp(when),
        "checksum_algorithm": "sha256",
        "member_count": len(L.PAYLOAD) + 1,
    }


def _members(exp: AucExperiment, when: datetime | None,
             creator: tuple[str, str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The JSON members (``experiment.json`` as an iterable of encoded blocks, the others
    encoded) and the normalised arrays, checked.

    Raises:
        ArchiveWriteError: the experiment breaks an AUCX rule, or its manifest or
            provenance cannot be encoded as JSON (``experiment.json`` is encoded as it
            is written: :func:`_encoded` raises there).
    """
    radius, signal, mask = normalise_arrays(exp.mode, exp.radius, exp.signal, exp.mask)
    problems = _check_fields(exp, signal) + _check_arrays(exp, radius, signal, mask)
    if problems:
        raise ArchiveWriteError("cannot write AUCX 1.0: " + "; ".join(problems))
    arrays = {L.RADIUS: radius, L.SIGNAL: signal, L.MASK: mask}
    provenance = {"import": import_record(exp.provenance), "export": _export_record(when, creator)}
    _check_models(exp, provenance)
    json_members: dict[str, Any] = {L.MANIFEST: _encoded(lambda: dumps(_manifest(
        exp, arrays, when, creator)))}
    json_members[L.EXPERIMENT] = _Blocks(lambda: experiment_blocks(exp))
    try:
        json_members[L.PROVENANCE] = dumps(provenance)
    except (TypeError, ValueError) as exc:  # raised once the experiment is encoded
        json_members[L.PROVENANCE] = _Blocks(lambda failure=exc: _raise(failure))
    return json_members, arrays


def _raise(exc: Exception) -> Iterator[bytes]:
    """A member whose encoding failed: raises ``exc`` when it is written."""
    yield from ()
    raise exc


class _Blocks:
    """A member whose encoded blocks are made as it is written (see :func:`_encoded`)."""

    def __init__(self, make: Any) -> None:
        self.make = make

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self.make()
        except (TypeError, ValueError) as exc:
            raise ArchiveWriteError(f"cannot encode the experiment as JSON: {exc}") from exc


def _encoded(make: Any) -> bytes:
    """``make()`` (encoded JSON), an encoding failure as :class:`ArchiveWriteError`."""
    try:
        return bytes(make())
    except (TypeError, ValueError) as exc:
        raise ArchiveWriteError(f"cannot encode the experiment as JSON: {exc}") from exc


def _check_models(exp: AucExperiment, provenance: dict[str, Any]) -> None:
    """Refuse metadata openauc 0.1.0a1 could not load (:mod:`.modelcheck`), checking
    one scan at a time.

    Raises:
        ArchiveWriteError: naming the first few violations.
    """
    from inspector.formats.aucx.modelcheck import experiment_problems, provenance_problems

    problems = experiment_problems(_description(exp), (_scan_record(s) for s in exp.scans))
    problems += provenance_problems(provenance)
    if problems:
        listed = "; ".join(message for _, message, _ in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise ArchiveWriteError(f"cannot write AUCX 1.0: the metadata breaks openauc's "
                                f"models: {listed}{more}")


def _write_zip(fh: IO[bytes], json_members: dict[str, Any],
               arrays: dict[str, np.ndarray]) -> None:
    """Every member in write order, then ``checksums.sha256`` and the directory
    (a JSON member is its encoded bytes or an iterable of encoded blocks)."""
    zw = ZipStreamWriter(fh)
    digests: dict[str, str] = {}
    for name in L.WRITE_ORDER[:-1]:
        member = json_members.get(name)
        blocks = (_npy_blocks(arrays[name]) if member is None
                  else [member] if isinstance(member, bytes) else member)
        digests[name] = zw.add(name, blocks)
    zw.add(L.CHECKSUMS, [checksum_document(digests)])
    zw.close()


def _collect_cycles() -> None:
    """Free what the source's document left in reference cycles before the read-back.

    Only where the process collects automatically: the window turns automatic
    collection off and collects on its GUI thread alone (docs/runtime.md,
    ``gui-collector``), since a collection on a job thread destroys the Qt
    wrappers it finds there (a crash at export seen in a test run).
    """
    if gc.isenabled():
        gc.collect()


def write_aucx(experiment: AucExperiment | Handoff, path: str | os.PathLike[str],
               exported_at: str | datetime | None = None, overwrite: bool = False,
               creator: tuple[str, str] = ("Inspector", inspector.__version__)) -> Path:
    """Write ``experiment`` to ``path`` as an AUCX 1.0 archive; return the path.

    The archive is written to an unnamed temporary in the destination folder
    (a named one, prefix :data:`.atomicfile.TEMP_PREFIX`, where the system
    has no ``O_TMPFILE``), read back and verified in full, and only then
    linked into place (:mod:`.atomicfile`): killed at any moment, the export
    leaves the destination absent (or as it was) or complete and verified.

    Args:
        experiment: the experiment (arrays: radius float ``(points,)`` shared
            or ``(scans, points)`` per-scan, signal float ``(scans, points)``,
            mask bool ``(scans, points)``; units as given, never converted), or a
            :class:`Handoff` of it, dropped before the read-back.
        path: destination ``.aucx`` file.
        exported_at: export timestamp (ISO-8601 text or datetime; naive is
            taken as UTC); None means now, UTC.  The same experiment and
            timestamp give byte-identical archives.
        overwrite: replace an existing destination (its permission bits are
            kept); refused otherwise, atomically (a file appearing there
            meanwhile is never clobbered).
        creator: ``(software, version)`` recorded as the software that wrote
            the archive (manifest ``created_by`` and the export record).

    Raises:
        FileExistsError: the destination exists and ``overwrite`` is False.
        FileNotFoundError: the destination folder does not exist.
        ArchiveWriteError: the experiment breaks an AUCX rule, the written
            archive failed its full read-back verification, or the disk is
            full (``ENOSPC``).
        OSError: writing failed otherwise.  In every failure nothing is left
            in the folder and the destination is untouched.
    """
    dest = Path(path)
    if os.path.lexists(dest) and not overwrite:
        raise FileExistsError(f"refusing to overwrite existing file {dest}; pass overwrite=True")
    parent = dest.parent if str(dest.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"destination folder does not exist: {parent}")
    when = L.parse_timestamp(exported_at) if exported_at is not None else datetime.now(UTC)
    # a Handoff's experiment is held by ``held`` alone, and let go as the zip is written
    held = [_members(experiment.take() if isinstance(experiment, Handoff) else experiment,
                     when, creator)]
    try:
        with AtomicFile(parent) as out:
            _write_zip(out.file, *held.pop())
            _collect_cycles()
            out.finish(new_file_mode(dest))
            _verify_written(out.read_path, dest)
            out.place(dest, overwrite)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise ArchiveWriteError(f"{dest.name}: no space left in {parent} to write the "
                                    "archive; nothing was written") from exc
        raise
    return dest


def _verify_written(tmp: Path, dest: Path) -> None:
    """Read the finished temporary archive back and verify it in full.

    Raises:
        ArchiveWriteError: the archive has an error finding or did not verify.
    """
    doc, _ = read_archive(tmp, with_table=False)  # a view: no verdict rests on it
    try:
        doc.verify()
        if not (doc.ok and doc.verified):
            problems = "; ".join(f"{f.location or '-'}: {f.message}" for f in doc.findings
                                 if f.severity == "error")
            raise ArchiveWriteError(f"{dest.name}: the written archive failed read-back "
                                    f"verification: {problems}")
    finally:
        doc.close()
