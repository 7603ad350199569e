"""Scan file names and scan types of the Beckman XL-A/XL-I legacy layout.

A scan file is named: an optional channel letter ``A``-``J`` (fluorescence
runs), 4 to 6 digits (the scan number), a dot, the two-letter type and the
cell digit, e.g. ``00012.RA1`` or ``A00003.FI2``; the name is matched without
regard to case (UltraScan III ``utils/us_convert.cpp``
``US_Convert::readLegacyData``, which upper-cases the name first; UltraScan III
wiki, "Legacy raw data formats").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The scan file name pattern (matched on the upper-cased name).
NAME_PATTERN = re.compile(r"^([A-J]?)(\d{4,6})\.(RA|RI|IP|FI|WA|WI)(\d)$")


@dataclass(frozen=True)
class ScanType:
    """One scan type: what the file holds and how the model names it.

    Attributes:
        code: the file-name type (``"RA"``...).
        letters: the line-2 type letters written for it (UltraScan III
            ``programs/us_export_legacy/us_export.cpp``; WI is written ``V``
            there, while the reader's notes list ``W`` for wavelength scans).
        title: what it is, in words.
        optical_system: the canonical model's optical system.
        signal_unit: the canonical model's signal unit for the value column.
        radial: True for radial scans (value against radius in cm); False for
            wavelength scans (value against wavelength in nm at one radius).
        third_column: what the optional third data column holds.
    """

    code: str
    letters: tuple[str, ...]
    title: str
    optical_system: str
    signal_unit: str
    radial: bool
    third_column: str


#: The six scan types, in the order groups are listed.
SCAN_TYPES: dict[str, ScanType] = {t.code: t for t in (
    ScanType("RA", ("R",), "radial absorbance", "absorbance", "AU", True, "std_dev"),
    ScanType("RI", ("I",), "radial intensity", "intensity", "instrument_unit", True,
             "second_reading"),
    ScanType("IP", ("P",), "interference", "interference", "fringe", True, "third_column"),
    ScanType("FI", ("F",), "fluorescence intensity", "fluorescence", "instrument_unit", True,
             "std_dev"),
    ScanType("WA", ("W",), "wavelength absorbance", "absorbance", "AU", False, "std_dev"),
    ScanType("WI", ("W", "V"), "wavelength intensity", "intensity", "instrument_unit", False,
             "std_dev"),
)}

#: Position of each type in :data:`SCAN_TYPES` (sort key of groups).
TYPE_ORDER = {code: i for i, code in enumerate(SCAN_TYPES)}


@dataclass(frozen=True)
class ScanName:
    """What a scan file's name states.

    Attributes:
        name: the file name as found.
        channel: the channel letter (upper case), or None when the name has none.
        number: the scan number (the digits as an int).
        type: the two-letter type (upper case).
        cell: the cell digit.
    """

    name: str
    channel: str | None
    number: int
    type: str
    cell: int


def parse_name(name: str) -> ScanName | None:
    """The parts of a scan file name, or None when ``name`` is not one."""
    m = NAME_PATTERN.match(name.upper())
    if m is None:
        return None
    letter, digits, kind, cell = m.groups()
    return ScanName(name, letter or None, int(digits), kind, int(cell))
