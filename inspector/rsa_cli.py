"""``inspector rsa FILE``: representational similarity of a recording's features and responses.

For every vision record (model layer) of a VneuroTK recording, the Spearman
agreement of its feature dissimilarity matrix with the neural one (mean
response per stimulus, stimuli matched by typed ID), with a permutation
p-value; see :mod:`inspector.formats.analysis.rsa`.  ``--out DIR`` writes
the matrices as ``.npy`` files and the stimulus order as ``stimuli.json``.

Exit status: 0 when computed, 1 when the file cannot be compared (no vision
record, no stimulus ID per trial, an array that cannot be read: the reason
on stderr), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.cli_options import Parser

if TYPE_CHECKING:
    from inspector.formats.analysis.rsa.compute import LayerResult, RsaResult

SUMMARY = ("compare each vision record (model layer) of a recording with its neural responses: "
           "representational similarity, Spearman agreement and permutation p-value")


def _baseline(text: str) -> Any:
    if text in ("recorded", "prestimulus", "auto"):
        return text
    if text == "none":
        return None
    try:
        start, stop = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            "use auto, none, recorded, prestimulus or START,STOP") from None
    return (start, stop)


def _channels(text: str) -> list[int | str]:
    return [int(v) if v.strip().lstrip("-").isdigit() else v.strip() for v in text.split(",")]


def parser() -> argparse.ArgumentParser:
    """The ``inspector rsa`` argument parser."""
    from inspector.formats.analysis.rsa.agreement import PERMUTATIONS, SEED
    from inspector.formats.analysis.rsa.features import MEMORY_BUDGET, METRICS
    from inspector.formats.analysis.rsa.neural import PATTERNS

    p = Parser(prog="inspector rsa", description=SUMMARY)
    p.add_argument("file", help="a VneuroTK recording with vision records (vision_store)")
    p.add_argument("--record", action="append", type=int, metavar="N", default=None,
                   help="compare only record N (vision_store/N); repeatable (default: all)")
    p.add_argument("--metric", choices=METRICS, default=METRICS[0],
                   help="dissimilarity of both matrices (default: correlation, 1 - Pearson r)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", metavar="DIR", type=Path,
                   help="write the matrices (.npy) and stimuli.json into DIR")
    p.add_argument("--permutations", type=int, default=PERMUTATIONS, metavar="N",
                   help=f"stimulus-label permutations of the p-value (default {PERMUTATIONS})")
    p.add_argument("--seed", type=int, default=SEED, help=f"permutation seed (default {SEED})")
    p.add_argument("--channels", type=_channels, default=None, metavar="LIST",
                   help="channel indices or names, comma-separated (default: all)")
    p.add_argument("--window", type=float, nargs=2, metavar=("START", "STOP"), default=None,
                   help="response window relative to onset, in seconds when the sampling "
                        "rate is known, else samples (default: the recorded trial window)")
    p.add_argument("--baseline", type=_baseline, default="auto", metavar="SPEC",
                   help="auto (the recorded baseline when there is one), none, recorded, "
                        "prestimulus or START,STOP (default: auto)")
    p.add_argument("--pattern", choices=PATTERNS, default=PATTERNS[0],
                   help="response pattern per stimulus: the window mean of each channel, or "
                        "the whole time course (default: mean)")
    p.add_argument("--memory-budget", type=int, default=MEMORY_BUDGET >> 20, metavar="MB",
                   help=f"most MB of feature rows held at once (default {MEMORY_BUDGET >> 20})")
    return p


def _typed_list(values: Sequence[Any]) -> list[dict[str, Any]]:
    from inspector.formats.hdf5.values import typed

    return [typed(v) for v in values]


def _number(x: float) -> float | None:
    return None if math.isnan(x) else x


def layer_json(layer: LayerResult) -> dict[str, Any]:
    """The JSON object of one record's comparison."""
    a = layer.agreement
    return {
        "record": layer.name, "location": layer.location, "model": layer.model,
        "module_name": layer.module_name, "module_type": layer.module_type,
        "shape": list(layer.shape), "features": layer.feature_rdm.features,
        "stimuli": int(layer.used.shape[0]),
        "rho": None if a is None else _number(a.rho),
        "p_value": None if a is None else _number(a.p_value),
        "permutations": None if a is None else a.permutations,
        "seed": None if a is None else a.seed,
        "features_only": _typed_list(layer.match.features_only),
        "trials_only": _typed_list([c.value for c in layer.match.trials_only]),
        "ambiguous": _typed_list([c.value for c in layer.match.ambiguous]),
        "undefined": _typed_list(layer.undefined),
        "feature_passes": layer.feature_rdm.passes,
    }


def _baseline_json(rows: Any) -> Any:
    """The baseline offsets: one ``[start, stop]`` when every trial shares it, else per trial."""
    if not rows:
        return None
    first = list(rows[0])
    return first if all(list(r) == first for r in rows) else [list(r) for r in rows]


