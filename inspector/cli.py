"""Command line: ``inspector [FILE...]`` opens the window; subcommands run headless.

    inspector [--theme system|light|dark] [--screenshot OUT.png [--size WxH]]
              [Qt options such as -style Fusion or -platform offscreen] [FILE[::/hdf5/path] ...]
    inspector verify [--json] [--hash-arrays] [--integrity-only] [--jobs N] [--from LIST]
                     [--timeout S] [--max-memory MB] [--progress] [--list-skipped]
                     [--dask ADDRESS] [--allow-external DIR] INPUT...
    inspector export SOURCE DEST.aucx [--exported-at ISO-8601] [--overwrite]
    inspector dump FILE::/path [--slice SLICE] [--format csv|json|npy] [--out FILE] [--all]
                   [--allow-external DIR]
    inspector dump ARCHIVE.aucx::MEMBER [...]   (an .npy member's values, a JSON member's text)
    inspector install-desktop [--uninstall]
    inspector rsa FILE [--record N] [--metric correlation|euclidean|cosine] [--json] [--out DIR]

FILE may be an http://, https:// or s3://bucket/key URL (read by range
requests); ``--s3-endpoint URL`` before or after the subcommand names an
S3-compatible store (default: ``AWS_ENDPOINT_URL``, else AWS).

Data an HDF5 file names in other files (external storage, virtual-dataset sources,
external links) are read only from regular files inside the document's own folder;
``--allow-external DIR`` (the window, ``verify``, ``dump``) allows another folder.

Exit status of ``verify``: 0 when every file is ok, 1 when any is not (or is
unreadable), 2 for usage errors (an unreadable ``--from`` list, ``--dask``
without ``distributed``).  ``dump``: 0 when written, 1 when the node
cannot be read (the finding on stderr), 2 for usage errors (including a
selection of more than 10^6 values without ``--all``).  Any command stopped
with Ctrl-C exits with 130 (``dump --out`` leaves no partial file).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from inspector import __version__
from inspector.formats.findings import Finding, printable, with_file
from inspector.formats.workers import worker_pool

if TYPE_CHECKING:
    from inspector.formats.capabilities import MemberContent
    from inspector.formats.document import Document
    from inspector.formats.nodes.data import NodeData
    from inspector.formats.nodes.node import Node

SUBCOMMANDS = {
    "verify": "check files headless and print a report (or JSON lines with --json)",
    "export": "write an AUC source (AUCX archive, CSV/TSV scan table, Beckman run folder) "
              "to a new AUCX archive",
    "dump": "print or write the values of a dataset or attribute (FILE::/path[@attr]) "
            "as the data views show them, the members and attributes of a group "
            "(FILE::/group), or an archive member (ARCHIVE::member)",
    "install-desktop": "install (or --uninstall) the desktop entry, MIME types and icons "
                       "for this user",
    "rsa": "compare each vision record (model layer) of a recording with its neural "
           "responses: representational similarity",
}


#: Default per-file time limit of ``verify`` over many files, seconds.
VERIFY_TIMEOUT_S = 900.0

#: Qt's own command-line options (QGuiApplication and QApplication) that take a value.
QT_VALUE_OPTIONS = frozenset({
    "platform", "platformpluginpath", "platformtheme", "plugin", "qmljsdebugger",
    "qwindowgeometry", "qwindowicon", "qwindowtitle", "session", "display", "geometry",
    "name", "title", "visual", "style", "stylesheet", "fontengine", "qdevicepixelratio",
})
#: Qt's own command-line options without a value.
QT_FLAG_OPTIONS = frozenset({"reverse", "widgetcount", "nograb", "dograb", "sync"})


def split_qt_options(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split ``argv`` into (our arguments, Qt's own options) for the window.

    Qt reads options such as ``-style Fusion``, ``-style=Fusion`` or
    ``-platform offscreen`` (also written with two dashes) from the
    ``QApplication`` arguments; argparse would reject them as unknown, so
    they are taken out here, in order, and handed to Qt.  Everything after
    ``--`` is ours (file names that start with a dash).
    """
    ours: list[str] = []
    qt: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            ours.extend(argv[i:])
            break
        name = arg.lstrip("-").split("=", 1)[0] if arg.startswith("-") else ""
        dashes = len(arg) - len(arg.lstrip("-"))
        if name and dashes in (1, 2) and name in QT_VALUE_OPTIONS:
            qt.append(arg)
            if "=" not in arg and i + 1 < len(argv):
                qt.append(argv[i + 1])
                i += 1
        elif name and dashes in (1, 2) and name in QT_FLAG_OPTIONS and "=" not in arg:
            qt.append(arg)
        else:
            ours.append(arg)
        i += 1
    return ours, qt


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


