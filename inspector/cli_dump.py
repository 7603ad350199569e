"""``inspector dump FILE::/path``: find the node, member or group asked for, and write its
values, text or listing (0 written, 1 the node cannot be read, 2 usage errors)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inspector.cli_options import SUBCOMMANDS, Parser, add_allow_external, allow_external
from inspector.formats.findings import Finding, with_file

if TYPE_CHECKING:
    from inspector.formats.capabilities import MemberContent
    from inspector.formats.document import Document
    from inspector.formats.nodes.data import NodeData
    from inspector.formats.nodes.node import Node
from inspector.cli_output import json_safe


def _dump_parser() -> argparse.ArgumentParser:
    from inspector.formats.nodes.dump import DUMP_MAX_VALUES

    p = Parser(prog="inspector dump", description=SUBCOMMANDS["dump"],
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
    add_allow_external(p)
    return p


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

    text_writer = {"csv": write_csv, "json": write_json}.get(fmt)
    if out is None:
        if text_writer is None:
            write_npy(node, norm, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            text_writer(node, norm, sys.stdout)
            sys.stdout.flush()
        return
    tmp = f"{out}.part"
    try:
        if text_writer is None:
            with open(tmp, "wb") as raw:
                write_npy(node, norm, raw)
        else:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                text_writer(node, norm, fh)
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
    close = getattr(first, "close", None)  # (a generator: its file is let go)
    if close is not None:
        close()
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
    allow_external(args.allow_external)
    from inspector.formats import open_document
    from inspector.formats.nodes.data import parse_selection

    if "::" not in args.target:
        return _dump_usage("give the node as FILE::/path (a dataset) or FILE::/path@name")
    from inspector.formats.remote.path import split_location

    path, inner = split_location(args.target)
    location = inner or ""
    if not location:
        return _dump_usage("the node after '::' is empty")
    if args.format == "npy" and args.out is None and sys.stdout.isatty():
        return _dump_usage(".npy is binary: write it with --out FILE or redirect stdout")
    try:
        selection = parse_selection(args.slice)
    except ValueError as exc:
        return _dump_usage(f"--slice: {exc}")
    with open_document(path, only=location) as doc:
        node: NodeData | None
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
        return _dump_values(doc, node, location, selection, args)


def _dump_values(doc: Document, node: NodeData, location: str, selection: Any,
                 args: argparse.Namespace) -> int:
    """Write the selected values of ``node`` (``dump FILE::/path``); the exit status."""
    from inspector.formats.nodes.data import NodeReadError, normalize, selected_shape
    from inspector.formats.nodes.dump import DUMP_MAX_VALUES, DumpRefused

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
