"""``inspector diff`` of two archives: members by stored bytes (default), by recorded
digests (``--digests-only``) and by verified digests (``--verify``).

Archives are rewritten member by member with ``zipfile`` (one zlib, one level), so the
members left alone have the same stored bytes in both and the edited ones do not;
``zipfile`` and ``hashlib`` are the oracles of what differs."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.formats.aucx import members as aucx_members
from inspector.formats.aucx import reader as aucx_reader
from inspector.formats.compare.engine import compare_paths
from inspector.formats.compare.members import NOT_CONTENT, NOT_READ, NOT_VERIFIED
from inspector.formats.compare.model import DiffOptions, DiffReport

FIX = Path(__file__).parent / "fixtures"
SOURCE = FIX / "compare" / "export_1.aucx"
SIGNAL = "arrays/signal.npy"
VERIFY = DiffOptions(verify=True)
DIGESTS = DiffOptions(digests_only=True)


def _rezip(src: Path, dst: Path, edit: dict[str, Callable[[bytes], bytes]] | None = None,
           level: dict[str, int] | None = None) -> Path:
    """``src`` rewritten to ``dst`` member by member (deflate, zlib level 6 unless
    ``level`` names another), with ``edit[name]`` applied to a member's bytes."""
    edit, level = edit or {}, level or {}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            data = edit[info.filename](data) if info.filename in edit else data
            zout.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED,
                          compresslevel=level.get(info.filename, 6))
    return dst


def _stored(path: Path, name: str) -> bytes:
    """The stored (compressed) bytes of member ``name``, read with ``zipfile``'s offsets."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(name)
    raw = path.read_bytes()
    start = info.header_offset + 30 + int.from_bytes(raw[info.header_offset + 26:
                                                          info.header_offset + 28], "little")
    start += int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
    return raw[start:start + info.compress_size]


def _new_digest(data: bytes, name: str, digest: str) -> bytes:
    """A checksum list whose line for ``name`` records ``digest``."""
    lines = [f"{digest}  {name}" if line.endswith(f"  {name}") else line
             for line in data.decode().splitlines()]
    return ("\n".join(lines) + "\n").encode()


def _flip_last_byte(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 0x01])


@pytest.fixture()
def inflated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the members whose content the comparison inflated, in call order."""
    calls: list[str] = []
    real = aucx_members._content_digest

    def spy(opened, entry):  # type: ignore[no-untyped-def]
        calls.append(entry.name)
        return real(opened, entry)

    monkeypatch.setattr(aucx_members, "_content_digest", spy)
    return calls


@pytest.fixture()
def pair(tmp_path: Path) -> Callable[..., tuple[Path, Path]]:
    def make(**b_changes: object) -> tuple[Path, Path]:
        a = _rezip(SOURCE, tmp_path / "a.aucx")
        b = _rezip(SOURCE, tmp_path / "b.aucx", **b_changes)  # type: ignore[arg-type]
        return a, b
    return make


def _by_path(report: DiffReport, section: str) -> dict[str, dict]:
    return {d.path: d.to_json() for d in report.differences if d.section == section}


def test_equal_archives_read_no_member_twice_and_say_digests_are_not_verified(
        pair: Callable[..., tuple[Path, Path]], inflated: list[str]) -> None:
    a, b = pair()
    assert a.read_bytes() != b.read_bytes() or a != b  # two files, not one path
    report = compare_paths(str(a), str(b))
    assert report.identical and report.complete
    assert inflated == []  # equal stored bytes: nothing inflated
    assert report.not_checked == [NOT_VERIFIED, NOT_CONTENT]
    assert report.a.verified is False and report.b.verified is False
    verified = compare_paths(str(a), str(b), VERIFY)
    assert verified.identical and verified.not_checked == []
    assert verified.a.verified and verified.b.verified
    digests = compare_paths(str(a), str(b), DIGESTS)
    assert digests.identical and digests.not_checked == [NOT_VERIFIED, NOT_CONTENT, NOT_READ]


def test_one_member_changed_in_bytes(pair: Callable[..., tuple[Path, Path]],
                                     inflated: list[str]) -> None:
    # one float of the signal changed, and the checksum list updated to match
    a, _ = pair()
    with zipfile.ZipFile(a) as z:
        new_signal = _flip_last_byte(z.read(SIGNAL))
    digest = hashlib.sha256(new_signal).hexdigest()
    a, b = pair(edit={SIGNAL: lambda _: new_signal,
                      "checksums.sha256": lambda d: _new_digest(d, SIGNAL, digest)})
    report = compare_paths(str(a), str(b))
    assert not report.equal
    values = [d for d in report.differences if d.kind == "values"]
    assert len(values) == 1 and values[0].detail["differing"] == 1
    member = _by_path(report, "members")[SIGNAL]
    with zipfile.ZipFile(a) as z:
        old = hashlib.sha256(z.read(SIGNAL)).hexdigest()
    assert (member["a"], member["b"], member["content"]) == (old, digest, False)
    assert member["detail"]["by"] == "content digests"
    assert sorted(inflated) == sorted([SIGNAL, SIGNAL, "checksums.sha256",
                                       "checksums.sha256"])
    verified = compare_paths(str(a), str(b), VERIFY)
    assert ([(d.section, d.path, d.content) for d in verified.differences]
            == [(d.section, d.path, d.content) for d in report.differences])


