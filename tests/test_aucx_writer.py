"""AUCX writer: byte-exact re-export of the reference corpus, determinism,
ZIP metadata, atomicity, overwrite refusal and kept permission bits."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
from datetime import UTC, datetime

import numpy as np
import pytest

import inspector
from inspector.formats.aucx import (
    ArchiveReadError,
    ArchiveWriteError,
    open_archive,
    read_experiment,
    write_aucx,
)
from inspector.formats.aucx import writer as writer_mod
from tests.conftest import FIXTURES, load_expected

AUCX = FIXTURES / "aucx"
EXPECTED = load_expected("aucx")
QUIRKS = {e["file"] for e in EXPECTED if "REFERENCE-QUIRK" in e["notes"]}
REEXPORT = [e for e in EXPECTED if e["valid"] and e.get("reexport_sha256")]
REFERENCE_CREATOR = ("openauc", "0.1.0a1")
WHEN = "2026-06-01T12:00:00+00:00"


def load(file: str):
    # the upper-case-hex quirk archive is invalid for us (seed: lowercase digests);
    # its re-export is still checked, with that one finding code tolerated
    tolerate = ("checksums.digest-not-lowercase",) if file in QUIRKS else ()
    return read_experiment(AUCX / file, tolerate=tolerate)


@pytest.mark.parametrize("entry", REEXPORT, ids=[e["file"] for e in REEXPORT])
@pytest.mark.slow
def test_reexport_is_byte_identical_to_reference(tmp_path, entry):
    out = write_aucx(load(entry["file"]), tmp_path / "re.aucx", exported_at=WHEN,
                     creator=REFERENCE_CREATOR)
    assert hashlib.sha256(out.read_bytes()).hexdigest() == entry["reexport_sha256"]


def test_quirk_archive_is_refused_without_tolerance():
    with pytest.raises(ArchiveReadError) as info:
        read_experiment(AUCX / "ok_checksum_uppercase_hex.aucx")
    assert {f.code for f in info.value.findings} == {"checksums.digest-not-lowercase"}


def test_invalid_archive_is_not_loaded():
    with pytest.raises(ArchiveReadError) as info:
        read_experiment(AUCX / "multi_version_mask_int8_shape.aucx")
    assert len(info.value.findings) == 3


def test_timestamp_forms_and_determinism(tmp_path):
    exp = load("src_per_scan.aucx")
    a = write_aucx(exp, tmp_path / "a.aucx", exported_at=WHEN, creator=REFERENCE_CREATOR)
    b = write_aucx(exp, tmp_path / "b.aucx", exported_at="2026-06-01T12:00:00Z",
                   creator=REFERENCE_CREATOR)
    c = write_aucx(exp, tmp_path / "c.aucx",
                   exported_at=datetime(2026, 6, 1, 12, tzinfo=UTC), creator=REFERENCE_CREATOR)
    assert a.read_bytes() == b.read_bytes() == c.read_bytes()
    with zipfile.ZipFile(a) as zf:
        assert json.loads(zf.read("manifest.json"))["exported_at"] == WHEN
        assert json.loads(zf.read("provenance.json"))["export"]["exported_at"] == (
            "2026-06-01T12:00:00Z")


def test_default_creator_and_now(tmp_path):
    exp = load("src_demo_experiment.aucx")
    out = write_aucx(exp, tmp_path / "d.aucx")
    with zipfile.ZipFile(out) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        prov = json.loads(zf.read("provenance.json"))
        infos = zf.infolist()
    assert manifest["created_by"] == {"software": "Inspector", "version": inspector.__version__}
    assert (prov["export"]["software"], prov["export"]["software_version"]) == (
        "Inspector", inspector.__version__)
    assert prov["export"]["member_count"] == 6
    stamp = datetime.fromisoformat(manifest["exported_at"])
    assert stamp.utcoffset().total_seconds() == 0
    assert prov["export"]["exported_at"].endswith("Z")
    # import provenance carried unchanged, apart from the export record
    with zipfile.ZipFile(AUCX / "src_demo_experiment.aucx") as zf:
        assert prov["import"] == json.loads(zf.read("provenance.json"))["import"]
    # spec section 2 ZIP metadata
    assert [i.filename for i in infos] == [
        "manifest.json", "experiment.json", "provenance.json", "arrays/radius.npy",
        "arrays/signal.npy", "arrays/mask.npy", "checksums.sha256"]
    for i in infos:
        assert (i.compress_type, i.date_time, i.external_attr, i.create_system, i.extra,
                i.flag_bits) == (zipfile.ZIP_DEFLATED, (1980, 1, 1, 0, 0, 0), 0o644 << 16, 0,
                                 b"", 0)
    doc = open_archive(out)
    doc.verify()
    assert doc.ok and doc.summary["export"]["software"] == "Inspector"
    assert exp.to_dict() == read_experiment(out).to_dict()


def test_overwrite_refused_then_allowed_keeping_permission_bits(tmp_path):
    exp = load("src_long_csv.aucx")
    dest = tmp_path / "x.aucx"
    dest.write_bytes(b"precious")
    os.chmod(dest, 0o640)
    with pytest.raises(FileExistsError):
        write_aucx(exp, dest, exported_at=WHEN)
    assert dest.read_bytes() == b"precious"
    write_aucx(exp, dest, exported_at=WHEN, overwrite=True)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o640
    assert zipfile.ZipFile(dest).namelist()[0] == "manifest.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.aucx"]


def test_new_file_gets_umask_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        out = write_aucx(load("src_long_csv.aucx"), tmp_path / "n.aucx", exported_at=WHEN)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_aucx(load("src_long_csv.aucx"), tmp_path / "nope" / "x.aucx")
    assert list(tmp_path.iterdir()) == []


def test_failed_readback_leaves_no_file_and_no_temp(tmp_path, monkeypatch):
    def broken(tmp, dest):
        # an unnamed temporary on the destination's filesystem (nothing visible yet)
        assert tmp.exists() and os.stat(tmp).st_dev == os.stat(dest.parent).st_dev
        assert list(dest.parent.iterdir()) == []
        raise ArchiveWriteError("read-back failed")

    monkeypatch.setattr(writer_mod, "_verify_written", broken)
    with pytest.raises(ArchiveWriteError):
        write_aucx(load("src_long_csv.aucx"), tmp_path / "x.aucx", exported_at=WHEN)
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_existing_destination(tmp_path, monkeypatch):
    dest = tmp_path / "x.aucx"
    dest.write_bytes(b"old")

    def broken(tmp, dest):
        raise OSError("disk full")

    monkeypatch.setattr(writer_mod, "_verify_written", broken)
    with pytest.raises(OSError):
        write_aucx(load("src_long_csv.aucx"), dest, exported_at=WHEN, overwrite=True)
    assert dest.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.aucx"]


def test_shared_mask_with_false_entry_is_refused(tmp_path):
    exp = load("src_readiness_rich.aucx")
    exp.mask = exp.mask.copy()
    exp.mask[1, 1] = False
    with pytest.raises(ArchiveWriteError, match="mask"):
        write_aucx(exp, tmp_path / "x.aucx", exported_at=WHEN)
    assert list(tmp_path.iterdir()) == []


def test_per_scan_rows_are_compacted_left(tmp_path):
    exp = load("syn_per_scan_radius_s2_8x150.aucx")
    # move every row's real points to the right: same experiment, other layout
    shifted_r = np.full_like(exp.radius, np.nan)
    shifted_s = np.full_like(exp.signal, np.nan)
    shifted_m = np.zeros_like(exp.mask)
    for i in range(exp.n_scans):
        k = int(exp.mask[i].sum())
        shifted_r[i, -k:] = exp.radius[i, :k]
        shifted_s[i, -k:] = exp.signal[i, :k]
        shifted_m[i, -k:] = True
    a = write_aucx(exp, tmp_path / "a.aucx", exported_at=WHEN)
    exp.radius, exp.signal, exp.mask = shifted_r, shifted_s, shifted_m
    b = write_aucx(exp, tmp_path / "b.aucx", exported_at=WHEN)
    assert a.read_bytes() == b.read_bytes()
