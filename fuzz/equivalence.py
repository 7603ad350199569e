"""Do two checkouts of Inspector give the same reports on mutants of the corpus?

A change meant to keep every report (a faster parser, a new data layout) is checked
against the code before it: mutants of the CSV/TSV corpus (``--format csv``: random
edits of the real files in ``tests/fixtures/auc-delimited``, :mod:`fuzz.mutators.delimited`,
and scan-level edits), of the AUCX corpus (``aucx``) or Beckman XL-A/XL-I run folders
(``beckman``; both :mod:`fuzz.equivalence_sources`), or the HDF5 corpus (``hdf5``:
:mod:`fuzz.mutators.hdf5`, VneuroTK recordings and plain HDF5 files, comparing the object
tree the window shows besides the JSON line) are written, then one process per
checkout opens each as ``inspector verify --json`` does (:func:`fuzz.targets.inspect`)
and, with ``--export``, exports it as ``inspector export`` does (a fixed export time);
the JSON lines and the exported members (or the refusal) are compared byte for byte
(the import time and a Python object's address quoted in a message are the only things
that differ between two runs, and are written the same in both)::

    git worktree add /tmp/before <commit>
    python -m fuzz.equivalence --old /tmp/before --format beckman --export --count 500 --seed 7
    python -m fuzz.equivalence --old /tmp/before --format hdf5 --count 500 --seed 7

Prints ONE JSON object: the settings, ``mutants``, ``identical``, ``different``,
``imported`` (mutants whose source was imported: the scan records were built),
``exported`` (with ``--export``: mutants written as an archive),
``rejected`` (error findings) and up to ten ``examples`` of differences (mutant,
first differing character).  Exit status 0 when every report was identical, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fuzz.equivalence_sources import aucx_mutant, beckman_mutant
from fuzz.mutators import load_corpus, make_mutant

_CHILD = """
import hashlib, json, os, re, sys, zipfile
from pathlib import Path
sys.path.insert(0, {root!r})
from fuzz.targets import inspect, warm_up
from inspector.cli import json_line
from inspector.formats import open_document
from inspector.formats.decoding.workers import worker_pool
warm_up()
STAMP = re.compile(rb'"imported_at": "[^"]*"')

def export(path):
    from inspector.formats.auc.export import export_to_aucx
    dest = Path(path + ".exported.aucx")
    try:
        export_to_aucx(Path(path), dest, exported_at="2026-01-02T03:04:05Z")
    except Exception as exc:  # noqa: BLE001 - a refusal is compared as its message
        return " export refused: " + str(exc)
    with zipfile.ZipFile(dest) as zf:
        parts = [name + ":" + hashlib.sha256(STAMP.sub(b"-", zf.read(name))).hexdigest()
                 for name in zf.namelist() if name != "checksums.sha256"]
    os.unlink(dest)
    return " export " + " ".join(parts)


def tree_lines(node, out, depth=0):
    out.append("  " * depth + repr((node.name, node.kind, node.location, repr(node.value),
                                    node.detail, repr(getattr(node, "target", None)))))
    for child in node.children:
        tree_lines(child, out, depth + 1)
    return out


def with_tree(path):
    with worker_pool(), open_document(path) as doc:
        doc.verify()
        line = json_line(doc.to_json())
        tree = doc.tree
        return line + "\\n" + "\\n".join(tree_lines(tree, []) if tree is not None else [])


for line in sys.stdin:
    path = line.rstrip("\\n")
    try:
        out = with_tree(Path(path)) if {tree!r} else inspect(Path(path)).line
    except Exception as exc:  # noqa: BLE001 - an escaped exception is a report too
        out = "escaped " + type(exc).__name__
    if {export!r}:
        out += export(path)
    print(json.dumps(out), flush=True)
