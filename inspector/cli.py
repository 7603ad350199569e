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
    inspector diff A B [--json] [--tolerance REL[,ABS]] [--exact] [--jobs N] [--first]
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
import os
import sys
from collections.abc import Sequence
from typing import Any

from inspector import __version__
from inspector.cli_dump import cmd_dump
from inspector.cli_options import SUBCOMMANDS, Parser, add_allow_external, allow_external
from inspector.cli_output import format_report, json_line, json_safe, render_document
from inspector.formats.decoding.workers import worker_pool

#: The command line's entry point and what tools and tests take from it (the report and
#: JSON line of a document, :mod:`inspector.cli_output`).
__all__ = ["SUBCOMMANDS", "format_report", "json_line", "json_safe", "main", "render_document",
           "split_qt_options"]

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


def _gui_parser() -> argparse.ArgumentParser:
    epilog = "subcommands:\n" + "\n".join(f"  {k:<16} {v}" for k, v in SUBCOMMANDS.items())
    epilog += "\n\nRun 'inspector SUBCOMMAND --help' for the options of each."
    p = Parser(
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
    add_allow_external(p)
    return p


def _verify_parser() -> argparse.ArgumentParser:
    p = Parser(prog="inspector verify", description=SUBCOMMANDS["verify"],
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
    add_allow_external(p)
    return p


def _export_parser() -> argparse.ArgumentParser:
    p = Parser(prog="inspector export", description=SUBCOMMANDS["export"])
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


def _install_parser() -> argparse.ArgumentParser:
    p = Parser(prog="inspector install-desktop", description=SUBCOMMANDS["install-desktop"])
    p.add_argument("--uninstall", action="store_true", help="remove what install-desktop wrote")
    return p


def cmd_verify(argv: Sequence[str]) -> int:
    """``inspector verify``: open, verify and report each file; 0 when all are ok.

    With ``--json``, one ``Document.to_json()`` line per file; each finding
    carries its ``rule`` (the source of the rule it broke).  A file counts as
    ok when ``ok`` and ``structure_ok`` are both true, or with
    ``--integrity-only`` when ``ok`` is.
    """
    parser = _verify_parser()
    args = parser.parse_args(argv)
    allow_external(args.allow_external)
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
    from inspector.formats.decoding.workers import worker_pool

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
    (:func:`inspector.formats.decoding.workers.worker_pool`), shut down on return.  First,
    the temporaries a killed export left are removed
    (:func:`inspector.formats.sources.partials.clean_left_over`).
    ``HDF5_EXTFILE_PREFIX`` defaults to ``${ORIGIN}`` (HDF5 library, H5Pset_efile_prefix):
    a relative external-storage file name is looked up beside the document, not in the
    working directory.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = _take_s3_endpoint(argv)
    from inspector.formats.sources.partials import clean_left_over

    clean_left_over()  # what a killed export left (inspector/formats/sources/partials.py)
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
    if argv and argv[0] == "diff":
        from inspector.diff_cli import cmd_diff

        try:
            return cmd_diff(argv[1:], Parser, json_line)
        except BrokenPipeError:  # `inspector diff ... | head`
            return _reader_left(1)
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
    allow_external(args.allow_external)
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