_ALLOW_HELP = ("also read data an HDF5 file names in other files (external storage, virtual "
               "sources, external links) from regular files inside DIR; by default only "
               "files inside the document's own folder are read (repeatable; never named "
               "pipes, sockets or devices)")


def _add_allow_external(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-external", action="append", default=[], metavar="DIR",
                   help=_ALLOW_HELP)


def _allow_external(folders: Sequence[str]) -> None:
    """Allow each of ``folders`` (``--allow-external``) for this process and its workers."""
    from inspector.formats.folder_bounds import allow_folder

    for folder in folders:
        allow_folder(folder)


def _gui_parser() -> argparse.ArgumentParser:
    epilog = "subcommands:\n" + "\n".join(f"  {k:<16} {v}" for k, v in SUBCOMMANDS.items())
    epilog += "\n\nRun 'inspector SUBCOMMAND --help' for the options of each."
    p = _Parser(
        prog="inspector",
        description="Inspect VneuroTK HDF5 recordings (and any HDF5 file), AUCX archives, "
        "CSV/TSV AUC scan folders and Beckman XL-A/XL-I run folders. "
        "With no FILE, opens the bundled sample files.",
        epilog=epilog + "\n\nQt's own options (-style Fusion, -platform offscreen, ...) are "
        "passed to Qt.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"inspector {__version__}")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="files, folders (a CSV/TSV scan folder, a Beckman run folder) or "
                        "http(s):// or s3:// URLs to open, one tab each; FILE::/group/dataset "
                        "opens an HDF5 file at that node (--s3-endpoint URL: an S3-compatible "
                        "store)")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="open the files, wait until the views are populated, save a PNG of "
                        "the window and exit (without a display, the window is drawn "
                        "offscreen)")
    p.add_argument("--size", metavar="WxH", default="1280x800",
                   help="window size for --screenshot (default: 1280x800)")
    p.add_argument("--theme", choices=("system", "light", "dark"), type=str.lower,
                   help="colour theme for this run (View > Theme chooses and remembers one)")
    _add_allow_external(p)
    return p


def _verify_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="inspector verify", description=SUBCOMMANDS["verify"],
                epilog="Many files: a FOLDER is walked for documents recognised by content (a "
                       "scan folder with a manifest, a Beckman run folder is one document) or "
                       "named like one (*.aucx, *.h5, *.hdf5, *.he5, *.nwb, *.nxs, *.h5ad, Beckman "
                       "scan names: verified whatever they hold); a quoted PATTERN is globbed "
                       "('**' any depth); URLs pass unchanged. A file named twice is verified "
                       "once. They are verified in parallel, printed in input order, and a summary "
                       "(files ok, not ok, unreadable; other files skipped) ends standard "
                       "error.")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="files, folders, glob patterns or URLs")
    p.add_argument("--from", dest="from_list", metavar="LIST",
                   help="also verify the paths or URLs listed in LIST, one a line ('-': "
                        "standard input; blank lines and lines starting with '#' are ignored)")
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="worker processes (default: the number of CPUs; not used with --dask)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help=f"per-file time limit of a run of many (default {VERIFY_TIMEOUT_S:g}; "
                        "0: none); a file over it is reported unreadable")
    p.add_argument("--max-memory", type=int, default=None, metavar="MB",
                   help="address-space cap per worker process (default: physical memory / "
                        "jobs; 0: none)")
    p.add_argument("--list-skipped", action="store_true",
                   help="name each file a folder walk skipped (no reader claims it by content "
                        "or name) on standard error, before the summary")
    p.add_argument("--progress", action="store_true",
                   help="draw the progress line on standard error even when it is not a terminal")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="send the work to the Dask distributed scheduler at ADDRESS "
                        "(tcp://host:8786; needs the 'distributed' extra)")
    p.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    p.add_argument("--hash-arrays", action="store_true",
                   help="also materialise neural arrays and report their SHA-256 and float64 sum")
    p.add_argument("--integrity-only", action="store_true",
                   help="exit 1 only for integrity errors, not for errors in the structure of "
                        "the AUC experiment inside (structure_ok)")
    _add_allow_external(p)
    return p


