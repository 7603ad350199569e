"""``experiment.json`` and ``provenance.json`` judged as openauc 0.1.0a1 judges them.

openauc's loader (``openauc/formats/aucx.py``: ``_experiment_from`` and
``_export_record``) rebuilds its metadata models from these members; any
value its models refuse makes the archive unloadable.  The same models are
declared in :mod:`.schema`; this module walks the members the way the loader
does and turns every refusal into a problem, instead of stopping at the
first:

* ``experiment.json``: ``metadata`` is required (``payload["metadata"]``) and
  must be an ``ExperimentMetadata``; ``scans`` and ``samples`` (default
  ``[]``) are iterated, so a list's items must be ``ScanMetadata`` /
  ``SampleMetadata``, an empty object or text passes (nothing to iterate),
  other text or objects yield characters or keys that are no records, and
  null, numbers and booleans cannot be iterated; ``instrument``, unless
  absent or null, must be an ``InstrumentMetadata``; other top-level keys
  are not read.
* ``provenance.json``: ``export`` must be an object and an ``AUCXExport``;
  ``import``, unless absent or null, an ``ImportProvenance``; other keys are
  not read.

A problem is ``(rule, message, location)``; the location is the member and
the JSON path (``experiment.json:scans[2].channel``), the message names the
JSON path, the model, the rule broken and the value found.  pydantic is imported only
when a value is not plainly valid (:mod:`.plain_models`; the models are
:mod:`.schema`).  Nothing here imports Qt.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from inspector.formats.aucx import layout as L
from inspector.formats.aucx import rules as R
from inspector.formats.aucx.plain_models import plainly_valid
from inspector.formats.findings import Rule

#: ``(rule, message, location)``.
Problem = tuple[Rule, str, str]

#: Characters of a found value quoted in a message.
SHOWN = 60


def shown(value: Any) -> str:
    """``value`` as short JSON-like text for a message (cut at :data:`SHOWN` characters)."""
    if isinstance(value, str) and len(value) > SHOWN:
        value = value[: SHOWN + 1]
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):
        text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def json_path(base: str, loc: tuple[int | str, ...]) -> str:
    """``base`` followed by pydantic's ``loc``: names as ``.name``, indices as ``[i]``."""
    out = base
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def model_problems(name: str, value: Any, member: str, path: str) -> list[Problem]:
    """Every way ``value`` breaks the :mod:`.schema` model ``name``
    (``"metadata"``, ``"instrument"``, ``"sample"``, ``"scan"``, ``"import"``,
    ``"export"``), located under ``member:path``.  A value plainly valid
    (:func:`.plain_models.plainly_valid`) has none, and pydantic is not imported
    for it; any other is judged by the models."""
    if plainly_valid(name, value):
        return []
    from pydantic import ValidationError

    from inspector.formats.aucx.schema import MODELS

    model = MODELS[name]
    try:
        model.model_validate(value)
    except ValidationError as exc:
        return [_problem(model.__name__, error, member, path)
                for error in exc.errors(include_url=False)]
    return []


def _problem(model: str, error: Any, member: str, path: str) -> Problem:
    inner = json_path(path, tuple(error.get("loc", ())))
    if error.get("type") == "missing":
        found = "the key is missing"
    else:
        found = f"found {shown(error.get('input'))}"
    msg = str(error.get("msg", "invalid"))
    return (R.JSON_MODEL_INVALID, f"{inner} breaks openauc's {model}: {msg}; {found}",
            f"{member}:{inner}")


