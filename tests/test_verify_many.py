"""``inspector verify`` over many files: folders walked by content, globs, ``--from``
lists, worker processes in input order, the summary, crashes and hangs, and Dask."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from inspector.batch.inputs import Entry, expand, read_list
from inspector.batch.local import LocalWorkers
from inspector.batch.run import RunConfig, verify_many
from inspector.batch.work import Outcome, Status, VerifyOptions, status_of, verify_entry
from inspector.cli import main, render_document
from inspector.formats import open_document
from inspector.formats.sources.discovery import documents_under, walk
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
AUCX = FIXTURES / "aucx"
RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
GOOD = AUCX / "syn_equilibrium_s1_6x200.aucx"
BECKMAN = ROOT / "resources" / "samples" / "beckman_run"


def _tree(root: Path) -> dict[str, Path]:
    """A folder of documents among other files; the documents by role.

    Recordings and archives under unhelpful names, a CSV scan folder (one
    document: it holds a manifest), a Beckman run folder holding an archive
    too, a damaged archive (a ZIP still: recognised), files named like
    documents that are none (an archive that is not a ZIP, an archive
    gzipped, an empty and a random-bytes ``.h5``), and files no reader
    claims by content or name (:data:`SKIPPED`): a text note, a stray CSV
    without a manifest, a PNG; and a hidden archive (never walked).
    """
    (root / "day1" / "raw").mkdir(parents=True)
    (root / "day2").mkdir()
    (root / "empty").mkdir()
    docs = {
        "recording": root / "day1" / "raw" / "session.data",
        "archive": root / "day1" / "export.bin",
        "truncated": root / "day2" / "cut.aucx",
        "scan_folder": root / "day2" / "scans",
        "beckman": root / "day2" / "run",
        "in_run": root / "day2" / "run" / "kept.aucx",
        "not_a_zip": root / "day2" / "not_a_zip.aucx",
        "gzipped": root / "day2" / "packed.aucx",
        "empty_h5": root / "day1" / "empty.h5",
        "random_h5": root / "day1" / "raw" / "noise.H5",
    }
    shutil.copy(RECORDING, docs["recording"])
    shutil.copy(GOOD, docs["archive"])
    shutil.copy(AUCX / "bad_truncated.aucx", docs["truncated"])
    shutil.copytree(FIXTURES / "auc-delimited" / "long_csv", docs["scan_folder"])
    shutil.copytree(BECKMAN, docs["beckman"])
    shutil.copy(GOOD, docs["in_run"])
    shutil.copy(AUCX / "bad_not_a_zip.aucx", docs["not_a_zip"])
    docs["gzipped"].write_bytes(gzip.compress(GOOD.read_bytes(), mtime=0))
    docs["empty_h5"].write_bytes(b"")
    docs["random_h5"].write_bytes(np.random.default_rng(7).bytes(4096))
    (root / "notes.txt").write_text("measured on Tuesday\n")
    (root / "day1" / "table.csv").write_text("a,b\n1,2\n")
    (root / "day1" / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    shutil.copy(GOOD, root / "day2" / ".hidden.aucx")
    return docs


#: The files of :func:`_tree` that a walk skips (no reader claims them by content or name).
SKIPPED = ("day1/picture.png", "day1/table.csv", "notes.txt")
#: The documents of :func:`_tree` that are no document by content: named like one.
UNREADABLE = ("not_a_zip", "gzipped", "empty_h5", "random_h5")


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _summary(err: str) -> dict:
    return json.loads(err.strip().splitlines()[-1])["summary"]


def _walk_order(docs: dict[str, Path]) -> list[Path]:
    """The documents in walk order: depth first, entries sorted by name (a folder
    document before what the walk still finds inside it)."""
    return sorted(docs.values(), key=lambda p: p.parts)


def test_folder_walk_finds_exactly_the_documents(tmp_path):
    docs = _tree(tmp_path)
    found = list(documents_under(tmp_path))
    assert found == _walk_order(docs)
    # the scan folder is one document: nothing inside is listed
    assert not any(docs["scan_folder"] in p.parents for p in found)
    # a folder that is itself a document is not walked for its own files
    assert list(documents_under(docs["scan_folder"])) == [docs["scan_folder"]]
    # but an archive kept in a run folder is a document of its own
    assert list(documents_under(docs["beckman"])) == [docs["beckman"], docs["in_run"]]
    # every other visible file is met as skipped; files of a folder document are not
    skipped = [f.path for f in walk(tmp_path) if not f.document]
    assert skipped == [tmp_path / s for s in SKIPPED]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_verify_folder_reports_every_file_in_order(tmp_path, capsys, jobs):
    docs = _tree(tmp_path)
    assert main(["verify", "--json", "--jobs", jobs, str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    reports = _lines(out)
    assert [r["path"] for r in reports] == [str(p) for p in _walk_order(docs)]
    by_role = {role: next(r for r in reports if r["path"] == str(p))
               for role, p in docs.items()}
    assert {role: r["format"] for role, r in by_role.items()} == {
        "recording": "vneurotk-recording", "archive": "aucx", "truncated": "aucx",
        "scan_folder": "auc-delimited", "beckman": "beckman-xl", "in_run": "aucx",
        **{role: "unknown" for role in UNREADABLE}}
    assert "zip.truncated" in {f["code"] for f in by_role["truncated"]["findings"]}
    for role in UNREADABLE:  # named like a document: unreadable, never left out
        codes = [(f["severity"], f["code"]) for f in by_role[role]["findings"]]
        assert codes == [("error", "format.unrecognised")]
        assert by_role[role]["ok"] is False
    assert "named like AUCX archives" in by_role["gzipped"]["findings"][0]["message"]
    assert "named like VneuroTK recordings" in by_role["empty_h5"]["findings"][0]["message"]
    assert _summary(err) | {"seconds": 0} == {"files": 10, "ok": 5, "not_ok": 1,
                                              "unreadable": 4, "skipped": 3, "seconds": 0}
    assert len(err.splitlines()) == 1  # the summary alone: skipped files named only when asked
    # --list-skipped names them on standard error, before the summary
    assert main(["verify", "--json", "--jobs", jobs, "--list-skipped", str(tmp_path)]) == 1
    out2, err2 = capsys.readouterr()
    assert [r["path"] for r in _lines(out2)] == [r["path"] for r in reports]
    assert _lines(err2)[:-1] == [{"skipped": str(tmp_path / s)} for s in SKIPPED]
    assert main(["verify", "--jobs", jobs, "--list-skipped", str(tmp_path)]) == 1
    err3 = capsys.readouterr().err.splitlines()
    assert err3[:-1] == [f"inspector verify: skipped {tmp_path / s}" for s in SKIPPED]
    assert re.fullmatch(r"inspector verify: 10 files: 5 ok, 1 not ok, 4 unreadable, "
                        r"3 skipped \([0-9.]+ s\)", err3[-1])


def test_a_folder_of_good_documents_and_unrelated_files_exits_0(tmp_path, capsys):
    shutil.copy(GOOD, tmp_path / "a.aucx")
    (tmp_path / "README.txt").write_text("a store\n")
    assert main(["verify", "--json", "--jobs", "2", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert [r["path"] for r in _lines(out)] == [str(tmp_path / "a.aucx")]
    assert _summary(err) | {"seconds": 0} == {"files": 1, "ok": 1, "not_ok": 0,
                                              "unreadable": 0, "skipped": 1, "seconds": 0}


def test_a_file_named_twice_is_verified_once(tmp_path, capsys):
    docs = _tree(tmp_path)
    link = tmp_path / "day1" / "link.aucx"
    link.symlink_to(docs["archive"])
    listing = tmp_path / "list.txt"
    listing.write_text(f"{docs['truncated']}\n{tmp_path / 'day2' / '..' / 'day2' / 'cut.aucx'}\n")
    argv = ["verify", "--json", "--jobs", "2", str(tmp_path / "day2" / "**"),
            str(docs["archive"]), str(tmp_path / "day1"), str(link), "--from", str(listing)]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    paths = [r["path"] for r in _lines(out)]
    assert len(paths) == len(set(map(os.path.realpath, paths)))
    # the pattern first (its folder walked, its files named; the run folder's scan files
    # are read as the run, not again alone), then the archive, then what day1 adds
    day2 = [p for p in _walk_order(docs) if tmp_path / "day2" in p.parents]
    day1 = [p for p in _walk_order(docs)
            if tmp_path / "day1" in p.parents and p != docs["archive"]]
    assert [os.path.realpath(p) for p in paths] == [
        os.path.realpath(p) for p in (*day2, docs["archive"], *day1)]
    # day1's stray files were met by a walk and named by no input: skipped
    assert _summary(err)["files"] == len(paths) == len(docs) == 10
    assert _summary(err)["skipped"] == 2


@pytest.mark.slow
def test_glob_patterns(tmp_path, capsys):
    docs = _tree(tmp_path)
    # a pattern names files as the shell would: every match, recognised or not
    assert main(["verify", "--json", str(tmp_path / "day2" / "*.aucx")]) == 1
    reports = _lines(capsys.readouterr().out)
    assert [Path(r["path"]).name for r in reports] == ["cut.aucx", "not_a_zip.aucx",
                                                       "packed.aucx"]
    assert [r["format"] for r in reports] == ["aucx", "unknown", "unknown"]
    # '**' matches at any depth; a matched folder is walked (or is one document)
    main(["verify", "--json", str(tmp_path / "**" / "ra*")])
    assert [r["path"] for r in _lines(capsys.readouterr().out)] == [
        str(docs["random_h5"]), str(docs["recording"])]
    main(["verify", "--json", str(tmp_path / "day*")])
    paths = [r["path"] for r in _lines(capsys.readouterr().out)]
    assert paths == [str(p) for p in _walk_order(docs)]
    # a pattern matching a folder and every file in it names each file once: the folder's
    # documents, then the files it matches that are none (named, so verified as named)
    assert main(["verify", "--json", "--jobs", "2", str(tmp_path / "day1" / "**")]) == 1
    out, err = capsys.readouterr()
    paths = [r["path"] for r in _lines(out)]
    day1 = [p for p in _walk_order(docs) if tmp_path / "day1" in p.parents]
    assert sorted(paths) == sorted(map(str, [*day1, tmp_path / "day1" / "picture.png",
                                             tmp_path / "day1" / "table.csv"]))
    assert len(paths) == len(set(paths)) == 6
    assert (_summary(err)["files"], _summary(err)["skipped"]) == (6, 0)


def test_a_pattern_or_folder_naming_nothing_is_reported(tmp_path, capsys):
    _tree(tmp_path)
    pattern = str(tmp_path / "*.nothing")
    assert main(["verify", "--json", pattern, str(tmp_path / "empty")]) == 1
    out, err = capsys.readouterr()
    reports = _lines(out)
    assert [r["path"] for r in reports] == [pattern, str(tmp_path / "empty")]
    assert [[f["code"] for f in r["findings"]] for r in reports] == [["verify.no-documents"]] * 2
    assert not any(str(tmp_path) in f["message"] for r in reports for f in r["findings"])
    assert _summary(err)["unreadable"] == 2


@pytest.mark.slow
def test_from_list_with_comments_and_stdin(tmp_path, capsys, monkeypatch):
    _tree(tmp_path)
    listing = tmp_path / "list.txt"
    listing.write_text(
        "# archives to check\n"
        "\n"
        f"{GOOD}\n"
        f"   {RECORDING}   \n"
        "  # an indented comment\n"
        f"{tmp_path / 'missing.aucx'}\n"
        f"{tmp_path / 'day2'}\n", encoding="utf-8")
    assert read_list(str(listing), io.StringIO()) == [
        str(GOOD), str(RECORDING), str(tmp_path / "missing.aucx"), str(tmp_path / "day2")]
    assert main(["verify", "--json", "--from", str(listing)]) == 1
    out, err = capsys.readouterr()
    paths = [r["path"] for r in _lines(out)]
    day2 = [str(tmp_path / "day2" / n) for n in ("cut.aucx", "not_a_zip.aucx", "packed.aucx",
                                                 "run", "run/kept.aucx", "scans")]
    assert paths == [str(GOOD), str(RECORDING), str(tmp_path / "missing.aucx"), *day2]
    assert _summary(err) | {"seconds": 0} == {"files": 9, "ok": 5, "not_ok": 1,
                                              "unreadable": 3, "skipped": 0, "seconds": 0}
    # '-' reads the list from standard input; FILE arguments come first
    monkeypatch.setattr("sys.stdin", io.StringIO(f"# one\n{RECORDING}\n"))
    assert main(["verify", "--json", str(GOOD), "--from", "-"]) == 0
    assert [r["path"] for r in _lines(capsys.readouterr().out)] == [str(GOOD), str(RECORDING)]
    # a list of nothing verifies nothing, and starts no worker
    monkeypatch.setattr("sys.stdin", io.StringIO("# nothing today\n\n"))
    assert main(["verify", "--json", "--from", "-"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and _summary(err)["files"] == 0
    # an unreadable list is a usage error
    assert main(["verify", "--from", str(tmp_path / "no-list.txt")]) == 2
    assert "cannot read --from" in capsys.readouterr().err


def test_urls_pass_through_unchanged():
    urls = ["https://example.org/a/b.h5", "s3://bucket/key*.aucx", "http://h/[x]"]
    assert list(expand(urls)) == [Entry(u) for u in urls]


def _big_archive(path: Path) -> Path:
    """An archive of ~16 MB of signal: its checksums take far longer than a small one's."""
    from inspector.formats.aucx import read_experiment, write_aucx

    exp = read_experiment(AUCX / "syn_moving_boundary_large_s123_10x3000.aucx")
    points = 200_000
    rng = np.random.default_rng(0)
    exp.radius = np.linspace(5.9, 7.2, points)
    exp.signal = rng.normal(size=(exp.n_scans, points))
    exp.mask = np.ones((exp.n_scans, points), dtype=bool)
    return write_aucx(exp, path, exported_at="2026-06-01T12:00:00Z")