def _export_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="inspector export", description=SUBCOMMANDS["export"])
    p.add_argument("source",
                   help="an AUCX archive, a CSV/TSV scan table or folder with a manifest, or "
                        "a Beckman XL-A/XL-I run folder")
    p.add_argument("dest", help="the archive to write (DEST.aucx)")
    p.add_argument("--exported-at", metavar="ISO-8601", default=None,
                   help="export time recorded in the archive (default: now, UTC)")
    p.add_argument("--overwrite", action="store_true", help="replace DEST if it exists")
    p.add_argument("--group", metavar="KEY", default=None,
                   help="for a source holding several experiments (a Beckman run folder), "
                        "the group to export, e.g. RA1-280 (default: the first)")
    return p


def _dump_parser() -> argparse.ArgumentParser:
    from inspector.formats.nodes.dump import DUMP_MAX_VALUES

    p = _Parser(prog="inspector dump", description=SUBCOMMANDS["dump"],
                epilog="CSV: a header line, then one row per element (1-D), the matrix (2-D), or "
                       "dim0,dim1,... and the columns (N-D). Compound fields are columns with "
                       "dotted names, enums their labels, references the target's path.")
    p.add_argument("target", metavar="FILE::/path",
                   help="the file and the dataset (/group/dataset) or attribute (/group@name); "
                        "for an AUCX archive, a member (ARCHIVE.aucx::arrays/signal.npy: its "
                        "values, once its digest verifies; ::experiment.json: its text)")
    p.add_argument("--slice", default="...", metavar="SLICE",
                   help="numpy basic indexing, e.g. '0:100, 3' or '::10, ...' (default: all); "
                        "write --slice=-10: when it starts with '-'")
    p.add_argument("--format", choices=["csv", "json", "npy"], default="csv",
                   help="output format (default csv)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--all", action="store_true",
                   help=f"allow more than {DUMP_MAX_VALUES:,} values (read in pages)")
    _add_allow_external(p)
    return p


def _install_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="inspector install-desktop", description=SUBCOMMANDS["install-desktop"])
    p.add_argument("--uninstall", action="store_true", help="remove what install-desktop wrote")
    return p


def format_report(doc: Document) -> str:
    """The human-readable ``verify`` report of one document.

    The file name is prefixed to each finding here, once (:func:`with_file`);
    finding messages never carry it themselves.
    """
    verdict = "OK" if doc.ok else "NOT OK"
    if doc.structure_ok is None:
        if doc.format != "unknown":  # (a file read as no format: its findings say why)
            verdict += " (structure: not checked)"
    elif not doc.structure_ok:
        verdict += " (structure: errors)"
    lines = [f"{doc.path}: {doc.format}: {verdict}"]
    if doc.mismatch is not None:  # what the file is, beside the verdict on the format
        lines.append(f"  {doc.kind_label}: {doc.mismatch.reason}")
    for key, value in doc.summary.items():
        if key in ("members",):
            continue
        text = json.dumps(json_safe(value), ensure_ascii=False, default=str)
        if len(text) > 100:
            text = text[:97] + "..."
        lines.append(f"  {key}: {text}")
    members = doc.checksums.members if doc.checksums is not None else ()
    if members:
        bad = [m for m in members if m.status != "ok"]
        lines.append(f"  checksums: {len(members) - len(bad)}/{len(members)} members ok")
        for m in bad:
            lines.append(f"    {m.status:<16} {printable(m.name)}")
    if doc.findings:
        lines.append("  findings:")
        for f in doc.findings:
            lines.append(f"    {f.severity:<7} {f.code}: {with_file(doc.name, f)}")
    return "\n".join(lines)


