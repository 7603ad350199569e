"""``inspector dump ARCHIVE::member``: an .npy member's values (once its digest verifies) in
every output format, held to ``np.load`` of the member's bytes (``zipfile``), and a JSON
member's text; refusals exit 1 with the finding that names the rule."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from inspector.cli import main
from inspector.formats.nodes import dump as node_dump
from tests.conftest import FIXTURES

AUCX = FIXTURES / "aucx"
DEFLATED = AUCX / "syn_moving_boundary_perscan_s5_5x120.aucx"  # per-scan radius: 2-D
MEMBERS = ("arrays/signal.npy", "arrays/radius.npy", "arrays/mask.npy")
SLICES = ("...", "1:4, ::7", "-1, 3:50:5", "::-2, 100:")


@pytest.fixture(scope="module")
def archives(tmp_path_factory) -> dict[str, Path]:
    """The corpus archive as written (deflated) and rewritten with stored members (the same
    member bytes: the same digests)."""
    stored = tmp_path_factory.mktemp("dump") / "stored.aucx"
    with zipfile.ZipFile(DEFLATED) as src, zipfile.ZipFile(stored, "w") as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info.filename), zipfile.ZIP_STORED)
    return {"deflated": DEFLATED, "stored": stored}


def _truth(path: Path, member: str, sl: str) -> np.ndarray:
    with zipfile.ZipFile(path) as z:
        whole = np.load(io.BytesIO(z.read(member)), allow_pickle=False)
    return np.asarray(eval(f"whole[{sl}]", {"whole": whole}))  # noqa: S307 - test literal


def _dump(tmp_path: Path, path: Path, member: str, fmt: str, sl: str = "...") -> Path:
    out = tmp_path / f"out.{fmt}"
    assert main(["dump", f"{path}::{member}", "--format", fmt, "--slice", sl,
                 "--out", str(out)]) == 0
    return out


def _parse(text: str, kind: str) -> float | bool:
    return text == "true" if kind == "b" else float(text)


@pytest.mark.parametrize("layout", ["stored", "deflated"])
@pytest.mark.parametrize("member", MEMBERS)
@pytest.mark.parametrize("sl", SLICES)
@pytest.mark.slow
def test_npy_json_and_csv_are_np_load_of_the_member(tmp_path, archives, layout, member, sl,
                                                    monkeypatch):
    monkeypatch.setattr(node_dump, "DUMP_PAGE", 97)  # many pages, across the inflater
    path = archives[layout]
    exp = _truth(path, member, sl)
    got = np.load(_dump(tmp_path, path, member, "npy", sl), allow_pickle=False)
    assert got.dtype == exp.dtype.newbyteorder("=") and got.shape == exp.shape
    np.testing.assert_array_equal(got, exp)
    doc = json.loads(_dump(tmp_path, path, member, "json", sl).read_text(encoding="utf-8"))
    assert doc["location"] == member and doc["shape"] == list(exp.shape)
    np.testing.assert_array_equal(np.asarray(doc["values"], dtype=exp.dtype), exp)
    rows = list(csv.reader(io.StringIO(_dump(tmp_path, path, member, "csv", sl)
                                       .read_text(encoding="utf-8"))))
    if exp.ndim == 2:  # the matrix, headed by the selected column indices
        assert len(rows) == exp.shape[0] + 1 and len(rows[0]) == exp.shape[1]
        cells = [c for r in rows[1:] for c in r]
    else:
        assert rows[0] == ["value"]
        cells = [r[0] for r in rows[1:]]
    np.testing.assert_array_equal(
        np.asarray([_parse(c, exp.dtype.kind) for c in cells], dtype=exp.dtype),
        exp.reshape(-1))


def test_json_members_and_the_checksum_list_are_their_text(tmp_path, archives, capsys):
    for layout, path in archives.items():
        with zipfile.ZipFile(path) as z:
            texts = {n: z.read(n).decode("utf-8") for n in z.namelist()
                     if n.endswith(".json") or n == "checksums.sha256"}
        assert len(texts) == 4, layout
        for name, text in texts.items():
            assert main(["dump", f"{path}::{name}"]) == 0
            assert capsys.readouterr().out == text
            out = tmp_path / "member.txt"
            assert main(["dump", f"{path}::/{name}", "--out", str(out)]) == 0
            assert out.read_text(encoding="utf-8") == text
    # text is written as it is: no slice, no .npy
    assert main(["dump", f"{DEFLATED}::manifest.json", "--format", "npy",
                 "--out", str(tmp_path / "x.npy")]) == 2
    assert main(["dump", f"{DEFLATED}::manifest.json", "--slice", "0:3"]) == 2
    assert not (tmp_path / "x.npy").exists()


@pytest.mark.parametrize(("archive", "member", "code"), [
    ("bad_signal_byte_flip.aucx", "arrays/signal.npy", "checksums.mismatch"),
    ("extra.aucx", "arrays/extra.npy", "checksums.unlisted"),
    ("bad_checksums_missing.aucx", "arrays/radius.npy", "checksums.unlisted"),
    ("bad_checksum_member_listed_twice.aucx", None, "checksums.duplicate-entry"),
    ("syn_equilibrium_s1_6x200.aucx", "arrays/nothing.npy", "node.not-found"),
])
def test_a_member_that_does_not_verify_is_refused(tmp_path, capsys, archive, member, code):
    path = AUCX / archive
    if archive == "extra.aucx":  # an .npy member that checksums.sha256 does not list
        path = tmp_path / archive
        buf = io.BytesIO()
        np.save(buf, np.arange(5.0))
        with zipfile.ZipFile(DEFLATED) as src, zipfile.ZipFile(path, "w") as out:
            for info in src.infolist():
                out.writestr(info, src.read(info.filename))
            out.writestr(member, buf.getvalue())
    if member is None:  # the member the fixture's damage is about
        from inspector.formats import open_document

        with open_document(path) as doc:
            doc.verify()
            member = next(f.location for f in doc.findings if f.code == code)
    out = tmp_path / "out.csv"
    assert main(["dump", f"{path}::{member}", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert f" {code}: {archive}: " in captured.err and f"[{member}]" in captured.err


def _npy_header(descr: str, shape: tuple[int, ...]) -> bytes:
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape!r}, }}"
    body = text + " " * (64 - (10 + len(text) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode("latin1")


def _with_signal(tmp_path: Path, data: bytes, shape: list[int]) -> Path:
    """The long-CSV corpus archive with ``arrays/signal.npy`` replaced, the manifest
    declaring ``shape`` and the checksums recomputed (the archive verifies its digests)."""
    import hashlib

    with zipfile.ZipFile(AUCX / "src_long_csv.aucx") as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["arrays/signal.npy"] = data
    manifest = json.loads(members["manifest.json"])
    manifest["observations"]["arrays"]["signal"]["shape"] = shape
    members["manifest.json"] = json.dumps(manifest).encode()
    members["checksums.sha256"] = "".join(
        f"{hashlib.sha256(b).hexdigest()}  {n}\n" for n, b in sorted(members.items())
        if n != "checksums.sha256").encode()
    path = tmp_path / "signal.aucx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            z.writestr(n, b)
    return path


@pytest.mark.parametrize("shape", [2**63, 2**64 - 1, 10])
@pytest.mark.parametrize("extra", [[], ["--slice=-3:"], ["--all", "--format", "json"]])
def test_an_npy_header_announcing_more_than_the_member_holds_is_refused(tmp_path, capsys,
                                                                         shape, extra):
    path = _with_signal(tmp_path, _npy_header("<f8", (shape,)) + b"\0" * 16, [shape])
    assert main(["dump", f"{path}::arrays/signal.npy", *extra]) == 1
    err = capsys.readouterr().err
    assert "array.size-mismatch" in err and f"{shape * 8:,} data bytes" in err
    assert "holds 16" in err and "Traceback" not in err


def test_selections_of_axes_of_2_63_elements_and_more_are_sized_exactly():
    from inspector.formats.nodes.data import normalize, pages, parse_selection, selected_shape

    n = 2**64 - 1
    assert selected_shape(normalize(Ellipsis, (n,))) == (n,)
    assert selected_shape(normalize(parse_selection("::-2"), (n,))) == (2**63,)
    assert selected_shape(normalize(parse_selection("-3:, 1"), (n, 2))) == (3,)
    first = next(pages(normalize(Ellipsis, (n, 4)), 1000))
    assert first == (range(0, 250), range(0, 4))
