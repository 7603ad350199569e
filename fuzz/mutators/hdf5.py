"""Mutants of VneuroTK HDF5 recordings: byte edits and structure edits through h5py.

Structure edits open a copy of the seed with h5py and change what the
VneuroTK reader looks at (spec/vneurotk-recording.md): the dtypes and shapes
of ``/neuro``, ``/trial_starts``, ``/vision_info/stim_ids``..., the root
attributes (``stim_labels_shape``, ``vneurotk_schema_version``...), and the
HDF5 features a reader can trip on: chunked datasets declared huge with no
chunk written, scalar and null-dataspace datasets where arrays are expected,
attributes holding invalid UTF-8 or lone surrogates, deep group chains, many
attributes, soft/external/dangling links and hard-link cycles, virtual
datasets whose source file is missing, and compressed chunks with corrupted
bytes.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from fuzz.mutators.bytelevel import mutate_bytes, signature_offsets

SIGNATURES = (b"\x89HDF\r\n\x1a\n", b"OHDR", b"OCHK", b"TREE", b"HEAP", b"SNOD", b"GCOL",
              b"BTHD", b"BTIN", b"BTLF", b"FRHP", b"FHDB", b"FHIB", b"FSHD", b"FSSE")

KNOWN_PATHS = (
    "neuro", "trial_starts", "trial_ends", "trial", "stim_labels", "vision_info",
    "vision_info/stim_ids", "vision_info/stim_ids/values", "vision_info/stim_ids/types",
    "vision_onsets", "neuro_data", "neuro_row", "neuro_col", "neuro_info", "stimuli_db",
    "stimuli_db/0/image", "stimuli_db/0/id/values", "trial_meta", "trial_meta/columns/0/values",
    "trial_meta/column_index/data/values/values", "trial_info", "vision_store",
    "vision_store/0/array", "vision_store/0/stim_ids/values",
)
"""Objects of the VneuroTK layout (spec/vneurotk-recording.md) that edits aim at."""

KNOWN_ATTRS = (
    ("/", "vneurotk_format"), ("/", "vneurotk_schema_version"), ("/", "writer_version"),
    ("/", "data_mode"), ("/", "neuro_format"), ("/", "neuro_shape"), ("/", "neuro_dtype"),
    ("/", "stim_labels_shape"), ("/", "stim_labels_is_str"), ("/", "stim_labels_encoding"),
    ("neuro_info", "sfreq"), ("neuro_info", "ch_names"), ("neuro_info", "shape"),
    ("vision_info", "n_stim"), ("trial_info", "trial_window"), ("trial_info", "baseline"),
    ("stimuli_db", "encoding"), ("trial_meta", "encoding"), ("trial_meta/index", "stop"),
    ("vision_store/0", "extraction_provenance"), ("vision_store/0", "model"),
    ("stimuli_db/0/image", "kind"), ("vision_info/stim_ids", "encoding"),
)
"""Attributes of the VneuroTK layout that edits aim at."""

Edit = Callable[[h5py.File, random.Random, "Context"], dict[str, Any]]


class Context:
    """What an edit may need: the case folder, the mutant's name, byte edits to apply later."""

    def __init__(self, case: Path, target: Path, corpus: list[Path]) -> None:
        self.case = case
        self.target = target
        self.corpus = corpus
        self.post_byte_ranges: list[tuple[int, int]] = []
        self._names: list[str] | None = None

    def names(self, f: h5py.File) -> list[str]:
        """Up to 2000 object names of ``f``, listed once per mutant (before the edits)."""
        if self._names is None:
            self._names = _names(f)
        return self._names


def mutate(rng: random.Random, seed: Path, corpus: list[Path], case: Path
           ) -> tuple[str, list[dict[str, Any]]]:
    """Write a mutant of ``seed`` into ``case``; return its name there and the ops."""
    target = case / seed.name
    _copy_seed(seed, case)
    if rng.random() < 0.3 or not _opens(target):
        return target.name, _byte_mutation(rng, target, corpus)
    ctx = Context(case, target, corpus)
    ops = _structure_mutation(rng, target, ctx)
    if ctx.post_byte_ranges:
        ops.append(_corrupt_ranges(rng, target, ctx.post_byte_ranges))
    if not any("failed" not in op for op in ops) or rng.random() < 0.15:
        ops.extend(_byte_mutation(rng, target, corpus, n_ops=1))
    return target.name, ops