def json_safe(value: Any) -> Any:
    """``value`` with non-finite floats written as the corpus writes them ("NaN",
    "Infinity", "-Infinity") and text that is not valid UTF-8 (lone surrogates)
    backslash-escaped, so that one JSON line can always be printed."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def json_line(obj: Any) -> str:
    """One strict-JSON line (RFC 8259: no NaN), falling back to :func:`json_safe`."""
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=str)
        text.encode("utf-8")
        return text
    except (ValueError, UnicodeEncodeError):
        return json.dumps(json_safe(obj), ensure_ascii=False, allow_nan=False, default=str)


def cmd_verify(argv: Sequence[str]) -> int:
    """``inspector verify``: open, verify and report each file; 0 when all are ok.

    With ``--json``, one ``Document.to_json()`` line per file; each finding
    carries its ``rule`` (the source of the rule it broke).  A file counts as
    ok when ``ok`` and ``structure_ok`` are both true, or with
    ``--integrity-only`` when ``ok`` is.
    """
    parser = _verify_parser()
    args = parser.parse_args(argv)
    _allow_external(args.allow_external)
    if not args.files and args.from_list is None:
        parser.error("give at least one FILE (or folder, pattern, URL) or --from LIST")
    from inspector.batch.inputs import Entry, gather, read_list

    inputs = list(args.files)
    if args.from_list is not None:
        try:
            inputs += read_list(args.from_list, sys.stdin)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"inspector verify: cannot read --from {args.from_list}: {exc}", file=sys.stderr)
            return 2
    gathered = gather(inputs)
    if (args.from_list is None and len(args.files) == 1 and not gathered.skipped
            and gathered.entries == [Entry(args.files[0])]
            and args.timeout is None and args.dask is None):
        return _verify_here(args)  # one file: verified in this process, as always
    try:
        return _verify_many(gathered, args)
    except KeyboardInterrupt:
        return 130


def render_document(doc: Document, as_json: bool) -> str:
    """What ``verify`` prints for one document: its JSON line, or its text report."""
    return json_line(doc.to_json()) if as_json else json_safe(format_report(doc))


def _verify_here(args: argparse.Namespace) -> int:
    from inspector.formats import open_document

    all_ok = True
    for path in args.files:
        with open_document(path, hash_arrays=args.hash_arrays) as doc:
            doc.verify()
            all_ok &= bool(doc.ok and (args.integrity_only or doc.structure_ok))
            print(render_document(doc, args.json), flush=True)
    return 0 if all_ok else 1


def _verify_many(gathered: Any, args: argparse.Namespace) -> int:
    """Many entries on worker processes (or ``--dask``): see :mod:`inspector.batch`."""
    from inspector.batch.cluster import DaskUnavailable
    from inspector.batch.local import default_jobs, default_memory_limit
    from inspector.batch.run import RunConfig, verify_many
    from inspector.batch.work import VerifyOptions

    jobs = args.jobs if args.jobs > 0 else default_jobs()
    options = VerifyOptions(render_document, as_json=args.json, hash_arrays=args.hash_arrays,
                            integrity_only=args.integrity_only,
                            threads=1 if args.dask else max(1, default_jobs() // jobs))
    timeout = VERIFY_TIMEOUT_S if args.timeout is None else args.timeout
    memory = (default_memory_limit(jobs) if args.max_memory is None
              else max(0, args.max_memory) << 20)
    config = RunConfig(jobs, timeout=timeout or None, memory_limit=memory,
                       progress=args.progress or sys.stderr.isatty(), dask=args.dask)
    try:
        counts = verify_many(gathered.entries, options, config, sys.stdout, sys.stderr,
                             skipped=gathered.skipped, list_skipped=args.list_skipped)
    except DaskUnavailable as exc:
        print(f"inspector verify: {exc}", file=sys.stderr)
        return 2
    return 0 if counts.all_ok else 1


def cmd_export(argv: Sequence[str]) -> int:
    """``inspector export SOURCE DEST``: 0 when written, 1 when refused, 2 for usage errors."""
    args = _export_parser().parse_args(argv)
    from inspector.formats.auc.export import ExportError, export_to_aucx, open_group
    from inspector.formats.workers import worker_pool

    try:
        with worker_pool():
            source = open_group(args.source, args.group) if args.group else args.source
            result = export_to_aucx(source, args.dest, exported_at=args.exported_at,
                                    overwrite=args.overwrite)
    except ExportError as exc:
        print(f"inspector export: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {result}")
    return 0


def _print_finding(doc: Document, finding: Finding) -> None:
    print(json_safe(f"{finding.severity} {finding.code}: {with_file(doc.name, finding)}"),
          file=sys.stderr)


def _dump_member(doc: Document, location: str) -> MemberContent | None:
    """The archive member to dump (read once its digest verified), or None after
    printing the finding that says why not."""
    from inspector.formats.nodes.data import NodeReadError

    assert doc.member_data is not None
    name = location
    if name not in doc.member_data.names and name.startswith("/"):
        name = name.lstrip("/")  # ARCHIVE::/arrays/signal.npy names the same member
    try:
        return doc.member_data.read(name)
    except NodeReadError as exc:
        _print_finding(doc, exc.finding)
        return None


def _dump_node(doc: Document, location: str) -> NodeData | None:
    """The node to dump, or None after printing the finding that says why not."""
    from inspector.formats.core_rules import NODE_NOT_FOUND
    from inspector.formats.nodes.data import NodeReadError

    if doc.object_data is None:
        opening = [f for f in doc.findings if f.severity == "error" and not f.location]
        for f in opening:  # why the file did not open
            _print_finding(doc, f)
        if not opening:
            _print_finding(doc, NODE_NOT_FOUND.finding(
                f"{location}: this {doc.kind_label.lower()} holds no dataset values", location))
        return None
    try:
        node = doc.object_data.node(location)
    except NodeReadError as exc:
        _print_finding(doc, exc.finding)
        return None
    if node is None:
        broken = [f for f in doc.findings if f.location == location and f.severity == "error"]
        for f in broken:  # what opening found there (a dangling link)
            _print_finding(doc, f)
        if broken:
            return None
        shown = doc.tree.find(location) if doc.tree is not None else None
        why = (f"is a {shown.kind}, which holds no values; dump one of its datasets or "
               "attributes" if shown is not None else "names no dataset or attribute of the file")
        why += _attribute_hint(doc, location) if shown is None else ""
        _print_finding(doc, NODE_NOT_FOUND.finding(f"{location} {why}", location))
    return node


def _attribute_hint(doc: Document, location: str) -> str:
    """``"; its parent has an attribute of that name: /g@name"`` when ``/g/name`` is no node
    but ``/g@name`` is one (attributes are addressed with ``@``), else ``""``."""
    from inspector.formats.nodes.data import NodeReadError

    parent, _, leaf = location.rstrip("/").rpartition("/")
    if not leaf or "@" in location or doc.object_data is None:
        return ""
    address = f"{parent or '/'}@{leaf}"
    try:
        found = doc.object_data.node(address)
    except NodeReadError:
        return ""
    return f"; its parent has an attribute of that name: {address}" if found is not None else ""


def _dump_write(node: NodeData, norm: tuple[Any, ...], fmt: str, out: str | None) -> None:
    """Write the values to ``out`` (through a temporary renamed into place) or stdout.

    Raises:
        NodeReadError, DumpRefused: as the writers raise them (``out`` is left untouched).
    """
    from inspector.formats.nodes.dump import write_csv, write_json, write_npy

    writer = {"csv": write_csv, "json": write_json, "npy": write_npy}[fmt]
    if out is None:
        if fmt == "npy":
            writer(node, norm, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            writer(node, norm, sys.stdout)
            sys.stdout.flush()
        return
    tmp = f"{out}.part"
    try:
        mode = "wb" if fmt == "npy" else "w"
        with open(tmp, mode, **({} if fmt == "npy" else {"encoding": "utf-8", "newline": ""})) \
                as fh:
            writer(node, norm, fh)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _dump_text(text: str, args: argparse.Namespace) -> int:
    """Write a text member (JSON, the checksum list) as it is: to ``--out`` (through a
    temporary renamed into place) or standard output; ``--slice`` and ``--format npy``
    do not apply to text."""
    if args.slice != "..." or args.format == "npy":
        return _dump_usage("a JSON member (or checksums.sha256) is written as its text: "
                           "--slice and --format npy apply to .npy members and datasets")
    if args.out is None:
        sys.stdout.write(json_safe(text))
        sys.stdout.flush()
        return 0
    tmp = f"{args.out}.part"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, args.out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return 0


def _group_at(doc: Document, location: str) -> Node | None:
    """The tree node of the group at ``location`` (``"/"`` the root), or None."""
    if doc.tree is None or doc.object_data is None:
        return None
    where = "/" + location.strip("/")
    found = doc.tree if where == "/" else doc.tree.find(where)
    return found if found is not None and found.kind == "group" else None


def _listed_value(value: Any) -> Any:
    """A tree node's value as JSON can hold it (other values as their text)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _dump_group(group: Node, args: argparse.Namespace) -> int:
    """Write a group as the tree lists it: its members (name, kind, location, detail) and
    its attributes (with their values), as CSV rows or one JSON object."""
    if args.slice != "..." or args.format == "npy":
        return _dump_usage(f"{group.location or '/'} is a group: it is written as the list of "
                           "its members and attributes (--format csv or json); --slice and "
                           "--format npy apply to datasets and attributes")
    rows = [{"name": c.name, "kind": c.kind, "location": c.location, "detail": c.detail,
             "value": _listed_value(c.value) if c.kind == "attribute" else None}
            for c in group.children]
    if args.format == "json":
        text = json.dumps({"location": group.location or "/", "kind": "group",
                           "members": rows}, indent=1, ensure_ascii=False) + "\n"
    else:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else
                                ["name", "kind", "location", "detail", "value"])
        writer.writeheader()
        writer.writerows(rows)
        text = out.getvalue()
    return _dump_text(text, argparse.Namespace(slice="...", format=args.format, out=args.out))


