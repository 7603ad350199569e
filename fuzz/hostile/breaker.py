"""Small hand-made files that broke a reader with a traceback, a hang or a large
allocation: scalar enums, an AUCX array declaring a dimension of ``2**63``, a
never-written fixed-size string of 2 GB, a folder of self-symlinks expanded by a
``**`` pattern, a root group of 100 000 groups.
"""

from __future__ import annotations

from pathlib import Path

from fuzz.hostile.case import HostileCase, Scale, static_target


def _scalar_enums(folder: Path, scale: Scale) -> Path:
    import h5py
    import numpy as np

    path = folder / "enum_attr.h5"
    e = h5py.enum_dtype({"A": 0, "B": 1}, basetype="i1")
    with h5py.File(path, "w") as f:
        f.attrs.create("in_range", np.int8(1), dtype=e)
        f.attrs.create("out_of_range", np.int8(7), dtype=e)
        f.create_dataset("scalar_enum", data=np.int8(1), dtype=e)
        f.create_dataset("scalar_enum_out", data=np.int8(7), dtype=e)
    return path




_AUCX_SEED = Path("tests/fixtures/aucx/src_long_csv.aucx")


def npy_header(descr: str, shape: tuple[int, ...]) -> bytes:
    """A version 1.0 ``.npy`` header (magic, length, dictionary padded to 64 bytes)."""
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape!r}, }}"
    pad = 64 - (10 + len(text) + 1) % 64
    body = (text + " " * pad + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body


def aucx_huge_signal(folder: Path, scale: Scale) -> Path:
    """The seed archive with ``arrays/signal.npy`` a header only, declaring
    ``(2**63,)`` float64, the manifest agreeing and the checksums recomputed."""
    import hashlib
    import json
    import zipfile

    from fuzz.hostile.runner import repo_root

    members: dict[str, bytes] = {}
    with zipfile.ZipFile(repo_root() / _AUCX_SEED) as z:
        for name in z.namelist():
            members[name] = z.read(name)
    members["arrays/signal.npy"] = npy_header("<f8", (2**63,))
    manifest = json.loads(members["manifest.json"])
    manifest["observations"]["arrays"]["signal"]["shape"] = [2**63]
    members["manifest.json"] = json.dumps(manifest, indent=2).encode()
    members["checksums.sha256"] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n"
        for name, data in sorted(members.items()) if name != "checksums.sha256").encode()
    path = folder / "huge-signal.aucx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _unwritten_wide_string(folder: Path, scale: Scale) -> Path:
    """A scalar fixed-length string never written (late allocation): 2 GB declared
    (full) or one byte over the per-value limit (small), in a file of a few KB."""
    import h5py

    from inspector.formats.hdf5.heap import MAX_VALUE_BYTES

    path = folder / "str2g.h5"
    with h5py.File(path, "w") as f:
        t = h5py.h5t.C_S1.copy()
        t.set_size(MAX_VALUE_BYTES + 1 if scale == "small" else 2 * 10**9)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_LATE)
        h5py.h5d.create(f.id, b"s", t, h5py.h5s.create(h5py.h5s.SCALAR), dcpl=dcpl)
    return path


def _self_links(folder: Path, scale: Scale) -> Path:
    """A folder holding a VneuroTK recording and two links to itself (``a -> .``,
    ``b -> .``); the target is the pattern ``FOLDER/g/**`` (absolute, as written)."""
    import os
    import shutil

    from fuzz.hostile.runner import repo_root

    g = folder / "g"
    g.mkdir()
    shutil.copyfile(repo_root() / "tests/fixtures/vneurotk/v1/epochs_dense_f64_strids.h5",
                    g / "ok.h5")
    os.symlink(".", g / "a")
    os.symlink(".", g / "b")
    return g / "**"


CASES = (
    HostileCase(
        name="scalar-enum", area="hdf5", build=static_target(_scalar_enums),
        commands=(("verify", "--json", "{target}"), ("dump", "{target}::/@in_range"),
                  ("dump", "{target}::/@out_of_range"), ("dump", "{target}::/scalar_enum"),
                  ("dump", "{target}::/scalar_enum_out")),
        exit_codes=frozenset({0, 1}),
        description="enum values of no dimension (attributes and datasets), in and out of range"),
    HostileCase(
        name="aucx-npy-dimension-2-63", area="aucx", build=static_target(aucx_huge_signal),
        commands=(("verify", "--json", "{target}"),
                  ("dump", "{target}::arrays/signal.npy"),
                  ("dump", "{target}::arrays/signal.npy", "--slice=-3:"),
                  ("dump", "{target}::arrays/signal.npy", "--all", "--out", "{out}")),
        expect_codes=frozenset({"array.size-mismatch"}),
        exit_codes=frozenset({1, 2}),
        description="arrays/signal.npy a header declaring (2**63,) float64, checksums valid"),
    HostileCase(
        name="fixed-string-2gb-unwritten", area="hdf5",
        build=static_target(_unwritten_wide_string),
        commands=(("verify", "--json", "{target}"), ("dump", "{target}::/s"),
                  ("dump", "{target}::/s", "--all", "--out", "{out}")),
        rss_limit_mb=300.0,
        description="a scalar fixed-length string of 2 GB declared and never written"),
    HostileCase(
        name="pattern-over-self-links", area="batch", build=static_target(_self_links),
        commands=(("verify", "--json", "{target}"),),
        time_limit_s=30.0,
        description="verify 'g/**' on a folder with two links to itself (a -> ., b -> .)"),
)
