"""The interface between the reader registry and a format package.

A format package exposes ``READER``, an object following :class:`FormatReader`;
the registry (:mod:`.registry`) finds it.  Nothing here imports a format
package or Qt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from inspector.formats.document import Document


@dataclass(frozen=True)
class OpenOptions:
    """Options of :func:`open_document`; a reader ignores those it has no use for.

    Attributes:
        hash_arrays: also hash the neural array of a recording (``neuro.sha256``
            and ``neuro.sum`` in the summary; this reads the whole array).
        auc_overview_columns: when above 0, a deferred check that streams an
            AUC experiment's arrays also builds their full-range envelopes at
            that many columns (``AucScans.overview``, for a plot); 0 (the
            command line) skips that work.
        only: the one object whose values the caller reads (``inspector dump``'s
            ``"/path"`` or ``"/path@name"``): a reader may open just what leads to
            it (no whole tree, no deferred checks); None opens the whole document.
    """

    hash_arrays: bool = False
    auc_overview_columns: int = 0
    only: str | None = None


@runtime_checkable
class FormatReader(Protocol):
    """A format's reader, as the registry sees it.

    Attributes:
        format_id: the ``Document.format`` it produces (``"aucx"``).
        display_name: what the format is called in the Open dialog.
        file_patterns: glob patterns for the Open dialog (``("*.aucx",)``);
            recognition is by content, these only filter the dialog.
        priority: readers are asked in increasing priority (the more specific
            formats first).
        opens_folders: True when a folder can be such a document.

    Optional: ``recognises_in_folder(path) -> bool``, the stricter question a
    walk of folders asks (:mod:`.discovery`) when ``sniff`` accepts more than
    content alone tells (any folder, any ``.csv``); without it the walk asks
    ``sniff``.  Optional: ``walk_patterns``, glob patterns (case ignored) of
    the names that belong to this format alone (``("*.aucx",)``): a walk
    reports a file so named whatever its content, so that a destroyed file
    is found unreadable rather than left out.  Optional:
    ``lists_remote_folders = True`` for a reader that opens a folder URL
    (``s3://bucket/run/``) from its listing (:mod:`.remote_folder`); the
    registry hands it folder URLs unsniffed.
    """

    format_id: str
    display_name: str
    file_patterns: tuple[str, ...]
    priority: int
    opens_folders: bool

    def sniff(self, path: Path) -> bool:
        """True when ``path`` is of this format by its content; never raises."""
        ...

    def open(self, path: Path, options: OpenOptions) -> Document:
        """Open ``path`` read-only; bad input becomes findings, never an exception."""
        ...

    def mismatch_reason(self, path: Path) -> str:
        """Why ``path`` is not of this format, for the ``format.unrecognised``
        finding (for example "not an HDF5 file (no HDF5 signature)")."""
        ...
