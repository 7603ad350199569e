"""HDF5 files whose values are far larger than what Inspector shows of them.

Each file is a copy of a small VneuroTK recording of the test fixtures with one
part blown up: a variable-length ``writer_version`` or stimulus ID of 1 GB, a
``/neuro`` chunk whose zlib stream inflates to 4 GiB (the chunk declares 25 600
bytes), a virtual dataset of 100 000 sources, a dataset of 100 000 variable-length
strings of 10 000 bytes, a dataset declared ``(2**60,)``.  The small scale keeps the
shape of each attack at a size just above the product's own per-value limit
(:data:`inspector.formats.hdf5.heap.MAX_VALUE_BYTES`), never a lowered limit.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from fuzz.hostile.case import Builder, HostileCase, Scale, static_target
from fuzz.hostile.runner import repo_root

_SEED = Path("tests/fixtures/vneurotk/v1/epochs_dense_f64_strids.h5")
_GB = 1 << 30


def _value_bytes(scale: Scale) -> int:
    """A value just above the per-value limit (small) or of 1 GB (full)."""
    from inspector.formats.hdf5.heap import MAX_VALUE_BYTES

    return MAX_VALUE_BYTES + 4096 if scale == "small" else _GB


def _isolated(make: Callable[[Path, Scale], Path]) -> Builder:
    """A :data:`Builder` running ``make`` (a function of this module) in a child process:
    what HDF5 allocates to write a full-scale input stays out of the runner, whose
    resident set every command it forks would otherwise start its peak from."""
    def run(folder: Path, scale: Scale) -> Path:
        code = ("import sys; from pathlib import Path; from fuzz.hostile import hdf5_memory as m; "
                f"print(m.{make.__name__}(Path(sys.argv[1]), sys.argv[2]))")
        done = subprocess.run([sys.executable, "-c", code, str(folder), scale], cwd=repo_root(),
                              capture_output=True, text=True, check=True)
        return Path(done.stdout.strip().splitlines()[-1])

    return static_target(run)


def _copy_seed(folder: Path, name: str) -> Path:
    path = folder / name
    shutil.copyfile(repo_root() / _SEED, path)
    return path


def _vlen_writer_version(folder: Path, scale: Scale) -> Path:
    import h5py

    path = _copy_seed(folder, "writer-version.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["writer_version"] = "9" * _value_bytes(scale)
    return path


def _vlen_stimulus_id(folder: Path, scale: Scale) -> Path:
    """The third stimulus ID (a string) of ``/vision_info/stim_ids`` and of the
    stimulus database entry 2, blown up (codes stay "string")."""
    import h5py

    path = _copy_seed(folder, "stimulus-id.h5")
    big = "s" * _value_bytes(scale)
    with h5py.File(path, "r+") as f:
        for where in ("vision_info/stim_ids", "stimuli_db/2/id"):
            values = f[where]["values"]
            data = values[()]
            index = min(2, len(data) - 1)
            data[index] = big.encode()
            del f[where]["values"]
            f[where].create_dataset("values", data=data, dtype=values.dtype)
    return path


def _zlib_zeros(total: int) -> bytes:
    """A zlib stream (level 9) of ``total`` zero bytes, made in 64 MiB pieces."""
    comp = zlib.compressobj(9)
    piece = bytes(64 << 20)
    parts = []
    left = total
    while left:
        n = min(left, len(piece))
        parts.append(comp.compress(piece[:n]))
        left -= n
    parts.append(comp.flush())
    return b"".join(parts)


def _gzip_bomb(folder: Path, scale: Scale) -> Path:
    """``/neuro`` (10, 64, 5) float64 in one gzip chunk of 25 600 bytes whose stream
    inflates to 4 GiB (full) or 64 MiB (small; stored in more bytes than the chunk
    declares, as the full one is)."""
    import h5py

    path = _copy_seed(folder, "gzip-bomb.h5")
    stream = _zlib_zeros(4 * _GB if scale == "full" else 64 << 20)
    with h5py.File(path, "r+") as f:
        f["neuro"].id.write_direct_chunk((0, 0, 0), stream)
    return path


def _vds_sources(folder: Path, scale: Scale) -> Path:
    """``/many`` a virtual dataset of one element from each of N sources (datasets
    of this same file): 100 000 (full), or one more than the product opens (small)."""
    import h5py

    from inspector.formats.hdf5.vds_guard import MAX_MAPPINGS
    from tests.hdf5_build import one_element_mappings

    n = 100_000 if scale == "full" else MAX_MAPPINGS + 1
    path = _copy_seed(folder, "vds-sources.h5")
    with h5py.File(path, "r+") as f:
        f.create_dataset("src", data=np.arange(n, dtype="<i4"))
        one_element_mappings(f, "many", "src", n)
    return path


def _vds_other_file(folder: Path, scale: Scale) -> Path:
    """``other.h5:/many`` a virtual dataset of 100 000 mappings (full; one more than the
    product opens, small), reached from ``doc.h5`` through the external link ``/linked``
    and as the source of the virtual dataset ``/through``."""
    import h5py

    from inspector.formats.hdf5.vds_guard import MAX_MAPPINGS
    from tests.hdf5_build import one_element_mappings

    n = 100_000 if scale == "full" else MAX_MAPPINGS + 1
    with h5py.File(folder / "other.h5", "w") as f:
        f.create_dataset("src", data=np.arange(n, dtype="<i4"))
        one_element_mappings(f, "many", "src", n)
    path = _copy_seed(folder, "doc.h5")
    with h5py.File(path, "r+") as f:
        f["linked"] = h5py.ExternalLink("other.h5", "/many")
        layout = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        layout[:] = h5py.VirtualSource("other.h5", "many", shape=(n,))[0:4]
        f.create_virtual_dataset("through", layout)
    return path


def _vlen_strings(folder: Path, scale: Scale) -> Path:
    """``/strings`` 100 000 variable-length strings of 10 000 bytes (1 GB, full), or
    2 000 of 1 000 bytes (small)."""
    import h5py

    n, width = (100_000, 10_000) if scale == "full" else (2_000, 1_000)
    path = _copy_seed(folder, "vlen-strings.h5")
    with h5py.File(path, "r+") as f:
        ds = f.create_dataset("strings", shape=(n,), dtype=h5py.string_dtype())
        block = 1000
        for start in range(0, n, block):
            count = min(block, n - start)
            ds[start:start + count] = [f"{start + i:09d}".ljust(width, "x")
                                       for i in range(count)]
    return path


def _declared_huge(folder: Path, scale: Scale) -> Path:
    """``/x`` a chunked float64 dataset declared ``(2**60,)`` with nothing written."""
    import h5py

    path = _copy_seed(folder, "declared-huge.h5")
    with h5py.File(path, "r+") as f:
        f.create_dataset("x", shape=(2**60,), maxshape=(None,), chunks=(1 << 16,),
                         dtype="<f8")
    return path


def _big_attribute(folder: Path, scale: Scale) -> Path:
    """``/extra@big`` a float64 attribute of 32 MiB (full) or one value over the
    per-value limit (small), declared by its type and shape."""
    import h5py

    from inspector.formats.hdf5.heap import MAX_VALUE_BYTES

    n = (32 << 20) // 8 if scale == "full" else MAX_VALUE_BYTES // 8 + 1
    path = _copy_seed(folder, "big-attribute.h5")
    with h5py.File(path, "r+", libver="latest") as f:
        f.create_group("extra").attrs.create("big", np.arange(n, dtype="<f8"))
    return path


def _many_groups(folder: Path, scale: Scale) -> Path:
    """100 000 root groups (2 000 small), the last ``/g099999``, which holds ``values``
    (10 float64) and an attribute ``note``."""
    import h5py

    n = 100_000 if scale == "full" else 2_000
    path = folder / "many-groups.h5"
    with h5py.File(path, "w") as f:
        for i in range(n - 1):
            f.create_group(f"g{i:06d}")
        last = f.create_group("g099999")
        last.create_dataset("values", data=np.arange(10.0))
        last.attrs["note"] = "last"
    return path


_VERIFY = ("verify", "--json", "{target}")
_VERIFY_HASH = ("verify", "--json", "--hash-arrays", "{target}")
_WINDOW = ("--screenshot", "{out}.png", "{target}")

CASES = (
    HostileCase(
        name="hdf5-vlen-writer-version",
        area="hdf5-memory",
        build=_isolated(_vlen_writer_version),
        commands=(_VERIFY, _VERIFY_HASH, ("dump", "{target}::/@writer_version"),
                  ("dump", "{target}::/@writer_version", "--all", "--out", "{out}.csv"),
                  _WINDOW),
        expect_codes=frozenset({"data.value-too-large"}),
        time_limit_s=120.0,
        description="a variable-length writer_version attribute of 1 GB",
    ),
    HostileCase(
        name="hdf5-vlen-writer-version-dump-interrupted",
        area="hdf5-memory",
        build=_isolated(_vlen_writer_version),
        commands=(("dump", "{target}::/@writer_version", "--all", "--out", "{out}.csv"),),
        exit_codes=frozenset({0, 130}),
        interrupt_after_s=3.0,
        time_limit_s=60.0,
        description="dump --all --out of the 1 GB writer_version streamed from its heap "
                    "object, Ctrl-C after 3 s (130; the small one ends first)",
    ),
    HostileCase(
        name="hdf5-vlen-stimulus-id",
        area="hdf5-memory",
        build=_isolated(_vlen_stimulus_id),
        commands=(_VERIFY, _VERIFY_HASH, ("dump", "{target}::/vision_info/stim_ids/values"),
                  _WINDOW),
        expect_codes=frozenset({"data.value-too-large"}),
        time_limit_s=120.0,
        description="a variable-length stimulus ID of 1 GB (vision_info and stimuli_db)",
    ),
    HostileCase(
        name="hdf5-gzip-bomb-chunk",
        area="hdf5-memory",
        build=_isolated(_gzip_bomb),
        commands=(_VERIFY, _VERIFY_HASH, ("dump", "{target}::/neuro"),
                  ("dump", "{target}::/neuro", "--out", "{out}.csv"), _WINDOW),
        expect_codes=frozenset({"data.chunk-overflow"}),
        time_limit_s=120.0,
        description="a /neuro chunk of 25 600 bytes whose zlib stream inflates to 4 GiB",
    ),
    HostileCase(
        name="hdf5-vds-many-sources",
        area="hdf5-memory",
        build=_isolated(_vds_sources),
        commands=(_VERIFY, ("dump", "{target}::/many"), _WINDOW),
        expect_codes=frozenset({"vds.too-many-mappings"}),
        time_limit_s=120.0,
        description="a virtual dataset of 100 000 sources",
    ),
    HostileCase(
        name="hdf5-vds-many-sources-other-file",
        area="hdf5-memory",
        build=_isolated(_vds_other_file),
        commands=(_VERIFY, ("dump", "{target}::/linked"), ("dump", "{target}::/through"),
                  _WINDOW),
        expect_codes=frozenset({"vds.too-many-mappings"}),
        time_limit_s=120.0,
        description="a virtual dataset of 100 000 mappings in another file, reached through "
                    "an external link and as a virtual dataset's source",
    ),
    HostileCase(
        name="hdf5-vlen-strings-dump",
        area="hdf5-memory",
        build=_isolated(_vlen_strings),
        commands=(_VERIFY, ("dump", "{target}::/strings"),
                  ("dump", "{target}::/strings", "--out", "{out}.csv"),
                  ("dump", "{target}::/strings", "--format", "json", "--out", "{out}.json")),
        time_limit_s=300.0,
        description="100 000 variable-length strings of 10 000 bytes, dumped",
    ),
    HostileCase(
        name="hdf5-attribute-32mib",
        area="hdf5-memory",
        build=_isolated(_big_attribute),
        commands=(_VERIFY, ("dump", "{target}::/extra@big", "--slice", "0:3"), _WINDOW),
        expect_codes=frozenset({"data.value-too-large"}),
        time_limit_s=120.0,
        description="a float64 attribute of 32 MiB: sized from its type and shape, not read",
    ),
    HostileCase(
        name="hdf5-many-groups-dump-one",
        area="hdf5-memory",
        build=_isolated(_many_groups),
        commands=(("dump", "{target}::/g099999/values"), ("dump", "{target}::/g099999@note"),
                  ("dump", "{target}::/g099999/values", "--out", "{out}.csv")),
        exit_codes=frozenset({0}),
        time_limit_s=30.0,
        description="dump of one member of a file of 100 000 root groups opens that member "
                    "alone (2 000 groups at small scale)",
    ),
    HostileCase(
        name="hdf5-declared-huge-dump",
        area="hdf5-memory",
        build=_isolated(_declared_huge),
        commands=(("dump", "{target}::/x"), ("dump", "{target}::/x", "--slice", "0:10")),
        exit_codes=frozenset({0, 2}),
        time_limit_s=20.0,
        description="dump of a dataset declared (2**60,) without --all refuses at once",
    ),
    HostileCase(
        name="hdf5-declared-huge-dump-all",
        area="hdf5-memory",
        build=_isolated(_declared_huge),
        commands=(("dump", "{target}::/x", "--all", "--out", "{out}.csv"),
                  ("dump", "{target}::/x", "--all")),
        exit_codes=frozenset({130}),
        interrupt_after_s=5.0,
        time_limit_s=15.0,
        description="dump --all of a dataset declared (2**60,) streams until Ctrl-C",
    ),
)
