"""Which data views suit a node, from its shape and column kinds (no Qt here).

* text (one string column): the text view first, then the table;
* real or complex numbers, one column: 1-D the curve; 2-D and more the image,
  except a few long lines (``(5000, 3)``: at most :data:`FEW_LINES` along one
  axis, many times more along the other), which are a curve of several lines;
* nodes of at most :data:`SMALL` numbers: the table first;
* several columns (compound types): the table first (fields as columns), then
  a curve or image of one numeric field;
* anything else: the table.
"""

from __future__ import annotations

from inspector.formats.nodes.data import ColumnKind, NodeData

TABLE, CURVE, IMAGE, TEXT = "table", "curve", "image", "text"
#: A 2-D node with at most this many rows or columns is drawn as lines first.
FEW_LINES = 16
#: Numbers of nodes this small are read in the table first.
SMALL = 64
#: Display names of the views, for the view switch.
TITLES = {TABLE: "Table", CURVE: "Curve", IMAGE: "Image", TEXT: "Text"}


def views_for(node: NodeData) -> list[str]:
    """The views that can show ``node``, the preferred one first."""
    if node.is_null or node.ndim == 0:
        return [TEXT, TABLE] if _single(node, ColumnKind.TEXT) else [TABLE]
    plots = []
    if node.numeric_columns:
        if node.ndim >= 2:
            plots = [CURVE, IMAGE] if _few_long_lines(node.shape or ()) else [IMAGE, CURVE]
        else:
            plots = [CURVE]
    if _single(node, ColumnKind.TEXT):
        return [TEXT, TABLE]
    if len(node.columns) == 1 and plots:
        return [TABLE] + plots if node.size <= SMALL else plots + [TABLE]
    return [TABLE] + plots


def _single(node: NodeData, kind: ColumnKind) -> bool:
    return len(node.columns) == 1 and node.columns[0].kind == kind


def _few_long_lines(shape: tuple[int, ...]) -> bool:
    if len(shape) != 2:
        return False
    short, long = sorted(shape)
    return short <= FEW_LINES and long >= 8 * short
