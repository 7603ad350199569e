"""Every rule the VneuroTK recording reader checks, declared once.

Sources: the VneuroTK format document (seed 000, sections such as
"Format header"), the reader notes ``spec/vneurotk-recording.md`` (sections
§1-§6) and the HDF5 specification (signatures, links).  Severities are those
the reader has always reported; codes are stable (tests and corpus verdicts
depend on them).
"""

from __future__ import annotations

from inspector.formats.findings import Rule, Severity, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def notes(section: str) -> str:
    """The source string of a section of the reader notes."""
    return f"VneuroTK recording notes (spec/vneurotk-recording.md) {section}"


def seed(section: str) -> str:
    """The source string of a section of the VneuroTK format document."""
    return f"VneuroTK format document (seed 000), '{section}'"


NEURO_UNREADABLE: Rule = rule(
    "neuro.unreadable", ERROR,
    "The neural array's data cannot be read back from the file.", notes("§2"))
COO_OUT_OF_RANGE: Rule = rule(
    "neuro.coo-out-of-range", ERROR,
    "Every COO row and column coordinate must fall inside neuro_shape.", notes("§2"))
STIMULI_UNDECODABLE: Rule = rule(
    "stimuli.undecodable", ERROR,
    "A stored stimulus image cannot be decoded.", notes("§5"))