def _say_other_files(node: NodeData) -> None:
    """One line on stderr when the values dumped are read from files other than the
    document (external storage, virtual sources)."""
    files = getattr(node.storage, "other_files", ()) if hasattr(node, "storage") else ()
    if files:
        print(json_safe(f"inspector dump: note: the values of {node.location} are read from "
                        f"{'another file' if len(files) == 1 else 'other files'}: "
                        + ", ".join(files)), file=sys.stderr)


def _dump_streamed(doc: Document, node: NodeData, args: argparse.Namespace) -> int | None:
    """Write a single text value too large to read whole page by page to ``--out``
    (through a temporary renamed into place; Ctrl-C leaves none); None when ``node``
    has no such value (the ordinary writers apply)."""
    from inspector.formats.nodes.data import NodeReadError
    from inspector.formats.nodes.dump import write_text_csv, write_text_json

    try:
        first = node.text_pages()
    except NodeReadError as exc:
        _print_finding(doc, exc.finding)
        return 1
    if first is None:
        return None
    first.close()
    pages = node.text_pages
    writer = write_text_json if args.format == "json" else write_text_csv
    tmp = f"{args.out}.part"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            writer(node, lambda: pages() or iter(()), fh)
        os.replace(tmp, args.out)
    except NodeReadError as exc:
        _print_finding(doc, exc.finding)
        return 1
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return 0


