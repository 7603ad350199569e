"""Hostile values and edits of JSON documents (AUCX members, CSV manifests).

A JSON document is parsed, one node is picked (a "hot" path the readers care
about, or any node), and replaced, deleted, renamed or duplicated.  Values
that :mod:`json` cannot write (a 5000-digit integer, ``[[[...]]]`` 100 000
deep, an object with a duplicate key, a lone surrogate escape) are
:class:`Raw` text spliced in after :func:`json.dumps`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

Path_ = tuple[str | int, ...]


class Raw(str):
    """JSON text written verbatim in place of a value."""


def deep_list(depth: int) -> Raw:
    """``[[[...]]]`` nested ``depth`` deep."""
    return Raw("[" * depth + "]" * depth)


def deep_object(depth: int) -> Raw:
    """``{"a": {"a": ...}}`` nested ``depth`` deep."""
    return Raw('{"a": ' * depth + "0" + "}" * depth)


def hostile_values(rng: random.Random, original: Any = None) -> Any:
    """One value that a schema for ``original`` should reject or survive."""
    generic: list[Any] = [
        None, True, False, 0, -1, 1, 2 ** 31, 2 ** 63, -(2 ** 63) - 1, 2 ** 64, 1.5, -0.0,
        Raw("1" + "0" * 400), Raw("9" * 5000), Raw("NaN"), Raw("Infinity"), Raw("-Infinity"),
        Raw("1e999"), Raw("-1e999"), Raw("1e-999"), "", " ", "x" * 100_000, "\u0000",
        Raw('"\\ud800"'), Raw('"a\\udfffb"'), "\u202e", "\u00e9", "1.0", "true", "null", "NaN",
        [], {}, [None], [[1]], {"": 1}, ["x"] * 10_000, deep_list(rng.choice([50, 1000, 100_000])),
        deep_object(rng.choice([50, 1000, 30_000])), "../../etc/passwd", "arrays/../manifest.json",
    ]
    typed = _typed_variants(original)
    if typed and rng.random() < 0.5:
        return rng.choice(typed)
    return rng.choice(generic)


def _typed_variants(v: Any) -> list[Any]:
    """Near-miss variants of ``v`` that keep or just change its JSON type."""
    if isinstance(v, bool):
        return [not v, int(v), str(v).lower(), None]
    if isinstance(v, int):
        return [v + 1, -v - 1, 0, 2 ** 53 + 1, float(v), str(v), [v], v * 10 ** 12]
    if isinstance(v, float):
        return [int(v), -v, str(v), Raw("NaN"), Raw("Infinity"), v * 1e300, [v]]
    if isinstance(v, str):
        return ["", v * 1000, v.upper(), v + "\u0000", " " + v, v + "/..", [v], int(len(v)),
                v.encode("utf-8").decode("latin-1"), v[: len(v) // 2]]
    if isinstance(v, list):
        return [[], v * 1000, v + v[-1:], v[:-1], list(reversed(v)), [v], {"0": v},
                v + [None], len(v)]
    if isinstance(v, dict):
        return [{}, list(v.values()), {**v, "unknown_key": 1}, [v], json.dumps(v)]
    return []


def all_paths(doc: Any) -> list[Path_]:
    """Every node of a parsed JSON document, as key/index paths (the root is ``()``)."""
    out: list[Path_] = []
    stack: list[tuple[Path_, Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node[:50]))
    out.sort(key=lambda p: [str(x) for x in p])
    return out


def matches(path: Path_, pattern: str) -> bool:
    """``("scans", 3, "scan_id")`` matches ``"scans[].scan_id"``."""
    text = ".".join("[]" if isinstance(p, int) else str(p) for p in path).replace(".[]", "[]")
    return text == pattern


def pick_path(rng: random.Random, doc: Any, hot: Sequence[str]) -> Path_:
    """A hot path present in ``doc`` (60 %), else any node."""
    paths = all_paths(doc)
    hot_paths = [p for p in paths if any(matches(p, h) for h in hot)]
    if hot_paths and rng.random() < 0.6:
        return rng.choice(hot_paths)
    return rng.choice(paths)


def get_at(doc: Any, path: Path_) -> Any:
    node = doc
    for p in path:
        node = node[p]
    return node


def set_at(doc: Any, path: Path_, value: Any) -> Any:
    """``doc`` with the node at ``path`` replaced (the root itself when ``path`` is empty)."""
    if not path:
        return value
    parent = get_at(doc, path[:-1])
    parent[path[-1]] = value
    return doc


def dumps(doc: Any, *, ascii_only: bool = False) -> str:
    """``json.dumps`` (2-space indent, NaN allowed) with every :class:`Raw` spliced in."""
    raws: list[str] = []

    def sub(node: Any) -> Any:
        if isinstance(node, Raw):
            raws.append(str(node))
            return f"\u0001raw{len(raws) - 1}\u0001"
        if isinstance(node, dict):
            return {k: sub(v) for k, v in node.items()}
        if isinstance(node, list):
            return [sub(v) for v in node]
        return node

    text = json.dumps(sub(doc), indent=2, ensure_ascii=ascii_only, allow_nan=True)
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\u0001raw{i}\u0001", ensure_ascii=ascii_only), raw, 1)
    return text + "\n"


def _with_duplicate_key(obj: dict[str, Any], key: str, value: Any) -> Raw:
    """The object ``obj`` written with ``key`` a second time, holding ``value``."""
    items = [f"{json.dumps(k)}: {dumps(v).strip()}" for k, v in obj.items()]
    items.append(f"{json.dumps(key)}: {dumps(value).strip()}")
    return Raw("{" + ", ".join(items) + "}")


def edit_tree(rng: random.Random, doc: Any, hot: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    """One structural edit of a parsed document; returns the new document and the op."""
    path = pick_path(rng, doc, hot)
    where = ".".join(str(p) for p in path) or "(root)"
    kind = rng.choices(["replace", "delete", "rename", "add", "duplicate"],
                       weights=[60, 12, 8, 10, 10])[0]
    parent = get_at(doc, path[:-1]) if path else None
    if kind == "delete" and isinstance(parent, dict | list):
        del parent[path[-1]]  # type: ignore[arg-type]
        return doc, {"op": "json-delete", "path": where}
    if kind == "rename" and isinstance(parent, dict):
        key = str(path[-1])
        new = rng.choice([key.upper(), key + "_", " " + key, key.replace("_", "-"), ""])
        parent[new] = parent.pop(key)
        return doc, {"op": "json-rename", "path": where, "to": new}
    node = get_at(doc, path)
    if kind == "add" and isinstance(node, dict):
        node[rng.choice(["unknown", "__proto__", "", "extension"])] = hostile_values(rng)
        return doc, {"op": "json-add-key", "path": where}
    if kind == "duplicate" and isinstance(parent, dict):
        value = hostile_values(rng, parent[path[-1]])
        doc = set_at(doc, path[:-1], _with_duplicate_key(parent, str(path[-1]), value))
        return doc, {"op": "json-duplicate-key", "path": where, "value": _describe(value)}
    value = hostile_values(rng, node)
    return set_at(doc, path, value), {"op": "json-replace", "path": where,
                                      "value": _describe(value)}


def _describe(value: Any) -> str:
    text = value if isinstance(value, Raw) else json.dumps(value, default=str)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} chars)"


def edit_text(rng: random.Random, data: bytes) -> tuple[bytes, dict[str, Any]]:
    """One document-level edit of JSON text (encoding, truncation, framing)."""
    kind = rng.choice(["truncate", "bom", "utf16", "bad-utf8", "nul", "trailing", "empty",
                       "top-level", "comment", "single-quotes", "crlf", "padding"])
    if kind == "truncate" and data:
        cut = rng.randrange(len(data))
        return data[:cut], {"op": "text-truncate", "at": cut}
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, {"op": "text-bom"}
    if kind == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16"), {"op": "text-utf16"}
    if kind == "bad-utf8" and data:
        at = rng.randrange(len(data))
        bad = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80"])
        return data[:at] + bad + data[at:], {"op": "text-bad-utf8", "at": at, "bytes": bad.hex()}
    if kind == "nul" and data:
        at = rng.randrange(len(data))
        return data[:at] + b"\x00" + data[at:], {"op": "text-nul", "at": at}
    if kind == "trailing":
        return data + rng.choice([b"}", b"{}", b"garbage", b"\x00"]), {"op": "text-trailing"}
    if kind == "empty":
        return rng.choice([b"", b" ", b"\n"]), {"op": "text-empty"}
    if kind == "top-level":
        value = rng.choice([b"[]", b'"manifest"', b"1", b"null", b"NaN", b"[{}]"])
        return value, {"op": "text-top-level", "value": value.decode()}
    if kind == "comment":
        return b"// comment\n" + data, {"op": "text-comment"}
    if kind == "single-quotes":
        return data.replace(b'"', b"'"), {"op": "text-single-quotes"}
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n"), {"op": "text-crlf"}
    return data + b" " * rng.choice([1 << 16, 1 << 21]), {"op": "text-padding"}


def mutate_json(rng: random.Random, data: bytes, hot: Sequence[str]) -> tuple[bytes, list[dict]]:
    """1-3 edits of a JSON document's bytes: mostly structural, sometimes textual."""
    ops: list[dict] = []
    try:
        doc = json.loads(data)
    except ValueError:
        doc = None
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if doc is not None and rng.random() < 0.85:
            doc, op = edit_tree(rng, doc, hot)
            ops.append(op)
        else:
            if doc is not None:
                data, doc = dumps(doc).encode("utf-8", "surrogatepass"), None
            data, op = edit_text(rng, data)
            ops.append(op)
    if doc is not None:
        data = dumps(doc, ascii_only=rng.random() < 0.3).encode("utf-8", "surrogatepass")
    return data, ops
