"""Paired benchmarks: two revisions' figures from the same run, alternately.

Given two revisions A and B (a git revision, exported under ``/tmp`` for this run and
removed at its end, or the path of a checkout), runs each chosen benchmark script
A, B, B, A, A, B ... (the order turns every round, so neither revision always runs
first on a warmer cache), each run in a fresh interpreter with its revision's code
(``PYTHONPATH`` and the working directory are the revision's top) and its revision's
own script.  A script the older
revision does not have is run from B's copy against A's code (said so in
``script_a``).  The scripts cache their inputs in ``/tmp``: both revisions read the
same files.  One unmeasured run of B first builds those inputs (``--no-warm-up``
skips it).

Prints one JSON object: ``a`` and ``b`` (revision, commit, path), ``rounds``, the
load average before and after, and per benchmark its ``args``, ``script_a``,
``runs`` (counts of good runs per revision), ``errors`` and ``figures``: per numeric
figure of the script's JSON (nested keys joined with ``.``) the median of A's runs,
of B's, and ``ratio`` = B / A (None when A's median is 0).  ``outside_10pct`` lists
the figures of a benchmark whose ratio is below 0.9 or above 1.1 (for a time, above
1.1 is slower; for a rate or a speed-up, below 0.9 is worse).  Progress goes to
standard error.  Usage::

    python benchmarks/paired.py --a 885a827 --b HEAD --rounds 5
    python benchmarks/paired.py --a 885a827 --b . --rounds 3 \\
        --bench "open_recording --sizes 10MB,100MB --runs 3" --bench "startup --runs 3"

``--bench`` takes a script name (``benchmarks/NAME.py``) and its options, and may be
given more than once; without it :data:`DEFAULT_BENCHMARKS` run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The benchmarks that cover the core's code (readers, decoding, envelopes, trial
#: reads, verification, start-up, the window's views), at sizes that fit a short run.
DEFAULT_BENCHMARKS = (
    "open_recording --sizes 10MB,100MB --runs 3",
    "plot_envelope --repeat 1",
    "trial_average --size 100MB --runs 3",
    "verify_archive --sizes 50MB --repeat 1",
    "structure_large --sizes 400x3000-invalid",
    "table_streaming --scale small",
    "startup --runs 3",
)


def _log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


#: The folders this run exported revisions to (removed when it ends).
_EXPORTS: list[Path] = []


def checkout(rev: str) -> tuple[Path, str]:
    """``(top, commit)`` of revision ``rev``: a directory as it is, else the commit
    exported (``git archive``: no work tree is touched) to a folder of this run's own,
    ``/tmp/inspector-paired-<commit>-XXXX``, which :func:`main` removes at its end (a
    folder shared between runs could be removed under another run)."""
    path = Path(rev)
    if path.is_dir():
        top = path.resolve()
        head = subprocess.run(["git", "-C", str(top), "rev-parse", "HEAD"], text=True,
                              capture_output=True)
        dirty = subprocess.run(["git", "-C", str(top), "status", "--porcelain", "--",
                                "inspector", "benchmarks"], text=True, capture_output=True)
        commit = head.stdout.strip() or "unknown"
        return top, commit + ("+changes" if dirty.stdout.strip() else "")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", rev + "^{commit}"],
                            text=True, capture_output=True, check=True).stdout.strip()
    top = Path(tempfile.mkdtemp(prefix=f"inspector-paired-{commit[:12]}-"))
    _EXPORTS.append(top)
    _log(f"exporting {rev} ({commit[:12]}) to {top}")
    with tempfile.TemporaryFile() as tar:
        subprocess.run(["git", "-C", str(ROOT), "archive", commit], stdout=tar, check=True)
        tar.seek(0)
        with tarfile.open(fileobj=tar) as archive:
            archive.extractall(top, filter="data")
    return top, commit


def numeric_leaves(value: Any, prefix: str = "") -> dict[str, float]:
    """Every number of a JSON value (not booleans), by its keys joined with ``.``."""
    out: dict[str, float] = {}
    if isinstance(value, bool):
        return out
    if isinstance(value, int | float):
        out[prefix] = float(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.update(numeric_leaves(item, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.update(numeric_leaves(item, f"{prefix}[{i}]"))
    return out


def last_json(text: str) -> Any:
    """The JSON object a script printed (the whole output, else its last ``{`` line)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        for line in reversed(text.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise


def run_once(top: Path, script: Path, args: list[str], timeout: float) -> dict[str, float]:
    """The figures of one run of ``script`` with the code of ``top``, in a fresh interpreter.

    Raises:
        RuntimeError: the script failed, timed out or printed no JSON object.
    """
    env = dict(os.environ, PYTHONPATH=str(top), QT_QPA_PLATFORM="offscreen")
    try:
        proc = subprocess.run([sys.executable, str(script), *args], cwd=top, env=env,
                              text=True, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"timed out after {timeout:.0f} s") from exc
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"exit {proc.returncode}: {tail}")
    try:
        return numeric_leaves(last_json(proc.stdout))
    except (json.JSONDecodeError, ValueError) as exc:
        raise RuntimeError(f"no JSON object: {exc}") from exc


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summary(runs: dict[str, list[dict[str, float]]]) -> tuple[dict[str, Any], list[str]]:
    """Per figure ``{"a", "b", "ratio"}`` from each revision's runs, and the figures whose
    ratio is outside 0.9-1.1."""
    names = sorted({k for side in runs.values() for r in side for k in r})
    figures: dict[str, Any] = {}
    outside = []
    for name in names:
        a = _median([r[name] for r in runs["a"] if name in r])
        b = _median([r[name] for r in runs["b"] if name in r])
        ratio = None if a in (None, 0.0) or b is None else round(b / a, 3)
        figures[name] = {"a": a, "b": b, "ratio": ratio}
        if ratio is not None and not 0.9 <= ratio <= 1.1:
            outside.append(name)
    return figures, outside


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="885a827", help="revision or checkout A (the base)")
    parser.add_argument("--b", default=".", help="revision or checkout B (default: this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench", action="append", metavar="'NAME [OPTIONS]'",
                        help="a benchmark script and its options (repeatable)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--partial", type=Path, metavar="FILE",
                        help="write the JSON object so far to FILE after every round")
    parser.add_argument("--no-warm-up", action="store_true",
                        help="no unmeasured first run of B (the inputs exist already)")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    finally:
        for top in _EXPORTS:
            shutil.rmtree(top, ignore_errors=True)


