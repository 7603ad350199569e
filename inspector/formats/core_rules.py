"""Rules that belong to no single format: paths, recognition, reader bugs.

Format packages may report these too (for example ``file.not-found`` when a
path vanishes while it is opened); they import them from here.
"""

from __future__ import annotations

from inspector.formats.findings import Scope, Severity, rule

_SOURCE = "Inspector's reader contract (docs/architecture.md, 'Seams')"
READER_FAILED = rule(
    "internal.reader-failed", Severity.ERROR,
    "A reader raised an unexpected exception: a bug in Inspector, reported with its traceback.",
    _SOURCE)
FILE_NOT_FOUND = rule(
    "file.not-found", Severity.ERROR, "The path does not exist.", _SOURCE)
FILE_BAD_LINK = rule(
    "file.bad-link", Severity.ERROR, "The path is a symbolic link that cannot be followed.",
    _SOURCE)
FILE_UNREADABLE = rule(
    "file.unreadable", Severity.ERROR, "The path exists but cannot be read.", _SOURCE)
FORMAT_UNRECOGNISED = rule(
    "format.unrecognised", Severity.ERROR,
    "No registered reader recognises the file's content.", _SOURCE)
FORMAT_CONTAINER_ONLY = rule(
    "format.container-only", Severity.INFO,
    "The file is read as its container (an HDF5 file) because it is not of a format built "
    "on that container (a VneuroTK recording): the note says why, by that format's rules.",
    _SOURCE)

_WINDOW = "Inspector's window contract (docs/architecture.md, 'Deferred work')"
CHECK_FAILED = rule(
    "internal.verify-failed", Severity.ERROR,
    "A deferred check raised an unexpected exception: a bug in Inspector, not a verdict on "
    "the file.", _WINDOW)
OPEN_FAILED = rule(
    "internal.open-failed", Severity.ERROR,
    "The job opening the file raised an unexpected exception: a bug in Inspector.", _WINDOW)
STIMULUS_UNLOADABLE = rule(
    "stimulus.unloadable", Severity.WARNING,
    "A stimulus image the file lists cannot be decoded or found when the window shows it.",
    "Inspector's stimulus contract (inspector/formats/capabilities.py, 'Stimulus.load')")
NODE_NOT_FOUND = rule(
    "node.not-found", Severity.WARNING,
    "A location given as FILE::/path names nothing the file holds: no node to show, or no "
    "dataset or attribute whose values can be dumped.",
    "Inspector's command line ('FILE::/path' locations, inspector --help)")

_MANY = "Inspector's verify of many files (docs/architecture.md, 'Flows', 'Verify many')"
WORKER_CRASHED = rule(
    "verify.worker-crashed", Severity.ERROR,
    "The process verifying the file died before answering (a crash or the memory limit): the "
    "file was not judged, and the other files were verified regardless.", _MANY)
VERIFY_TIMEOUT = rule(
    "verify.timeout", Severity.ERROR,
    "Verifying the file took longer than the per-file time limit (--timeout) and was stopped: "
    "the file was not judged.", _MANY)
INPUT_NO_DOCUMENTS = rule(
    "verify.no-documents", Severity.ERROR,
    "A folder or glob pattern given to verify names no document: no file under it is "
    "recognised by content or named like one, or nothing matches.", _MANY)
STRUCTURE_NOT_CHECKED = rule(
    "structure.not-checked", Severity.WARNING,
    "The structural validation and readiness of the AUC experiment inside were not run (the "
    "archive failed integrity checks, the source could not be imported, verification was "
    "cancelled, or a documented hard limit was reached); the structure is neither valid nor "
    "invalid, it is not checked.",
    "AUCX 1.0 format document, 'Inspection and validation'; Inspector's rule: no verdict "
    "without the check", Scope.STRUCTURE)
