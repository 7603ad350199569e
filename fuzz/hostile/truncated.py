"""Inputs cut short or not of their kind at all (the baseline every reader must pass)."""

from __future__ import annotations

import os
from pathlib import Path

from fuzz.hostile.case import HostileCase, Scale, static_target


def _random_h5(folder: Path, scale: Scale) -> Path:
    path = folder / "random.h5"
    size = 4096 if scale == "small" else 64 << 20
    path.write_bytes(b"\x89HDF\r\n\x1a\n" + os.urandom(size))
    return path


CASES = (
    HostileCase(
        name="random-bytes-after-hdf5-signature",
        area="hdf5",
        build=static_target(_random_h5),
        commands=(("verify", "--json", "{target}"), ("dump", "{target}::/x")),
        description="an HDF5 signature followed by random bytes",
    ),
)
