"""Mutants of CSV/TSV AUC sources: a copy of a source folder with its table or manifest edited.

The case folder holds ``src/`` (the mutated copy of a seed folder of
``auc-delimited/``) and sometimes siblings a hostile manifest points at
(``outside.csv`` for a ``data_file`` of ``../outside.csv``).  The input that
Inspector opens is ``src/`` itself, its manifest or its data file.

Table edits follow openauc 0.1.0a1 docs/formats/generic-delimited.md (cells,
header, rows, delimiters, quoting, line endings, encodings, NUL bytes, huge
cells); manifest edits follow manifest-v1.md (wrong types, NaN, deep nesting,
huge integers, hostile ``data_file`` values) and, for YAML, anchors and
aliases (alias bombs, recursive aliases, merge keys), tags, complex keys and
multiple documents.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

from fuzz.mutators import values
from fuzz.mutators.bytelevel import mutate_bytes

MANIFEST_NAMES = ("manifest.json", "manifest.yaml", "manifest.yml")
DATA_SUFFIXES = (".csv", ".tsv", ".txt")

HOT = ("schema_version", "format", "data_file", "delimiter", "experiment",
       "experiment.experiment_id", "experiment.experiment_type", "experiment.name", "defaults",
       "defaults.optical_system", "defaults.signal_unit", "defaults.cell", "defaults.channel",
       "defaults.wavelength_nm", "defaults.rotor_speed_rpm", "defaults.temperature_c", "columns",
       "columns.radius", "columns.scans", "columns.scans[]", "columns.scans[].column",
       "columns.scans[].scan_id", "columns.scans[].elapsed_seconds", "samples",
       "samples[].sample_id", "samples[].concentration_value", "instrument",
       "instrument.nominal_speed_rpm", "extension", "notes")
"""Manifest keys the delimited reader validates (openauc manifest-v1.md, "Top-level fields")."""

HOSTILE_CELLS = (
    "", " ", "nan", "NaN", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e-400", "-0",
    "0x1A", "1_000", "1,5", "\uff11\uff12\uff13", "\u0663", "\u0967\u0968", "9" * 5000, "-",
    "+", ".", "e", "true", "None", "NULL", "N/A", "1.2.3", " 5.9 ", "\ufeff5.9", "5.9\u00a0",
    '"5.9"', "'5.9'", "=1+1", "scan_001", "scan_\u0000", "\u00e9", "\u202e", "x" * 10_000,
    "-5.9", "0", "1e6", str(2 ** 64), "-9223372036854775809", '"unterminated', 'a"b',
    '"two\nlines"', "\u0000",
)

HOSTILE_DATA_FILES = (
    "scans\u0000.csv", "../outside.csv", "sub/../scans.csv", "./scans.csv", "/dev/zero",
    "/nonexistent/scans.csv", "", ".", "..", "manifest.json", "scans.csv/", "SCANS.CSV",
    " scans.csv", "scans.csv\n", "a" * 300, "a/" * 2100, "fifo.csv", "link.csv", "loop.csv",
    "dir.csv", "~/scans.csv", "file:scans.csv", "C:\\scans.csv", "scans.\uff43sv",
)


def mutate(rng: random.Random, seed: Path, corpus: list[Path], case: Path
           ) -> tuple[str, list[dict[str, Any]]]:
    """Write a mutant of the source folder ``seed`` into ``case``; return the input and the ops."""
    src = case / "src"
    shutil.copytree(seed, src)
    ops: list[dict[str, Any]] = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        kind = rng.choices(["table", "manifest", "files", "bytes"], weights=[45, 38, 7, 10])[0]
        try:
            ops.extend(_KINDS[kind](rng, src, case))
        except Exception as exc:  # noqa: BLE001 - the edit does not fit this seed: note it
            ops.append({"op": kind, "failed": f"{type(exc).__name__}: {exc}"[:200]})
    if not any("failed" not in op for op in ops):
        ops.extend(_bytes(rng, src, case))
    return _target(rng, src, case), ops


def _target(rng: random.Random, src: Path, case: Path) -> str:
    """The folder (70 %), its manifest (15 %) or its data file (15 %), relative to ``case``."""
    roll = rng.random()
    files = sorted(p for p in src.iterdir() if not p.is_symlink() and p.is_file())
    manifests = [p for p in files if p.name in MANIFEST_NAMES]
    tables = [p for p in files if p.suffix.lower() in DATA_SUFFIXES]
    if roll < 0.15 and manifests:
        return os.fspath(rng.choice(manifests).relative_to(case))
    if roll < 0.30 and tables:
        return os.fspath(rng.choice(tables).relative_to(case))
    return "src"


def _manifest(src: Path) -> Path | None:
    found = [src / n for n in MANIFEST_NAMES if (src / n).is_file()]
    return found[0] if found else None


def _data_file(src: Path) -> Path:
    tables = sorted(p for p in src.iterdir() if p.suffix.lower() in DATA_SUFFIXES and p.is_file()
                    and not p.is_symlink())
    if not tables:
        raise ValueError("no data file")
    return tables[0]


# -- table edits -------------------------------------------------------------------

def _table(rng: random.Random, src: Path, case: Path) -> list[dict[str, Any]]:
    path = _data_file(src)
    raw = path.read_bytes()
    text = raw.decode("utf-8", "surrogateescape")
    delim = "\t" if "\t" in text.split("\n", 1)[0] else ","
    rows = [line.split(delim) for line in text.split("\n")]
    kind = rng.choices(list(_TABLE_EDITS), weights=[w for w, _ in _TABLE_EDITS.values()])[0]
    result = _TABLE_EDITS[kind][1](rng, rows, delim)
    if isinstance(result, bytes):
        path.write_bytes(result)
        return [{"op": f"table-{kind}", "file": path.name}]
    new_rows, detail = result
    if kind != "delimiter":
        new_text = "\n".join(delim.join(r) for r in new_rows)
    else:
        new_text = "\n".join(detail.pop("joined"))
    path.write_bytes(new_text.encode("utf-8", "surrogateescape"))
    return [{"op": f"table-{kind}", "file": path.name, **detail}]


def _cell(rng: random.Random, rows: list[list[str]], delim: str) -> Any:
    r = rng.randrange(len(rows)) if rng.random() < 0.15 else rng.randrange(1, max(2, len(rows)))
    r = min(r, len(rows) - 1)
    c = rng.randrange(max(1, len(rows[r])))
    value = rng.choice(HOSTILE_CELLS)
    if c < len(rows[r]):
        rows[r][c] = value
    else:
        rows[r].append(value)
    return rows, {"row": r, "column": c, "value": value[:40]}


def _column(rng: random.Random, rows: list[list[str]], delim: str) -> Any:
    c = rng.randrange(max(1, len(rows[0])))
    value = rng.choice(HOSTILE_CELLS[:20])
    for row in rows[1:]:
        if c < len(row) and row != [""]:
            row[c] = value
    return rows, {"column": c, "value": value[:40]}


def _header(rng: random.Random, rows: list[list[str]], delim: str) -> Any:
    head = rows[0]
    kind = rng.choice(["duplicate", "blank", "upper", "spaces", "drop", "bom", "swap"])
    c = rng.randrange(len(head))
    if kind == "duplicate" and len(head) > 1:
        head[(c + 1) % len(head)] = head[c]
    elif kind == "blank":
        head[c] = ""
    elif kind == "upper":
        head[c] = head[c].upper()
    elif kind == "spaces":
        head[c] = f"  {head[c]} "
    elif kind == "drop":
        rows = rows[1:]
    elif kind == "bom":
        head[0] = "\ufeff" + head[0]
    else:
        head.reverse()
    return rows, {"kind": kind, "column": c}


def _rows(rng: random.Random, rows: list[list[str]], delim: str) -> Any:
    kind = rng.choice(["delete", "duplicate", "extra-cell", "short", "shuffle", "header-only",
                       "explode", "blank-lines", "comment"])
    body = rows[1:]
    r = rng.randrange(max(1, len(body))) if body else 0
    if kind == "delete" and body:
        del body[r]
    elif kind == "duplicate" and body:
        body.insert(r, list(body[r]))
    elif kind == "extra-cell" and body:
        body[r] = body[r] + ["1.0"]
    elif kind == "short" and body:
        body[r] = body[r][:-1]
    elif kind == "shuffle":
        rng.shuffle(body)
    elif kind == "header-only":
        body = []
    elif kind == "explode":
        body = [r_ for r_ in body if r_ != [""]] * rng.choice([100, 2000])
    elif kind == "blank-lines":
        body.insert(r, [""])
        body.insert(r, [" "])
    else:
        body.insert(r, ["# comment"])
    return [rows[0], *body], {"kind": kind, "row": r}


def _delimiter(rng: random.Random, rows: list[list[str]], delim: str) -> Any:
    new = rng.choice([";", "|", "\t" if delim == "," else ",", " ", ", ", "\x00"])
    mixed = rng.random() < 0.4
    joined = [(new if not mixed or i % 2 else delim).join(r) for i, r in enumerate(rows)]
    return rows, {"to": repr(new), "mixed": mixed, "joined": joined}


def _whole(kind: str) -> Any:
    def edit(rng: random.Random, rows: list[list[str]], delim: str) -> bytes:
        text = "\n".join(delim.join(r) for r in rows)
        data = text.encode("utf-8", "surrogateescape")
        if kind == "crlf":
            return data.replace(b"\n", b"\r\n")
        if kind == "cr":
            return data.replace(b"\n", b"\r")
        if kind == "utf16":
            return text.encode("utf-16", "surrogatepass")
        if kind == "utf16le":
            return text.encode("utf-16-le", "surrogatepass")
        if kind == "latin1":
            return data.replace(b"scan_", "sc\u00e4n_".encode("latin-1"), 1)
        if kind == "bom":
            return b"\xef\xbb\xbf" + data
        if kind == "bad-utf8":
            at = rng.randrange(max(1, len(data)))
            return data[:at] + rng.choice([b"\xff", b"\xed\xa0\x80", b"\xc3"]) + data[at:]
        if kind == "nul":
            at = rng.randrange(max(1, len(data)))
            return data[:at] + b"\x00" * rng.choice([1, 1, 100]) + data[at:]
        if kind == "huge-cell":
            filler = rng.choice([b"9", b"x", b"\"", b" "]) * rng.choice([1 << 20, 8 << 20])
            at = data.find(b"\n") + 1 or len(data)
            return data[:at] + filler + data[at:]
        if kind == "empty":
            return rng.choice([b"", b"\n", b" "])
        return data.rstrip(b"\n") if rng.random() < 0.5 else data + b"\n\n\n"
    return edit


_TABLE_EDITS: dict[str, tuple[int, Any]] = {
    "cell": (30, _cell), "column": (8, _column), "header": (10, _header), "rows": (14, _rows),
    "delimiter": (6, _delimiter), "crlf": (3, _whole("crlf")), "cr": (2, _whole("cr")),
    "utf16": (2, _whole("utf16")), "utf16le": (1, _whole("utf16le")),
    "latin1": (2, _whole("latin1")), "bom": (2, _whole("bom")),
    "bad-utf8": (3, _whole("bad-utf8")), "nul": (3, _whole("nul")),
    "huge-cell": (2, _whole("huge-cell")), "empty": (2, _whole("empty")),
    "newline": (2, _whole("newline")),
}


# -- manifest edits ----------------------------------------------------------------

def _manifest_edit(rng: random.Random, src: Path, case: Path) -> list[dict[str, Any]]:
    path = _manifest(src)
    if path is None:
        raise ValueError("no manifest")
    roll = rng.random()
    if roll < 0.3:
        return _data_file_edit(rng, path, src, case)
    if path.suffix == ".json":
        data, ops = values.mutate_json(rng, path.read_bytes(), HOT)
        path.write_bytes(data)
        return [{**op, "file": path.name} for op in ops]
    return _yaml_edit(rng, path)


def _load(path: Path) -> Any:
    import yaml

    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def _save(path: Path, doc: Any) -> None:
    import yaml

    if path.suffix == ".json":
        path.write_text(values.dumps(doc), encoding="utf-8", errors="surrogatepass")
    else:
        path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False),
                        encoding="utf-8", errors="surrogatepass")


def _data_file_edit(rng: random.Random, manifest: Path, src: Path, case: Path
                    ) -> list[dict[str, Any]]:
    """``data_file`` names a hostile path, and the path is made to exist when it can."""
    doc = _load(manifest)
    if not isinstance(doc, dict):
        raise ValueError("manifest is not a mapping")
    value = rng.choice(HOSTILE_DATA_FILES)
    old = src / str(doc.get("data_file", "scans.csv"))
    if value == "../outside.csv" and old.is_file():
        shutil.copyfile(old, case / "outside.csv")
    elif value == "fifo.csv":
        os.mkfifo(src / "fifo.csv")
    elif value == "link.csv":
        os.symlink("/dev/zero", src / "link.csv")
    elif value == "loop.csv":
        os.symlink("loop.csv", src / "loop.csv")
    elif value == "dir.csv":
        (src / "dir.csv").mkdir()
    doc["data_file"] = value
    _save(manifest, doc)
    return [{"op": "manifest-data-file", "file": manifest.name, "value": value[:60]}]


_ALIAS_BOMB = "\n".join(
    ["  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)])


def _yaml_edit(rng: random.Random, path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    kind = rng.choice(sorted(_YAML_EDITS))
    new = _YAML_EDITS[kind](rng, text)
    path.write_bytes(new.encode("utf-8", "surrogateescape"))
    return [{"op": f"yaml-{kind}", "file": path.name}]


def _yaml_replace_value(key: str, value: str) -> Any:
    def edit(rng: random.Random, text: str) -> str:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.startswith(f"{key}:"):
                lines[i] = f"{key}: {value}"
                return "\n".join(lines)
        return f"{key}: {value}\n" + text
    return edit


_YAML_EDITS: dict[str, Any] = {
    "alias-bomb": lambda rng, t: t + "\nextension:\n" + _ALIAS_BOMB + "\n",
    "alias-bomb-notes": lambda rng, t: t.replace("notes:", "notes_:", 1)
    + "\nextension:\n" + _ALIAS_BOMB + "\nnotes: *l8\n",
    "recursive-alias": lambda rng, t: t + "\nextension: &r {self: *r}\n",
    "recursive-list": lambda rng, t: t + "\nsamples: &s [*s]\n",
    "merge-key": lambda rng, t: t + "\nbase: &b {optical_system: absorbance}\n"
    "defaults: {<<: *b, signal_unit: AU, <<: *b}\n",
    "undefined-alias": lambda rng, t: t + "\nnotes: *nowhere\n",
    "python-tag": _yaml_replace_value("notes", "!!python/object/apply:os.getpid []"),
    "binary-tag": _yaml_replace_value("data_file", "!!binary c2NhbnMuY3N2"),
    "set-tag": _yaml_replace_value("format", "!!set {generic-long: null}"),
    "timestamp": _yaml_replace_value("schema_version", "2020-01-01"),
    "float-version": _yaml_replace_value("schema_version", "1.0"),
    "bool-format": _yaml_replace_value("format", "no"),
    "null-data-file": _yaml_replace_value("data_file", "~"),
    "list-data-file": _yaml_replace_value("data_file", "[scans.csv, scans.tsv]"),
    "nan": _yaml_replace_value("schema_version", ".nan"),
    "huge-int": _yaml_replace_value("schema_version", "9" * 5000),
    "custom-tag": _yaml_replace_value("experiment", "!thing {experiment_id: x}"),
    "complex-key": lambda rng, t: t + "\n? [a, b]\n: 1\n",
    "non-string-keys": lambda rng, t: t + "\n1: one\nnull: nothing\ntrue: yes\n",
    "duplicate-key": lambda rng, t: t + "\ndata_file: other.csv\n",
    "multi-document": lambda rng, t: t + "\n---\nschema_version: '1.0'\n",
    "tabs": lambda rng, t: t.replace("  ", "\t"),
    "deep-flow": lambda rng, t: t + "\nextension: " + "[" * 5000 + "]" * 5000 + "\n",
    "long-scalar": _yaml_replace_value("notes", "x" * 2_000_000),
    "nul": lambda rng, t: t.replace("data_file: ", "data_file: \"scans\\0.csv\" #", 1),
    "bad-utf8": lambda rng, t: t + "\nnotes: \udcff\udcfe\n",
    "bom-utf16": lambda rng, t: "\ufeff" + t,
    "document-end": lambda rng, t: "...\n" + t,
}


# -- file-level edits --------------------------------------------------------------

def _files(rng: random.Random, src: Path, case: Path) -> list[dict[str, Any]]:
    manifest = _manifest(src)
    kind = rng.choice(["delete-manifest", "second-manifest", "rename-yml", "huge-manifest",
                       "manifest-dir", "manifest-devzero", "empty-manifest", "delete-data",
                       "yaml-from-json"])
    if manifest is None:
        raise ValueError("no manifest")
    if kind == "delete-manifest":
        manifest.unlink()
    elif kind == "second-manifest":
        other = "manifest.yaml" if manifest.suffix == ".json" else "manifest.json"
        shutil.copyfile(manifest, src / other)
    elif kind == "rename-yml":
        manifest.rename(src / "manifest.yml")
    elif kind == "huge-manifest":
        with open(manifest, "ab") as fh:
            fh.write(b" " * ((1 << 20) + 1) if manifest.suffix == ".json" else b"#" * (1 << 21))
    elif kind == "manifest-dir":
        manifest.unlink()
        manifest.mkdir()
    elif kind == "manifest-devzero":
        manifest.unlink()
        os.symlink("/dev/zero", manifest)
    elif kind == "empty-manifest":
        manifest.write_bytes(b"")
    elif kind == "delete-data":
        _data_file(src).unlink()
    else:
        doc = _load(manifest)
        manifest.unlink()
        _save(src / "manifest.yaml", doc)
    return [{"op": f"files-{kind}", "manifest": manifest.name}]


def _bytes(rng: random.Random, src: Path, case: Path) -> list[dict[str, Any]]:
    files = sorted(p for p in src.iterdir() if p.is_file() and not p.is_symlink())
    if not files:
        raise ValueError("no file")
    path = rng.choice(files)
    data, ops = mutate_bytes(rng, path.read_bytes())
    path.write_bytes(data)
    return [{**op, "file": path.name} for op in ops]


_KINDS = {"table": _table, "manifest": _manifest_edit, "files": _files, "bytes": _bytes}
