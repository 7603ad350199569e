"""What a first-time user meets: messages, advice and help texts that say what is true."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector.formats import open_document
from inspector.models.open_failure import open_failure
from tests.conftest import FIXTURES

AMBIGUOUS = FIXTURES / "auc-delimited" / "ambiguous_manifest"


def test_missing_path_message_does_not_repeat_the_path(tmp_path: Path) -> None:
    doc = open_document(tmp_path / "gone.h5")
    page = open_failure(doc)
    assert page is not None
    assert page.what == ("no such file or folder",)
    assert page.where == (str(tmp_path / "gone.h5"),)


def test_a_folder_that_is_no_document_gets_folder_advice(tmp_path: Path) -> None:
    """A folder of archives is not a scan folder: no 'download interrupted' advice."""
    folder = tmp_path / "archives"
    folder.mkdir()
    shutil.copy(FIXTURES / "aucx" / "syn_moving_boundary_s42_20x300.aucx", folder)
    for path in (folder, AMBIGUOUS):
        page = open_failure(open_document(path))
        assert page is not None
        text = " ".join(page.tries)
        assert "interrupted" not in text and "Copy it again" not in text
        assert "folder" in page.tries[0] and "File > Open (Ctrl+O)" in page.tries[1]
        # the folder itself is the first 'where' line, not repeated as "in the file at <name>"
        assert page.where == (str(path.resolve()),)
    ambiguous = open_failure(open_document(AMBIGUOUS))
    assert ambiguous is not None
    assert ambiguous.what == ("the folder contains both a JSON and a YAML manifest "
                              "(manifest.json, manifest.yaml); open one manifest file to choose",)


def test_a_damaged_file_keeps_its_copy_again_advice() -> None:
    page = open_failure(open_document(FIXTURES / "vneurotk" / "edited" / "truncated_half.h5"))
    assert page is not None and "Copy it again" in " ".join(page.tries)