def _dump_usage(message: str) -> int:
    _dump_parser().print_usage(sys.stderr)
    print(f"inspector dump: error: {message}", file=sys.stderr)
    return 2


def cmd_dump(argv: Sequence[str]) -> int:
    """``inspector dump FILE::/path``: 0 written, 1 the node cannot be read, 2 usage errors."""
    args = _dump_parser().parse_args(argv)
    _allow_external(args.allow_external)
    from inspector.formats import open_document
    from inspector.formats.nodes.data import (
        NodeReadError,
        normalize,
        parse_selection,
        selected_shape,
    )
    from inspector.formats.nodes.dump import DUMP_MAX_VALUES, DumpRefused

    if "::" not in args.target:
        return _dump_usage("give the node as FILE::/path (a dataset) or FILE::/path@name")
    from inspector.formats.remote.path import split_location

    path, node = split_location(args.target)
    location = node or ""
    if not location:
        return _dump_usage("the node after '::' is empty")
    if args.format == "npy" and args.out is None and sys.stdout.isatty():
        return _dump_usage(".npy is binary: write it with --out FILE or redirect stdout")
    try:
        selection = parse_selection(args.slice)
    except ValueError as exc:
        return _dump_usage(f"--slice: {exc}")
    with open_document(path, only=location) as doc:
        if doc.object_data is None and doc.member_data is not None:
            member = _dump_member(doc, location)
            if member is None:
                return 1
            if member.text is not None:
                return _dump_text(member.text, args)
            node = member.node
        else:
            group = _group_at(doc, location)
            if group is not None:
                return _dump_group(group, args)
            node = _dump_node(doc, location)
        if node is None:
            return 1
        _say_other_files(node)
        try:
            norm = normalize(selection, node.shape) if node.shape is not None else ()
        except (IndexError, TypeError) as exc:
            return _dump_usage(f"--slice {args.slice!r} for shape {node.shape}: {exc}")
        count = math.prod(selected_shape(norm)) if node.shape is not None else 0
        if args.all and args.out is not None and not norm and args.format != "npy":
            streamed = _dump_streamed(doc, node, args)
            if streamed is not None:
                return streamed
        if count > DUMP_MAX_VALUES and not args.all:
            return _dump_usage(f"{location} {args.slice!r} selects {count:,} values, more than "
                               f"{DUMP_MAX_VALUES:,}: narrow it with --slice or pass --all")
        try:
            _dump_write(node, norm, args.format, args.out)
        except NodeReadError as exc:
            _print_finding(doc, exc.finding)
            return 1
        except DumpRefused as exc:
            return _dump_usage(str(exc))
    return 0