def result_json(path: str, result: RsaResult) -> dict[str, Any]:
    """The ``--json`` object: options, neural side, one entry per record, findings."""
    o, n = result.options, result.neural
    neural = None if n is None else {
        "stimuli": len(n.stimuli), "pattern": n.pattern, "values": int(n.values.shape[1]),
        "trials": int(n.trials.sum()), "channels": None if n.channels is None else list(n.channels),
        "window_samples": None if n.window_samples is None else list(n.window_samples),
        "baseline_samples": _baseline_json(n.baseline_samples),
    }
    return {
        "file": path, "metric": o.metric, "permutations": o.permutations, "seed": o.seed,
        "neural": neural, "layers": [layer_json(layer) for layer in result.layers],
        "findings": [f.to_json() for f in result.findings],
    }


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _ids_text(values: Sequence[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" ... ({len(values)} in all)" if len(values) > limit else "")


def result_text(path: str, result: RsaResult) -> str:
    """The text report: the neural side, one line per record, what matched on one side only."""
    from inspector.formats.findings import with_file

    o, n = result.options, result.neural
    lines = [f"{path}: {len(result.layers)} vision record(s), metric {o.metric}, "
             f"{o.permutations} permutations (seed {o.seed})"]
    if n is not None:
        where = ("" if n.window_samples is None
                 else f", window {list(n.window_samples)} samples")
        lines.append(f"  neural: {len(n.stimuli)} stimuli from {int(n.trials.sum())} trials, "
                     f"pattern {n.pattern} ({n.values.shape[1]} values){where}")
    lines.append(f"  {'record':<16} {'model':<24} {'module':<20} {'stimuli':>7} "
                 f"{'rho':>7} {'p':>7}")
    for layer in result.layers:
        a = layer.agreement
        lines.append(f"  {layer.name:<16} {layer.model[:24]:<24} {layer.module_name[:20]:<20} "
                     f"{int(layer.used.shape[0]):>7} {_fmt(None if a is None else a.rho):>7} "
                     f"{_fmt(None if a is None else a.p_value, 4):>7}")
        m = layer.match
        for label, values in (("features only", m.features_only),
                              ("trials only", [c.value for c in m.trials_only]),
                              ("ambiguous", [c.value for c in m.ambiguous]),
                              ("undefined", layer.undefined)):
            if values:
                lines.append(f"    {label}: {_ids_text(list(values))}")
    if result.findings:
        lines.append("  findings:")
        lines += [f"    {f.severity:<7} {f.code}: {with_file(Path(path).name, f)}"
                  for f in result.findings]
    return "\n".join(lines)


def _save_square(path: Path, condensed: np.ndarray, n: int) -> None:
    """``(n, n)`` float64 ``.npy`` written row by row (never the whole matrix in memory)."""
    from inspector.formats.analysis.rsa.features import row_offset

    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(n, n))
    for i in range(n):
        row = np.zeros(n)
        if i:
            j = np.arange(i)
            row[:i] = condensed[row_offset(j, n) + i - j - 1]
        k = row_offset(i, n)
        row[i + 1:] = condensed[k:k + n - 1 - i]
        out[i] = row
    out.flush()
    del out


def write_out(folder: Path, result: RsaResult) -> list[Path]:
    """Write each record's matrices and ``stimuli.json`` into ``folder``; the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written, order = [], {}
    for layer in result.layers:
        stem = layer.name.replace("/", "_")
        path = folder / f"{stem}_features.npy"
        _save_square(path, layer.feature_rdm.condensed, layer.feature_rdm.n)
        written.append(path)
        neural = result.neural_rdms.get(layer.name)
        if neural is not None:
            path = folder / f"{stem}_neural.npy"
            _save_square(path, neural, int(layer.used.shape[0]))
            written.append(path)
        order[layer.name] = {"features": _typed_list(layer.stim_ids),
                             "compared": _typed_list(layer.compared_ids()),
                             "compared_rows": [int(r) for r in layer.used]}
    path = folder / "stimuli.json"
    path.write_text(json.dumps(order, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return written + [path]


def _options(args: argparse.Namespace) -> Any:
    from inspector.formats.analysis.rsa.compute import RECORD_PREFIX, RsaOptions

    records = None if args.record is None else tuple(f"{RECORD_PREFIX}{n}" for n in args.record)
    return RsaOptions(metric=args.metric, permutations=args.permutations, seed=args.seed,
                      channels=args.channels, window=args.window, baseline=args.baseline,
                      pattern=args.pattern, records=records,
                      memory_budget=max(1, args.memory_budget) << 20)


def cmd_rsa(argv: Sequence[str]) -> int:
    """``inspector rsa FILE``: 0 computed, 1 the file cannot be compared, 2 usage errors."""
    p = parser()
    args = p.parse_args(argv)
    if args.permutations < 0:
        p.error("--permutations must be 0 or more")
    from inspector.formats import open_document
    from inspector.formats.analysis.rsa.compute import representational_similarity

    with open_document(args.file) as doc:
        doc.verify()
        try:
            result = representational_similarity(doc, _options(args))
        except (ValueError, OSError) as exc:
            print(f"inspector rsa: {doc.name}: {exc}", file=sys.stderr)
            return 1
    if args.out is not None:
        for path in write_out(args.out, result):
            print(f"wrote {path}", file=sys.stderr)
    print(json.dumps(result_json(args.file, result), ensure_ascii=False, allow_nan=False)
          if args.json
          else result_text(args.file, result), flush=True)
    return 0
