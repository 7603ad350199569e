"""The hostile corpus: hand-made files and servers aimed at Inspector's resources.

Mutation fuzzing (``python -m fuzz``) edits real files at random; the cases here are
built on purpose to make a reader crash, hang, read outside the document or grow
without bound (recursive virtual datasets, external storage naming a FIFO, a gzip
bomb chunk, a server that never stops sending, a CSV of a million scans...).  Files
are generated, never committed: each case builds its input at a *scale* (``small``
for CI, ``full`` for the documented sizes) in a folder of its own.

Every module of this package (other than :mod:`.case` and :mod:`.runner`) defines
``CASES``, a sequence of :class:`~fuzz.hostile.case.HostileCase`;
:func:`all_cases` gathers them.  ``python -m fuzz.hostile`` runs them, each command
in its own process under a wall-time and memory limit, and prints one JSON object
(see ``fuzz/README.md``, "The hostile corpus").
"""

from __future__ import annotations

import importlib
import pkgutil

from fuzz.hostile.case import HostileCase

_NOT_CASES = {"case", "runner", "servers", "__main__"}


def all_cases() -> list[HostileCase]:
    """Every case of every module of this package, in module then declaration order.

    Raises:
        ValueError: when two cases share a name (names key reports and ``--only``).
    """
    cases: list[HostileCase] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name in _NOT_CASES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", ()))
    names = [c.name for c in cases]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"hostile cases share names: {duplicates}")
    return cases
