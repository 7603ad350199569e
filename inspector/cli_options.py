"""Pieces every subcommand's parser shares: the subcommands and their help, a parser whose
usage errors exit 2, and ``--allow-external DIR``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

SUBCOMMANDS = {
    "verify": "check files headless and print a report (or JSON lines with --json)",
    "export": "write an AUC source (AUCX archive, CSV/TSV scan table, Beckman run folder) "
              "to a new AUCX archive",
    "dump": "print or write the values of a dataset or attribute (FILE::/path[@attr]) "
            "as the data views show them, the members and attributes of a group "
            "(FILE::/group), or an archive member (ARCHIVE::member)",
    "diff": "compare two documents and print only what differs (exit 0 equal in content, "
            "1 different)",
    "install-desktop": "install (or --uninstall) the desktop entry, MIME types and icons "
                       "for this user",
    "rsa": "compare each vision record (model layer) of a recording with its neural "
           "responses: representational similarity",
}


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


ALLOW_HELP = ("also read data an HDF5 file names in other files (external storage, virtual "
               "sources, external links) from regular files inside DIR; by default only "
               "files inside the document's own folder are read (repeatable; never named "
               "pipes, sockets or devices)")


def add_allow_external(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-external", action="append", default=[], metavar="DIR",
                   help=ALLOW_HELP)


def allow_external(folders: Sequence[str]) -> None:
    """Allow each of ``folders`` (``--allow-external``) for this process and its workers."""
    from inspector.formats.sources.folder_bounds import allow_folder

    for folder in folders:
        allow_folder(folder)
