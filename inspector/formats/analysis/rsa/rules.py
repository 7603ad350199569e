"""The rules representational similarity analysis checks, declared once.

Source: the VneuroTK format document (seed 000, "Safe scalar identifiers":
stimulus labels and visual-representation IDs share one typed scalar
encoding, so a record's rows name the stimuli the trials show) and the
reader notes (spec/vneurotk-recording.md §5: a record is aligned to the
trials by stimulus ID).
"""

from __future__ import annotations

from inspector.formats.findings import Severity, rule

_IDS = ("VneuroTK format document (seed 000), 'Safe scalar identifiers'; "
        "VneuroTK recording notes (spec/vneurotk-recording.md) §5")

RSA_NO_SHARED_STIMULI = rule(
    "rsa.no-shared-stimuli", Severity.WARNING,
    "A vision record's stimulus IDs must name stimuli the trials show: a record whose IDs "
    "match none of the trials' stimulus labels cannot be compared with the responses.",
    _IDS)
RSA_TOO_FEW_STIMULI = rule(
    "rsa.too-few-stimuli", Severity.INFO,
    "Representational similarity needs at least three stimuli with features and responses "
    "(two dissimilarities to rank).", _IDS)