def _copy_seed(seed: Path, case: Path) -> None:
    """The seed and its non-HDF5 siblings (images a v0 recording names by path)."""
    shutil.copyfile(seed, case / seed.name)
    for sib in seed.parent.iterdir():
        if sib.is_file() and sib.suffix.lower() in (".png", ".jpg", ".jpeg", ".npy"):
            shutil.copyfile(sib, case / sib.name)


def _opens(path: Path) -> bool:
    try:
        with h5py.File(path, "r"):
            return True
    except Exception:  # noqa: BLE001 - any failure: not a file h5py can edit
        return False


def _byte_mutation(rng: random.Random, target: Path, corpus: list[Path], n_ops: int | None = None
                   ) -> list[dict[str, Any]]:
    data = target.read_bytes()
    others = [rng.choice(corpus).read_bytes()] if corpus else []
    new, ops = mutate_bytes(rng, data, hot=signature_offsets(data, SIGNATURES), reach=96,
                            others=others, n_ops=n_ops)
    target.write_bytes(new)
    return ops


def _structure_mutation(rng: random.Random, target: Path, ctx: Context) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    with h5py.File(target, "r+") as f:
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            name, edit = rng.choices(EDITS, weights=[w for _, _, w in _EDIT_TABLE])[0]
            try:
                op = edit(f, rng, ctx)
            except Exception as exc:  # noqa: BLE001 - h5py refused this edit: try another
                op = {"op": name, "failed": f"{type(exc).__name__}: {exc}"[:200]}
            ops.append(op)
    return ops


def _corrupt_ranges(rng: random.Random, target: Path, ranges: list[tuple[int, int]]
                    ) -> dict[str, Any]:
    buf = bytearray(target.read_bytes())
    hits = []
    for start, length in ranges:
        if length <= 0 or start >= len(buf):
            continue
        for _ in range(rng.choice([1, 2, 8])):
            at = start + rng.randrange(length)
            if at < len(buf):
                buf[at] ^= 1 << rng.randrange(8)
                hits.append(at)
    target.write_bytes(bytes(buf))
    return {"op": "chunk-bytes-flipped", "at": hits[:20]}


# -- picking objects -------------------------------------------------------------

def _names(f: h5py.File) -> list[str]:
    out: list[str] = []

    def visit(name: str) -> bool | None:
        out.append(name)
        return True if len(out) >= 2000 else None  # a non-None value stops the walk

    try:
        f.visit(visit)
    except Exception:  # noqa: BLE001 - a broken object stops the walk; keep what we have
        pass
    return out


def _pick(f: h5py.File, rng: random.Random, ctx: Context, *, kind: type | None = None) -> str:
    """A known VneuroTK path present in ``f`` (65 %), else any object of ``kind``."""
    present = [p for p in KNOWN_PATHS if p in f and (kind is None or isinstance(f[p], kind))]
    if present and rng.random() < 0.65:
        return rng.choice(present)
    names = [n for n in ctx.names(f) if kind is None or isinstance(f.get(n), kind)]
    if names:
        return rng.choice(names)
    return rng.choice(KNOWN_PATHS)


def _pick_attr(f: h5py.File, rng: random.Random, ctx: Context) -> tuple[str, str]:
    if rng.random() < 0.6:
        obj, name = rng.choice(KNOWN_ATTRS)
        if obj == "/" or obj in f:
            return obj, name
    obj = rng.choice(["/", *ctx.names(f)[:200]])
    names = list(f[obj].attrs) if obj in f else []
    return obj, (rng.choice(names) if names else rng.choice(KNOWN_ATTRS)[1])


def _old_data(f: h5py.File, path: str) -> np.ndarray | None:
    obj = f.get(path)
    if isinstance(obj, h5py.Dataset) and obj.shape is not None and obj.size <= 1_000_000:
        try:
            return np.asarray(obj[()])
        except Exception:  # noqa: BLE001 - unreadable (e.g. a broken VDS): no old data
            return None
    return None


