"""What a first-time user meets: messages, advice and help texts that say what is true."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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


def test_screenshot_without_a_display_is_drawn_offscreen() -> None:
    from inspector.platform_check import screenshot_platform

    assert screenshot_platform({}) == "offscreen"
    assert screenshot_platform({"DISPLAY": ":0"}) is None
    assert screenshot_platform({"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert screenshot_platform({"QT_QPA_PLATFORM": "xcb"}) is None  # the user's choice stays
    assert screenshot_platform({}, platform="minimal") is None


@pytest.mark.slow
def test_screenshot_command_works_without_a_display(tmp_path: Path) -> None:
    """`inspector --screenshot` as the README's first command runs it on a headless machine."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(PYTHONPATH=str(root), XDG_CONFIG_HOME=str(tmp_path / "config"))
    out = tmp_path / "shot.png"
    rec = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
    proc = subprocess.run([sys.executable, "-m", "inspector", "--screenshot", str(out),
                           "--size", "1024x640", str(rec)], capture_output=True, text=True,
                          cwd=root, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "no display" not in proc.stderr
    assert "propagateSizeHints" not in proc.stderr  # the offscreen plugin's noise is dropped
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1024, 640)
    # a screenshot run leaves the user's settings alone: no window size, no recent files
    conf = tmp_path / "config" / "Inspector" / "Inspector.conf"
    saved = conf.read_text() if conf.exists() else ""
    assert "geometry" not in saved and "recent" not in saved


