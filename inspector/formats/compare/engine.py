"""Comparing two documents: the sections in order, and the report.

:func:`compare_paths` opens both files (local paths or URLs) with the reader
registry, runs their deferred checks (an archive's verification hashes every
member once), lists both documents' findings, and compares them section by
section (:data:`~.model.SECTIONS`), through the Document API only.  A file that
cannot be read is compared for what it offers (often nothing); its findings say
why, and whatever could not be compared is listed as such, never called equal.
Nothing here imports Qt.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from inspector.formats.compare import arrays, header, members, objects, scans, stimuli, tables
from inspector.formats.compare.model import (
    Collector,
    DiffOptions,
    DiffReport,
    FirstFound,
    Side,
)

if TYPE_CHECKING:
    from inspector.formats.document import Document


def compare_paths(path_a: str, path_b: str, options: DiffOptions | None = None) -> DiffReport:
    """Open, verify and compare two files; the documents are closed on return.

    Both are verified (their deferred checks run, as ``inspector verify`` does), except
    two archives without ``options.verify``: their members are then compared by their
    stored bytes (or recorded digests) instead, and the report says the digests were not
    verified.  Never raises for bad input: an unreadable file is a document with error
    findings.
    """
    from inspector.formats.registry import open_document

    options = options or DiffOptions()
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="diff-open") as pool:
        fa = pool.submit(open_document, path_a)
        fb = pool.submit(open_document, path_b)
        doc_a, doc_b = fa.result(), fb.result()
        try:
            if needs_verifying(doc_a, doc_b, options):
                for f in [pool.submit(doc_a.verify), pool.submit(doc_b.verify)]:
                    f.result()
            return compare_documents(doc_a, doc_b, options)
        finally:
            doc_a.close()
            doc_b.close()


def needs_verifying(a: Document, b: Document, options: DiffOptions) -> bool:
    """True when both documents are verified before they are compared: always, except
    two archives without ``options.verify`` (their members are compared by stored bytes)."""
    return options.verify or not (archive(a) and archive(b))


def archive(doc: Document) -> bool:
    """True when ``doc`` is an archive whose members can be compared unverified."""
    return doc.checksums is not None and doc.member_data is not None


def side(doc: Document) -> Side:
    """The report's account of one document (its findings in discovery order)."""
    return Side(str(doc.path), str(doc.format), doc.kind_label, doc.ok,
                [f.to_json() for f in doc.findings], verified=doc.verified)


def compare_documents(a: Document, b: Document, options: DiffOptions) -> DiffReport:
    """Compare two opened documents, section by section (verified, or two archives
    whose members are compared by stored bytes: see :func:`compare_paths`)."""
    out = Collector(options)
    report = DiffReport(side(a), side(b), options)
    if any(d.checksums is not None and not d.checksums.verified for d in (a, b)):
        report.not_checked.append(members.NOT_VERIFIED)
        if any(d.auc is not None for d in (a, b)):
            report.not_checked.append(members.NOT_CONTENT)
        if options.digests_only:
            report.not_checked.append(members.NOT_READ)
    try:
        _sections(out, a, b)
    except FirstFound:
        report.stopped = True
    report.differences = out.differences
    report.not_compared = out.not_compared
    return report


def _sections(out: Collector, a: Document, b: Document) -> None:
    """Every section, in the order of :data:`~.model.SECTIONS`."""
    exp_a = a.auc.experiment if a.auc is not None else None
    exp_b = b.auc.experiment if b.auc is not None else None
    loaded = exp_a is not None and exp_b is not None
    both_auc = a.auc is not None and b.auc is not None
    header.compare_format(out, a, b, same_content_kind=both_auc)
    for label, doc in (("A", a), ("B", b)):
        if unreadable(doc):
            out.skip("format", "", f"{label} could not be read as any format: its findings say "
                     "why; its content is not compared")
            return
    if str(a.format) != str(b.format) and not both_auc:
        out.skip("format", "", f"the documents are of different formats ({a.kind_label}, "
                 f"{b.kind_label}): their content is not compared")
        return
    header.compare_header(out, a, b, experiments=loaded)
    if loaded:
        assert exp_a is not None and exp_b is not None
        scans.compare_experiment_fields(out, exp_a, exp_b)
    tables.compare_trials(out, a.trials, b.trials)
    tables.compare_tables(out, a.tables, b.tables,
                          skip=("scans", "groups") if both_auc else ("groups",))
    stimuli.compare_stimuli(out, a.stimuli, b.stimuli)
    stimuli.compare_records(out, a.summary.get("vision_records"), b.summary.get("vision_records"))
    skip_arrays: tuple[str, ...] = ()
    if both_auc:
        assert a.auc is not None and b.auc is not None
        common = scans.compare_scan_ids(out, a.auc, b.auc)
        if loaded:
            assert exp_a is not None and exp_b is not None
            scans.compare_scans(out, exp_a, exp_b, common)
            skip_arrays = (a.auc.radius_array, a.auc.signal_array, a.auc.mask_array)
        else:
            tables.compare_tables(out, {"scans": a.tables["scans"]} if "scans" in a.tables
                                  else {}, {"scans": b.tables["scans"]} if "scans" in b.tables
                                  else {}, section="scans")
    match = members.match_members(a, b, out.options.digests_only, out.options.jobs)
    arrays.compare_arrays(out, a.arrays, b.arrays, skip=skip_arrays + _trial_arrays(a, b),
                          same_members=match.same, unread_members=match.unread)
    match.emit(out)
    skip = objects.interpreted_by_recording if "vneurotk-recording" in (
        str(a.format), str(b.format)) else (lambda loc: False)
    objects.compare_objects(out, a, b, skip)
    _provenance(out, a, b)


def unreadable(doc: Document) -> bool:
    """True when ``doc`` offers nothing to compare: no format was recognised, or opening
    failed before any content was read (its error findings say why)."""
    if str(doc.format) == "unknown":
        return True
    offers = (doc.tree, doc.auc, doc.trials, doc.checksums)
    return (not doc.ok and all(x is None for x in offers) and not doc.arrays
            and not doc.tables)


def _trial_arrays(a: Document, b: Document) -> tuple[str, ...]:
    """Names of arrays that are the trial structure's (compared in the trials section)."""
    names = []
    for doc in (a, b):
        if doc.trials is not None and doc.trials.trial is not None:
            names += [n for n, r in doc.arrays.items() if r is doc.trials.trial]
    return tuple(names)


def _provenance(out: Collector, a: Document, b: Document) -> None:
    """The provenance trees (writer, import and export records): representation."""
    from inspector.formats.compare.fields import MISSING, compare_fields

    pa = _tree(a.provenance) if a.provenance is not None else MISSING
    pb = _tree(b.provenance) if b.provenance is not None else MISSING
    if pa is MISSING and pb is MISSING:
        return
    compare_fields(out, "provenance", "provenance", pa, pb, content=False)


def _tree(node: object) -> dict[str, object]:
    children = getattr(node, "children", [])
    return {c.name: (_tree(c) if c.children else c.value) for c in children}
