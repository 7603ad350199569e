"""Views of any dataset or attribute: table, curve, image and text (see :mod:`.panel`)."""

from inspector.ui.data.panel import DataPanel

__all__ = ["DataPanel"]
