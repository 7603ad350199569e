"""Find the shipped resources: icons and samples.

They live in the top-level ``resources/`` folder of the source tree, which
``pyproject.toml`` installs as the package ``inspector.resources``. They are
located from the package itself, never from the working directory: in a source
checkout (``inspector/`` beside ``pyproject.toml`` and ``resources/``, as an
editable install or a checkout on ``sys.path`` runs it) the checkout's
``resources/``; otherwise (an installed wheel, a PyInstaller bundle) the
``inspector.resources`` package through :func:`importlib.resources.files`.
Qt-free: the functions return :class:`pathlib.Path` objects;
:mod:`inspector.ui.icons` turns them into ``QIcon`` objects.

Icons (``resources/icons``, drawn by hand as SVG, PNGs rendered from them by
``packaging/render_icons.py``):

- ``<name>.svg``: the scalable original;
- ``<name>-<size>.png``: one per size in :data:`ICON_SIZES` (pixels, square).

Icon names follow the freedesktop Icon Naming Specification: the application
icon is named after the application ID (:data:`inspector.APP_ID`), the AUCX
file icon after its MIME type (``application/x-aucx`` -> ``application-x-aucx``).
"""

from __future__ import annotations

import atexit
import contextlib
from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path

import inspector
from inspector import APP_ID

PACKAGE = "inspector.resources"
"""The package that holds the resources once installed (``resources/`` in the source tree)."""

ICON_SIZES: tuple[int, ...] = (16, 22, 24, 32, 48, 64, 128, 256)
"""Square PNG sizes (pixels) rendered for every icon."""

APP_ICON = APP_ID
"""Name of the application icon (``Icon=`` of the desktop entry)."""

AUCX_ICON = "application-x-aucx"
"""Name of the icon of the ``application/x-aucx`` MIME type."""

ICON_NAMES: tuple[str, ...] = (APP_ICON, AUCX_ICON)

_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


def _as_path(item: Traversable) -> Path:
    """A real filesystem path for ``item``.

    Resources installed as plain files (wheel, editable install, PyInstaller
    one-folder bundle) are returned in place; resources inside a zip import
    are extracted to a temporary location that lives until interpreter exit.
    """
    if isinstance(item, Path):
        return item
    return Path(_extracted.enter_context(as_file(item)))


def _checkout_resources() -> Path | None:
    """``resources/`` of the source checkout ``inspector`` was imported from, if it is one."""
    top = Path(inspector.__file__).resolve().parent.parent
    if (top / "pyproject.toml").is_file() and (top / "resources" / "icons").is_dir():
        return top / "resources"
    return None


def resource_root() -> Traversable:
    """The folder of the resources: the checkout's ``resources/``, else the package.

    Raises ``FileNotFoundError`` when neither exists.
    """
    checkout = _checkout_resources()
    if checkout is not None:
        return checkout
    try:
        return files(PACKAGE)
    except ModuleNotFoundError as exc:
        raise FileNotFoundError(f"{PACKAGE}: not shipped with this installation") from exc


def resource_dir(*parts: str) -> Path:
    """The directory (or file) ``parts`` inside the resources folder.

    Raises ``FileNotFoundError`` when it does not exist.
    """
    item = resource_root().joinpath(*parts)
    if not item.is_file() and not item.is_dir():
        raise FileNotFoundError(f"{PACKAGE}/{'/'.join(parts)}: not shipped with this installation")
    return _as_path(item)


def icon_path(name: str, size: int | None = None) -> Path:
    """The file of icon ``name``: the SVG when ``size`` is None, else the ``size`` px PNG.

    ``name`` is one of :data:`ICON_NAMES`; ``size`` one of :data:`ICON_SIZES`.
    Raises ``FileNotFoundError`` for an unknown name or size.
    """
    filename = f"{name}.svg" if size is None else f"{name}-{int(size)}.png"
    return resource_dir("icons", filename)


def icon_pngs(name: str) -> dict[int, Path]:
    """Every PNG of icon ``name`` as ``{size_px: path}``, smallest first.

    Raises ``FileNotFoundError`` when any size of :data:`ICON_SIZES` is missing.
    """
    return {size: icon_path(name, size) for size in ICON_SIZES}


def _is_sample(name: str) -> bool:
    stem = name.rsplit(".", 1)[0].upper()
    return not (name.startswith((".", "_")) or stem == "README")


def sample_files() -> list[Path]:
    """The sample files shipped in ``resources/samples``, sorted by name.

    Every entry except README files, hidden entries and Python package
    files (``__init__.py``, ``__pycache__``) is a sample; a folder (for example
    a CSV/TSV scan table with its manifest) counts as one sample. Returns an
    empty list when no samples are shipped.
    """
    root = resource_root() / "samples"
    if not root.is_dir():
        return []
    entries = sorted((item for item in root.iterdir() if _is_sample(item.name)),
                     key=lambda item: item.name)
    return [_as_path(item) for item in entries]
