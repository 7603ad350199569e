"""Errors and the finding collector of the delimited AUC importer.

Every rule the reference importer (``openauc==0.1.0a1``, documents
``docs/formats/generic-delimited.md``, ``manifest-v1.md`` and
``parser-detection.md`` of ``ronfinn/openauc-io``) enforces by raising an
exception becomes one error :class:`~inspector.formats.document.Finding` here.
The strict API (:func:`inspector.formats.delimited.load_delimited`) raises a
:class:`DelimitedError` subclass carrying all of them; the document API turns
them into document findings and never raises.
"""

from __future__ import annotations

from inspector.formats.document import Finding


class DelimitedError(Exception):
    """A delimited AUC source was rejected.

    Attributes:
        findings: every error (and warning) found, in discovery order; each
            names its rule and a location (``"scans.csv:12"``,
            ``"scans.csv:signal"``, ``"manifest.json:defaults.cell"``).
        reference_class: the name of the exception class the reference
            importer raises for the first error (``"ParseError"``...).
    """

    reference_class = "OpenAUCError"

    def __init__(self, message: str, findings: list[Finding] | None = None) -> None:
        super().__init__(message)
        self.findings: list[Finding] = list(findings or [])


class SourceParseError(DelimitedError):
    """Malformed data: missing path or column, non-numeric or non-finite value, bad delimiter."""

    reference_class = "ParseError"


class ManifestInvalidError(DelimitedError):
    """Missing, unreadable, unsafe or schema-invalid manifest (manifest-v1.md)."""

    reference_class = "ManifestError"


class AmbiguousSourceError(DelimitedError):
    """Two manifests, an ambiguous delimiter or a tied layout detection."""

    reference_class = "AmbiguousFormatError"


class DataConflictError(DelimitedError):
    """Independent sources disagree: duplicates, table vs manifest metadata."""

    reference_class = "DataConflictError"


class UnsupportedLayoutError(DelimitedError):
    """Unknown ``format`` id, or no layout is detected with enough confidence."""

    reference_class = "UnsupportedFormatError"


class InvalidValueError(DelimitedError):
    """A value the canonical model cannot hold (negative elapsed time, empty id...)."""

    reference_class = "ValidationError"


#: Error kinds used by the collector and the class raised for each.
KIND_CLASSES: dict[str, type[DelimitedError]] = {
    "parse": SourceParseError,
    "manifest": ManifestInvalidError,
    "ambiguous": AmbiguousSourceError,
    "conflict": DataConflictError,
    "unsupported": UnsupportedLayoutError,
    "value": InvalidValueError,
}

#: At most this many errors of one stage are reported one by one.
MAX_ERRORS_PER_STAGE = 50


class Abort(Exception):
    """Internal: a stage found errors, later stages cannot run."""


class Collector:
    """Collects findings of one import; :meth:`checkpoint` ends a failed stage."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.first_kind: str | None = None
        self._stage_errors = 0
        self._suppressed = 0

    def error(self, kind: str, code: str, message: str, location: str = "") -> None:
        """Record an error of ``kind`` (a key of :data:`KIND_CLASSES`)."""
        if kind not in KIND_CLASSES:
            raise ValueError(f"unknown error kind {kind!r}")
        if self.first_kind is None:
            self.first_kind = kind
        self._stage_errors += 1
        if self._stage_errors > MAX_ERRORS_PER_STAGE:
            self._suppressed += 1
            return
        self.findings.append(Finding("error", code, message, location))

    def warning(self, code: str, message: str, location: str = "") -> None:
        self.findings.append(Finding("warning", code, message, location))

    def info(self, code: str, message: str, location: str = "") -> None:
        self.findings.append(Finding("info", code, message, location))

    @property
    def has_errors(self) -> bool:
        return self.first_kind is not None

    def checkpoint(self) -> None:
        """Raise :class:`Abort` if any error was recorded so far."""
        if self._suppressed:
            self.findings.append(Finding(
                "error", "source.more-errors",
                f"{self._suppressed} further error(s) of the same stage not listed", ""))
            self._suppressed = 0
        self._stage_errors = 0
        if self.has_errors:
            raise Abort()

    def exception(self) -> DelimitedError:
        """The :class:`DelimitedError` subclass for the first error, with every finding."""
        cls = KIND_CLASSES.get(self.first_kind or "parse", SourceParseError)
        errors = [f for f in self.findings if f.severity == "error"]
        first = errors[0] if errors else None
        message = first.message if first else "the source was rejected"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more error(s))"
        return cls(message, self.findings)
