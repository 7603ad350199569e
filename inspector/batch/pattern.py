"""Glob patterns expanded without following links to folders (``**`` stays finite).

:func:`glob.glob` with ``recursive=True`` descends into every symbolic link to a
folder under a ``**``: a folder holding a link to itself (``a -> .``) yields
``a/a/a/...`` down to the system's path limit, and two such links about 2**40
paths, which never ends.  :func:`expand_pattern` matches the same names as the
shell's ``globstar`` expansion for the pattern's part before its first ``**``
(:func:`glob.glob`, no recursion) and walks what lies below with
:func:`os.walk` (``followlinks=False``): a link to a folder is matched as a name
but never entered, so each real file below is met once, by its real path.
Names starting with ``.`` are matched only by a pattern part starting with
``.``, and ``**`` never crosses them (as :func:`glob.glob`).
"""

from __future__ import annotations

import fnmatch
import glob
import os

__all__ = ["expand_pattern"]


def expand_pattern(pattern: str) -> list[str]:
    """The paths ``pattern`` matches, sorted (``*``, ``?``, ``[...]`` within one name,
    ``**`` for any number of folders, zero included).

    A pattern without ``**`` is :func:`glob.glob`'s expansion.  Otherwise the part
    before the first ``**`` is expanded by :func:`glob.glob` and the folders it
    names are walked without following links to folders (see the module
    documentation).  Never raises: a folder that cannot be listed contributes
    nothing.
    """
    parts = pattern.split(os.sep)
    deep = [i for i, p in enumerate(parts) if "**" in p]
    if not deep:
        return sorted(glob.glob(pattern))
    if pattern.endswith(os.sep):  # "a/**/": the folders only, named with a final "/"
        return [os.path.join(p, "") for p in expand_pattern(pattern.rstrip(os.sep))
                if os.path.isdir(p) and p.rstrip(os.sep)]
    first = deep[0]
    head, rest = parts[:first], parts[first:]
    if head == [""]:  # an absolute pattern: "/**/x"
        bases = [os.sep]
    elif head:
        bases = [b for b in glob.glob(os.sep.join(head)) if os.path.isdir(b)]
    else:
        bases = [""]
    found: set[str] = set()
    for base in bases:
        found.update(_below(base, rest))
    return sorted(found)


def _below(base: str, rest: list[str]) -> list[str]:
    """The paths under ``base`` (``""``: the working folder) whose parts below it
    match the pattern parts ``rest``."""
    out: list[str] = []
    if _match(rest, []):
        out.append(os.path.join(base, "") if base else "")
    top = base or os.curdir
    for folder, dirs, files in os.walk(top, followlinks=False):
        rel = os.path.relpath(folder, top)
        above = [] if rel == os.curdir else rel.split(os.sep)
        for name in sorted(dirs) + sorted(files):
            if _match(rest, [*above, name]):
                out.append(os.path.join(base, *above, name))
    return [p for p in out if p]


def _match(pattern: list[str], parts: list[str]) -> bool:
    """True when the path parts ``parts`` match the pattern parts ``pattern``."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        if _match(pattern[1:], parts):
            return True
        return bool(parts) and not _hidden(parts[0], "") and _match(pattern, parts[1:])
    if not parts or _hidden(parts[0], pattern[0]):
        return False
    return fnmatch.fnmatchcase(parts[0], pattern[0]) and _match(pattern[1:], parts[1:])


def _hidden(name: str, pattern: str) -> bool:
    """True when ``name`` starts with ``.`` and ``pattern`` does not ask for it."""
    return name.startswith(".") and not pattern.startswith(".")
