"""Every corpus file opens in the window, and the window's verdict agrees with the
reference's ``expected.json`` (except the one REFERENCE-QUIRK archive, decided in
``test_aucx_corpus``).  The headless verdict of each file is checked once, by its format's
corpus test (``test_vneurotk_corpus``, ``test_aucx_corpus``, ``test_delimited_corpus``)."""

from __future__ import annotations

import pytest

from inspector.formats.vneurotk import open_recording
from inspector.ui.main_window import MainWindow
from tests.conftest import FIXTURES, load_expected

QUIRKS = {"aucx/ok_checksum_uppercase_hex.aucx"}
FORMATS = {"vneurotk": "vneurotk-recording", "aucx": "aucx", "auc-delimited": "auc-delimited"}


def _cases() -> list[tuple[str, str, bool]]:
    out = []
    for folder in ("vneurotk", "aucx", "auc-delimited"):
        for entry in load_expected(folder):
            out.append((folder, f"{folder}/{entry['file']}", bool(entry["valid"])))
    return out


CASES = _cases()


def test_every_fixture_file_is_covered():
    listed = {rel for _, rel, _ in CASES}
    on_disk = {str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("vneurotk/**/*.h5")}
    on_disk |= {str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("aucx/*.aucx")}
    assert on_disk <= listed


@pytest.mark.parametrize("folder", ["vneurotk", "aucx", "auc-delimited"])
@pytest.mark.slow
def test_every_file_opens_in_the_window(qtbot, folder):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1024, 640)
    cases = [(rel, valid) for f, rel, valid in CASES if f == folder]
    win.open_paths([str(FIXTURES / rel) for rel, _ in cases])
    qtbot.waitUntil(win.all_tabs_ready, timeout=240_000)
    tabs = win.document_tabs()
    assert len(tabs) == len(cases)
    for tab, (rel, valid) in zip(tabs, cases, strict=True):
        assert tab.has_views, rel
        assert not [f for f in tab.doc.findings if f.code.startswith("internal.")], rel
        if tab.doc.format == "hdf5":
            _check_no_recording(folder, rel, valid, tab.doc.ok)
        elif rel not in QUIRKS:
            assert tab.doc.ok is valid, rel
    for i in reversed(range(win.tabs.count())):
        win.close_tab(i)


def _check_no_recording(folder: str, rel: str, valid: bool, ok: bool) -> None:
    """A corpus file the registry opens as a plain HDF5 file (no header, none of a schema-0
    recording's marks, or not openable by HDF5): invalid as a recording (the corpus verdict,
    asked of the recording reader), ok as HDF5 exactly when it is readable HDF5 of another
    kind (``mismatch``)."""
    assert folder == "vneurotk" and not valid, rel
    with open_recording(FIXTURES / rel) as rec:
        assert rec.ok is valid, rel
        assert ok is (rec.mismatch is not None), rel