@pytest.mark.slow
def test_input_order_is_kept_with_two_jobs_and_lines_equal_single_file_verify(
        tmp_path, capsys):
    big = _big_archive(tmp_path / "big.aucx")
    small = sorted(AUCX.glob("syn_*.aucx"))[:4] + [AUCX / "bad_signal_byte_flip.aucx", RECORDING]
    files = [str(big), *map(str, small)]
    assert main(["verify", "--json", "--jobs", "2", *files]) == 1
    out, err = capsys.readouterr()
    many = out.splitlines()
    assert [json.loads(line)["path"] for line in many] == files
    # each line is byte-identical to verifying that file alone
    for path, line in zip(files, many, strict=True):
        assert main(["verify", "--json", path]) in (0, 1)
        single_out, single_err = capsys.readouterr()
        assert single_out.splitlines() == [line]
        assert single_err == ""  # one file: no summary, as before
    summary = _summary(err)
    assert (summary["files"], summary["not_ok"], summary["unreadable"]) == (len(files), 1, 0)


def test_text_reports_in_order_with_summary_line(tmp_path, capsys):
    files = [str(GOOD), str(AUCX / "bad_signal_byte_flip.aucx"), str(tmp_path / "nope.h5")]
    assert main(["verify", "--jobs", "2", *files]) == 1
    out, err = capsys.readouterr()
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    assert heads == [f"{files[0]}: aucx: OK",
                     f"{files[1]}: aucx: NOT OK (structure: not checked)",
                     f"{files[2]}: unknown: NOT OK"]
    assert err.splitlines()[-1].startswith(
        "inspector verify: 3 files: 1 ok, 1 not ok, 1 unreadable, 0 skipped (")