"""
_STAMP = re.compile(r'"imported_at": "[^"]*"')
#: A Python object's address quoted in a message (``<_io.BytesIO object at 0x7f...>``):
#: differs from run to run.
_ADDRESS = re.compile(r" object at 0x[0-9a-f]+")


def _reports(root: Path, paths: list[str], export: bool = False, tree: bool = False) -> list[str]:
    """The verify-JSON line of each path (and what exporting it gave; with ``tree``, the
    document's object tree), from a process running the checkout ``root``."""
    child = _CHILD.format(root=str(root), export=export, tree=tree)
    proc = subprocess.run([sys.executable, "-c", child],
                          input="\n".join(paths) + "\n", capture_output=True, text=True,
                          cwd=root, check=False, timeout=3600)
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    if len(lines) != len(paths):
        raise RuntimeError(f"{root}: {len(lines)} reports for {len(paths)} mutants\n"
                           f"{proc.stderr[-2000:]}")
    return [_ADDRESS.sub(" object at 0x-", _STAMP.sub('"imported_at": "-"', x)) for x in lines]


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


#: Long-format seeds of the corpus that import (the scan-level edits start from them).
_LONG_SEEDS = ("long_csv", "per_scan", "readiness_rich", "demo_experiment", "detect_long")
#: ``(valid, invalid)`` values of each optional column ("" is blank: no value).
_OPTIONAL_VALUES = {
    "elapsed_seconds": (("0", "600", "1200.5", "1e3", ""), ("-1", "nan", "abc", " 7")),
    "cell": (("1", "2", "A", ""), (" 1",)),
    "channel": (("A", "B", ""), ()),
    "wavelength_nm": (("280", "260", ""), ("-5", "inf", "x")),
    "optical_system": (("absorbance", "interference", "Absorbance", ""), ("laser",)),
    "rotor_speed_rpm": (("50000", "42000", ""), ("-1",)),
    "temperature_c": (("20", "4.5", "-3", ""), ("nan",)),
    "acquisition_timestamp": (("2024-01-02T03:04:05", "2024-01-02", ""), ("yesterday",)),
    "source_scan_id": (("r1", "r2", ""), ()),
    "signal_unit": (("absorbance_unit", ""), ("AU",)),
}
_DEFAULTS = {"cell": ("1", "2", None), "channel": ("A", "B", None),
             "wavelength_nm": (280.0, 260.0, None, -1.0), "rotor_speed_rpm": (50000, None),
             "temperature_c": (20.0, None), "optical_system": ("absorbance", "interference",
                                                                None)}


def scan_mutant(rng: random.Random, seed: Path, case: Path) -> str:
    """A mutant of a long-format seed made by scan-level edits (optional columns added with
    per-scan or random values, rows dropped, doubled or moved to another scan, radii
    repeated, manifest defaults set): most still import, so the scan records are built.
    Returns the folder."""
    shutil.copytree(seed, case)
    manifest_path = case / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    data = case / manifest.get("data_file", "scans.csv")
    delim = "\t" if data.suffix == ".tsv" else ","
    lines = data.read_text(encoding="utf-8").splitlines()
    header, rows = lines[0].split(delim), [x.split(delim) for x in lines[1:] if x.strip()]
    for _ in range(rng.randint(1, 4)):
        edit = rng.choices(["column", "default", "drop", "double", "move", "radius"],
                           weights=[55, 20, 10, 5, 5, 5])[0]
        if edit == "column" and rows:
            name = rng.choice([c for c in _OPTIONAL_VALUES if c not in header] or ["cell"])
            if name in header:
                continue
            per_scan = rng.random() < 0.9
            valid, invalid = _OPTIONAL_VALUES[name]
            chosen: dict[str, str] = {}
            header.append(name)
            for row in rows:
                pick = rng.choice(invalid if invalid and rng.random() < 0.05 else valid)
                row.append(chosen.setdefault(row[0], pick) if per_scan else pick)
        elif edit == "default":
            key = rng.choice(list(_DEFAULTS))
            manifest.setdefault("defaults", {})[key] = rng.choice(_DEFAULTS[key])
        elif edit == "drop" and len(rows) > 1:
            rows.pop(rng.randrange(len(rows)))
        elif edit == "double" and rows:
            k = rng.randrange(len(rows))
            rows.insert(rng.randrange(len(rows)), list(rows[k]))
        elif edit == "move" and rows:
            rows[rng.randrange(len(rows))][0] = rng.choice(["scan_new", rows[0][0],
                                                            rows[-1][0]])
        elif edit == "radius" and len(rows) > 1:
            a, b = rng.randrange(len(rows)), rng.randrange(len(rows))
            rows[a][1] = rows[b][1]
    data.write_text("\n".join(delim.join(r) for r in [header, *rows]) + "\n",
                    encoding="utf-8")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return str(case)


def _mutant(fmt: str, fixtures: Path, corpus: Any, seed: int, index: int, case: Path) -> str:
    """Mutant ``index`` of format ``fmt`` written at ``case``; its path."""
    rng = random.Random(f"equivalence/{seed}/{index}" if fmt == "csv"
                        else f"equivalence/{fmt}/{seed}/{index}")
    if fmt == "aucx":
        return aucx_mutant(rng, corpus, seed, index, case)
    if fmt == "beckman":
        return beckman_mutant(rng, case)
    if fmt == "hdf5":  # structure and byte edits of the HDF5 corpus
        return str(case / make_mutant("hdf5", corpus, seed, index, case).target)
    if index % 2:
        seed_dir = fixtures / "auc-delimited" / rng.choice(_LONG_SEEDS)
        return scan_mutant(rng, seed_dir, case)
    mutant = make_mutant("csv", corpus, seed, index, case)
    return str(case / mutant.target)


def run(old: Path, new: Path, count: int, seed: int, out: Path, fmt: str = "csv",
        export: bool = False) -> dict[str, Any]:
    """Write ``count`` mutants of ``fmt`` into ``out`` (CSV/TSV: half by the harness's
    mutators, half by :func:`scan_mutant`) and compare the two checkouts' reports (and,
    with ``export``, what exporting each gave; for HDF5, the object trees too)."""
    fixtures = new / "tests" / "fixtures"
    corpus = load_corpus(fixtures)
    paths = [_mutant(fmt, fixtures, corpus, seed, index, out / f"m{index:05d}")
             for index in range(count)]
    tree = fmt == "hdf5"
    before, after = _reports(old, paths, export, tree), _reports(new, paths, export, tree)
    result: dict[str, Any] = {"old": str(old), "new": str(new), "seed": seed, "format": fmt,
                              "export": export, "mutants": count, "identical": 0,
                              "different": 0, "exported": 0,
                              "imported": 0, "rejected": 0, "examples": []}
    for path, a, b in zip(paths, before, after, strict=True):
        if a == b:
            result["identical"] += 1
        else:
            result["different"] += 1
            if len(result["examples"]) < 10:
                at = _first_difference(a, b)
                result["examples"].append({"mutant": path, "at": at, "old": a[at - 80:at + 80],
                                           "new": b[at - 80:at + 80]})
        if tree:  # verified OK, or with an error finding
            result["rejected" if '"ok": false' in b.split("\n", 1)[0] else "imported"] += 1
        else:
            result["imported" if '"experiment_id"' in b else "rejected"] += 1
        result["exported"] += " export manifest.json:" in b
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.equivalence", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, required=True, help="checkout of the code before")
    parser.add_argument("--new", type=Path, default=Path.cwd(),
                        help="checkout of the code after (default: here)")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=("csv", "aucx", "beckman", "hdf5"), default="csv",
                        help="the corpus mutated (default: csv)")
    parser.add_argument("--export", action="store_true",
                        help="also export each mutant and compare the archives' members")
    parser.add_argument("--out", type=Path, default=None, help="folder for the mutants")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="equivalence-") as tmp:
        out = args.out or Path(tmp)
        result = run(args.old.resolve(), args.new.resolve(), args.count, args.seed, out,
                     args.format, args.export)
    print(json.dumps(result))
    return 0 if result["different"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
