"""Single-value edits of AUCX archives' JSON members, judged by openauc and by Inspector.

Each edit takes a corpus archive that openauc 0.1.0a1 and Inspector both accept,
changes one place of ``manifest.json``, ``experiment.json`` or ``provenance.json``
(any leaf or container: a wrong type, null, empty or very long text, an unknown
key added, a key dropped, an enumeration value known or not, a date valid or
not, numbers of every kind including ``NaN``/``Infinity`` tokens and numbers in
text), recomputes ``checksums.sha256`` and writes the ZIP again.  The verdicts
compared are openauc's (``validate_aucx(path).is_valid`` and ``load(path)``
succeeding; any exception counts as a rejection) and Inspector's
(``open_archive(path)`` then ``verify()``: ``doc.ok``).

Run a large count (prints one JSON object; exit status 1 on a disagreement)::

    python -m fuzz.aucx_model_edits --count 1000 --seed 20260601 [--export]

``--export`` also exports every accepted edit with ``inspector export`` 's
function and loads the result in openauc, and checks that every rejected
edit's export is refused with nothing written.  Edits are deterministic in
(seed, index).  openauc is a test-only dependency.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "aucx"
JSON_MEMBERS = ("manifest.json", "experiment.json", "provenance.json")
CHECKSUMS = "checksums.sha256"

#: Known values of every openauc enumeration a JSON member uses, and near misses.
ENUM_VALUES = (
    "sedimentation_velocity", "sedimentation_equilibrium", "other", "unknown",
    "absorbance", "interference", "fluorescence", "intensity", "cm", "s", "rpm", "degC",
    "nm", "cm2/s", "AU", "fringe", "instrument_unit", "calibrated_unit", "present",
    "missing", "not_applicable", "supplied", "converted", "inferred", "user_confirmed",
    "shared", "per_scan", "1.0", "sha256",
    "laser", "Absorbance", "ABSORBANCE", "RPM", "degF", "mm", "Present", "measured",
    "shared ", "perscan", "2.0", "md5",
)
DATES = (
    "2024-01-01", "2024-01-01T12:00:00", "2024-01-01T12:00:00Z", "2024-01-01T12:00:00+05:30",
    "2024-01-01T12:00:00.123456Z", "2024-01-01 12:00:00", "20240101T120000Z",
    "2024-02-30T00:00:00Z", "2024-13-01", "yesterday", "2024-01-01T25:00:00Z", "2024",
    "1700000000", "12:00:00",
)
NUMBERS: tuple[Any, ...] = (
    0, 1, -1, 2, 6, 7, 3.0, 0.5, -0.5, -0.0, 1e-300, 1e308, -1e308, 2**31, 2**63, 10**30,
    -(10**30), 1.5, 42000, 42000.0, 6.0, 200, 200.0,
    float("nan"), float("inf"), float("-inf"),
)
TEXTS: tuple[Any, ...] = (
    "", " ", "x", "a" * 10_000, "6", "-1", "3.5", " 6 ", "1_000", "1e3", "nan", "true",
    "null", "0" * 64, "f" * 64, "F" * 64, "g" * 64, "café", "\t",
)
OTHERS: tuple[Any, ...] = (None, True, False, [], [1], ["a"], [None], {}, {"bogus": 1},
                          {"value": 1.0, "unit": "s", "status": "present"})


@dataclass(frozen=True)
class Edit:
    """One edit: which archive, member and JSON path, and what was done."""

    source: str
    member: str
    path: str
    action: str
    value: str

    def describe(self) -> str:
        """``source member:path action value`` on one line."""
        return f"{self.source} {self.member}:{self.path} {self.action} {self.value}"


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every place of a JSON value (containers and leaves), root included."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))


def _text_path(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "."


def _near(value: Any, rng: random.Random) -> Any:
    """A value of the same kind, changed: another number, text, date, enum value."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return rng.choice((-value, float(value), int(value) + 1, str(value), value * 1e6))
    if isinstance(value, str):
        return rng.choice((value.upper(), value + "x", value.strip() + " ", value[:-1],
                           rng.choice(ENUM_VALUES), rng.choice(DATES)))
    return rng.choice(OTHERS)


def _new_value(old: Any, rng: random.Random) -> Any:
    pool = rng.choice(("near", "enum", "date", "number", "text", "other"))
    if pool == "near":
        return _near(old, rng)
    return rng.choice({"enum": ENUM_VALUES, "date": DATES, "number": NUMBERS,
                       "text": TEXTS, "other": OTHERS}[pool])


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = root
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return root