@pytest.mark.slow
def test_exit_codes_and_integrity_only(tmp_path, capsys):
    # a recording and an archive whose experiment breaks a structure rule (integrity ok)
    from inspector.formats.aucx import read_experiment, write_aucx

    exp = read_experiment(GOOD)
    scans = list(exp.scans)  # (a ScanRecords builds a fresh dict per access)
    scans[1] = {**scans[1], "scan_id": scans[0]["scan_id"]}  # two scans, one scan_id
    exp.scans = scans
    dup = write_aucx(exp, tmp_path / "dup.aucx", exported_at="2026-06-01T12:00:00Z")
    with open_document(dup) as doc:
        doc.verify()
        assert doc.ok and not doc.structure_ok
    files = [str(RECORDING), str(dup)]
    assert main(["verify", "--json", "--jobs", "2", *files]) == 1
    capsys.readouterr()
    assert main(["verify", "--json", "--jobs", "2", "--integrity-only", *files]) == 0
    assert main(["verify", "--json", "--jobs", "2", str(GOOD), str(RECORDING)]) == 0
    assert _summary(capsys.readouterr().err)["ok"] == 2


# -- workers that crash, hang or allocate without bound: one file's verdict only ----------

def misbehave(name: str, options: VerifyOptions) -> Outcome:
    """Verify ``name``, unless its name asks this worker to die, hang or hog memory."""
    base = os.path.basename(name)
    if base.startswith("crash"):
        os._exit(70)
    if base.startswith("hang"):
        time.sleep(120)
    if base.startswith("hog"):
        bytearray(8 << 30)  # more than the cap of the test below
    return verify_entry(name, options)