def _run(args: argparse.Namespace) -> int:
    sides = {"a": checkout(args.a), "b": checkout(args.b)}
    benches = [shlex.split(b) for b in (args.bench or DEFAULT_BENCHMARKS)]
    out: dict[str, Any] = {
        side: {"revision": rev, "commit": commit, "path": str(top)}
        for (side, (top, commit)), rev in zip(sides.items(), (args.a, args.b), strict=True)}
    out.update(rounds=args.rounds, cpus=os.cpu_count(), load_before=os.getloadavg(),
               order="A,B then B,A, turning every round", benchmarks={})
    started = time.monotonic()
    plans: list[Any] = []
    for name, *options in benches:
        scripts = {side: top / "benchmarks" / f"{name}.py" for side, (top, _) in sides.items()}
        entry: dict[str, Any] = {"args": options, "script_a": "own", "errors": []}
        if not scripts["a"].exists():
            scripts["a"] = scripts["b"]
            entry["script_a"] = "B's script (A has none)"
        out["benchmarks"][name] = entry
        plans.append((name, options, scripts, entry, {"a": [], "b": []}))
    for name, options, scripts, entry, _runs in plans:
        if not args.no_warm_up:
            _log(f"{name}: warm-up (B)")
            try:
                run_once(sides["b"][0], scripts["b"], options, args.timeout)
            except RuntimeError as exc:
                entry["errors"].append(f"warm-up: {exc}")
    for round_ in range(args.rounds):
        order = ("a", "b") if round_ % 2 == 0 else ("b", "a")
        for name, options, scripts, entry, runs in plans:
            for side in order:
                _log(f"round {round_ + 1}/{args.rounds} {name} {side.upper()}")
                try:
                    runs[side].append(run_once(sides[side][0], scripts[side], options,
                                               args.timeout))
                except RuntimeError as exc:
                    entry["errors"].append(f"{side} round {round_ + 1}: {exc}")
        _summarise(out, plans, started)
        if args.partial is not None:
            args.partial.write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return 0


def _summarise(out: dict[str, Any], plans: list[Any], started: float) -> None:
    """Fill ``out`` with each benchmark's run counts and figures so far."""
    for *_plan, entry, runs in plans:
        entry["runs"] = {side: len(r) for side, r in runs.items()}
        entry["figures"], entry["outside_10pct"] = summary(runs)
    out["load_after"] = os.getloadavg()
    out["wall_s"] = round(time.monotonic() - started, 1)


if __name__ == "__main__":
    sys.exit(main())