def _kind(value: Any) -> str:
    return {dict: "an object", str: "text", list: "a list", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _each(items: Iterable[Any], key: str, model: str) -> list[Problem]:
    """Every way the records ``items`` of ``experiment.json`` ``key`` break ``model``."""
    problems: list[Problem] = []
    for i, item in enumerate(items):
        problems += model_problems(model, item, L.EXPERIMENT, f"{key}[{i}]")
    return problems


def _records(payload: dict[str, Any], key: str, model: str) -> list[Problem]:
    """``payload[key]`` (default ``[]``) iterated as openauc iterates it."""
    value = payload.get(key, [])
    where = f"{L.EXPERIMENT}:{key}"
    if isinstance(value, list):
        return _each(value, key, model)
    if isinstance(value, dict | str):
        if not value:
            return []  # nothing to iterate: openauc reads no record
        what = "keys" if isinstance(value, dict) else "characters"
        return [(R.EXPERIMENT_INVALID,
                 f"{key} must be a list of {model} records: openauc iterates it and gets "
                 f"the {what} of {_kind(value)}, which are not records; found "
                 f"{shown(value)}", where)]
    return [(R.EXPERIMENT_INVALID,
             f"{key} must be a list of {model} records: openauc cannot iterate "
             f"{_kind(value)}; found {shown(value)}", where)]


def experiment_problems(payload: dict[str, Any],
                        scans: Iterable[Any] | None = None) -> list[Problem]:
    """Every way the ``experiment.json`` object breaks openauc's loader and models
    (with ``scans``, the scan records are those, read once, one at a time, and
    ``payload["scans"]`` is not looked at)."""
    problems: list[Problem] = []
    if "metadata" not in payload:
        where = f"{L.EXPERIMENT}:metadata"
        problems.append((R.JSON_MODEL_INVALID,
                         "metadata is required (openauc's ExperimentMetadata); the key is "
                         "missing", where))
    else:
        problems += model_problems("metadata", payload["metadata"], L.EXPERIMENT, "metadata")
    problems += (_records(payload, "scans", "scan") if scans is None
                 else _each(scans, "scans", "scan"))
    problems += _records(payload, "samples", "sample")
    instrument = payload.get("instrument")
    if instrument is not None:
        problems += model_problems("instrument", instrument, L.EXPERIMENT, "instrument")
    return problems


def provenance_problems(payload: dict[str, Any]) -> list[Problem]:
    """Every way the ``provenance.json`` object breaks openauc's loader and models."""
    problems: list[Problem] = []
    export = payload.get("export")
    if isinstance(export, dict):
        problems += model_problems("export", export, L.PROVENANCE, "export")
    else:
        where = f"{L.PROVENANCE}:export"
        problems.append((R.PROVENANCE_NO_EXPORT,
                         f"{L.PROVENANCE} has no 'export' object; found "
                         f"{shown(export) if 'export' in payload else 'no such key'}", where))
    imported = payload.get("import")
    if imported is not None:
        problems += model_problems("import", imported, L.PROVENANCE, "import")
    return problems


# -- the manifest's observations block, as the loader reads it ----------------------
def openauc_int(value: Any) -> int | None:
    """``int(value)`` as openauc's ``inspect_aucx`` takes ``n_scans`` and ``n_points``
    (booleans, finite floats truncated, text such as ``" 6 "`` or ``"1_000"``), or None
    where ``int()`` raises (null, lists, objects, NaN, infinity, other text)."""
    if value is None or isinstance(value, list | dict):
        return None
    try:
        return int(value)
    except (ValueError, OverflowError, TypeError):
        return None


def openauc_scan_ids(value: Any) -> list[str] | None:
    """The scan ids openauc makes of the manifest's ``scan_ids``
    (``[str(s) for s in value]``: a list's items, a text's characters, an object's
    keys, each made text), or None when ``value`` cannot be iterated."""
    if isinstance(value, list | dict | str):
        return [v if isinstance(v, str) else _py_str(v) for v in value]
    return None


def _py_str(value: Any) -> str:
    try:
        return str(value)
    except ValueError:  # an int beyond Python's digit limit (not reachable from JSON)
        return repr(type(value))


def scan_id_problem(ids: list[str]) -> str | None:
    """What openauc's ``Observations`` refuses in ``ids``: an empty (or blank) id or a
    repeated one; None when they are fine."""
    seen: set[str] = set()
    for scan_id in ids:
        if not scan_id.strip():
            return f"a scan id is empty once made text; found {shown(scan_id)}"
        if scan_id in seen:
            return f"the scan id {shown(scan_id)} is repeated (once made text)"
        seen.add(scan_id)
    return None


def observations_problems(block: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, sentence)`` for every entry of the manifest's ``observations`` object
    openauc 0.1.0a1 refuses (``_observations_from`` and ``inspect_aucx``): ``mode``,
    ``radius_unit`` and ``signal_unit`` are required known strings, ``scan_ids`` is
    required and iterable with non-empty, distinct ids once made text, ``n_scans``
    and ``n_points`` (optional) must pass ``int()``."""
    out: list[tuple[str, str]] = []
    for key, allowed in (("mode", L.MODES), ("radius_unit", L.UNITS),
                         ("signal_unit", L.UNITS)):
        if key not in block:
            out.append((key, "is required; the key is missing"))
        elif not (isinstance(block[key], str) and block[key] in allowed):
            out.append((key, f"is not one of {', '.join(allowed)}; found {shown(block[key])}"))
    if "scan_ids" not in block:
        out.append(("scan_ids", "is required; the key is missing"))
    else:
        ids = openauc_scan_ids(block["scan_ids"])
        why = (f"cannot be iterated; found {shown(block['scan_ids'])}" if ids is None
               else scan_id_problem(ids))
        if why is not None:
            out.append(("scan_ids", why))
    for key in ("n_scans", "n_points"):
        if key in block and openauc_int(block[key]) is None:
            out.append((key, f"is not an integer int() can read; found {shown(block[key])}"))
    return out


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (read from a ``NaN``/``Infinity`` token)
    replaced by that token as text, so the ``verify --json`` facts stay strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value
