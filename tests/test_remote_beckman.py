"""Beckman XL-A/XL-I run folders at URLs: ``http(s)://host/run/`` and ``s3://bucket/run/``.

The folder is listed (the directory index page of Python's ``http.server``,
S3 ``ListObjectsV2`` on moto's server), its scan files fetched whole and read
by the same reader as on disk: the same findings, groups and values.
Listing faults and a listing without scan files are findings naming the URL.
Every server is started here on 127.0.0.1.
"""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from s3_server import moto_s3
from test_beckman_layout import data, header, write

from inspector.formats.beckman import run as beckman_run
from inspector.formats.registry import open_document
from inspector.formats.remote.folder import index_names
from inspector.formats.remote.path import RemotePath

NAMES = ["00001.RA1", "00002.RA1", "00003.RA1", "00004.RA2", "00005.RA2"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """``run/``: five scans in two groups (one with a malformed line), a non-scan file;
    ``empty/``: no scan file.  Served by Python's own ``http.server``."""
    root = tmp_path_factory.mktemp("site")
    run = root / "run"
    for i, name in enumerate(NAMES):
        cell = int(name[-1])
        lines = ["run 7 absorbance", header(cell=cell, seconds=100 * (i + 1))]
        lines += data(n=40, seed=i)
        if i == 2:
            lines.append("5.9999 oops")
        write(run, name, lines)
    (run / "notes.txt").write_text("not a scan\n")
    (root / "empty").mkdir()
    (root / "empty" / "README").write_text("nothing here\n")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def facts(doc) -> dict:
    """What must agree between a run on disk and at a URL."""
    return {
        "ok": doc.ok, "format": str(doc.format),
        "findings": [(f.code, f.severity, f.message, f.location) for f in doc.findings],
        "groups": doc.groups.keys, "selected": doc.groups.selected,
        "scans": doc.tables["scans"].frame().to_json(),  # (NaN where absent: compared as text)
        "signal": json.dumps(np.asarray(doc.arrays["signal"].read()).tolist()),
        "others": [n.name for n in doc.tree.walk() if n.kind == "note"],
    }


def test_index_names_keep_the_files_of_the_folder_only():
    page = ('<a href="?C=N;O=D">Name</a> <a href="/data/">Parent</a> <a href="sub/">sub</a>'
            '<a href="00001.RA1">1</a> <a href="/data/run/00002.RA1">2</a>'
            '<a href="http://other.org/data/run/00003.RA1">3</a> <a href="a%20b.RI2">4</a>'
            '<a href="00001.RA1">again</a>')
    assert index_names(page, "http://h/data/run/") == ["00001.RA1", "00002.RA1", "a b.RI2"]


def test_a_run_folder_over_http_is_the_run_on_disk(site):
    root, base = site
    with open_document(root / "run") as local, open_document(f"{base}/run/") as remote:
        assert remote.path == RemotePath(f"{base}/run/") and remote.format == "beckman-xl"
        assert facts(remote) == facts(local)
        assert any(f.code == "beckman.malformed-line" for f in remote.findings)
        assert remote.groups.keys == ("RA1-280", "RA2-280")
        other = remote.groups.open("RA2-280")
        assert other.groups.selected == "RA2-280" and other.tables["scans"].frame().shape[0] == 2


def test_a_folder_without_scan_files_names_the_url(site):
    _, base = site
    with open_document(f"{base}/empty/") as doc:
        (finding,) = doc.findings
        assert finding.code == "beckman.no-scan-files" and f"{base}/empty/" in finding.message
        assert not doc.ok


def test_a_missing_folder_is_a_network_finding_naming_the_url(site):
    _, base = site
    with open_document(f"{base}/none/") as doc:
        assert [f.code for f in doc.findings] == ["remote.not-found"]
        assert f"{base}/none/" in doc.findings.as_list()[0].message


def test_the_count_cap_refuses_a_larger_folder(site, monkeypatch):
    _, base = site
    monkeypatch.setattr(beckman_run, "MAX_REMOTE_FILES", 3)
    with open_document(f"{base}/run/") as doc:
        (finding,) = doc.findings
        assert finding.code == "beckman.too-many-files" and "5 scan files" in finding.message


@pytest.fixture(scope="module")
def s3_run(site):
    root, _ = site
    objects = {f"runs/7/{path.name}": path.read_bytes()
               for path in sorted((root / "run").iterdir())}
    objects["runs/7/deeper/00009.RA1"] = b"not in this folder"
    objects["runs/empty/notes.txt"] = b"no scans"
    with moto_s3(objects, set_endpoint_env=True):
        yield root


@pytest.mark.slow
def test_a_run_prefix_in_s3_is_the_run_on_disk(s3_run):
    with open_document(s3_run / "run") as local, open_document("s3://lab/runs/7/") as remote:
        assert facts(remote) == facts(local)


@pytest.mark.slow
def test_s3_listing_faults_and_empty_prefixes_name_the_url(s3_run):
    with open_document("s3://lab/runs/empty/") as doc:
        (finding,) = doc.findings
        assert finding.code == "beckman.no-scan-files" and "s3://lab/runs/empty/" in finding.message
    with open_document("s3://no-such-bucket/run/") as doc:
        (finding,) = doc.findings
        assert finding.code == "remote.not-found"
        assert "s3://no-such-bucket/run/" in finding.message