@pytest.mark.slow
def test_a_crashing_or_hanging_worker_fails_only_its_file(tmp_path):
    names = ["a.aucx", "crash.aucx", "b.aucx", "hang.aucx", "hog.aucx", "c.aucx"]
    for name in names:
        shutil.copy(GOOD, tmp_path / name)
    entries = [Entry(str(tmp_path / n)) for n in names]
    options = VerifyOptions(render_document, as_json=True)
    workers = LocalWorkers(2, options, timeout=5, memory_limit=3 << 30, work=misbehave)
    out, err = io.StringIO(), io.StringIO()
    counts = verify_many(entries, options, RunConfig(jobs=2), out, err, workers=workers)
    reports = _lines(out.getvalue())
    assert [r["path"] for r in reports] == [e.name for e in entries]
    codes = [[f["code"] for f in r["findings"] if f["severity"] == "error"] for r in reports]
    assert codes == [[], ["verify.worker-crashed"], [], ["verify.timeout"],
                     ["internal.verify-failed"], []]
    assert "MemoryError" in reports[4]["findings"][0]["message"]
    assert (counts.ok, counts.not_ok, counts.unreadable) == (3, 0, 3)
    assert _summary(err.getvalue())["unreadable"] == 3


def which_process(name: str, options: VerifyOptions) -> Outcome:
    """The id of the worker process that got ``name``."""
    return Outcome(name, Status.OK, str(os.getpid()))


