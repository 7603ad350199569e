"""Mutants of AUCX archives and Beckman XL-A/XL-I runs for :mod:`fuzz.equivalence`.

* AUCX: half the harness's archive mutants (:mod:`fuzz.mutators.aucx`: byte and ZIP
  edits, mostly rejected), half single-value edits of the JSON members of corpus
  archives (:mod:`fuzz.aucx_model_edits`: many still load, so the scan records are
  built and exported).
* Beckman: run folders written here, one to four groups of one to twelve scan files in
  UltraScan's legacy layout (line 1 a description, line 2 the header, then radius,
  value and an optional third column), with random edits: a header field changed or
  made malformed, data lines dropped, doubled or broken, descriptions differing
  between files, a file renamed out of the scan-name pattern, elapsed times out of
  order, a second rotor speed.
"""

from __future__ import annotations

import random
from pathlib import Path

from fuzz.aucx_model_edits import make_edit, sources
from fuzz.mutators import Corpus, make_mutant

_LETTER = {"RA": "R", "RI": "I", "IP": "P", "FI": "F", "WA": "W"}


def aucx_mutant(rng: random.Random, corpus: Corpus, seed: int, index: int, case: Path) -> str:
    """One AUCX mutant in the empty folder ``case``; returns the archive's path."""
    if index % 2 == 0:
        mutant = make_mutant("aucx", corpus, seed, index, case)
        return str(case / mutant.target)
    case.mkdir(parents=True, exist_ok=True)
    out = case / "edited.aucx"
    make_edit(rng.choice(sources()), out, rng)
    return str(out)


def _header(rng: random.Random, kind: str, cell: int, seconds: int, rpm: int,
            wavelength: str) -> str:
    omega = f"{seconds * 2.7416e7:11.4E}".replace("E+", "E")
    temp = rng.choice(["20.0", "19.9", "4.0"])
    return (f"{_LETTER[kind]}{cell:2d} {temp} {rpm:>5} {seconds:07d}{omega} {wavelength:>4} "
            f"{rng.choice(['1', '3', '10'])}")


def _data(rng: random.Random, points: int, third: bool) -> list[str]:
    start = rng.choice([5.8, 5.9, 6.0])
    out = []
    for i in range(points):
        cols = [f"{start + i * 0.003:9.4f}", f"{rng.gauss(0.5, 0.2):12.5E}"]
        if third:
            cols.append(f"{abs(rng.gauss(0.005, 0.001)):13.5E}")
        out.append(" ".join(cols))
    return out


def _edit_lines(rng: random.Random, lines: list[str]) -> None:
    """One random edit of a scan file's lines (header or data)."""
    edit = rng.choice(["field", "drop", "double", "break", "description", "blank"])
    if edit == "field":
        fields = lines[1].split()
        k = rng.randrange(len(fields))
        fields[k] = rng.choice(["x", "-1", "1e999", "nan", "0", "99999999999999999999",
                                fields[k] + "0"])
        lines[1] = " ".join(fields)
    elif edit == "drop" and len(lines) > 3:
        lines.pop(rng.randrange(2, len(lines)))
    elif edit == "double" and len(lines) > 2:
        k = rng.randrange(2, len(lines))
        lines.insert(k, lines[k])
    elif edit == "break" and len(lines) > 2:
        k = rng.randrange(2, len(lines))
        lines[k] = rng.choice(["5.9 x 0.1", "6.0", "", "6.1 0.2 0.3 0.4", "nan nan"])
    elif edit == "description":
        lines[0] = rng.choice(["other description", "", "cell 2 run"])
    elif edit == "blank":
        lines.append("")


def beckman_mutant(rng: random.Random, case: Path) -> str:
    """A Beckman run folder at ``case``; returns it."""
    case.mkdir(parents=True, exist_ok=True)
    number = 1
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["RA", "RA", "RI", "IP", "FI", "WA"])
        cell, channel = rng.randint(1, 3), rng.choice(["", "A", "B"])
        wavelength = rng.choice(["280", "260", "230"])
        rpm, seconds = rng.choice([50000, 42000]), rng.randint(60, 600)
        for _ in range(rng.randint(1, 12)):
            seconds += rng.choice([60, 120, -30]) if rng.random() < 0.1 else 120
            if rng.random() < 0.05:
                rpm = 30000
            lines = [f"run {cell}", _header(rng, kind, cell, seconds, rpm, wavelength),
                     *_data(rng, rng.randint(1, 20), rng.random() < 0.7)]
            if rng.random() < 0.3:
                _edit_lines(rng, lines)
            name = f"{channel}{number:05d}.{kind}{cell}"
            if rng.random() < 0.03:
                name = f"notes{number}.txt"
            eol = "\r\n" if rng.random() < 0.3 else "\n"
            (case / name).write_bytes((eol.join(lines) + eol).encode("ascii"))
            number += rng.choice([1, 1, 1, 2])
    return str(case)
