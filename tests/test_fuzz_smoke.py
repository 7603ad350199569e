"""The fuzzing harness (fuzz/) works: mutants differ from their seeds, children are classified
right, reproducers are written and replay.

This checks the harness, not the readers: it does not assert that the readers
survive every mutant (``python -m fuzz`` counts that; see fuzz/README.md).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import h5py
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the harness is a top-level folder, not an installed package
    sys.path.insert(0, str(ROOT))

from fuzz.hashing import tree_digest  # noqa: E402
from fuzz.jobs import Limits, run_one  # noqa: E402
from fuzz.mutators import aucx as aucx_mut  # noqa: E402
from fuzz.mutators import hdf5 as hdf5_mut  # noqa: E402
from fuzz.mutators import load_corpus, make_mutant  # noqa: E402
from fuzz.outcomes import (  # noqa: E402
    Outcome,
    exception_of_traceback,
    top_frame_of_dump,
    top_frame_of_traceback,
)

FORMATS = ("hdf5", "aucx", "csv")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(ROOT / "tests" / "fixtures")


def _seed_digest(corpus, mutant) -> str:
    return tree_digest(corpus.root / mutant.seed_file)


def _mutant_digest(case: Path, mutant) -> str:
    return tree_digest(case / ("src" if mutant.format == "csv" else mutant.target))


def _h5_content(path: Path) -> str | None:
    """Names, link kinds, shapes, dtypes, attributes and small data of an HDF5 file
    (None when h5py cannot open it): what a mutant holds, without time stamps."""
    try:
        f = h5py.File(path, "r")
    except (OSError, ValueError):
        return None
    parts: list[str] = []
    with f:
        def visit(name: str) -> None:
            link = f.get(name, getlink=True)
            parts.append(f"{name}:{type(link).__name__}")
            if isinstance(link, h5py.HardLink):
                try:
                    obj = f[name]
                    parts.extend(f"@{k}={obj.attrs.get(k)!r}" for k in sorted(obj.attrs))
                    if isinstance(obj, h5py.Dataset):
                        parts.append(f"{obj.shape}{obj.dtype}")
                        if obj.size and obj.size * obj.dtype.itemsize < (1 << 20):
                            parts.append(repr(obj[()]))
                except Exception as exc:  # noqa: BLE001 - a damaged object: its error is its content
                    parts.append(type(exc).__name__)
        try:
            f.visit_links(visit)
        except Exception as exc:  # noqa: BLE001
            parts.append(type(exc).__name__)
    return "\n".join(parts)


# -- mutators ----------------------------------------------------------------------

def test_the_corpus_has_seeds_of_every_format(corpus):
    assert len(corpus.of("hdf5")) == 36
    assert len(corpus.of("aucx")) == 51
    assert len(corpus.of("csv")) == 14


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow
def test_mutants_differ_from_their_seed_and_are_deterministic(fmt, corpus, tmp_path):
    for index in range(20):
        case = tmp_path / f"{index}"
        mutant = make_mutant(fmt, corpus, 7, index, case)
        assert (case / mutant.target).exists() or os.path.lexists(case / mutant.target)
        assert mutant.ops, mutant
        assert _mutant_digest(case, mutant) != _seed_digest(corpus, mutant), mutant.ops
        again = make_mutant(fmt, corpus, 7, index, tmp_path / f"{index}-again")
        assert again.to_json() == mutant.to_json()
        if fmt == "hdf5" and _h5_content(case / mutant.target) is not None:
            # h5py stamps object headers with the time of the edit: compare content
            assert _h5_content(tmp_path / f"{index}-again" / mutant.target) == \
                _h5_content(case / mutant.target)
        else:
            assert tree_digest(tmp_path / f"{index}-again") == tree_digest(case)


def test_huge_unallocated_dataset_declares_its_shape_and_stores_nothing(corpus, tmp_path):
    seed = ROOT / "tests/fixtures/vneurotk/v1/continuous_dense_f32_intids.h5"
    path = tmp_path / seed.name
    shutil.copyfile(seed, path)
    ctx = hdf5_mut.Context(tmp_path, path, corpus.of("hdf5"))
    with h5py.File(path, "r+") as f:
        op = hdf5_mut.edit_huge_unallocated(f, random.Random(3), ctx)
    with h5py.File(path, "r") as f:
        ds = f[op["path"]]
        assert int(np.prod(ds.shape, dtype=object)) >= 2 ** 31
        assert [str(d) for d in ds.shape] == op["shape"]
        assert ds.chunks is not None
        assert ds.id.get_storage_size() == 0


def test_attribute_with_invalid_utf8_keeps_its_raw_bytes(corpus, tmp_path):
    seed = ROOT / "tests/fixtures/vneurotk/v1/continuous_dense_f32_intids.h5"
    path = tmp_path / seed.name
    shutil.copyfile(seed, path)
    ctx = hdf5_mut.Context(tmp_path, path, corpus.of("hdf5"))
    rng = random.Random(0)
    with h5py.File(path, "r+") as f:
        ops = [hdf5_mut.edit_bad_text_attr(f, rng, ctx) for _ in range(12)]
    vlen = [op for op in ops if op["how"] == "vlen"]
    assert vlen
    with h5py.File(path, "r") as f:
        for op in vlen:
            raw = f[op["object"]].attrs[op["attr"]]
            # h5py hands undecodable bytes back as surrogate escapes: the bytes are intact
            assert raw.encode("utf-8", "surrogateescape") == bytes.fromhex(op["bytes"])


def test_npy_builder_round_trips_through_numpy():
    array = np.arange(12, dtype="<f8").reshape(3, 4)
    buf = io.BytesIO()
    np.save(buf, array)
    version, header, payload = aucx_mut.parse_npy(buf.getvalue())
    assert version == (1, 0) and header["shape"] == (3, 4) and header["descr"] == "<f8"
    rebuilt = aucx_mut.build_npy(aucx_mut._header_text(header, {}), payload)
    np.testing.assert_array_equal(np.load(io.BytesIO(rebuilt)), array)
    assert len(rebuilt) % 64 == len(payload) % 64  # header padded to 64 bytes as NumPy does


@pytest.mark.slow
def test_aucx_mutants_recompute_checksums_so_they_match_the_members(corpus, tmp_path):
    byte_level = ("zip-", "bit-", "byte-", "checksums-text", "random", "insert", "delete",
                  "truncate", "splice", "duplicate-range")
    recomputed = 0
    for index in range(40):
        case = tmp_path / str(index)
        mutant = make_mutant("aucx", corpus, 11, index, case)
        policies = [op.get("policy") for op in mutant.ops if op["op"] == "checksums"]
        if policies != ["recomputed"] or any(op["op"].startswith(byte_level) for op in mutant.ops):
            continue
        with zipfile.ZipFile(case / mutant.target) as zf:
            infos = [i for i in zf.infolist() if not i.filename.endswith("/")]
            names = [i.filename for i in infos]
            if len(set(names)) != len(names):  # duplicate members: one line per copy
                continue
            lines = zf.read("checksums.sha256").decode("utf-8", "surrogateescape").splitlines()
            listed = {name: digest for digest, name in (ln.split("  ", 1) for ln in lines)}
            members = {i.filename: hashlib.sha256(zf.read(i)).hexdigest() for i in infos
                       if i.filename != "checksums.sha256"}
        assert listed == members
        recomputed += 1
    assert recomputed >= 5


# -- classification ----------------------------------------------------------------

CHILDREN = [
    ("clean", Outcome.CLEAN, ""),
    ("sleep", Outcome.HANG, "timeout"),
    ("busy", Outcome.HANG, "timeout"),
    ("c_loop", Outcome.HANG, "timeout"),
    ("raise_error", Outcome.ESCAPED, "KeyError"),
    ("allocate", Outcome.MEMORY, "MemoryError"),
    ("modify_input", Outcome.MODIFIED, "input modified"),
    ("segfault", Outcome.CRASH, "SIGSEGV"),
    ("exit_quietly", Outcome.CRASH, "exit 3"),
    ("oversized", Outcome.OVERSIZED, "oversized report"),
    ("invalid", Outcome.INVALID_REPORT, "invalid report"),
    ("internal", Outcome.INTERNAL, "ValueError"),
]


def _case(tmp_path: Path) -> tuple[Path, Path]:
    case = tmp_path / "case"
    case.mkdir()
    (case / "input.bin").write_bytes(b"some bytes")
    return case, case / "input.bin"


@pytest.mark.parametrize("name,outcome,exception", CHILDREN, ids=[c[0] for c in CHILDREN])
@pytest.mark.slow
def test_hand_made_children_are_classified(name, outcome, exception, tmp_path):
    case, path = _case(tmp_path)
    limits = Limits(time_limit=1.0, mem_limit_mb=256, target=f"fuzz.selftest:{name}", grace=5)
    result, record = run_one(path, case, tmp_path / "slot", limits)
    assert result.outcome is outcome, (result, record.stderr_tail[-2000:])
    assert result.exception == exception
    if outcome is Outcome.MODIFIED:
        assert record.digest_before != record.digest_after
    else:
        assert record.digest_before == record.digest_after
    if outcome is Outcome.HANG:  # the watchdog's stack dump names the frame that hung
        assert result.top_frame.startswith("fuzz/selftest.py:") and name in result.top_frame


@pytest.mark.parametrize("name,outcome", [("raise_error", Outcome.ESCAPED),
                                          ("modify_input", Outcome.MODIFIED)])
@pytest.mark.slow
def test_subprocess_mode_classifies_the_same(name, outcome, tmp_path):
    case, path = _case(tmp_path)
    limits = Limits(time_limit=5.0, mem_limit_mb=256, target=f"fuzz.selftest:{name}",
                    subprocess=True)
    result, _record = run_one(path, case, tmp_path / "slot", limits)
    assert result.outcome is outcome


def test_frames_and_exception_types_are_read_from_tracebacks():
    repo = ROOT  # frames are ours by the packages' folders, not by a folder name
    text = (
        "Traceback (most recent call last):\n"
        f'  File "{repo}/inspector/formats/registry.py", line 140, in open_document\n'
        "    return reader.open(p)\n"
        f'  File "{repo}/inspector/formats/aucx/reader.py", line 77, in _members\n'
        "    x = y[0]\n"
        '  File "/venv/lib/python3.11/zipfile.py", line 12, in read\n'
        "    raise BadZipFile(msg)\n"
        "zipfile.BadZipFile: Bad magic number for file header\n")
    assert top_frame_of_traceback(text) == "inspector/formats/aucx/reader.py:77 in _members"
    assert exception_of_traceback(text) == "BadZipFile"
    dump = (
        "Thread 0x00007f0000000001 (most recent call first):\n"
        '  File "/usr/lib/python3.11/threading.py", line 320 in wait\n\n'
        "Current thread 0x00007f0000000002 (most recent call first):\n"
        f'  File "{repo}/inspector/formats/delimited/table.py", line 40 in read_rows\n'
        f'  File "{repo}/inspector/formats/delimited/loader.py", line 9 in run_import\n'
        f'  File "{repo}/fuzz/child.py", line 150 in run_child\n')
    assert top_frame_of_dump(dump) == "inspector/formats/delimited/table.py:40 in read_rows"
    recursion = (
        "Traceback (most recent call last):\n"
        f'  File "{repo}/inspector/formats/delimited/view.py", line 97, in _source_tree\n'
        "    _tree_of(m, raw)\n"
        f'  File "{repo}/inspector/formats/delimited/view.py", line 80, in _tree_of\n'
        "    _tree_of(node.add(x), v)\n"
        "  [Previous line repeated 978 more times]\n"
        f'  File "{repo}/inspector/formats/document.py", line 92, in add\n'
        "    child = Node(name, value, **kw)\n"
        "RecursionError: maximum recursion depth exceeded\n")
    # the recursion, not wherever the stack happened to run out
    assert top_frame_of_traceback(recursion) == "inspector/formats/delimited/view.py:80 in _tree_of"


def test_a_checkout_inside_a_folder_called_inspector_is_not_the_package():
    """A clone at ``.../inspector/`` made every frame of ``fuzz/`` (and of a virtual
    environment inside the clone) look like ``inspector/...`` (a new user's first test run)."""
    from fuzz.outcomes import short_path

    assert short_path(str(ROOT / "fuzz" / "selftest.py")) == "fuzz/selftest.py"
    assert short_path(str(ROOT / "inspector" / "formats" / "registry.py")) == \
        "inspector/formats/registry.py"
    for other in ("/home/u/inspector/fuzz/selftest.py",
                  "/home/u/inspector/.venv/lib/python3.11/site-packages/numpy/core.py",
                  "/usr/lib/python3.11/inspector/x.py"):
        assert short_path(other) == other
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/inspector/.venv/lib/python3.11/site-packages/h5py/x.py", line 3, '
        "in f\n"
        f'  File "{ROOT}/fuzz/selftest.py", line 29, in sleep\n'
        "ValueError: x\n")
    assert top_frame_of_traceback(frames) == ""  # no frame of the inspector package


