"""A campaign: N mutants of one format, ``jobs`` children at a time, counted by outcome.

The parent generates mutant ``i`` into a free slot folder
(``OUT/.work/slot-K/case``), starts its child, and, whenever a child ends,
classifies it, keeps a reproducer when it was not clean and frees the slot.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz import jobs as jobs_mod
from fuzz.child import ChildSpec
from fuzz.hashing import remove_tree
from fuzz.jobs import Job, Limits
from fuzz.mutators import Corpus, Mutant, make_mutant
from fuzz.outcomes import COUNT_KEYS, Outcome
from fuzz.reproducers import FailureClasses, save
from fuzz.targets import resolve


@dataclass
class FormatStats:
    """Counts of one format's campaign (the keys ``python -m fuzz`` prints)."""

    format: str
    counts: dict[str, int] = field(default_factory=lambda: {k: 0 for k in COUNT_KEYS.values()})
    seconds: float = 0.0
    generation_seconds: float = 0.0
    finding_codes: dict[str, int] = field(default_factory=dict)
    """How many mutants got each finding code: how deep the mutants reach."""
    peak_rss_kb: int = 0
    """The largest growth of one child's resident set while it inspected its mutant."""
    over_rss_budget: int = 0
    """Children whose peak resident set exceeded the campaign's ``rss_budget_mb``."""
    rss_budget_mb: int = 0

    @property
    def failures(self) -> int:
        return sum(v for k, v in self.counts.items() if k != COUNT_KEYS[Outcome.CLEAN])

    def to_json(self) -> dict[str, Any]:
        return {"mutants": sum(self.counts.values()), **self.counts,
                "peak_rss_growth_mb": round(self.peak_rss_kb / 1024, 1),
                "over_rss_budget": self.over_rss_budget,
                "seconds": round(self.seconds, 2)}

    def add_rss(self, max_rss_kb: int | None) -> None:
        """Count one child's resident-set growth (kB)."""
        if max_rss_kb:
            self.peak_rss_kb = max(self.peak_rss_kb, max_rss_kb)
            self.over_rss_budget += bool(self.rss_budget_mb
                                         and max_rss_kb > self.rss_budget_mb * 1024)

    def details(self) -> dict[str, Any]:
        """What summary.json adds: generation time and the finding codes reached."""
        codes = dict(sorted(self.finding_codes.items(), key=lambda kv: (-kv[1], kv[0])))
        return {"generation_seconds": round(self.generation_seconds, 2), "finding_codes": codes}


@dataclass
class Campaign:
    """Everything a campaign needs, shared by the formats of one ``python -m fuzz`` run."""

    corpus: Corpus
    out: Path
    seed: int
    limits: Limits
    jobs: int = 2
    classes: FailureClasses = field(default_factory=FailureClasses)

    def limits_json(self) -> dict[str, Any]:
        return {"time_limit": self.limits.time_limit, "mem_limit_mb": self.limits.mem_limit_mb,
                "max_report_bytes": self.limits.max_report_bytes,
                "rss_budget_mb": self.limits.rss_budget_mb,
                "mode": "subprocess" if self.limits.subprocess else "fork",
                "target": self.limits.target}

    def run(self, fmt: str, count: int) -> FormatStats:
        """Run ``count`` mutants of ``fmt``; return their counts."""
        stats = FormatStats(fmt, rss_budget_mb=self.limits.rss_budget_mb)
        started = time.monotonic()
        target = None if self.limits.subprocess else resolve(self.limits.target)
        work = self.out / ".work"
        free = [work / f"slot-{k}" for k in range(max(1, self.jobs))]
        running: list[Job] = []
        index = 0
        try:
            while index < count or running:
                while index < count and free:
                    slot = free.pop()
                    t0 = time.monotonic()
                    mutant = self._prepare(fmt, index, slot)
                    stats.generation_seconds += time.monotonic() - t0
                    running.append(self._start(mutant, slot, target))
                    index += 1
                for job in jobs_mod.wait_some(running, timeout=1.0):
                    running.remove(job)
                    self._record(job, stats)
                    free.append(Path(job.spec.slot))
        finally:
            for job in running:
                job.kill()
                while not job.poll():
                    time.sleep(0.01)
                job.close()
            remove_tree(work)
        stats.seconds = time.monotonic() - started
        return stats

    def _prepare(self, fmt: str, index: int, slot: Path) -> Mutant:
        remove_tree(slot)
        slot.mkdir(parents=True)
        return make_mutant(fmt, self.corpus, self.seed, index, slot / "case")

    def _start(self, mutant: Mutant, slot: Path, target: Any) -> Job:
        lim = self.limits
        spec = ChildSpec(os.fspath(slot / "case" / mutant.target), os.fspath(slot / "case"),
                         os.fspath(slot), lim.time_limit, lim.mem_limit_mb,
                         lim.max_report_bytes, lim.target)
        return jobs_mod.start(spec, lim, payload=mutant, target=target)

    def _record(self, job: Job, stats: FormatStats) -> None:
        outcome, record = jobs_mod.finish(job, self.limits)
        stats.counts[COUNT_KEYS[outcome.outcome]] += 1
        stats.add_rss((record.result or {}).get("rss_growth_kb"))
        for code in (record.result or {}).get("codes") or ():
            stats.finding_codes[code] = stats.finding_codes.get(code, 0) + 1
        if outcome.outcome is Outcome.CLEAN:
            return
        mutant: Mutant = job.payload
        where = save(self.out, Path(job.spec.slot), mutant, outcome, record, self.limits_json())
        self.classes.add(mutant.format, outcome, where)
