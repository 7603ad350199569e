"""Pure-Python readers for VneuroTK recordings, AUCX archives and AUC sources.

This package never imports Qt (docs/architecture.md, "Layers").  Each format
is a sub-package that registers a reader with :mod:`.registry`; the entry
point is :func:`open_document`, which never raises for bad input.
"""

from __future__ import annotations

from inspector.formats.document import Document, Finding, MemberCheck, Node
from inspector.formats.registry import open_document, sniff

__all__ = ["Document", "Finding", "MemberCheck", "Node", "open_document", "sniff"]
