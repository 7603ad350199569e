"""The wheel: metadata, entry point, licence, icons and samples (what ``pip install`` gets)."""

from __future__ import annotations

import configparser
import email.parser
import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import inspector
from inspector.resources_access import ICON_NAMES, ICON_SIZES

ROOT = Path(__file__).resolve().parent.parent


def _setuptools_major() -> int:
    try:
        from importlib.metadata import version

        return int(version("setuptools").split(".")[0])
    except Exception:  # noqa: BLE001 - missing or odd version: use build isolation
        return 0


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build the wheel from a copy of the sources (build/ and egg-info stay out of the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("inspector", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        str(src),
        "--no-deps",
        "-w",
        str(tmp / "out"),
        "--quiet",
        "--disable-pip-version-check",
    ]
    if _setuptools_major() >= 77:  # PEP 639 licence fields; else let pip fetch a newer one
        cmd.append("--no-build-isolation")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = list((tmp / "out").glob("*.whl"))
    assert len(wheels) == 1
    return wheels[0]


@pytest.fixture(scope="module")
def names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def _dist_info(wheel: Path, member: str) -> bytes:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(f"vneurotk_aucx_inspector-{inspector.__version__}.dist-info/{member}")


@pytest.mark.slow
def test_wheel_name_is_pure_python(wheel):
    assert wheel.name == f"vneurotk_aucx_inspector-{inspector.__version__}-py3-none-any.whl"


@pytest.mark.slow
def test_metadata(wheel):
    meta = email.parser.BytesParser().parsebytes(_dist_info(wheel, "METADATA"))
    assert meta["Name"] == "vneurotk-aucx-inspector"
    assert meta["Version"] == inspector.__version__
    assert "VneuroTK" in meta["Summary"] and "AUCX" in meta["Summary"]
    assert meta["License-Expression"] == "MIT"
    assert meta["License-File"] == "LICENSE"
    assert meta["Requires-Python"] == ">=3.11"
    classifiers = meta.get_all("Classifier")
    assert "Environment :: X11 Applications :: Qt" in classifiers
    assert "Intended Audience :: Science/Research" in classifiers
    requires = [r.split(";")[0].replace(" ", "") for r in meta.get_all("Requires-Dist")]
    assert "PySide6-Essentials<6.12,>=6.8" in requires and "h5py>=3.10" in requires
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip()  # the README is the long description


def test_licence_file(wheel):
    text = _dist_info(wheel, "licenses/LICENSE")
    assert text == (ROOT / "LICENSE").read_bytes()
    assert text.startswith(b"MIT License")


def test_gui_script_entry_point(wheel):
    parser = configparser.ConfigParser()
    parser.read_string(_dist_info(wheel, "entry_points.txt").decode())
    assert dict(parser["gui_scripts"]) == {"inspector": "inspector.cli:main"}


def test_icons_are_package_data(wheel, names):
    with zipfile.ZipFile(wheel) as zf:
        for name in ICON_NAMES:
            files = [f"{name}.svg"] + [f"{name}-{s}.png" for s in ICON_SIZES]
            for f in files:
                member = f"inspector/resources/icons/{f}"
                assert member in names
                assert (
                    zf.read(member) == (ROOT / "resources" / "icons" / f).read_bytes()
                )


def test_samples_are_package_data(wheel, names):
    src = wheel.parent.parent / "src"  # the copy the wheel was built from
    shipped = [
        p
        for p in (src / "resources" / "samples").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    ]
    assert any(p.suffix == ".aucx" for p in shipped) and any(p.suffix == ".h5" for p in shipped)
    with zipfile.ZipFile(wheel) as zf:
        for p in shipped:
            member = "inspector/resources/" + p.relative_to(src / "resources").as_posix()
            assert member in names, f"{member} missing from the wheel"
            assert zf.read(member) == p.read_bytes()


def test_every_module_is_in_the_wheel(wheel, names):
    """Catches a subpackage missing from the explicit package list in pyproject.toml."""
    src = wheel.parent.parent / "src"  # the copy the wheel was built from
    modules = [
        p.relative_to(src).as_posix()
        for p in (src / "inspector").rglob("*.py")
        if "__pycache__" not in p.parts
    ]
    missing = [m for m in modules if m not in names]
    assert not missing, f"not in the wheel: {missing}"
    assert "inspector/resources/__init__.py" in names


@pytest.mark.skipif(importlib.util.find_spec("twine") is None, reason="twine not installed")
@pytest.mark.slow
def test_twine_check(wheel):
    proc = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout
