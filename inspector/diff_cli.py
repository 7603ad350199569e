"""``inspector diff A B``: compare two documents headless (docs/diff.md).

    inspector diff A B [--json] [--tolerance REL[,ABS]] [--exact] [--jobs N] [--first]
                       [--verify | --digests-only] [--allow-external DIR]

Exit status: 0 when the documents are equal in content (within the tolerance;
differences of representation alone, such as the schema version or the
export record, keep it 0), 1 when they differ or a part could not be compared,
2 for usage errors.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

DESCRIPTION = ("compare two documents (recordings, archives, AUC sources, HDF5 files; "
               "paths or URLs) and print only what differs")


def parser(base: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """The argument parser of ``inspector diff`` (``base``: the CLI's parser class)."""
    p = base(prog="inspector diff", description=DESCRIPTION,
             epilog="Findings of either document are listed first. Exit status: 0 equal in "
                    "content, 1 different (or not fully compared), 2 usage error. The JSON "
                    "object is described in docs/diff.md.")
    p.add_argument("a", metavar="A", help="the first file, folder or URL")
    p.add_argument("b", metavar="B", help="the second file, folder or URL")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--tolerance", metavar="REL[,ABS]", default=None,
                   help="values a and b are equal when |a - b| <= ABS + REL * |b| "
                        "(numpy.isclose; default 0,0: equal values; NaN equals NaN)")
    p.add_argument("--exact", action="store_true",
                   help="compare values bit for bit (NaN payloads, -0.0 and 0.0 differ)")
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="threads comparing array chunks (default: the number of CPUs)")
    p.add_argument("--first", action="store_true",
                   help="stop at the first content difference (exit 1)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--verify", action="store_true",
                     help="verify both archives' member digests first (as inspector verify; "
                          "their findings are listed); by default two archives' members are "
                          "compared by their stored bytes and the digests are not verified")
    how.add_argument("--digests-only", action="store_true",
                     help="compare two archives' members by their recorded digests and ZIP "
                          "metadata alone, reading no member bytes")
    p.add_argument("--allow-external", action="append", default=[], metavar="DIR",
                   help="also read data an HDF5 file names in other files from DIR")
    return p


def parse_tolerance(text: str | None) -> tuple[float, float]:
    """``(rtol, atol)`` of ``--tolerance REL[,ABS]``.

    Raises:
        ValueError: not one or two finite numbers >= 0.
    """
    if text is None:
        return 0.0, 0.0
    parts = text.split(",")
    if len(parts) > 2:
        raise ValueError("give REL or REL,ABS")
    values = [float(p) for p in parts]
    if any(not (v >= 0.0) or v == float("inf") for v in values):
        raise ValueError("tolerances are finite numbers >= 0")
    return values[0], values[1] if len(values) == 2 else 0.0


def cmd_diff(argv: Sequence[str], base: type[argparse.ArgumentParser],
             json_line: object) -> int:
    """Run ``inspector diff``; the exit status (see the module notes)."""
    p = parser(base)
    args = p.parse_args(argv)
    try:
        rtol, atol = parse_tolerance(args.tolerance)
    except ValueError as exc:
        p.error(f"--tolerance {args.tolerance!r}: {exc}")
    if args.jobs < 0:
        p.error("--jobs must be >= 0")
    from inspector.formats.compare.engine import compare_paths
    from inspector.formats.compare.model import DiffOptions
    from inspector.formats.compare.text import render
    from inspector.formats.sources.folder_bounds import allow_folder

    for folder in args.allow_external:
        allow_folder(folder)
    options = DiffOptions(rtol=rtol, atol=atol, exact=args.exact, first=args.first,
                          jobs=args.jobs, verify=args.verify,
                          digests_only=args.digests_only)
    report = compare_paths(args.a, args.b, options)
    if args.json:
        print(json_line(report.to_json()), flush=True)  # type: ignore[operator]
    else:
        print(render(report), flush=True)
    return 0 if report.equal else 1

