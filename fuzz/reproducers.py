"""Reproducers: every mutant that was not clean, kept with what is needed to rerun it.

Layout (``OUT/reproducers/<format>/<outcome>/<format>-s<seed>-<index>/``)::

    case/            the mutated file or source folder, and its siblings
    mutation.json    format, seed, index, seed file, target (relative to case/), ops
    outcome.json     outcome, flags, signature, exception, top frame, exit status, limits
    traceback.txt    the Python traceback or faulthandler dump of the failure
    stderr.txt       the last 64 KiB of the child's stderr
    report.head.json the first 64 KiB of the verify-JSON line, when there was one

``python -m fuzz.replay <folder>`` reruns it.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz.hashing import remove_tree
from fuzz.mutators import Mutant
from fuzz.outcomes import Classified, RunRecord


def reproducer_dir(out: Path, mutant: Mutant, outcome: Classified) -> Path:
    """Where the reproducer of ``mutant`` goes under the campaign folder ``out``."""
    name = f"{mutant.format}-s{mutant.seed}-{mutant.index:05d}"
    return out / "reproducers" / mutant.format / str(outcome.outcome) / name


def save(out: Path, slot: Path, mutant: Mutant, outcome: Classified, record: RunRecord,
         limits: dict[str, Any]) -> Path:
    """Move the slot's case folder and child files into a reproducer folder; return it."""
    dest = reproducer_dir(out, mutant, outcome)
    remove_tree(dest)
    dest.mkdir(parents=True)
    os.replace(slot / "case", dest / "case")
    for name in ("report.head.json",):
        if (slot / name).is_file():
            shutil.copyfile(slot / name, dest / name)
    (dest / "stderr.txt").write_text(record.stderr_tail, encoding="utf-8")
    (dest / "traceback.txt").write_text(outcome.traceback, encoding="utf-8")
    _write(dest / "mutation.json", mutant.to_json())
    _write(dest / "outcome.json", {**outcome.to_json(), "limits": limits})
    return dest


def _write(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8", errors="surrogateescape")


@dataclass
class FailureClass:
    """Runs that share one signature (outcome, exception type, top frame in inspector/)."""

    signature: str
    outcome: str
    exception: str
    top_frame: str
    message: str
    count: int = 0
    formats: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def add(self, fmt: str, where: Path) -> None:
        self.count += 1
        self.formats[fmt] = self.formats.get(fmt, 0) + 1
        if len(self.examples) < 5:
            self.examples.append(os.fspath(where))

    def to_json(self) -> dict[str, Any]:
        return {"signature": self.signature, "outcome": self.outcome,
                "exception": self.exception, "top_frame": self.top_frame,
                "message": self.message[:300], "count": self.count, "formats": self.formats,
                "examples": self.examples}


class FailureClasses:
    """The distinct failure classes of a campaign, most frequent first."""

    def __init__(self) -> None:
        self._by_signature: dict[str, FailureClass] = {}

    def add(self, fmt: str, outcome: Classified, where: Path) -> None:
        sig = outcome.signature
        fc = self._by_signature.get(sig)
        if fc is None:
            fc = self._by_signature[sig] = FailureClass(
                sig, str(outcome.outcome), outcome.exception, outcome.top_frame, outcome.message)
        fc.add(fmt, where)

    def __len__(self) -> int:
        return len(self._by_signature)

    def to_json(self) -> list[dict[str, Any]]:
        ordered = sorted(self._by_signature.values(), key=lambda c: (-c.count, c.signature))
        return [c.to_json() for c in ordered]
