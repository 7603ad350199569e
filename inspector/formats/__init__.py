"""Pure-Python readers for VneuroTK recordings, AUCX archives and AUC sources.

This package never imports Qt (docs/architecture.md, "Layers").  Each format
is a sub-package that registers a reader with :mod:`.registry`; the entry
point is :func:`open_document`, which never raises for bad input.

The names below are imported on first use (PEP 562), so that importing a
light module of this package (``inspector.formats.decoding.workers``, ``.findings``)
does not import numpy and every reader: the window can be shown first and
the readers imported off the GUI thread, by the first open.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.formats.document import Document, Finding, MemberCheck, Node
    from inspector.formats.registry import open_document, sniff

__all__ = ["Document", "Finding", "MemberCheck", "Node", "open_document", "sniff"]

_HOMES = {"Document": "document", "Finding": "document", "MemberCheck": "document",
          "Node": "document", "open_document": "registry", "sniff": "registry"}


def __getattr__(name: str) -> Any:
    """The public names of the package, imported from their module when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