def cmd_install_desktop(argv: Sequence[str]) -> int:
    """``inspector install-desktop [--uninstall]``: print what was (un)installed."""
    args = _install_parser().parse_args(argv)
    from inspector.desktop import install, uninstall

    actions = uninstall() if args.uninstall else install()
    for line in actions:
        print(line)
    return 0


def _qt_platform(qt_options: Sequence[str]) -> str | None:
    """The platform named by Qt's ``-platform NAME`` (or ``-platform=NAME``) option."""
    for i, opt in enumerate(qt_options):
        name, _, value = opt.lstrip("-").partition("=")
        if name == "platform":
            return value or (qt_options[i + 1] if i + 1 < len(qt_options) else None)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``inspector`` script and ``python -m inspector``.

    Every subcommand (and the window) runs inside the shared worker pool
    (:func:`inspector.formats.workers.worker_pool`), shut down on return.  First,
    the temporaries a killed export left are removed
    (:func:`inspector.formats.partials.clean_left_over`).
    ``HDF5_EXTFILE_PREFIX`` defaults to ``${ORIGIN}`` (HDF5 library, H5Pset_efile_prefix):
    a relative external-storage file name is looked up beside the document, not in the
    working directory.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = _take_s3_endpoint(argv)
    from inspector.formats.partials import clean_left_over

    clean_left_over()  # what a killed export left (inspector/formats/partials.py)
    # Relative external-storage names resolve from the document's folder, as virtual
    # sources and external links do (HDF5 reads this once, when h5py loads it).
    os.environ.setdefault("HDF5_EXTFILE_PREFIX", "${ORIGIN}")
    try:
        with worker_pool():
            return _dispatch(argv)
    except KeyboardInterrupt:  # Ctrl-C: stop at once, no traceback (a partial --out is removed)
        print("inspector: interrupted", file=sys.stderr)
        return INTERRUPTED