@pytest.mark.slow
def test_a_worker_is_replaced_after_its_share_of_files(monkeypatch):
    monkeypatch.setattr("inspector.batch.local.RECYCLE_AFTER", 2)
    options = VerifyOptions(render_document, as_json=True)
    workers = LocalWorkers(1, options, work=which_process)
    out = io.StringIO()
    entries = [Entry(f"f{i}") for i in range(6)]
    counts = verify_many(entries, options, RunConfig(jobs=1), out, io.StringIO(), workers=workers)
    pids = out.getvalue().split()
    assert counts.ok == 6 and len(pids) == 6
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4] == pids[5]
    assert os.getpid() not in map(int, pids)


def test_status_of_documents():
    with open_document(GOOD) as doc:
        doc.verify()
        assert status_of(doc) == Status.OK
    with open_document(AUCX / "bad_signal_byte_flip.aucx") as doc:
        doc.verify()
        assert status_of(doc) == Status.NOT_OK
    with open_document(AUCX / "bad_not_a_zip.aucx") as doc:
        assert status_of(doc) == Status.UNREADABLE


# -- Dask ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_dask_cluster_gives_the_same_lines(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    files = [str(GOOD), str(AUCX / "bad_truncated.aucx"), str(RECORDING), str(tmp_path / "no.h5")]
    assert main(["verify", "--json", "--jobs", "2", *files]) == 1
    local = capsys.readouterr().out
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  host="127.0.0.1", protocol="tcp://",
                                  dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        assert main(["verify", "--json", "--dask", cluster.scheduler_address, *files]) == 1
    out, err = capsys.readouterr()
    assert out == local
    assert _summary(err) | {"seconds": 0} == {"files": 4, "ok": 2, "not_ok": 1,
                                              "unreadable": 1, "skipped": 0, "seconds": 0}


def test_dask_without_distributed_is_a_clear_usage_error(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def no_distributed(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("No module named 'distributed'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_distributed)
    assert main(["verify", "--dask", "tcp://127.0.0.1:1", str(GOOD)]) == 2
    assert "pip install" in capsys.readouterr().err


def test_progress_line_only_when_asked_or_on_a_terminal(capsys):
    files = [str(GOOD), str(RECORDING)]
    assert main(["verify", "--json", "--jobs", "2", *files]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and len(err.splitlines()) == 1  # the summary alone
    assert main(["verify", "--json", "--jobs", "2", "--progress", *files]) == 0
    err = capsys.readouterr().err
    drawn, _, summary = err.rpartition("\r")
    states = drawn.split("\r")[1:]  # each redraw (or erasure) starts with a carriage return
    shown = [s for s in states if s.strip()]
    assert shown and all(re.fullmatch(r"verify: [0-2]/2 files, [0-2] ok, 0 not ok, "
                                      r"0 unreadable, [0-2] running, [0-9.]+ files/s *", s)
                         for s in shown)
    assert states[-1].strip() == ""  # the line is erased before the summary
    assert json.loads(summary)["summary"]["ok"] == 2


def test_worker_processes_ignore_a_folder_named_inspector_in_the_working_directory(tmp_path):
    """The workers' fork server starts with ``-c``, which puts the working directory first
    on its ``sys.path``; a folder there named ``inspector`` (a clone of the repository) shadowed
    the package and every worker died (BrokenProcessPool, no report)."""
    import subprocess
    import sys

    (tmp_path / "inspector").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    files = [str(AUCX / "src_long_csv.aucx"), str(AUCX / "bad_truncated.aucx")]
    # -P: the command itself is immune (as the installed `inspector` script is); its workers
    # are the ones under test.
    run = subprocess.run(
        [sys.executable, "-P", "-c", "import sys; from inspector.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "verify", "--json", "--jobs", "2", *files],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 1
    assert sorted((Path(r["path"]).name, r["ok"]) for r in lines) == [
        ("bad_truncated.aucx", False), ("src_long_csv.aucx", True)]
