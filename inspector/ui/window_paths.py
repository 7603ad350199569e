"""What the main window asks of paths: opening one on a job, the Open filter, the tab key.

Nothing here imports a reader at import time: the registry is imported inside
the functions that need it, on a job (or once the window is shown).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from inspector.formats.remote.path import RemotePath, as_source, split_location

if TYPE_CHECKING:
    from inspector.formats.document import Document


def open_with_overview(path: Path | RemotePath) -> Document:
    """Open ``path`` (on a job: the readers are imported on first use, off the GUI thread);
    a verification that streams AUC arrays also builds their overview for the plot."""
    from inspector.formats.analysis.scan_envelope import OVERVIEW_COLUMNS
    from inspector.formats.registry import open_document

    return open_document(path, auc_overview_columns=OVERVIEW_COLUMNS)


def format_names() -> str:
    """The registered formats' names, comma-separated (imports every reader: call on a job)."""
    from inspector.formats.registry import open_filters

    return ", ".join(name for name, _ in open_filters())


def file_filter() -> str:
    """The Open dialog's filter: every registered format, all of them, and all files."""
    from inspector.formats.registry import open_filters

    formats = open_filters()
    patterns = " ".join(dict.fromkeys(p for _, pats in formats for p in pats))
    entries = [f"Inspector files ({patterns})"] if patterns else []
    entries += [f"{name} ({' '.join(pats)})" for name, pats in formats]
    entries.append("All files (*)")
    return ";;".join(entries)


def path_key(path: Path | RemotePath) -> str:
    """The key that says two paths are one file: the URL, or the resolved path."""
    if isinstance(path, RemotePath):
        return path.url
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):  # RuntimeError: a symbolic-link loop (Python < 3.13)
        return str(Path(path).absolute())


def split_node(arg: str) -> tuple[Path | RemotePath, str | None]:
    """Split ``FILE::/group/dataset`` (or ``URL::/group/dataset``) into the path and the node."""
    path, node = split_location(arg)
    return as_source(path), node


def remote_refusal(urls: list[str]) -> str:
    """The status message for dropped URLs that cannot be read (not http, https or s3)."""
    shown = ", ".join(urls[:3]) + (f" and {len(urls) - 3} more" if len(urls) > 3 else "")
    return (f"Not opened: {shown}. Local files and http://, https:// and s3:// URLs can be "
            "opened; download the file first, or mount the share.")
