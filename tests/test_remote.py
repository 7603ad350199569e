"""Files at URLs: the same report as on disk, network faults as findings, S3, caches.

Every server is started here on 127.0.0.1 (tests/range_server.py, moto's
ThreadedMotoServer); nothing leaves the machine.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from range_server import RangeServer
from s3_server import moto_s3

from inspector import cli
from inspector.formats.registry import open_document
from inspector.formats.remote import rules as R
from inspector.formats.remote.path import RemotePath, split_location
from inspector.formats.remote.source import RemoteOptions, RemoteResource

FIXTURES = Path(__file__).parent / "fixtures"
RECORDINGS = sorted((FIXTURES / "vneurotk").rglob("*.h5"))
ARCHIVES = sorted((FIXTURES / "aucx").glob("*.aucx"))
#: Small blocks, so that even the small fixtures take several requests; a timeout no
#: loaded machine reaches (a timeout's own finding is tested with a short one below).
SMALL = RemoteOptions(timeout=120.0, min_block=4096, max_block=32768)


@pytest.fixture(scope="module")
def server():
    with RangeServer(slow_seconds=3.0) as srv:
        for path in FIXTURES.rglob("*"):
            if path.is_file():
                srv.add(path.relative_to(FIXTURES).as_posix(), path.read_bytes())
        yield srv


def url_of(server: RangeServer, path: Path) -> str:
    return server.url(path.relative_to(FIXTURES).as_posix())


def report(target, *, drop=("path",)) -> dict:
    with open_document(target) as doc:
        doc.verify()
        out = doc.to_json()
    for key in drop:
        out.pop(key)
    return out


def test_url_paths_split_and_name():
    assert split_location("https://h.org/a/x.h5::/neuro") == ("https://h.org/a/x.h5", "/neuro")
    assert split_location("http://[::1]:8000/x.h5") == ("http://[::1]:8000/x.h5", None)
    assert split_location("http://[::1]:8000/x.h5::/a@b") == ("http://[::1]:8000/x.h5", "/a@b")
    assert split_location("local/x.h5::/neuro") == ("local/x.h5", "/neuro")
    p = RemotePath("s3://bucket/data/run%201.aucx")
    assert (p.name, p.stem, p.suffix, str(p.parent)) == ("run 1.aucx", "run 1", ".aucx",
                                                          "s3://bucket/data")
    assert str(p) == "s3://bucket/data/run%201.aucx" and not p.is_dir()


#: An external link of a file at a URL is not followed (its target opens as a document of
#: its own, tests/test_remote_links.py): a finding (tested below), not the local report.
EXTERNAL = "external_link_neuro.h5"


@pytest.mark.parametrize("path", [p for p in RECORDINGS if p.name != EXTERNAL],
                         ids=lambda p: p.name)
@pytest.mark.slow
def test_recording_over_http_is_the_local_report(server, path):
    local = report(path)
    assert report(RemotePath(url_of(server, path), SMALL)) == local
    assert report(url_of(server, path)) == local


def test_an_external_link_at_a_url_is_a_finding(server):
    path = next(p for p in RECORDINGS if p.name == EXTERNAL)
    with open_document(url_of(server, path)) as doc:
        doc.verify()
        codes = [f.code for f in doc.findings]
        target = doc.tree.find("/neuro").target
    assert "link.external-url" in codes and "internal.reader-failed" not in codes
    assert "link.dangling" not in codes and "link.external" not in codes
    assert target.resolved == url_of(server, path.parent / "external_link_target.h5")


@pytest.mark.parametrize("path", ARCHIVES, ids=lambda p: p.name)
@pytest.mark.slow
def test_archive_over_http_is_the_local_report(server, path):
    assert report(RemotePath(url_of(server, path), SMALL)) == report(path)


@pytest.mark.parametrize("rel", ["auc-delimited/demo_experiment/manifest.json",
                                 "auc-delimited/long_csv/scans.csv",
                                 "auc-delimited/wide_tsv/manifest.yaml"])
def test_scan_table_over_http_is_the_local_report(server, rel):
    path = FIXTURES / rel
    if not path.is_file():
        path = next(path.parent.glob("manifest.*"))
        rel = path.relative_to(FIXTURES).as_posix()
    url = server.url(rel)
    remote, local = report(url), report(path)
    for doc, where in ((remote, url), (local, str(path))):
        prov = doc["summary"]["model"]["provenance"]
        data = prov.pop("source_path")
        assert data.startswith(where.rsplit("/", 1)[0] + "/"), (data, where)
        prov.pop("imported_at")
    assert remote == local


def test_verify_json_of_a_url_is_the_local_line(server, capsys):
    path = FIXTURES / "aucx" / "bad_signal_byte_flip.aucx"
    url = url_of(server, path)
    assert cli.main(["verify", "--json", url]) == 1
    remote = json.loads(capsys.readouterr().out)
    assert cli.main(["verify", "--json", str(path)]) == 1
    local = json.loads(capsys.readouterr().out)
    assert remote.pop("path") == url
    local.pop("path")
    assert remote == local
    assert cli.main(["verify", url]) == 1
    text = capsys.readouterr().out
    assert text.startswith(f"{url}: aucx: NOT OK")


@pytest.mark.slow
def test_dump_of_a_node_at_a_url(server, capsys):
    path = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
    assert cli.main(["dump", f"{path}::/trial_starts", "--format", "json"]) == 0
    local = capsys.readouterr().out
    assert cli.main(["dump", f"{url_of(server, path)}::/trial_starts", "--format", "json"]) == 0
    assert capsys.readouterr().out == local and json.loads(local)


def test_an_archive_is_verified_reading_each_byte_once(server):
    path = FIXTURES / "aucx" / "src_demo_experiment.aucx"
    url = RemotePath(url_of(server, path), RemoteOptions(min_block=512, max_block=4096))
    with open_document(url) as doc:
        doc.verify()
        assert doc.ok and doc.verified
    requests, nbytes = url.progress()
    assert nbytes == path.stat().st_size and requests > 1


# -- network faults -------------------------------------------------------------------
FAULTS = [("404", R.NOT_FOUND), ("403", R.FORBIDDEN), ("slow", R.TIMEOUT),
          ("reset", R.CONNECTION_RESET), ("norange", R.RANGE_UNSUPPORTED),
          ("change", R.CHANGED), ("redirect-loop", R.REDIRECT_LOOP)]


@pytest.mark.parametrize("fault,rule", FAULTS, ids=[f for f, _ in FAULTS])
@pytest.mark.parametrize("name", ["v1/continuous_dense_f32_intids.h5",
                                  "src_demo_experiment.aucx"])
@pytest.mark.slow
def test_each_network_fault_is_its_finding(server, fault, rule, name):
    folder = "vneurotk" if name.endswith(".h5") else "aucx"
    data = (FIXTURES / folder / name).read_bytes()
    url = server.add(f"fault-{fault}/{name}", data, fault)
    options = RemoteOptions(timeout=0.5, min_block=1024, max_block=8192)
    with open_document(RemotePath(url, options)) as doc:
        doc.verify()
        codes = [f.code for f in doc.findings]
        assert not doc.ok
        assert codes[0] == rule.code, codes
        assert "internal.reader-failed" not in codes and doc.traceback is None
        first = doc.findings[0] if hasattr(doc.findings, "__getitem__") else list(doc.findings)[0]
        assert url in first.message
        assert first.rule == rule.source


def test_a_fault_during_verification_is_reported_by_the_check(server):
    """The ETag changes after the opening requests: the streamed check reports it."""
    data = (FIXTURES / "aucx" / "src_demo_experiment.aucx").read_bytes()
    url = server.add("late-change/a.aucx", data)
    path = RemotePath(url, RemoteOptions(min_block=1024, max_block=1024))
    with open_document(path) as doc:
        assert doc.ok and doc.checks
        server.faults["late-change/a.aucx"] = "change"
        server.seen["late-change/a.aucx"] = 5
        path.resource._blocks.data.clear()  # later reads go to the server again
        doc.verify()
        codes = [f.code for f in doc.findings]
    assert R.CHANGED.code in codes and not doc.ok


def test_cancel_makes_reads_fail_with_a_finding(server):
    path = RemotePath(url_of(server, ARCHIVES[0]), RemoteOptions(min_block=512))
    path.stat()
    path.cancel()
    with open_document(path) as doc:
        assert [f.code for f in doc.findings][0] == R.CANCELLED.code


def test_a_scan_table_larger_than_the_cap_is_refused(server):
    url = server.add("big/scans.csv", b"radius,signal\n" + b"1,2\n" * 3000)
    doc = open_document(RemotePath(url, RemoteOptions(whole_cap=1000)))
    assert R.TOO_LARGE.code in [f.code for f in doc.findings]


# -- the range reader ------------------------------------------------------------------
@pytest.mark.slow
def test_range_file_reads_what_the_bytes_hold(server):
    data = np.random.default_rng(7).integers(0, 256, 300_000, dtype=np.uint8).tobytes()
    url = server.add("random.bin", data)
    res = RemoteResource(url, RemoteOptions(min_block=4096, max_block=65536))
    fh = res.open()
    rnd = random.Random(3)
    for _ in range(200):
        pos, n = rnd.randrange(0, len(data) + 10), rnd.randrange(0, 20_000)
        fh.seek(pos)
        assert fh.read(n) == data[pos : pos + n]
    fh.seek(-5, io.SEEK_END)
    assert fh.read() == data[-5:]
    buf = bytearray(1000)
    fh.seek(12345)
    assert fh.readinto(buf) == 1000 and bytes(buf) == data[12345:13345]
    # a sequential reader grows its read-ahead: fewer requests than blocks
    seq = RemoteResource(url, RemoteOptions(min_block=4096, max_block=65536))
    with seq.open() as f2:
        while f2.read(4096):
            pass
    assert seq.counters.bytes == len(data)
    assert seq.counters.requests < len(data) // 4096 // 4


@pytest.mark.slow
def test_disk_cache_serves_a_second_open_and_keeps_its_cap(server, tmp_path):
    path = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
    local = report(path)
    options = RemoteOptions(min_block=1024, max_block=4096, disk_cache=tmp_path / "c")
    first = RemotePath(url_of(server, path), options)
    assert report(first) == local
    again = RemotePath(url_of(server, path), options)
    assert report(again) == local
    assert first.progress()[0] > 10 and again.progress()[0] == 1  # the first request only
    small = RemoteOptions(min_block=1024, max_block=4096, disk_cache=tmp_path / "s",
                          disk_cap=40_000)
    assert report(RemotePath(url_of(server, path), small)) == local
    stored = sum(p.stat().st_size for p in (tmp_path / "s").rglob("*") if p.is_file())
    assert 30_000 < stored <= 40_000


# -- S3 ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def s3_endpoint():
    files = (FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5",
             FIXTURES / "aucx" / "bad_signal_byte_flip.aucx")
    with moto_s3({f"data/{path.name}": path.read_bytes() for path in files}) as endpoint:
        yield endpoint


@pytest.mark.parametrize("rel", ["vneurotk/v1/continuous_dense_f32_intids.h5",
                                 "aucx/bad_signal_byte_flip.aucx"])
@pytest.mark.slow
def test_s3_url_is_the_local_report(s3_endpoint, rel, capsys, monkeypatch):
    path = FIXTURES / rel
    cli.main(["verify", "--json", "--s3-endpoint", s3_endpoint, f"s3://lab/data/{path.name}"])
    remote = json.loads(capsys.readouterr().out)
    cli.main(["verify", "--json", str(path)])
    local = json.loads(capsys.readouterr().out)
    assert remote.pop("path") == f"s3://lab/data/{path.name}"
    local.pop("path")
    assert remote == local
    # AWS_ENDPOINT_URL does the same
    from inspector.formats.remote.options import set_s3_endpoint

    set_s3_endpoint(None)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    assert report(f"s3://lab/data/{path.name}") == local


@pytest.mark.slow
def test_s3_missing_object_and_bucket_are_not_found(s3_endpoint, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    for url in ("s3://lab/data/none.h5", "s3://no-such-bucket/x.h5"):
        doc = open_document(url)
        assert [f.code for f in doc.findings] == [R.NOT_FOUND.code]
        assert url in doc.findings.__iter__().__next__().message
