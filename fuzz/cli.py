"""``python -m fuzz``: mutate the seed corpus, run every mutant under limits, count outcomes.

Prints ONE JSON object: the settings, the counts per format (clean,
internal_failures, escaped_exceptions, crashes, hangs, memory_limit_hits,
inputs_modified, oversized_reports, invalid_reports, seconds), the number of
distinct failure classes and where the reproducers and ``summary.json``
(the classes with example reproducers) are.

Exit status: 0 when every mutant was clean, or with ``--allow-failures``;
1 when any was not; 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fuzz import FORMATS
from fuzz.campaign import Campaign, FormatStats
from fuzz.jobs import Limits
from fuzz.mutators import DEFAULT_SEEDS, load_corpus
from fuzz.outcomes import HarnessError
from fuzz.targets import DEFAULT_TARGET, resolve, warm_up


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m fuzz",
        description="Fuzz Inspector's readers with mutants of tests/fixtures.")
    p.add_argument("--format", choices=[*FORMATS, "all"], default="all",
                   help="which format to mutate (all: each in turn)")
    p.add_argument("--count", type=int, default=100, help="mutants per format (default 100)")
    p.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    p.add_argument("--out", type=Path, required=True,
                   help="folder for reproducers/ and summary.json")
    p.add_argument("--time-limit", type=float, default=10.0,
                   help="wall-time limit per mutant, seconds (default 10)")
    p.add_argument("--mem-limit-mb", type=int, default=1024,
                   help="address space a child may add to its size at fork, MiB (default 1024)")
    p.add_argument("--rss-budget-mb", type=int, default=400,
                   help="how far a child's resident set may grow while it inspects a mutant, "
                        "MiB (0: none); a child over it is a memory failure with a "
                        "reproducer (default 400: verify then stays under 500 MB)")
    p.add_argument("--max-report-mb", type=float, default=2.0,
                   help="bound on the verify-JSON line, MB (default 2)")
    p.add_argument("--jobs", type=int, default=2, help="children at a time (default 2)")
    p.add_argument("--subprocess", action="store_true",
                   help="a fresh interpreter per mutant instead of forking (slow)")
    p.add_argument("--allow-failures", action="store_true",
                   help="exit 0 even when some mutants were not clean")
    p.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS,
                   help="seed corpus root (default: tests/fixtures)")
    p.add_argument("--target", default=DEFAULT_TARGET,
                   help="module:function run on each mutant (default: open_document + verify)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.count < 0 or args.jobs < 1 or args.time_limit <= 0 or args.mem_limit_mb < 16:
        parser().error("--count >= 0, --jobs >= 1, --time-limit > 0, --mem-limit-mb >= 16")
    limits = Limits(time_limit=args.time_limit, mem_limit_mb=args.mem_limit_mb,
                    max_report_bytes=int(args.max_report_mb * 1_000_000),
                    rss_budget_mb=args.rss_budget_mb,
                    subprocess=args.subprocess, target=args.target)
    resolve(args.target)
    if not args.subprocess:
        warm_up()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    campaign = Campaign(load_corpus(args.seeds), out, args.seed, limits, jobs=args.jobs)
    formats = FORMATS if args.format == "all" else (args.format,)
    started = time.monotonic()
    results: dict[str, FormatStats] = {}
    try:
        for fmt in formats:
            results[fmt] = campaign.run(fmt, args.count)
    except HarnessError as exc:
        print(f"harness error: {exc}", file=sys.stderr)
        return 3
    report = _report(args, campaign, results, time.monotonic() - started)
    (out / "summary.json").write_text(
        json.dumps({**report, "classes": campaign.classes.to_json(),
                    "details": {fmt: s.details() for fmt, s in results.items()}},
                   indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report))
    failed = any(s.failures for s in results.values())
    return 0 if args.allow_failures or not failed else 1


def _report(args: argparse.Namespace, campaign: Campaign, results: dict[str, FormatStats],
            seconds: float) -> dict[str, Any]:
    return {
        "seed": args.seed,
        "count": args.count,
        **campaign.limits_json(),
        "jobs": args.jobs,
        "formats": {fmt: s.to_json() for fmt, s in results.items()},
        "distinct_failures": len(campaign.classes),
        "seconds": round(seconds, 2),
        "reproducers": str(campaign.out / "reproducers"),
        "summary": str(campaign.out / "summary.json"),
    }
