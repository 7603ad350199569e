"""Reads of a node on jobs, with failures delivered as values.

``JobRunner`` reports an exception as text only; a failed read of a node must
also carry its finding (``data.unreadable``...), so every data view runs its
reads through :func:`read_values`, which returns a :class:`ReadFailure`
instead of raising.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.formats.findings import Finding, cause
from inspector.formats.nodes.data import NodeData, NodeReadError, SelectionTooLarge, Values


@dataclass(frozen=True)
class ReadFailure:
    """Why a read gave no values: the message shown, and the finding when the file is
    to blame (None for a refused selection)."""

    message: str
    finding: Finding | None = None


def read_values(node: NodeData, selection: Any) -> Values | ReadFailure:
    """``node.read(selection)``, or the :class:`ReadFailure` saying why not."""
    try:
        return node.read(selection)
    except NodeReadError as exc:
        return ReadFailure(exc.finding.message, exc.finding)
    except (SelectionTooLarge, IndexError, TypeError) as exc:
        return ReadFailure(str(exc))


def guarded(fn: Callable[[], Any]) -> Any:
    """``fn()``, or a :class:`ReadFailure` when it raises a read error."""
    try:
        return fn()
    except NodeReadError as exc:
        return ReadFailure(exc.finding.message, exc.finding)
    except (SelectionTooLarge, OSError, ValueError) as exc:
        return ReadFailure(cause(exc))
