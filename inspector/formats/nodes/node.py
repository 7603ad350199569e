"""Display trees: the header, the raw object tree and the provenance of a document."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LinkTarget:
    """Where a link leads: a node of this file or of another one.

    Attributes:
        path: the target's path inside its file (``"/payload/neuro"``).
        kind: ``"soft"``, ``"external"`` or ``"virtual"`` (a virtual
            dataset's source).
        file: the target file's name as stored in the link (``""``: this file).
        resolved: the absolute path the stored name resolves to (relative
            names resolve from the linking file's folder, as HDF5 does); ``""``
            for a target in this file.
        dangling: True when nothing could be opened there.
    """

    path: str
    kind: str = "soft"
    file: str = ""
    resolved: str = ""
    dangling: bool = False

    @property
    def in_this_file(self) -> bool:
        """True when the target is a node of the linking file itself."""
        return not self.file

    def address(self) -> str:
        """``FILE::/path`` of a target in another file (what the window opens), else the path."""
        return f"{self.resolved or self.file}::{self.path}" if self.file else self.path


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
        target: where a link node leads (None for other nodes).
    """

    name: str
    value: Any = None
    kind: str = "field"
    location: str = ""
    detail: str = ""
    children: list[Node] = field(default_factory=list)
    target: LinkTarget | None = None

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