def test_one_checksum_file_edited(pair: Callable[..., tuple[Path, Path]]) -> None:
    wrong = "0" * 64
    a, b = pair(edit={"checksums.sha256": lambda d: _new_digest(d, SIGNAL, wrong)})
    assert _stored(a, SIGNAL) == _stored(b, SIGNAL)
    report = compare_paths(str(a), str(b))
    member = _by_path(report, "members")[SIGNAL]
    assert member["content"] is True and member["b"] == wrong
    assert "one of the checksum files is wrong" in member["note"]
    assert not report.equal
    assert main(["diff", str(a), str(b)]) == 1
    digests = compare_paths(str(a), str(b), DIGESTS)
    assert _by_path(digests, "members")[SIGNAL]["b"] == wrong
    verified = compare_paths(str(a), str(b), VERIFY)
    assert "checksums.mismatch" in {f["code"] for f in verified.b.findings}
    assert not verified.equal


def test_a_member_stored_at_another_compression_level(
        pair: Callable[..., tuple[Path, Path]], inflated: list[str]) -> None:
    a, b = pair(level={SIGNAL: 0})
    assert _stored(a, SIGNAL) != _stored(b, SIGNAL)
    report = compare_paths(str(a), str(b))
    assert report.identical, [d.to_json() for d in report.differences]
    assert inflated == [SIGNAL, SIGNAL]  # inflated and found equal


def test_a_tampered_member(capsys: pytest.CaptureFixture[str]) -> None:
    good = FIX / "aucx" / "src_readiness_rich.aucx"
    bad = FIX / "aucx" / "bad_signal_byte_flip.aucx"
    report = compare_paths(str(good), str(bad))
    assert not report.equal and report.b.findings == []
    content = [d for d in report.differences if d.content]
    assert content and all(d.section == "scans" and d.path.endswith(".signal")
                           for d in content)
    member = _by_path(report, "members")[SIGNAL]
    assert member["note"] == ("the content of B does not match the digest its checksum "
                              "file records")
    verified = compare_paths(str(good), str(bad), VERIFY)
    assert "checksums.mismatch" in {f["code"] for f in verified.b.findings}
    signal = _by_path(verified, "arrays")["signal"]
    assert signal["detail"]["differing"] == 1 and signal["detail"]["first_index"] == [0, 0]
    assert [(n.section, n.path) for n in verified.not_compared] == [("members", "")]
    assert main(["diff", "--json", "--verify", str(good), str(bad)]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["diff_schema"] == 2 and obj["options"]["verify"] is True
    assert obj["b"]["verified"] is True and obj["not_checked"] == []


def test_digests_only_reads_no_member_and_leaves_differing_arrays_uncompared(
        pair: Callable[..., tuple[Path, Path]], inflated: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aucx_reader, "EXPERIMENT_LOAD_LIMIT", 0)  # arrays stay lazy
    a, _ = pair()
    with zipfile.ZipFile(a) as z:
        new_signal = _flip_last_byte(z.read(SIGNAL))
    digest = hashlib.sha256(new_signal).hexdigest()
    a, b = pair(edit={SIGNAL: lambda _: new_signal,
                      "checksums.sha256": lambda d: _new_digest(d, SIGNAL, digest)})
    report = compare_paths(str(a), str(b), DIGESTS)
    assert inflated == []
    assert [(n.section, n.path) for n in report.not_compared] == [("arrays", "signal")]
    assert _by_path(report, "members")[SIGNAL]["detail"]["by"] == "recorded digests"
    assert not report.equal
    full = compare_paths(str(a), str(b))
    assert _by_path(full, "arrays")["signal"]["detail"]["differing"] == 1


def test_cli_options(capsys: pytest.CaptureFixture[str],
                     pair: Callable[..., tuple[Path, Path]]) -> None:
    a, b = pair()
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert f"not checked:\n  {NOT_VERIFIED}\n  {NOT_CONTENT}\nverdict: identical" in out
    assert main(["diff", "--digests-only", "--json", str(a), str(b)]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["not_checked"] == [NOT_VERIFIED, NOT_CONTENT, NOT_READ]
    assert obj["a"]["verified"] is False
    with pytest.raises(SystemExit) as exc:
        main(["diff", "--verify", "--digests-only", str(a), str(b)])
    assert exc.value.code == 2


def test_array_contents_are_checked_only_with_verify() -> None:
    # a shared-mode mask with a False entry: the experiment models compare equal (the
    # model ignores a shared mask); only verifying finds the mask, and then its values
    good = FIX / "aucx" / "src_readiness_rich.aucx"
    bad = FIX / "aucx" / "bad_shared_mask_not_all_true.aucx"
    report = compare_paths(str(good), str(bad))
    assert NOT_CONTENT in report.not_checked and report.b.findings == []
    assert _by_path(report, "members")["arrays/mask.npy"]["detail"]["by"] == "content digests"
    verified = compare_paths(str(good), str(bad), VERIFY)
    assert "array.shared-mask-not-all-true" in {f["code"] for f in verified.b.findings}
    assert _by_path(verified, "arrays")["mask"]["detail"]["differing"] == 1
    assert not verified.equal
