"""Desktop integration: icons, resources lookup, desktop entry, MIME XML, metainfo, user install."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

import inspector
from inspector import desktop, resources_access
from inspector.resources_access import APP_ICON, AUCX_ICON, ICON_NAMES, ICON_SIZES

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
FIXTURES = ROOT / "tests" / "fixtures"
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


# ---------------------------------------------------------------- icons and resources


@pytest.mark.parametrize("name", ICON_NAMES)
def test_icon_pngs_are_square_rgba_with_transparent_corners(name):
    pngs = resources_access.icon_pngs(name)
    assert sorted(pngs) == [16, 22, 24, 32, 48, 64, 128, 256]
    for size, path in pngs.items():
        assert path.name == f"{name}-{size}.png"
        with Image.open(path) as im:
            assert im.format == "PNG"
            assert im.size == (size, size)
            rgba = im.convert("RGBA")
            assert rgba.getpixel((0, 0))[3] == 0, f"{path.name}: corner not transparent"
            assert rgba.getpixel((size // 2, size // 2))[3] == 255, (
                f"{path.name}: centre not opaque"
            )


@pytest.mark.parametrize("name", ICON_NAMES)
def test_icon_pngs_are_renders_of_the_committed_svg(qapp, name):
    """A stale PNG (SVG edited, PNGs not re-rendered) differs from a fresh QtSvg render."""
    sys.path.insert(0, str(PACKAGING))
    try:
        import render_icons
    finally:
        sys.path.remove(str(PACKAGING))
    svg = resources_access.icon_path(name)
    assert svg.suffix == ".svg"
    ET.parse(svg)  # well-formed XML
    for size in (16, 48, 256):
        fresh = render_icons.render(svg, size)
        with Image.open(resources_access.icon_path(name, size)) as im:
            committed = im.convert("RGBA")
        diffs = []
        for y in range(0, size, max(1, size // 32)):
            for x in range(0, size, max(1, size // 32)):
                c = fresh.pixelColor(x, y)
                r, g, b, a = committed.getpixel((x, y))
                diffs.append(
                    abs(c.alpha() - a)
                    + (abs(c.red() - r) + abs(c.green() - g) + abs(c.blue() - b) if a else 0)
                )
        assert sum(diffs) / len(diffs) < 3, f"{name} {size}px differs from its SVG"


def test_icon_path_unknown_raises():
    with pytest.raises(FileNotFoundError):
        resources_access.icon_path("no-such-icon")
    with pytest.raises(FileNotFoundError):
        resources_access.icon_path(APP_ICON, 17)


def test_app_icon_and_aucx_icon_hold_every_size(qapp):
    from PySide6.QtCore import QSize

    from inspector.ui.icons import app_icon, aucx_icon

    for icon in (app_icon(), aucx_icon()):
        assert not icon.isNull()
        assert [s.width() for s in icon.availableSizes()] == list(ICON_SIZES)
        assert icon.pixmap(QSize(16, 16)).width() == 16


def test_sample_files_are_the_shipped_corpus_files():
    samples = resources_access.sample_files()
    names = [p.name for p in samples]
    assert names == sorted(names)
    assert "src_demo_experiment.aucx" in names
    assert not any(n.upper().startswith("README") or n.startswith(("_", ".")) for n in names)
    for p in samples:
        assert p.parent.name == "samples" and p.parent.parent.name == "resources"
    demo = samples[names.index("src_demo_experiment.aucx")]
    assert demo.read_bytes() == (FIXTURES / "aucx" / "src_demo_experiment.aucx").read_bytes()


def test_a_source_checkout_reads_its_top_level_resources_folder():
    assert resources_access.resource_dir() == ROOT / "resources"
    assert resources_access.icon_path(APP_ICON, 16) == (
        ROOT / "resources" / "icons" / f"{APP_ICON}-16.png"
    )


def test_sample_files_skip_readme_and_count_a_folder_once(tmp_path, monkeypatch):
    pkg = tmp_path / "fake_resources_pkg"
    (pkg / "samples" / "scan_table").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for rel in (
        "samples/README.md",
        "samples/README",
        "samples/b.h5",
        "samples/a.aucx",
        "samples/.hidden",
        "samples/__init__.py",
        "samples/scan_table/manifest.yaml",
        "samples/scan_table/scan_001.csv",
    ):
        (pkg / rel).write_text("x")
    monkeypatch.setattr(resources_access, "resource_root", lambda: pkg)
    got = resources_access.sample_files()
    assert [p.name for p in got] == ["a.aucx", "b.h5", "scan_table"]
    assert got[2].is_dir()


# ---------------------------------------------------------------- packaging files


def _read_desktop(text: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(text)
    return parser["Desktop Entry"]


def test_packaging_files_are_what_the_code_installs():
    """packaging/ copies are desktop_entry()/mime_xml() written out: no drift."""
    desk = PACKAGING / f"{inspector.APP_ID}.desktop"
    assert desk.read_text(encoding="utf-8") == desktop.desktop_entry()
    assert (PACKAGING / f"{inspector.APP_ID}.xml").read_text(encoding="utf-8") == desktop.mime_xml()


def test_desktop_entry_keys():
    entry = _read_desktop((PACKAGING / "org.vneurotk.Inspector.desktop").read_text())
    assert inspector.APP_ID == "org.vneurotk.Inspector"
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "inspector %F"
    assert entry["Icon"] == inspector.APP_ID
    assert entry["Name"] == inspector.APP_NAME
    assert entry["StartupWMClass"] == inspector.APP_NAME
    mimes = entry["MimeType"].split(";")
    assert mimes[-1] == "" and {
        "application/x-aucx",
        "application/x-hdf5",
        "application/x-hdf",
    } <= set(mimes)
    assert "Science" in entry["Categories"].split(";")


def test_mime_xml_declares_aucx_only():
    root = ET.parse(PACKAGING / "org.vneurotk.Inspector.xml").getroot()
    assert root.tag == f"{MIME_NS}mime-info"
    types = root.findall(f"{MIME_NS}mime-type")
    assert [t.get("type") for t in types] == ["application/x-aucx"]  # HDF5 not redefined
    aucx = types[0]
    assert [e.get("type") for e in aucx.findall(f"{MIME_NS}sub-class-of")] == ["application/zip"]
    assert [e.get("pattern") for e in aucx.findall(f"{MIME_NS}glob")] == ["*.aucx"]
    assert aucx.find(f"{MIME_NS}icon").get("name") == AUCX_ICON
    assert aucx.find(f"{MIME_NS}generic-icon").get("name") == "package-x-generic"
    assert aucx.find(f"{MIME_NS}comment").text


def test_metainfo_matches_app():
    root = ET.parse(PACKAGING / "org.vneurotk.Inspector.metainfo.xml").getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == inspector.APP_ID
    assert root.findtext("launchable") == f"{inspector.APP_ID}.desktop"
    assert root.findtext("project_license") == "MIT"
    assert root.find("releases/release").get("version") == inspector.__version__
    assert {e.text for e in root.findall("provides/mediatype")} == set(desktop.HANDLED_MIME_TYPES)
    assert root.findtext("provides/binary") == "inspector"


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="desktop-file-validate not installed (apt-get install desktop-file-utils)",
)
def test_desktop_file_validate(tmp_path):
    files = [PACKAGING / "org.vneurotk.Inspector.desktop"]
    odd = tmp_path / "org.vneurotk.Inspector.desktop"  # Exec with quoting and escapes
    odd.write_text(desktop.desktop_entry(["/opt/my apps/$HOME/in\\spector", "-m", "100%"]))
    files.append(odd)
    for f in files:
        proc = subprocess.run(["desktop-file-validate", str(f)], capture_output=True, text=True)
        assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


@pytest.mark.skipif(
    shutil.which("appstreamcli") is None,
    reason="appstreamcli not installed (apt-get install appstream)",
)
def test_appstream_validate():
    proc = subprocess.run(
        [
            "appstreamcli",
            "validate",
            "--no-net",
            str(PACKAGING / "org.vneurotk.Inspector.metainfo.xml"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("arg", "quoted"),
    [
        ("/usr/bin/inspector", "/usr/bin/inspector"),
        ("-m", "-m"),
        ("/opt/my apps/inspector", '"/opt/my apps/inspector"'),
        ("100%", "100%%"),
        ("/a/$b", '"/a/\\\\$b"'),
        ("/a\\b", '"/a\\\\\\\\b"'),
        ('say"hi', '"say\\\\"hi"'),
    ],
)
def test_exec_quote(arg, quoted):
    assert desktop.exec_quote(arg) == quoted


@pytest.mark.parametrize("arg", ["", "a\nb"])
def test_exec_quote_rejects(arg):
    with pytest.raises(ValueError):
        desktop.exec_quote(arg)


# ---------------------------------------------------------------- per-user install


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    """XDG_DATA_HOME in tmp_path and a PATH holding only tmp_path/bin (no cache tools)."""
    data = tmp_path / "data"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setattr(sys, "argv", ["pytest"])
    return data, bindir


def _expected_files(data: Path) -> list[Path]:
    hicolor = data / "icons" / "hicolor"
    out = [
        data / "applications" / "org.vneurotk.Inspector.desktop",
        data / "mime" / "packages" / "org.vneurotk.Inspector.xml",
    ]
    for name, ctx in ((APP_ICON, "apps"), (AUCX_ICON, "mimetypes")):
        out += [hicolor / f"{s}x{s}" / ctx / f"{name}.png" for s in ICON_SIZES]
        out.append(hicolor / "scalable" / ctx / f"{name}.svg")
    return out


def _fake_tool(bindir: Path, name: str, log: Path, status: int = 0) -> None:
    script = bindir / name
    script.write_text(
        textwrap.dedent(f"""\
        #!/bin/sh
        echo "{name} $*" >> "{log}"
        echo "{name} complains" >&2
        exit {status}
        """)
    )
    script.chmod(0o755)


def test_data_home_default_and_relative(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert desktop.data_home() == tmp_path / ".local" / "share"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # ignored per XDG Base Directory spec
    assert desktop.data_home() == tmp_path / ".local" / "share"


def test_install_then_uninstall(xdg):
    data, _ = xdg
    lines = desktop.install()
    expected = _expected_files(data)
    assert len(expected) == 2 + 2 * (len(ICON_SIZES) + 1)
    assert [line for line in lines if line.startswith("wrote ")] == [f"wrote {p}" for p in expected]
    assert lines[-3:] == [f"skipped {t} (not installed)" for t in desktop.REFRESH_TOOLS]
    for p in expected:
        assert p.is_file()
        assert p.stat().st_mode & 0o777 == 0o644
    icon = data / "icons/hicolor/48x48/apps/org.vneurotk.Inspector.png"
    assert icon.read_bytes() == resources_access.icon_path(APP_ICON, 48).read_bytes()
    svg = data / "icons/hicolor/scalable/mimetypes/application-x-aucx.svg"
    assert svg.read_bytes() == resources_access.icon_path(AUCX_ICON).read_bytes()
    assert (data / "mime/packages/org.vneurotk.Inspector.xml").read_text() == desktop.mime_xml()
    # no `inspector` on PATH and argv[0] is not it: python -m inspector
    entry = _read_desktop((data / "applications/org.vneurotk.Inspector.desktop").read_text())
    assert entry["Exec"] == f"{desktop.exec_quote(sys.executable)} -m inspector %F"

    lines = desktop.uninstall()
    assert [line for line in lines if line.startswith("removed ")] == [
        f"removed {p}" for p in expected
    ]
    assert not any(p.exists() for p in expected)
    assert not any(line.startswith("removed ") for line in desktop.uninstall())


def test_install_into_a_closed_pipe_installs_without_a_traceback(xdg):
    """`inspector install-desktop | head -3`: the reader leaves before the lines are
    printed; the files are installed all the same, exit 0, nothing on stderr."""
    data, _ = xdg
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left: every write to the pipe fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "inspector", "install-desktop"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                              timeout=120)
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 0
    assert all(p.is_file() for p in _expected_files(data))


def test_install_execs_the_inspector_on_path(xdg):
    data, bindir = xdg
    script = bindir / "inspector"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    desktop.install()
    entry = _read_desktop((data / "applications/org.vneurotk.Inspector.desktop").read_text())
    assert entry["Exec"] == f"{script} %F"


def test_install_runs_cache_tools_found_on_path(xdg, tmp_path):
    data, bindir = xdg
    log = tmp_path / "tools.log"
    _fake_tool(bindir, "update-desktop-database", log)
    _fake_tool(bindir, "update-mime-database", log)
    _fake_tool(bindir, "gtk-update-icon-cache", log, status=3)
    lines = desktop.install()
    assert lines[-3:] == [
        f"ran update-desktop-database {data / 'applications'}",
        f"ran update-mime-database {data / 'mime'}",
        f"failed gtk-update-icon-cache --force --ignore-theme-index --quiet "
        f"{data / 'icons' / 'hicolor'}: exit 3: gtk-update-icon-cache complains",
    ]
    assert log.read_text().splitlines() == [
        f"update-desktop-database {data / 'applications'}",
        f"update-mime-database {data / 'mime'}",
        f"gtk-update-icon-cache --force --ignore-theme-index --quiet {data / 'icons' / 'hicolor'}",
    ]


@pytest.mark.skipif(
    shutil.which("update-mime-database") is None,
    reason="update-mime-database not installed (apt-get install shared-mime-info)",
)
def test_real_mime_database_maps_aucx_glob(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    tool_dir = tmp_path / "bin"
    tool_dir.mkdir()
    os.symlink(shutil.which("update-mime-database"), tool_dir / "update-mime-database")
    monkeypatch.setenv("PATH", str(tool_dir))
    lines = desktop.install()
    assert f"ran update-mime-database {data / 'mime'}" in lines
    assert "application/x-aucx:*.aucx" in (data / "mime" / "globs2").read_text()
    assert "application/x-aucx application/zip" in (data / "mime" / "subclasses").read_text()
    assert "application/x-aucx:package-x-generic" in (data / "mime" / "generic-icons").read_text()
