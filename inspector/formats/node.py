"""Display trees: the header, the raw object tree and the provenance of a document."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Node:
    """A node of a display tree (header, raw object tree, provenance).

    Attributes:
        name: label shown in the first column.
        value: a Python value shown in the value column (``None`` for a pure
            container). Typed values keep their Python type so that an int
            ``1`` and a str ``"1"`` can be shown differently.
        kind: what the node is: ``"group"``, ``"dataset"``, ``"attribute"``,
            ``"field"``, ``"member"``, ``"link"``, ...
        location: the file location it stands for (same vocabulary as
            :attr:`Finding.location`), used to jump from a finding to a node.
        detail: short extra text (shape/dtype/chunking for a dataset).
        children: child nodes, in display order.
    """

    name: str
    value: Any = None
    kind: str = "field"
    location: str = ""
    detail: str = ""
    children: list[Node] = field(default_factory=list)

    def add(self, name: str, value: Any = None, **kw: Any) -> Node:
        """Append and return a child node."""
        child = Node(name, value, **kw)
        self.children.append(child)
        return child

    def walk(self) -> Iterator[Node]:
        """Yield this node and every descendant, depth first (iteratively)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def find(self, location: str) -> Node | None:
        """Return the first node whose ``location`` equals ``location``."""
        for n in self.walk():
            if n.location == location:
                return n
        return None