#: Exit status after Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


def _take_s3_endpoint(argv: list[str]) -> list[str]:
    """Remove ``--s3-endpoint URL`` (or ``--s3-endpoint=URL``) from ``argv`` and use it
    for every ``s3://`` URL opened by this process."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        if arg == "--s3-endpoint" and i + 1 < len(argv) or arg.startswith("--s3-endpoint="):
            value = arg.split("=", 1)[1] if "=" in arg else argv[i + 1]
            i += 1 if "=" in arg else 2
            from inspector.formats.remote.options import set_s3_endpoint

            set_s3_endpoint(value)
            continue
        out.append(arg)
        i += 1
    return out


def _reader_left(status: int) -> int:
    """Standard output's reader closed the pipe (``| head``): point stdout at
    ``os.devnull`` so that the interpreter's final flush raises no second
    BrokenPipeError, and return ``status`` (Python documentation, "Note on SIGPIPE")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return status


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "verify":
        try:
            return cmd_verify(argv[1:])
        except BrokenPipeError:  # `inspector verify ... | head`: the reader left, not our error
            return _reader_left(1)
    if argv and argv[0] == "export":
        return cmd_export(argv[1:])
    if argv and argv[0] == "dump":
        try:
            return cmd_dump(argv[1:])
        except BrokenPipeError:  # `inspector dump ... | head`
            return _reader_left(0)
    if argv and argv[0] == "rsa":
        from inspector.rsa_cli import cmd_rsa

        try:
            return cmd_rsa(argv[1:])
        except BrokenPipeError:  # `inspector rsa ... | head`
            return _reader_left(0)
    if argv and argv[0] == "install-desktop":
        try:
            return cmd_install_desktop(argv[1:])
        except BrokenPipeError:  # `inspector install-desktop | head -3`: installed all the same
            return _reader_left(0)
    ours, qt_options = split_qt_options(argv)
    args = _gui_parser().parse_args(ours)
    _allow_external(args.allow_external)
    size = None
    if args.screenshot:
        try:
            w, h = (int(v) for v in args.size.lower().split("x"))
            size = (w, h)
        except ValueError:
            print(f"inspector: error: --size must look like 1280x800, not {args.size!r}",
                  file=sys.stderr)
            return 2
    from inspector.platform_check import preflight, screenshot_platform

    platform = _qt_platform(qt_options)
    if args.screenshot and screenshot_platform(os.environ, platform=platform) == "offscreen":
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a PNG needs no screen (docs/cli.md)
    problem = preflight(platform=platform)
    if problem is not None:  # one clear line instead of Qt's abort
        print(problem, file=sys.stderr)
        return 1
    from inspector.app import run_gui

    return run_gui(args.files, screenshot=args.screenshot, size=size, theme=args.theme,
                   qt_options=qt_options)
