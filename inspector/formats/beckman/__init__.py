"""Beckman Coulter XL-A/XL-I (ProteomeLab) legacy raw scans (format id ``beckman-xl``).

A run folder holds one text file per scan, named ``[A-J]NNNNN.TTc`` (an
optional channel letter, 4 to 6 digits, a dot, the type ``RA``/``RI``/``IP``/
``FI``/``WA``/``WI`` and the cell digit).  Line 1 is free text, line 2 eight
header fields, then one line per point.  The scans are grouped by type, cell,
channel and wavelength, one AUC experiment per group; the document offers the
first group (:func:`open_run` opens another) with its own radius axis per
scan, never interpolated, and exports it to AUCX.  Every rule is in
:mod:`.rules`.

What the sources say (UltraScan III, fetched ``ehb54/ultrascan3``:
``utils/us_dataIO.cpp`` ``readLegacyFile``, ``utils/us_convert.cpp``
``readLegacyData``/``setCcwTriples``/``convert``,
``programs/us_export_legacy/us_export.cpp``; the UltraScan III wiki page
"Legacy raw data formats"), and what this reader does with it (details in
``README.md`` beside this file):

Confirmed
    File names (regex ``^[A-J]?\\d{4,6}\\.(?:RA|RI|IP|FI|WA|WI)\\d$`` on the
    upper-cased name), the channel letter (UltraScan takes the first letter as
    the channel, 'A' when there is none; the wiki: fluorescence names carry
    it), the cell digit ending the extension; line 1 a free description (the
    wiki: fluorescence runs embed run settings there); line 2 split into at
    least eight fields read as type letter, cell, temperature, rpm, seconds,
    omega^2t, wavelength (the radius for wavelength scans) and count; data
    lines of radius, value and an optional third column (standard deviation;
    UltraScan takes RI's third column as the second channel's intensity,
    channel B, and ignores it for IP); wavelengths of a multi-wavelength run
    interleaved over consecutive file numbers, told apart only by field 7.
Contradicted or narrower in the sources
    UltraScan splits line 2 at spaces only and a data line at spaces, or at
    tabs when that gives one field; a field that is no number becomes 0, and a
    scan ends at its first line with fewer than two fields.  UltraScan rounds
    the speed to 100 rpm, merges wavelengths within a tolerance (5 nm by
    default), sorts a triple's scans by time and interpolates every scan onto
    a 0.001 cm grid.  This reader splits at spaces and tabs, reports what
    UltraScan would read as 0 or drop, keeps speeds as recorded, groups by the
    exact value, keeps file-number order and never interpolates.
Left open
    The count (field 8): UltraScan's notes call it the "actual number of
    readings", the wiki's example has 1 with many data lines, and UltraScan's
    writer always writes 3; it is kept verbatim (scan annotation ``count=``),
    never compared with the point count.  The type letter: UltraScan's
    reader notes list I P R W F and never check it against the file name;
    its writer writes R, I, P, F, W for RA, RI, IP, FI, WA and V for WI.
    Here a letter that contradicts the file type is an error (WI accepts W
    or V).  IP files: UltraScan reads line 2 the same way and parses the
    radial step from the second word of line 1 when it is there; the meaning
    of field 7 (the laser wavelength?) is not documented.

Entry points: :func:`open_run` -> :class:`~inspector.formats.document.Document`
(never raises); :func:`load_run` -> :class:`~inspector.formats.auc.model.
AucExperiment` (raises :class:`BeckmanError`).
"""

from __future__ import annotations

import importlib
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions
from inspector.formats.remote.path import as_source

if TYPE_CHECKING:
    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.beckman.view import BeckmanError

__all__ = ["READER", "BeckmanError", "BeckmanReader", "load_run", "open_run"]


def __getattr__(name: str) -> Any:
    """``BeckmanError``, imported with numpy on first use (PEP 562): the registry
    imports this package for ``READER`` alone."""
    if name == "BeckmanError":
        return importlib.import_module(f"{__name__}.view").BeckmanError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_run(path: str | os.PathLike[str], group: str | None = None, *,
             imported_at: datetime | None = None) -> Document:
    """Open a Beckman run folder (or one scan file) as a :class:`Document` (``beckman-xl``).

    Args:
        path: a folder of scan files, or one scan file (a run of one scan).
        group: the key of the group to offer, as listed in ``tables["groups"]``
            and the header (``"RA1-280"``: type, cell, channel letter if any,
            ``-``, the wavelength in nm or, for WA/WI, the radius in cm);
            None offers the first group.  An unknown key is the error finding
            ``beckman.group-not-found``.
        imported_at: the provenance import time; now (UTC) when omitted.

    Returns:
        The document: ``findings``; ``tree`` (every scan file: size, SHA-256,
        description, header fields); ``header``; ``tables["groups"]`` and, for
        the offered group, ``tables["scans"]``; ``arrays`` (``radius`` (cm) or
        ``wavelength`` (nm), ``signal``, third column: float64 ``(scans,
        width)`` NaN-padded; ``mask`` bool); for a radial group ``export``,
        and when its files read without error ``auc`` and ``provenance``.

    Never raises for bad input.
    """
    from inspector.formats.beckman.run import read_run
    from inspector.formats.beckman.view import build_document

    return build_document(read_run(as_source(path), group), imported_at)


def load_run(path: str | os.PathLike[str], group: str | None = None, *,
             imported_at: datetime | None = None) -> AucExperiment:
    """The experiment of one group of a run (strict API).

    Raises:
        BeckmanError: the run has an error finding, or the group is not a
            radial one; its ``findings`` list every finding.
    """
    from inspector.formats.beckman.view import BeckmanError

    doc = open_run(path, group, imported_at=imported_at)
    if not doc.ok or doc.export is None:
        errors = [f for f in doc.findings if f.severity == "error"]
        first = f"{errors[0].location}: {errors[0].message}" if errors else "no radial group"
        raise BeckmanError(f"{doc.name}: not exportable: {first}", doc.findings.as_list())
    return doc.export.load()


class BeckmanReader:
    """The registry's reader for Beckman XL-A/XL-I legacy scan folders and files."""

    format_id = str(FormatId.BECKMAN)
    display_name = "Beckman XL-A/XL-I scans"
    file_patterns = ("*.RA[0-9]", "*.RI[0-9]", "*.IP[0-9]", "*.FI[0-9]", "*.WA[0-9]",
                     "*.WI[0-9]", "*.ra[0-9]", "*.ri[0-9]", "*.ip[0-9]", "*.fi[0-9]",
                     "*.wa[0-9]", "*.wi[0-9]")
    #: Names a folder walk reports whatever the file holds
    #: (:mod:`inspector.formats.sources.discovery`).
    walk_patterns = file_patterns
    priority = 25
    opens_folders = True
    #: Opens folder URLs (``s3://bucket/run/``, ``https://host/run/``) from their listing.
    lists_remote_folders = True

    def sniff(self, path: Path) -> bool:
        """True for a scan file whose line 2 parses, or a folder holding one."""
        from inspector.formats.beckman.sniff import is_beckman_source

        return is_beckman_source(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """:func:`open_run` with the first group (``options`` has nothing for this format)."""
        return open_run(path)

    def mismatch_reason(self, path: Path) -> str:
        """Why ``path`` is not a Beckman run, for ``format.unrecognised``."""
        return "not a Beckman XL-A/XL-I scan file or folder"


READER = BeckmanReader()