def _replace(f: h5py.File, path: str) -> None:
    """Make room for a new object at ``path`` (its parent groups exist afterwards)."""
    if path in f or path in f.keys() or _is_link(f, path):
        del f[path]
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    if parent:
        f.require_group(parent)


def _is_link(f: h5py.File, path: str) -> bool:
    try:
        return f.get(path, getlink=True) is not None
    except Exception:  # noqa: BLE001
        return False


# -- values ------------------------------------------------------------------------

_DTYPES: tuple[tuple[str, Any], ...] = (
    ("int8", np.int8), ("uint8", np.uint8), ("int16", np.int16), ("uint32", np.uint32),
    (">i4", np.dtype(">i4")), ("int64", np.int64), ("uint64", np.uint64),
    ("float16", np.float16), ("float32", np.float32), (">f8", np.dtype(">f8")),
    ("complex128", np.complex128), ("bool", np.bool_), ("S8", np.dtype("S8")),
    ("vlen-str", h5py.string_dtype()), ("vlen-ascii", h5py.string_dtype("ascii")),
    ("compound", np.dtype([("a", "<i4"), ("b", "<f8")])),
    ("enum", h5py.enum_dtype({"A": 0, "B": 1}, basetype="i1")),
    ("array", np.dtype("(2,)f4")), ("opaque", np.dtype("V8")),
    ("reference", h5py.ref_dtype), ("vlen-int", h5py.vlen_dtype(np.int32)),
)


def _fill(dtype: Any, shape: tuple[int, ...], old: np.ndarray | None, rng: random.Random
          ) -> np.ndarray | None:
    """Data of ``dtype`` and ``shape`` (from ``old`` when it fits); None: leave unwritten."""
    dt = np.dtype(dtype)
    if dt.kind in "biufc":
        if old is not None and old.shape == shape and old.dtype.kind in "biuf":
            with np.errstate(all="ignore"):
                return old.astype(dt)
        n = int(np.prod(shape, dtype=np.int64))
        return (np.arange(n) % 7 * rng.choice([1, -1, 1000])).astype(dt).reshape(shape)
    if dt.kind == "S":
        return np.full(shape, b"abc", dtype=dt)
    if h5py.check_string_dtype(dt) is not None:
        return np.full(shape, "stim", dtype=object)
    return None


def _create(f: h5py.File, path: str, data: np.ndarray | None, dtype: Any,
            shape: tuple[int, ...], **kw: Any) -> None:
    _replace(f, path)
    if data is not None:
        f.create_dataset(path, data=data, dtype=dtype, **kw)
    else:
        f.create_dataset(path, shape=shape, dtype=dtype, **kw)


# -- edits -------------------------------------------------------------------------

