"""``python -m fuzz.replay REPRODUCER``: run one saved mutant again.

The reproducer's ``case/`` is copied to a temporary folder (the run must not
change the saved copy, and the input-modified check needs a fresh one), run
in a child with the recorded limits (or ``--time-limit``/``--mem-limit-mb``),
and the new outcome is printed as one JSON object with ``recorded`` (the
outcome saved in ``outcome.json``), ``reproduced`` (whether the signature
is the same) and ``same_outcome`` (a hang may stop in another frame).
``--direct`` runs ``open_document`` + ``verify()`` in this process instead
(memory limit only; exceptions propagate), so a debugger or the full
traceback is at hand.

Exit status: 0 when the rerun is clean, 1 when it is not.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fuzz.child import set_limits
from fuzz.hashing import copy_case
from fuzz.jobs import Limits, run_one
from fuzz.outcomes import Outcome
from fuzz.targets import resolve, warm_up


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m fuzz.replay",
                                description="Rerun one reproducer written by python -m fuzz.")
    p.add_argument("reproducer", type=Path, help="a folder holding case/ and mutation.json")
    p.add_argument("--time-limit", type=float, help="override the recorded time limit")
    p.add_argument("--mem-limit-mb", type=int, help="override the recorded memory limit")
    p.add_argument("--subprocess", action="store_true", help="a fresh interpreter, not a fork")
    p.add_argument("--direct", action="store_true",
                   help="run in this process (memory limit only); print the verify-JSON line")
    p.add_argument("--target", help="override the recorded target (module:function)")
    return p


def _load(folder: Path, name: str) -> dict[str, Any]:
    path = folder / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    folder: Path = args.reproducer.resolve()
    mutation, recorded = _load(folder, "mutation.json"), _load(folder, "outcome.json")
    if not mutation or not (folder / "case").is_dir():
        parser().error(f"{folder} holds no mutation.json and case/")
    saved = recorded.get("limits", {})
    limits = Limits(time_limit=args.time_limit or saved.get("time_limit", 10.0),
                    mem_limit_mb=args.mem_limit_mb or saved.get("mem_limit_mb", 1024),
                    max_report_bytes=saved.get("max_report_bytes", 2_000_000),
                    subprocess=args.subprocess,
                    target=args.target or saved.get("target", "fuzz.targets:inspect"))
    with tempfile.TemporaryDirectory(prefix="fuzz-replay-") as tmp:
        case = Path(tmp) / "case"
        copy_case(folder / "case", case)
        input_path = case / mutation["target"]
        if args.direct:
            return _direct(input_path, limits)
        if not args.subprocess:
            warm_up()
        slot = Path(tmp) / "slot"
        slot.mkdir()
        outcome, _record = run_one(input_path, case, slot, limits)
    out = {**outcome.to_json(), "recorded": recorded.get("signature"),
           "reproduced": recorded.get("signature") == outcome.signature,
           "same_outcome": recorded.get("outcome") == str(outcome.outcome),
           "traceback_tail": outcome.traceback[-3000:]}
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0 if outcome.outcome is Outcome.CLEAN else 1


def _direct(input_path: Path, limits: Limits) -> int:
    """Run the target here: the memory limit applies, the time limit does not."""
    from inspector.formats.decoding.workers import worker_pool

    warm_up()
    set_limits(limits.mem_limit_mb)
    with worker_pool():
        inspection = resolve(limits.target)(input_path)
    print(inspection.line)
    for tb in inspection.tracebacks:
        print(tb, file=sys.stderr)
    return 0 if not inspection.tracebacks else 1


if __name__ == "__main__":
    raise SystemExit(main())
