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


CASES = (
    HostileCase(
        name="scalar-enum", area="hdf5", build=static_target(_scalar_enums),
        commands=(("verify", "--json", "{target}"), ("dump", "{target}::/@in_range"),
                  ("dump", "{target}::/@out_of_range"), ("dump", "{target}::/scalar_enum"),
                  ("dump", "{target}::/scalar_enum_out")),
        exit_codes=frozenset({0, 1}),
        description="enum values of no dimension (attributes and datasets), in and out of range"),
)
