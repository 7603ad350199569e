"""Line 2 of a scan file: the eight header fields.

Line 2 holds eight fields separated by whitespace (UltraScan III
``utils/us_dataIO.cpp`` ``US_DataIO::readLegacyFile``; UltraScan III wiki,
"Legacy raw data formats"): the type letter, the cell number, the temperature
(degrees Celsius), the rotor speed (rpm), the elapsed time (s), omega^2t
(rad^2/s), the wavelength (nm; the radius in cm for wavelength scans) and a
count.  UltraScan splits the line at spaces only and reads a field that is not
a number as 0; here tabs separate fields too, and a field that is not a number
is an error.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: A decimal number as the files write it (``5.8090``, ``1.1690E09``, ``3.88350E+0002``).
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
#: An integer field (cell, count).
INTEGER = re.compile(r"[+-]?\d+")
#: Digits an integer field (cell, count) may have: no instrument writes more, and
#: Python refuses to convert more than 4 300 (``sys.get_int_max_str_digits``).
MAX_INTEGER_DIGITS = 18
#: Field separators of line 2 and of data lines: spaces and tabs.
SEPARATORS = re.compile(r"[ \t]+")
#: The fields line 2 needs.
N_FIELDS = 8
#: Names of the eight fields, in order (for messages and the tree).
FIELD_NAMES = ("type letter", "cell", "temperature", "rotor speed", "elapsed time",
               "omega^2t", "wavelength", "count")
#: Type letters a header may start with (UltraScan reader notes: I P R W F; writer: V for WI).
LETTERS = frozenset("RIPWFV")


@dataclass(frozen=True)
class Header:
    """The parsed line 2 of a scan file.

    Attributes:
        letter: the type letter (``R``, ``I``, ``P``, ``F``, ``W`` or ``V``).
        cell: the cell number.
        temperature: degrees Celsius.
        rpm: the rotor speed, as recorded (not rounded).
        seconds: the elapsed time in seconds.
        omega2t: omega^2t in rad^2/s.
        position: the wavelength in nm (for WA/WI scans: the radius in cm).
        count: the eighth field (its meaning is not documented; kept verbatim).
        written: the eight fields as written, joined by one space (one string a file,
            not eight: a run holds up to 100 000 files); read through :attr:`fields`.
        extra: how many fields follow the eighth (ignored).
    """

    letter: str
    cell: int
    temperature: float
    rpm: float
    seconds: float
    omega2t: float
    position: float
    count: int
    written: str
    extra: int = 0

    @property
    def fields(self) -> tuple[str, ...]:
        """The eight fields as written (none holds a space or a tab)."""
        return tuple(self.written.split(" "))


@dataclass(frozen=True)
class HeaderProblem:
    """Why line 2 does not parse: ``kind`` is ``"fields"``, ``"value"`` or ``"negative"``."""

    kind: str
    message: str


def split_fields(text: str) -> list[str]:
    """The fields of a line, split at runs of spaces and tabs."""
    stripped = text.strip(" \t")
    return SEPARATORS.split(stripped) if stripped else []


def _number(field: str, what: str, integer: bool) -> float | int | HeaderProblem:
    """``field`` as a finite number (an int when ``integer``), or the problem."""
    pattern = INTEGER if integer else NUMBER
    if pattern.fullmatch(field) is None:
        kind = "an integer" if integer else "a decimal number"
        return HeaderProblem("value", f"line 2 {what} {field[:40]!r} is not {kind}")
    digits = len(field.lstrip("+-"))
    if integer and digits > MAX_INTEGER_DIGITS:
        return HeaderProblem("value", f"line 2 {what} {field[:20]!r}... has {digits:,} digits; "
                             f"an integer field has at most {MAX_INTEGER_DIGITS}")
    value = int(field) if integer else float(field)
    if not integer and not math.isfinite(value):
        return HeaderProblem("value", f"line 2 {what} {field[:40]!r} is not finite")
    return value


def parse_header(text: str) -> Header | HeaderProblem:
    """Parse line 2 (without its line end).

    Returns:
        The :class:`Header`, or the first :class:`HeaderProblem`: fewer than
        eight fields; a type letter that is not one letter of ``RIPWFV``; a
        field that is not a number of its kind or not finite; an integer field
        (cell, count) of more than :data:`MAX_INTEGER_DIGITS` digits; a negative rotor
        speed, elapsed time, omega^2t or wavelength.
    """
    fields = split_fields(text)
    if len(fields) < N_FIELDS:
        return HeaderProblem("fields", f"line 2 has {len(fields)} field(s); the header line "
                             f"needs {N_FIELDS} ({', '.join(FIELD_NAMES)})")
    letter = fields[0]
    if len(letter) != 1 or letter.upper() not in LETTERS:
        return HeaderProblem("value", f"line 2 type letter {letter[:40]!r} is not one of "
                             "R, I, P, F, W, V")
    values: list[float | int] = []
    for i in range(1, N_FIELDS):
        got = _number(fields[i], FIELD_NAMES[i], integer=i in (1, 7))
        if isinstance(got, HeaderProblem):
            return got
        values.append(got)
    cell, temperature, rpm, seconds, omega2t, position, count = values
    for name, value in (("rotor speed", rpm), ("elapsed time", seconds),
                        ("omega^2t", omega2t), ("wavelength", position)):
        if value < 0:
            return HeaderProblem("negative", f"line 2 {name} is negative ({value})")
    return Header(letter.upper(), int(cell), float(temperature), float(rpm), float(seconds),
                  float(omega2t), float(position), int(count), " ".join(fields[:N_FIELDS]),
                  len(fields) - N_FIELDS)
