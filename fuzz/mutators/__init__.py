"""Mutant generation: one deterministic mutant per (format, campaign seed, index).

A mutant lives in a *case folder*: the mutated file (or source folder) plus
whatever siblings the mutation needs (an external-link target, a file a
manifest points at with ``..``).  :func:`make_mutant` writes it and returns a
:class:`Mutant` describing it; the same arguments always give the same
bytes (the random generator is seeded from the string
``"fuzz/<seed>/<format>/<index>"``).
"""

from __future__ import annotations

import os
import random
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fuzz import FORMATS

DEFAULT_SEEDS = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
"""The seed corpus: the repository's ``tests/fixtures`` (vneurotk/, aucx/, auc-delimited/)."""


@dataclass
class Mutant:
    """What was mutated and how.

    Attributes:
        format: ``"hdf5"``, ``"aucx"`` or ``"csv"``.
        index, seed: the mutant's number and the campaign seed.
        seed_file: the seed, relative to the corpus root.
        target: the path handed to ``open_document``, relative to the case folder.
        ops: one JSON-ready description per edit, in order.
    """

    format: str
    index: int
    seed: int
    seed_file: str
    target: str
    ops: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Corpus:
    """The seeds of each format (files for hdf5/aucx, source folders for csv)."""

    root: Path
    seeds: dict[str, list[Path]]

    def of(self, fmt: str) -> list[Path]:
        """The seeds of ``fmt``.

        Raises:
            ValueError: the corpus has none for ``fmt``.
        """
        found = self.seeds.get(fmt) or []
        if not found:
            raise ValueError(f"no {fmt} seeds under {self.root}")
        return found


def load_corpus(root: Path = DEFAULT_SEEDS) -> Corpus:
    """The seeds under ``root``: ``vneurotk/**/*.h5``, ``aucx/*.aucx``, ``auc-delimited/*/``."""
    return Corpus(root, {
        "hdf5": sorted((root / "vneurotk").rglob("*.h5")),
        "aucx": sorted((root / "aucx").glob("*.aucx")),
        "csv": sorted(p for p in (root / "auc-delimited").iterdir() if p.is_dir()),
    })


def mutant_rng(seed: int, fmt: str, index: int) -> random.Random:
    """The random generator of one mutant (independent of PYTHONHASHSEED)."""
    return random.Random(f"fuzz/{seed}/{fmt}/{index}")


def make_mutant(fmt: str, corpus: Corpus, seed: int, index: int, case: Path) -> Mutant:
    """Write mutant ``index`` of ``fmt`` into the empty folder ``case``.

    A structure edit that the seed does not allow is recorded with a
    ``failed`` note and replaced by another edit or by byte edits, so the
    mutant always differs from its seed.

    Raises:
        ValueError: unknown format or no seeds for it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    from fuzz.mutators import aucx, delimited, hdf5

    module = {"hdf5": hdf5, "aucx": aucx, "csv": delimited}[fmt]
    rng = mutant_rng(seed, fmt, index)
    seeds = corpus.of(fmt)
    chosen = rng.choice(seeds)
    case.mkdir(parents=True, exist_ok=True)
    try:
        target, ops = module.mutate(rng, chosen, seeds, case)
    except Exception:  # noqa: BLE001 - a mutator bug must not stop the campaign
        from fuzz.hashing import remove_tree

        remove_tree(case)
        case.mkdir(parents=True)
        target, ops = _fallback(rng, chosen, case)
        ops.insert(0, {"op": "mutator-failed", "traceback": traceback.format_exc()[-600:]})
    if _same_as_seed(chosen, case, target):
        ops.extend(_byte_edit(rng, case / target))
    return Mutant(fmt, index, seed, os.fspath(chosen.relative_to(corpus.root)), target, ops)


def _same_as_seed(seed: Path, case: Path, target: str) -> bool:
    from fuzz.hashing import tree_digest

    if seed.is_dir():
        return tree_digest(case / "src") == tree_digest(seed)
    path = case / target
    return path.is_file() and not path.is_symlink() and path.read_bytes() == seed.read_bytes()


def _byte_edit(rng: random.Random, path: Path) -> list[dict[str, Any]]:
    """Byte edits of ``path`` (of the first regular file in it, for a folder)."""
    from fuzz.mutators.bytelevel import mutate_bytes

    if path.is_dir():
        path = next(p for p in sorted(path.iterdir()) if p.is_file() and not p.is_symlink())
    data, ops = mutate_bytes(rng, path.read_bytes())
    path.write_bytes(data)
    return [{**op, "file": path.name} for op in ops]


def _fallback(rng: random.Random, seed: Path, case: Path) -> tuple[str, list[dict[str, Any]]]:
    """Byte edits of a plain copy of the seed."""
    import shutil

    if seed.is_dir():
        shutil.copytree(seed, case / "src")
        target = "src"
    else:
        shutil.copyfile(seed, case / seed.name)
        target = seed.name
    return target, _byte_edit(rng, case / target)
