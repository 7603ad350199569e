"""The exceptions of the strict delimited API.

Every rule the reference importer (``openauc==0.1.0a1``, documents
``docs/formats/generic-delimited.md``, ``manifest-v1.md`` and
``parser-detection.md`` of ``ronfinn/openauc-io``) enforces by raising an
exception is an error rule here (:mod:`.rules`).  The strict API
(:func:`inspector.formats.delimited.load_delimited`) raises the
:class:`DelimitedError` subclass of the first rule broken, carrying every
finding; the document API keeps them as document findings and never raises.
"""

from __future__ import annotations

from collections.abc import Iterable

from inspector.formats.findings import Finding


class DelimitedError(Exception):
    """A delimited AUC source was rejected.

    Attributes:
        findings: every finding, in discovery order (capped per code as the
            document's are); each names its rule and a location
            (``"scans.csv:12"``, ``"scans.csv:signal"``,
            ``"manifest.json:defaults.cell"``).
        reference_class: the name of the exception class the reference
            importer raises for the first error (``"ParseError"``...).
    """

    reference_class = "OpenAUCError"

    def __init__(self, message: str, findings: Iterable[Finding] | None = None) -> None:
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