# -- the command line --------------------------------------------------------------

def _fuzz(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fuzz", *args], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_fixed_seed_smoke_runs_every_format_and_keeps_reproducers(tmp_path):
    out = tmp_path / "out"
    proc = _fuzz("--format", "all", "--count", "20", "--seed", "1", "--out", str(out),
                 "--time-limit", "10", "--allow-failures")
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert set(report["formats"]) == set(FORMATS)
    for fmt, counts in report["formats"].items():
        assert counts["mutants"] == 20
        outcomes = sum(v for k, v in counts.items()
                       if k not in ("mutants", "seconds", "peak_rss_growth_mb", "over_rss_budget"))
        assert outcomes == 20
        assert 0 < counts["peak_rss_growth_mb"] < 400 and counts["over_rss_budget"] == 0
        saved = list((out / "reproducers" / fmt).glob("*/*"))
        assert len(saved) == 20 - counts["clean"]
        for folder in saved:
            assert (folder / "case").is_dir()
            mutation = json.loads((folder / "mutation.json").read_text(encoding="utf-8"))
            outcome = json.loads((folder / "outcome.json").read_text(encoding="utf-8"))
            assert mutation["format"] == fmt and mutation["seed"] == 1
            assert folder.parent.name == outcome["outcome"]
            assert os.path.lexists(folder / "case" / mutation["target"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert len(summary["classes"]) == report["distinct_failures"]
    assert not (out / ".work").exists()


@pytest.mark.slow
def test_exit_status_is_non_zero_on_failures_unless_allowed(tmp_path):
    out = tmp_path / "out"
    args = ("--format", "csv", "--count", "2", "--seed", "3", "--out", str(out),
            "--target", "fuzz.selftest:raise_error")
    failing = _fuzz(*args)
    assert failing.returncode == 1, failing.stderr[-2000:]
    assert json.loads(failing.stdout)["formats"]["csv"]["escaped_exceptions"] == 2
    allowed = _fuzz(*args, "--allow-failures")
    assert allowed.returncode == 0
    clean = _fuzz("--format", "aucx", "--count", "2", "--out", str(tmp_path / "clean"),
                  "--target", "fuzz.selftest:clean")
    assert clean.returncode == 0 and json.loads(clean.stdout)["formats"]["aucx"]["clean"] == 2

    reproducer = next((out / "reproducers" / "csv" / "escaped-exception").iterdir())
    replay = subprocess.run([sys.executable, "-m", "fuzz.replay", str(reproducer)], cwd=ROOT,
                            env=ENV, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 1, replay.stderr[-2000:]
    again = json.loads(replay.stdout)
    assert again["outcome"] == "escaped-exception" and again["reproduced"] is True


def test_the_app_target_builds_the_overview_and_reports_what_the_cli_does(monkeypatch):
    """``--target fuzz.targets:inspect_as_app`` reaches the overview pass of verification
    (archives whose arrays stay lazy), and its line is the command line's."""
    import fuzz.targets as targets
    from inspector.formats import open_document
    from inspector.formats.analysis.scan_envelope import OVERVIEW_COLUMNS
    from inspector.formats.aucx import reader as aucx_reader

    monkeypatch.setattr(aucx_reader, "EXPERIMENT_LOAD_LIMIT", 0)  # every archive stays lazy
    seeds = sorted((ROOT / "tests" / "fixtures" / "aucx").glob("syn_*.aucx"))
    built = 0
    for seed in seeds:
        with open_document(seed, auc_overview_columns=OVERVIEW_COLUMNS) as doc:
            built += bool(doc.auc is not None and doc.auc.overview_pending)
        assert targets.inspect_as_app(seed).line == targets.inspect(seed).line
    assert seeds and built == len(seeds)
