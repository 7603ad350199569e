"""Digests of a mutant (a file, or a folder tree) to prove the reader left it byte-identical.

A case folder can hold hostile entries on purpose (a FIFO, a symbolic link to
``/dev/zero``, a link loop), so nothing here follows a link or opens anything
but a regular file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

_CHUNK = 1 << 20


def file_digest(path: Path) -> str:
    """SHA-256 hex digest of a regular file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def tree_digest(root: Path) -> str:
    """SHA-256 over every entry under ``root``: names, kinds, file bytes and link targets.

    Access and modification times are not part of it (reading changes atime),
    permissions are.  A regular file alone is digested like a one-entry tree.
    """
    h = hashlib.sha256()
    for rel, st, full in _entries(root):
        kind = stat.S_IFMT(st.st_mode)
        h.update(f"{rel}\0{kind:o}\0{stat.S_IMODE(st.st_mode):o}\0".encode("utf-8",
                                                                         "surrogateescape"))
        if stat.S_ISREG(st.st_mode):
            h.update(file_digest(full).encode())
        elif stat.S_ISLNK(st.st_mode):
            h.update(os.readlink(full).encode("utf-8", "surrogateescape"))
        h.update(b"\n")
    return h.hexdigest()


def _entries(root: Path) -> list[tuple[str, os.stat_result, Path]]:
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode):
        return [(".", st, root)]
    out: list[tuple[str, os.stat_result, Path]] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        for name in sorted(os.listdir(folder)):
            full = folder / name
            est = os.lstat(full)
            out.append((os.fspath(full.relative_to(root)), est, full))
            if stat.S_ISDIR(est.st_mode):
                stack.append(full)
    out.sort(key=lambda e: e[0])
    return out


def copy_case(src: Path, dst: Path) -> None:
    """Copy a case folder exactly: links stay links, FIFOs are made anew, never opened."""
    dst.mkdir(parents=True, exist_ok=True)
    for rel, st, full in _entries(src):
        target = dst / rel
        if stat.S_ISDIR(st.st_mode):
            target.mkdir(exist_ok=True)
        elif stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(full), target)
        elif stat.S_ISFIFO(st.st_mode):
            os.mkfifo(target, stat.S_IMODE(st.st_mode))
        elif stat.S_ISREG(st.st_mode):
            shutil.copyfile(full, target)
            os.chmod(target, stat.S_IMODE(st.st_mode))


def remove_tree(path: Path) -> None:
    """Delete a case folder (or file); links inside are removed, never followed."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