def test_help_names_every_kind_of_document_and_the_size_default() -> None:
    import subprocess
    import sys

    text = subprocess.run([sys.executable, "-m", "inspector", "--help"], capture_output=True,
                          text=True, timeout=120, check=True).stdout
    flat = " ".join(text.split())
    for kind in ("VneuroTK HDF5 recordings", "any HDF5 file", "AUCX archives",
                 "CSV/TSV AUC scan folders", "Beckman XL-A/XL-I run folders"):
        assert kind in flat
    assert "(default: 1280x800)" in flat and "drawn offscreen" in flat
    export = subprocess.run([sys.executable, "-m", "inspector", "export", "--help"],
                            capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Beckman XL-A/XL-I run folder" in " ".join(export.split())


def _stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def test_bootstrap_says_what_it_is_doing(tmp_path: Path) -> None:
    """The first command takes about a minute: each step is announced on stderr.

    Runs bootstrap.sh with stand-ins for dpkg-query, python3 (its ``-m venv``), pip
    and inspector, so that nothing is installed.
    """
    import os
    import subprocess

    root = Path(__file__).resolve().parent.parent
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(root / "bootstrap.sh", checkout)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    _stub(stubs / "dpkg-query", "printf 'install ok installed'")
    _stub(stubs / "apt-get", "exit 1")
    _stub(stubs / "python3", "\n".join([
        'mkdir -p .venv/bin',
        'printf \'#!/bin/sh\\necho "$*" >> python.log\\n\' > .venv/bin/python',
        'printf \'#!/bin/sh\\necho "inspector ran: $*"\\n\' > .venv/bin/inspector',
        'chmod +x .venv/bin/python .venv/bin/inspector',
        'echo \'PATH="$PWD/.venv/bin:$PATH"\' > .venv/bin/activate',
    ]))
    env = dict(os.environ, PATH=f"{stubs}:/usr/bin:/bin")
    proc = subprocess.run(["bash", "bootstrap.sh", "--screenshot", "out.png"], cwd=checkout,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "inspector ran: --screenshot out.png"
    lines = proc.stderr.splitlines()
    assert lines == [
        "bootstrap: creating the virtual environment .venv",
        "bootstrap: installing Inspector and its dependencies into .venv "
        "(about a minute the first time, seconds after)",
        "bootstrap: starting inspector --screenshot out.png",
    ]
    assert (checkout / "python.log").read_text().splitlines() == [
        "-m pip install --quiet --disable-pip-version-check -e .",
        "-m compileall -q inspector",  # the byte code an editable install leaves uncompiled
    ]
    again = subprocess.run(["bash", "bootstrap.sh"], cwd=checkout, env=env,
                           capture_output=True, text=True, timeout=60)
    assert "creating" not in again.stderr and "installing Inspector" in again.stderr


def test_table_tabs_are_capitalised_like_the_others(qtbot) -> None:
    """The Beckman run's group table was the one lower-case tab ('groups')."""
    from inspector.ui.main_window import MainWindow
    from inspector.ui.tab_views import table_title

    assert table_title("groups") == "Groups" and table_title("other") == "other"
    assert table_title("trial_meta") == "Trial metadata"
    win = MainWindow()
    qtbot.addWidget(win)
    root = Path(__file__).resolve().parent.parent
    win.open_paths([str(root / "resources" / "samples" / "beckman_run")])
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    [tab] = win.document_tabs()
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert titles == ["Header", "Groups", "Scans", "Provenance", "Summary"]


def test_the_format_row_is_typed_str_for_every_document() -> None:
    """The CSV/TSV header showed the internal class name 'FormatId' in its Type column."""
    from inspector.formats.document import FormatId
    from inspector.models.value_text import value_type_name

    assert value_type_name(FormatId.DELIMITED) == "str"
    assert value_type_name("auc-delimited") == "str" and value_type_name(True) == "bool"
    doc = open_document(FIXTURES / "auc-delimited" / "demo_experiment")
    fmt = next(n for n in doc.header.children if n.name == "format")
    assert value_type_name(fmt.value) == "str"


def test_a_group_counts_its_attributes_beside_its_members() -> None:
    """/neuro_info has no members but eight attributes, all shown as its children."""
    rec = open_document(FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5")
    info = next(n for n in rec.tree.children if n.name == "neuro_info")
    assert info.detail == f"0 members, {len(info.children)} attributes"
    assert len(info.children) == 8
    stimuli = next(n for n in rec.tree.children if n.name == "stimuli_db")
    assert stimuli.detail.startswith("4 members")
    plain = open_document(FIXTURES / "vneurotk" / "edited" / "plain_unrelated.h5")
    instrument = next(n for n in plain.tree.children if n.name == "instrument")
    assert instrument.detail == "2 members, 1 attribute"


@pytest.mark.slow
def test_dump_of_an_attribute_written_as_a_path_names_the_attribute(capsys) -> None:
    from inspector.cli import main

    rec = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
    assert main(["dump", f"{rec}::/neuro_info/sfreq"]) == 1
    err = capsys.readouterr().err
    assert "node.not-found" in err
    assert "its parent has an attribute of that name: /neuro_info@sfreq" in err
    assert main(["dump", f"{rec}::/neuro_info@sfreq"]) == 0
    assert capsys.readouterr().out.split() == ["value", "250.0"]
    assert main(["dump", f"{rec}::/no_such_node"]) == 1
    assert "attribute of that name" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_screenshot_smaller_than_the_window_can_be_says_so(tmp_path: Path) -> None:
    """--size below the window's minimum gave a larger PNG without a word."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    out = tmp_path / "tiny.png"
    rec = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
    proc = subprocess.run([sys.executable, "-m", "inspector", "--screenshot", str(out),
                           "--size", "300x200", str(rec)], capture_output=True, text=True,
                          cwd=root, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert image.width() > 300 and image.height() > 200
    assert (f"the window cannot be made as small as 300x200; {out} is "
            f"{image.width()}x{image.height()}") in proc.stderr


@pytest.mark.slow
def test_a_short_curve_says_every_sample_is_drawn(qtbot) -> None:
    """It read '96 of 96 samples shown as samples'."""
    from inspector.ui.data.curve import CurveView
    from inspector.ui.main_window import MainWindow

    plain = FIXTURES / "vneurotk" / "edited" / "plain_unrelated.h5"
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.open_paths([f"{plain}::/instrument/temperature"])
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    tab = win.current_tab()
    assert tab.viewer is not None
    view = tab.viewer.data.view
    assert isinstance(view, CurveView)
    qtbot.waitUntil(lambda: view.status.text() != "", timeout=20000)
    assert view.status.text() == "96 of 96 samples: every sample"


def test_the_beckman_group_row_speaks_to_a_user_not_a_programmer() -> None:
    """The Details of the header's 'group' row named a Python call, open_run(path, group=...)."""
    run = open_document(Path(__file__).resolve().parent.parent / "resources"
                        / "samples" / "beckman_run")
    group = next(n for n in run.header.children if n.name == "group")
    assert group.value == "RA1-230"
    assert "open_run" not in group.detail and "--group KEY" in group.detail
