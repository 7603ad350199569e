"""The error of reading a remote object: a network fault carrying its rule.

Kept apart so that :mod:`.remote_transport` and :mod:`.remote_bounds` both raise it
(docs/architecture.md, "Remote sources").  Nothing here imports Qt.
"""

from __future__ import annotations

from inspector.formats.findings import Rule


class RemoteError(OSError):
    """A network fault: the rule it breaks and a message naming the URL.

    An ``OSError``, so that readers treat it as bytes that cannot be read;
    the registry reports the fault itself (docs/architecture.md, "Remote sources").
    """

    def __init__(self, rule: Rule, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
