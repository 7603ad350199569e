"""Data an HDF5 file (or a Beckman run folder) names in other files.

External storage (``H5Pset_external``) naming a secret file outside the document's
folder, locally and from a URL; external storage naming a named pipe, as ``/neuro``,
``/trial_starts`` and a leaf dataset; virtual datasets that reach themselves (one
file, two files naming each other, a ring of files several levels deep); an
external link into a named pipe and one to a file outside the folder; a Beckman run
folder with a scan file linked out of the folder.  Secrets are written to a temporary
folder outside the case folder, each holding :data:`MARKER`, which no output may
contain.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import h5py
import numpy as np

from fuzz.hostile.case import Builder, HostileCase, Scale

_ROOT = Path(__file__).resolve().parents[2]
RECORDING = _ROOT / "tests" / "fixtures" / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
#: Written into every secret outside the case folder; never in any output.
MARKER = b"HOSTILE-EXTERNAL-SECRET-7f3a9c"
#: The same bytes as ``dump`` prints a ``uint8`` dataset read from them (CSV, one a line).
MARKER_AS_NUMBERS = b"\n".join(str(b).encode() for b in MARKER[:12])
FORBIDDEN = (MARKER, MARKER_AS_NUMBERS)
_WIDTH = 32  # bytes of one fixed-length string element of the leaking dataset


@contextmanager
def _secret_folder(scale: Scale) -> Iterator[Path]:
    """A temporary folder outside the case folder holding ``secret.bin`` (the marker,
    repeated: 4 KiB small, 64 MiB full), removed on exit."""
    folder = Path(tempfile.mkdtemp(prefix="hostile-secret-"))
    try:
        size = 4096 if scale == "small" else 64 << 20
        line = MARKER.ljust(_WIDTH, b".")
        (folder / "secret.bin").write_bytes(line * (size // _WIDTH))
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _recording(path: Path, edit: Callable[[h5py.File], None]) -> Path:
    """A copy of the test recording at ``path``, edited by ``edit``."""
    shutil.copy(RECORDING, path)
    with h5py.File(path, "a") as f:
        edit(f)
    return path


def _leaky(secret: Path, count: int) -> Callable[[h5py.File], None]:
    """Add ``/leak`` (strings) and ``/leak_bytes`` (uint8) stored in ``secret``."""
    def edit(f: h5py.File) -> None:
        f.create_dataset("leak", (count,), f"S{_WIDTH}",
                         external=[(str(secret), 0, count * _WIDTH)])
        f.create_dataset("leak_bytes", (count * _WIDTH,), "u1",
                         external=[(str(secret), 0, count * _WIDTH)])
    return edit


def _leak_count(scale: Scale) -> int:
    return 64 if scale == "small" else (64 << 20) // _WIDTH


@contextmanager
def _local_leak(folder: Path, scale: Scale) -> Iterator[str]:
    with _secret_folder(scale) as secret:
        yield str(_recording(folder / "leak.h5",
                             _leaky(secret / "secret.bin", _leak_count(scale))))


@contextmanager
def _remote_leak(folder: Path, scale: Scale) -> Iterator[str]:
    from tests.range_server import RangeServer

    with _secret_folder(scale) as secret:
        path = _recording(folder / "leak.h5", _leaky(secret / "secret.bin", _leak_count(scale)))
        with RangeServer() as server:
            yield server.add("leak.h5", path)


def _pipe_storage(name: str) -> Builder:
    """A builder: the recording with dataset ``name`` stored in the named pipe ``pipe``
    beside it (a relative external-storage name)."""
    @contextmanager
    def build(folder: Path, scale: Scale) -> Iterator[str]:
        os.mkfifo(folder / "pipe")

        def edit(f: h5py.File) -> None:
            shape, dtype = f[name].shape, f[name].dtype
            del f[name]
            nbytes = int(np.prod(shape)) * dtype.itemsize
            f.create_dataset(name, shape, dtype, external=[("pipe", 0, nbytes)])
        yield str(_recording(folder / "piped.h5", edit))
    return build



def _virtual(f: h5py.File, name: str, file_name: str, source: str,
             shape: tuple[int, ...], dtype: str) -> None:
    if name in f:
        del f[name]
    layout = h5py.VirtualLayout(shape=shape, dtype=dtype)
    layout[...] = h5py.VirtualSource(file_name, source, shape=shape)
    f.create_virtual_dataset(name, layout, fillvalue=0)


@contextmanager
def _vds_self(folder: Path, scale: Scale) -> Iterator[str]:
    """``/neuro`` maps itself (by ``.``); ``/other`` maps ``/neuro`` by the file's name."""
    def edit(f: h5py.File) -> None:
        _virtual(f, "neuro", ".", "/neuro", (480, 6), "f4")
        _virtual(f, "other", "self.h5", "/neuro", (480, 6), "f4")
    yield str(_recording(folder / "self.h5", edit))


@contextmanager
def _vds_ring(folder: Path, scale: Scale) -> Iterator[str]:
    """``/neuro`` of ``ring0.h5`` maps ``ring1.h5:/x``, which maps ``ring2.h5:/x`` ...
    and the last maps ``ring0.h5:/neuro`` again (2 files small, 40 full)."""
    count = 2 if scale == "small" else 40
    names = [f"ring{i}.h5" for i in range(count)]
    for i in range(1, count):
        with h5py.File(folder / names[i], "w") as f:
            nxt = names[(i + 1) % count]
            _virtual(f, "x", nxt, "/neuro" if i + 1 == count else "/x", (480, 6), "f4")
    return_path = _recording(folder / names[0],
                             lambda f: _virtual(f, "neuro", names[1], "/x", (480, 6), "f4"))
    yield str(return_path)