def _short(value: Any) -> str:
    text = json.dumps(value, allow_nan=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def edit_member(payload: Any, rng: random.Random) -> tuple[Any, str, str, str]:
    """``(new payload, path, action, value)``: one random edit of a parsed JSON member."""
    places = list(_paths(payload))
    path, old = rng.choice(places)
    actions = ["replace"] * 4
    if isinstance(old, dict):
        actions += ["add-key", "add-key", "drop-key"] if old else ["add-key"]
    if isinstance(old, list) and old:
        actions += ["drop-item", "repeat-item", "append"]
    action = rng.choice(actions)
    if action == "add-key":
        key = rng.choice(("bogus", "note", "extra_field", "Scan_id", ""))
        value = _new_value(None, rng)
        old[key] = value
        return payload, _text_path((*path, key)), action, _short(value)
    if action == "drop-key":
        key = rng.choice(sorted(old))
        del old[key]
        return payload, _text_path((*path, key)), action, ""
    if action == "drop-item":
        i = rng.randrange(len(old))
        del old[i]
        return payload, _text_path((*path, i)), action, ""
    if action == "repeat-item":
        old.append(json.loads(json.dumps(rng.choice(old))))
        return payload, _text_path(path), action, ""
    if action == "append":
        value = _new_value(None, rng)
        old.append(value)
        return payload, _text_path(path), action, _short(value)
    value = _new_value(old, rng)
    return _set(payload, path, value), _text_path(path), action, _short(value)


def read_members(path: Path) -> list[tuple[str, bytes]]:
    """The archive's members in stored order."""
    with zipfile.ZipFile(path) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def write_archive(path: Path, members: list[tuple[str, bytes]]) -> None:
    """Write ``members`` (checksums.sha256 recomputed over every other one) as a ZIP."""
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in members
               if name != CHECKSUMS}
    text = "".join(f"{digests[n]}  {n}\n" for n in sorted(digests))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, text.encode() if name == CHECKSUMS else data)


def make_edit(source: Path, out: Path, rng: random.Random) -> Edit:
    """Write one edited copy of ``source`` at ``out`` and say what was edited."""
    members = read_members(source)
    member = rng.choice(JSON_MEMBERS)
    index = next(i for i, (n, _) in enumerate(members) if n == member)
    payload, where, action, value = edit_member(json.loads(members[index][1]), rng)
    members[index] = (member, json.dumps(payload, allow_nan=True, indent=2).encode())
    write_archive(out, members)
    return Edit(source.name, member, where, action, value)


def openauc_ok(path: Path) -> bool:
    """openauc's verdict: ``validate_aucx`` valid and ``load`` succeeding."""
    import openauc

    try:
        return bool(openauc.validate_aucx(path).is_valid) and openauc.load(path) is not None
    except Exception:  # noqa: BLE001 - any exception is openauc refusing the archive
        return False


def inspector_ok(path: Path) -> bool:
    """Inspector's verdict: no error finding after the full verification."""
    from inspector.formats.aucx import open_archive

    doc = open_archive(path)
    try:
        doc.verify()
        return bool(doc.ok)
    finally:
        doc.close()


def sources() -> list[Path]:
    """Corpus archives that openauc and Inspector both accept."""
    return [p for p in sorted(CORPUS.glob("*.aucx")) if openauc_ok(p) and inspector_ok(p)]


def export_holds(path: Path, accepted: bool, folder: Path) -> str | None:
    """None when export behaves: an accepted source exports to an archive openauc
    loads; a rejected one is refused with nothing written.  Else what went wrong."""
    from inspector.formats.auc.export import ExportError, export_to_aucx

    dest = folder / "exported.aucx"
    before = set(folder.iterdir())
    try:
        export_to_aucx(path, dest, exported_at="2026-06-01T12:00:00Z")
    except ExportError as exc:
        if accepted:
            return f"an accepted source was refused: {exc}"
        left = set(folder.iterdir()) - before
        return f"a refused export left {sorted(map(str, left))}" if left else None
    if not accepted:
        return "a rejected source was exported"
    try:
        written_ok = openauc_ok(dest)
    finally:
        dest.unlink()
    return None if written_ok else "the exported archive does not load in openauc"


def run(count: int, seed: int, folder: Path, *, export: bool = False,
        start: int = 0) -> dict[str, Any]:
    """Make ``count`` edits (indices ``start`` on) in ``folder``; return the tally and
    every disagreement (and export failure)."""
    pool = sources()
    tally = {"edits": 0, "agree": 0, "both_accept": 0, "both_reject": 0,
             "exports_checked": 0}
    disagreements: list[dict[str, Any]] = []
    for index in range(start, start + count):
        rng = random.Random(f"{seed}:{index}")
        path = folder / f"edit_{index}.aucx"
        edit = make_edit(rng.choice(pool), path, rng)
        theirs, ours = openauc_ok(path), inspector_ok(path)
        tally["edits"] += 1
        if theirs == ours:
            tally["agree"] += 1
            tally["both_accept" if ours else "both_reject"] += 1
        else:
            disagreements.append({"index": index, "edit": edit.describe(),
                                  "openauc": theirs, "inspector": ours})
        if export:
            tally["exports_checked"] += 1
            why = export_holds(path, ours, folder)
            if why is not None:
                disagreements.append({"index": index, "edit": edit.describe(),
                                      "export": why})
        path.unlink()
    return {"seed": seed, **tally, "disagreements": disagreements}


def main(argv: list[str] | None = None) -> int:
    """Command line: print one JSON object; 1 when some edit disagreed."""
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m fuzz.aucx_model_edits",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--export", action="store_true",
                        help="also export every edit and check the result in openauc")
    args = parser.parse_args(argv)
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.count, args.seed, Path(tmp), export=args.export)
    result["seconds"] = round(time.monotonic() - began, 1)
    print(json.dumps(result, indent=1))
    return 1 if result["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())