def edit_retype(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A dataset (or group) becomes a dataset of another HDF5 type, same shape."""
    path = _pick(f, rng, ctx)
    old = _old_data(f, path)
    shape = tuple(old.shape) if old is not None else (4,)
    name, dtype = rng.choice(_DTYPES)
    _create(f, path, _fill(dtype, shape, old, rng), dtype, shape)
    return {"op": "retype", "path": path, "dtype": name, "shape": list(shape)}


def edit_reshape(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A dataset gets another shape: 0-d, empty, more or fewer dimensions, off by one."""
    path = _pick(f, rng, ctx, kind=h5py.Dataset)
    old = _old_data(f, path)
    s = tuple(old.shape) if old is not None and old.ndim else (6,)
    shape = rng.choice([(), (0,), (1,), (3,), (1000,), s[::-1], (*s, 1), (1, *s), s[:-1],
                        (s[0] + 1, *s[1:]), (max(0, s[0] - 1), *s[1:]), (2, 2, 2, 2, 2), (s[0], 0)])
    dtype = old.dtype if old is not None and old.dtype.kind in "biufS" else np.float64
    _create(f, path, _fill(dtype, shape, old, rng), dtype, shape)
    return {"op": "reshape", "path": path, "shape": list(shape), "dtype": str(np.dtype(dtype))}


def edit_huge_unallocated(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A chunked dataset declared huge (up to 2**60 elements) with no chunk written."""
    path = _pick(f, rng, ctx, kind=h5py.Dataset)
    old = f.get(path)
    dtype = old.dtype if isinstance(old, h5py.Dataset) else np.float32
    shape = rng.choice([(2 ** 40,), (2 ** 33, 6), (2 ** 20, 2 ** 20, 8), (2 ** 60,), (2 ** 31,)])
    chunks = tuple(min(1024, d) for d in shape) if rng.random() < 0.5 else (1,) * len(shape)
    maxshape = (None,) * len(shape) if rng.random() < 0.3 else None
    _replace(f, path)
    f.create_dataset(path, shape=shape, dtype=dtype, chunks=chunks, maxshape=maxshape)
    return {"op": "huge-unallocated", "path": path, "shape": [str(d) for d in shape],
            "chunks": list(chunks), "dtype": str(dtype)}


def edit_scalar(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A scalar (0-d) dataset where an array or a group is expected."""
    path = _pick(f, rng, ctx)
    value = rng.choice([np.int64(5), np.float64("nan"), np.float32(1.5), np.bool_(True),
                        np.bytes_(b"\xff\xfe"), "stim", np.uint64(2 ** 64 - 1)])
    _replace(f, path)
    f.create_dataset(path, data=value)
    return {"op": "scalar-dataset", "path": path, "value": repr(value)}


def edit_null(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A null-dataspace dataset (``h5py.Empty``) where an array is expected."""
    path = _pick(f, rng, ctx)
    dtype = rng.choice(["f8", "i8", "u1", h5py.string_dtype()])
    _replace(f, path)
    f.create_dataset(path, data=h5py.Empty(dtype))
    return {"op": "null-dataspace", "path": path, "dtype": str(np.dtype(dtype))}


_BAD_TEXT = (b"\xff\xfe", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\xaf", b"recording\xff",
             b"\xe2\x82", b"\x80abc", b"ok\x00hidden")


def edit_bad_text_attr(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """An attribute typed UTF-8 whose bytes are not UTF-8 (invalid bytes, lone surrogates)."""
    obj, name = _pick_attr(f, rng, ctx)
    bad = rng.choice(_BAD_TEXT)
    attrs = f[obj].attrs
    how = rng.choice(["vlen", "fixed", "array", "name"])
    if b"\x00" in bad and how in ("vlen", "array"):  # variable-length strings stop at NUL
        how = "fixed"
    if how == "vlen":
        attrs.create(name, bad, dtype=h5py.string_dtype("utf-8"))
    elif how == "fixed":
        attrs.create(name, np.array(bad, dtype=f"S{len(bad)}"),
                     dtype=h5py.string_dtype("utf-8", len(bad)))
    elif how == "array":
        attrs.create(name, np.array([bad, b"ok"], dtype=object), dtype=h5py.string_dtype("utf-8"))
    else:
        attrs.create(name.encode() + bad, 1)
    return {"op": "attr-bad-utf8", "object": obj, "attr": name, "how": how, "bytes": bad.hex()}


def edit_bad_text_data(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A string dataset (stimulus ids, labels) holding bytes that are not UTF-8."""
    path = rng.choice([p for p in KNOWN_PATHS if p.endswith("values")] + ["stim_labels"])
    old = _old_data(f, path)
    n = int(old.size) if old is not None and old.size else 3
    data = np.array([rng.choice(_BAD_TEXT[:-1]) for _ in range(n)], dtype=object)
    shape = tuple(old.shape) if old is not None and old.size else (n,)
    _create(f, path, data.reshape(shape), h5py.string_dtype("utf-8"), shape)
    return {"op": "dataset-bad-utf8", "path": path, "n": n}


def _attr_values(f: h5py.File) -> list[Any]:
    return [np.int64(2 ** 63 - 1), np.uint64(2 ** 64 - 1), np.int64(-1), np.int64(0),
            np.float64("nan"), np.float64("inf"), np.bool_(True), "1", "", "x" * 60_000,
            np.array([], dtype=np.int64), np.array([[1, 2], [3, 4]]), np.array([1.5, np.nan]),
            np.array([-1, 2 ** 40]), np.array(["a", "b"], dtype=object), h5py.Empty("f8"),
            np.array((1, 2.0), dtype=[("a", "i4"), ("b", "f8")]), f.ref, np.complex128(1 + 2j),
            np.float16(1), np.array([7], dtype=">i8"), np.array([0] * 5000)]


def edit_attr_type(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """An attribute gets a value of another type or shape (huge ints, NaN, refs, empties)."""
    obj, name = _pick_attr(f, rng, ctx)
    value = rng.choice(_attr_values(f))
    if obj != "/" and obj not in f:
        f.require_group(obj)
    if name in f[obj].attrs:
        del f[obj].attrs[name]
    f[obj].attrs[name] = value
    text = repr(value)
    return {"op": "attr-retype", "object": obj, "attr": name, "value": text[:80]}


def edit_delete(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A dataset, group or attribute of the layout disappears."""
    if rng.random() < 0.5:
        path = _pick(f, rng, ctx)
        del f[path]
        return {"op": "delete-object", "path": path}
    obj, name = _pick_attr(f, rng, ctx)
    del f[obj].attrs[name]
    return {"op": "delete-attr", "object": obj, "attr": name}


def edit_values(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A numeric dataset keeps its type and shape but gets hostile values."""
    path = _pick(f, rng, ctx, kind=h5py.Dataset)
    ds = f[path]
    old = _old_data(f, path)
    if old is None or old.dtype.kind not in "biuf" or old.size == 0:
        raise ValueError("not a small numeric dataset")
    kind = rng.choice(["nan", "inf", "negative", "max", "min", "shuffle", "zeros", "beyond"])
    new = old.copy()
    flat = new.reshape(-1)
    info = np.finfo(new.dtype) if new.dtype.kind == "f" else np.iinfo(new.dtype)
    with np.errstate(all="ignore"):
        if kind == "nan" and new.dtype.kind == "f":
            flat[rng.randrange(flat.size)] = np.nan
        elif kind == "inf" and new.dtype.kind == "f":
            flat[rng.randrange(flat.size)] = np.inf
        elif kind == "negative":
            flat[rng.randrange(flat.size)] = -1 if new.dtype.kind != "u" else info.max
        elif kind in ("max", "beyond"):
            flat[rng.randrange(flat.size)] = info.max if kind == "max" else min(10 ** 12, info.max)
        elif kind == "min":
            flat[rng.randrange(flat.size)] = info.min
        elif kind == "shuffle":
            rng.shuffle(flat)  # type: ignore[arg-type]
        else:
            flat[:] = 0
    ds[...] = new
    return {"op": "hostile-values", "path": path, "kind": kind}


def edit_deep_groups(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A chain of nested groups hundreds or thousands deep."""
    depth = rng.choice([40, 300, 1100, 2500])
    base = rng.choice(["/", "stimuli_db", "vision_store", "trial_meta", "neuro_info"])
    g = f.require_group(base) if base != "/" else f
    for _ in range(depth):
        g = g.create_group("d")
    g.attrs["bottom"] = 1
    return {"op": "deep-groups", "under": base, "depth": depth}


def edit_many_attrs(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """An object carrying hundreds or thousands of attributes."""
    obj = rng.choice(["/", "neuro_info", "vision_info", "trial_info", _pick(f, rng, ctx)])
    if obj != "/" and obj not in f:
        f.require_group(obj)
    n = rng.choice([70, 400, 1200])
    attrs = f[obj].attrs
    for i in range(n):
        attrs[f"a{i:05d}"] = i if i % 2 else f"v{i}"
    return {"op": "many-attrs", "object": obj, "n": n}


def edit_link(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """Soft, external, dangling and cyclic links where objects are expected."""
    path = _pick(f, rng, ctx)
    kind = rng.choice(["soft-dangling", "soft-self", "soft-other", "external-missing",
                       "external-self", "external-sibling", "external-device", "hard-cycle"])
    if kind == "hard-cycle":
        group = path if isinstance(f.get(path), h5py.Group) else "/"
        f[f"{group.rstrip('/')}/loop"] = f["/"] if rng.random() < 0.5 else f[group]
        return {"op": "link", "kind": kind, "path": f"{group}/loop"}
    _replace(f, path)
    if kind == "soft-dangling":
        f[path] = h5py.SoftLink("/no/such/object")
    elif kind == "soft-self":
        f[path] = h5py.SoftLink(f"/{path}")
    elif kind == "soft-other":
        f[path] = h5py.SoftLink("/" + rng.choice([n for n in ctx.names(f) if n != path] or ["x"]))
    elif kind == "external-missing":
        f[path] = h5py.ExternalLink("missing_file.h5", f"/{path}")
    elif kind == "external-self":
        f[path] = h5py.ExternalLink(ctx.target.name, "/")
    elif kind == "external-sibling":
        other = rng.choice(ctx.corpus)
        shutil.copyfile(other, ctx.case / "sibling.h5")
        f[path] = h5py.ExternalLink("sibling.h5", f"/{path}")
    else:
        f[path] = h5py.ExternalLink(os.devnull, "/")
    return {"op": "link", "kind": kind, "path": path}


def edit_vds_missing(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A virtual dataset whose source file does not exist (or names a missing dataset)."""
    path = _pick(f, rng, ctx, kind=h5py.Dataset)
    old = f.get(path)
    shape = tuple(old.shape) if isinstance(old, h5py.Dataset) and old.shape else (8,)
    dtype = old.dtype if isinstance(old, h5py.Dataset) and old.dtype.kind in "biuf" else "f4"
    source = rng.choice(["missing_source.h5", ".", "../missing/source.h5"])
    layout = h5py.VirtualLayout(shape=shape, dtype=dtype)
    layout[...] = h5py.VirtualSource(source, "no_such_dataset" if source == "." else "data",
                                     shape=shape)
    _replace(f, path)
    f.create_virtual_dataset(path, layout, fillvalue=rng.choice([0, -1]))
    return {"op": "vds-missing-source", "path": path, "source": source, "shape": list(shape)}


def edit_corrupt_chunk(f: h5py.File, rng: random.Random, ctx: Context) -> dict[str, Any]:
    """A dataset rewritten compressed (gzip/lzf/shuffle/fletcher32), its chunk bytes flipped."""
    path = _pick(f, rng, ctx, kind=h5py.Dataset)
    old = _old_data(f, path)
    if old is None or old.ndim == 0 or old.size == 0 or old.dtype.kind not in "biuf":
        raise ValueError("not a numeric array")
    filt = rng.choice([{"compression": "gzip"}, {"compression": "lzf"},
                       {"compression": "gzip", "shuffle": True}, {"fletcher32": True},
                       {"scaleoffset": 0} if old.dtype.kind in "iu" else {"compression": "gzip"}])
    _create(f, path, old, old.dtype, old.shape, chunks=True, **filt)
    ds = f[path]
    f.flush()
    n = min(ds.id.get_num_chunks(), 4)
    for i in range(n):
        info = ds.id.get_chunk_info(i)
        ctx.post_byte_ranges.append((int(info.byte_offset), int(info.size)))
    return {"op": "corrupt-chunk", "path": path, "filter": sorted(filt), "chunks": n}


_EDIT_TABLE: tuple[tuple[str, Edit, int], ...] = (
    ("retype", edit_retype, 14), ("reshape", edit_reshape, 12),
    ("huge-unallocated", edit_huge_unallocated, 8), ("scalar-dataset", edit_scalar, 7),
    ("null-dataspace", edit_null, 6), ("attr-bad-utf8", edit_bad_text_attr, 8),
    ("dataset-bad-utf8", edit_bad_text_data, 5), ("attr-retype", edit_attr_type, 12),
    ("delete", edit_delete, 6), ("hostile-values", edit_values, 8),
    ("deep-groups", edit_deep_groups, 3), ("many-attrs", edit_many_attrs, 2),
    ("link", edit_link, 8), ("vds-missing-source", edit_vds_missing, 4),
    ("corrupt-chunk", edit_corrupt_chunk, 5),
)
EDITS: list[tuple[str, Edit]] = [(name, fn) for name, fn, _ in _EDIT_TABLE]