@contextmanager
def _elink_pipe(folder: Path, scale: Scale) -> Iterator[str]:
    os.mkfifo(folder / "pipe.h5")

    def edit(f: h5py.File) -> None:
        del f["neuro"]
        f["neuro"] = h5py.ExternalLink("pipe.h5", "/neuro")
    yield str(_recording(folder / "linked.h5", edit))


@contextmanager
def _elink_outside(folder: Path, scale: Scale) -> Iterator[str]:
    """``/neuro`` and ``/leak`` are external links into an HDF5 file outside the folder
    whose ``/leak`` holds the marker (and an attribute holding it too)."""
    with _secret_folder(scale) as secret:
        with h5py.File(secret / "secret.h5", "w") as s:
            s["leak"] = np.array([MARKER] * 4)
            s["neuro"] = np.zeros((480, 6), "f4")
            s["neuro"].attrs["note"] = MARKER

        def edit(f: h5py.File) -> None:
            del f["neuro"]
            f["neuro"] = h5py.ExternalLink(str(secret / "secret.h5"), "/neuro")
            f["leak"] = h5py.ExternalLink(str(secret / "secret.h5"), "/leak")
        yield str(_recording(folder / "linked.h5", edit))


def _scan(description: bytes, lines: int) -> bytes:
    head = [description, b"R 1 20.0 50000 0000120 3.2899E09  280 1"]
    body = [f"{5.9 + i * 0.003:9.4f} {0.5:12.5E} {0.005:13.5E}".encode() for i in range(lines)]
    return b"\n".join(head + body) + b"\n"


@contextmanager
def _beckman_link(folder: Path, scale: Scale) -> Iterator[str]:
    """A run folder: one good scan and ``00002.RA1``, a link to a scan-like secret
    outside the folder whose description and lines hold the marker."""
    lines = 50 if scale == "small" else 200_000
    run = folder / "run"
    run.mkdir()
    (run / "00001.RA1").write_bytes(_scan(b"good scan", lines))
    with _secret_folder(scale) as secret:
        target = secret / "passwd"
        target.write_bytes(_scan(MARKER, lines) + MARKER + b" x y\n")
        (run / "00002.RA1").symlink_to(target)
        yield str(run)


_HDF5 = (("verify", "--json", "{target}"), ("verify", "--hash-arrays", "--json", "{target}"))
_WINDOW = (("--screenshot", "{out}.png", "{target}"),)


def _at(node: str) -> tuple[tuple[str, ...], ...]:
    """A window screenshot opened at ``node`` (its values view asks for them)."""
    return (("--screenshot", "{out}.png", f"{{target}}::{node}"),)


def _dumps(*nodes: str) -> tuple[tuple[str, ...], ...]:
    return tuple(("dump", "--all", f"{{target}}::{n}") for n in nodes)


def _pipe_case(name: str, dataset: str) -> HostileCase:
    return HostileCase(
        name=f"external-storage-fifo-{name}", area="external", build=_pipe_storage(dataset),
        commands=_HDF5 + _dumps(dataset) + _WINDOW + _at(dataset),
        expect_codes=frozenset({"external.special-file"}),
        description=f"{dataset} stored (H5Pset_external) in a named pipe beside the file")


CASES = (
    HostileCase(
        name="external-storage-secret-local", area="external", build=_local_leak,
        commands=_HDF5 + _dumps("/leak", "/leak_bytes") + _WINDOW + _at("/leak"),
        expect_codes=frozenset({"external.outside"}), forbidden_output=FORBIDDEN,
        description="datasets stored (H5Pset_external) in a secret file outside the folder"),
    HostileCase(
        name="external-storage-secret-url", area="external", build=_remote_leak,
        commands=_HDF5 + _dumps("/leak", "/leak_bytes") + _WINDOW + _at("/leak"),
        expect_codes=frozenset({"external.remote"}), forbidden_output=FORBIDDEN,
        description="the same file served over HTTP (127.0.0.1): a local path from a URL"),
    _pipe_case("neuro", "/neuro"),
    _pipe_case("trial-starts", "/trial_starts"),
    _pipe_case("leaf", "/vision_store/0/array"),
    HostileCase(
        name="vds-self", area="external", build=_vds_self,
        commands=_HDF5 + _dumps("/neuro", "/other") + _WINDOW + _at("/other"),
        expect_codes=frozenset({"vds.recursive"}),
        description="/neuro a virtual dataset of itself ('.' and the file's own name)"),
    HostileCase(
        name="vds-ring", area="external", build=_vds_ring,
        commands=_HDF5 + _dumps("/neuro") + _WINDOW,
        expect_codes=frozenset({"vds.recursive"}),
        description="virtual datasets in a ring of files (2 small, 40 full) back to /neuro"),
    HostileCase(
        name="external-link-fifo", area="external", build=_elink_pipe,
        commands=_HDF5 + _dumps("/neuro") + _WINDOW,
        expect_codes=frozenset({"link.dangling"}),
        description="/neuro an external link into a named pipe"),
    HostileCase(
        name="external-link-outside", area="external", build=_elink_outside,
        commands=_HDF5 + _dumps("/leak", "/neuro") + _WINDOW,
        expect_codes=frozenset({"external.outside"}), forbidden_output=FORBIDDEN,
        description="external links into a secret HDF5 file outside the folder"),
    HostileCase(
        name="beckman-link-outside", area="external", build=_beckman_link,
        commands=(("verify", "--json", "{target}"), *_WINDOW),
        expect_codes=frozenset({"beckman.link-outside"}), forbidden_output=FORBIDDEN,
        description="a Beckman run folder whose scan file links to a secret outside it"),
)
