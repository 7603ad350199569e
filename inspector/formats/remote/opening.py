"""What the registry does for a document at a URL: the first request, and network
faults as findings (docs/architecture.md, "Remote sources").

:func:`unreachable` makes the first range request (whose bytes serve the
sniffers); a fault there is a document with that one finding.  After a
reader opened the document, :func:`add_faults` reports the faults met while
opening, and wraps each deferred check in a :class:`RemoteCheck` that
reports the faults met while it ran, in its own result (so the thread that
owns the document applies them).  Nothing here imports Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from inspector.formats.capabilities import CancelFn, CheckResult, DeferredCheck, ProgressFn
from inspector.formats.core_rules import FORMAT_UNRECOGNISED
from inspector.formats.document import FORMAT_UNKNOWN, Document
from inspector.formats.findings import Findings
from inspector.formats.remote.path import RemotePath
from inspector.formats.remote.transport import RemoteError


def unreachable(path: RemotePath) -> Document | None:
    """The document of a URL whose first request failed (one finding), else None."""
    try:
        path.resource.probe()
    except RemoteError as exc:
        doc = Document(path, format=FORMAT_UNKNOWN)
        doc.report(exc.rule, exc.message)
        return doc
    return None


def add_faults(doc: Document, path: RemotePath) -> None:
    """Report the faults met while opening, first (they explain what follows); wrap the
    deferred checks (see :class:`RemoteCheck`).

    A file no reader recognised because its bytes could not be fetched is
    not called unrecognised: the fault is the finding.
    """
    faults = path.resource.findings()
    if faults:
        rest = [f for f in doc.findings if f.code != FORMAT_UNRECOGNISED.code]
        doc.findings = Findings([*faults, *rest])
    doc.checks = [RemoteCheck(c, path) for c in doc.checks]


@dataclass(eq=False)
class RemoteCheck:
    """A deferred check of a remote document, plus the network faults met while it ran.

    Attributes:
        inner: the reader's check.
        path: the document's URL (its resource keeps the faults).
        title: the inner check's title.
    """

    inner: DeferredCheck
    path: RemotePath
    title: str = field(init=False)

    def __post_init__(self) -> None:
        self.title = self.inner.title

    def run(self, progress: ProgressFn | None = None,
            cancelled: CancelFn | None = None) -> CheckResult:
        """Run the inner check; faults not yet reported join its findings."""
        before = {f.code for f in self.path.resource.findings()}
        result = self.inner.run(progress, cancelled)
        have = {f.code for f in result.findings}
        new = tuple(f for f in self.path.resource.findings()
                    if f.code not in before and f.code not in have)
        return replace(result, findings=new + tuple(result.findings)) if new else result
