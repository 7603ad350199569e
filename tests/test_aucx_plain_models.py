"""The plain reading of openauc's models accepts only what the models accept.

:func:`plain_models.plainly_valid` lets a verification skip pydantic for JSON
values in plain forms; the pydantic models of :mod:`inspector.formats.aucx.schema`
(openauc 0.1.0a1's, restated) are the oracle.  Random edits of the corpus
archives' members (the edits of ``fuzz/aucx_model_edits.py``) must never be
plainly valid where the models refuse them; the members as written are plainly
valid, so verifying a sound archive does not import pydantic.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fuzz.aucx_model_edits import edit_member
from inspector.formats.aucx.plain_models import plainly_valid

FIXTURES = Path(__file__).parent / "fixtures"
ARCHIVES = sorted(FIXTURES.rglob("*.aucx"))


def _places(experiment: dict, provenance: dict):
    """``(model name, value)`` of every place the models judge."""
    yield "metadata", experiment.get("metadata")
    for key, name in (("scans", "scan"), ("samples", "sample")):
        records = experiment.get(key)
        for record in records if isinstance(records, list) else []:
            yield name, record
    if experiment.get("instrument") is not None:
        yield "instrument", experiment["instrument"]
    yield "export", provenance.get("export")
    if provenance.get("import") is not None:
        yield "import", provenance["import"]


def _members(path: Path) -> tuple[dict, dict] | None:
    try:
        with zipfile.ZipFile(path) as z:
            return (json.loads(z.read("experiment.json")), json.loads(z.read("provenance.json")))
    except (KeyError, ValueError, RuntimeError, NotImplementedError, OSError, zipfile.BadZipFile):
        return None


def _sound() -> list[tuple[dict, dict]]:
    out = []
    for path in ARCHIVES:
        members = _members(path)
        if members is not None and isinstance(members[0], dict) and isinstance(members[1], dict):
            out.append(members)
    return out


def _model_accepts(name: str, value) -> bool:
    from pydantic import ValidationError

    from inspector.formats.aucx.schema import MODELS

    try:
        MODELS[name].model_validate(value)
    except ValidationError:
        return False
    return True


def test_random_edits_plainly_valid_only_where_the_models_accept():
    sound = _sound()
    assert len(sound) >= 3
    rng = random.Random(37)
    counts = {"plain": 0, "accepted": 0, "refused": 0}
    for _ in range(3000):
        experiment, provenance = json.loads(json.dumps(rng.choice(sound)))
        target = rng.choice(("experiment", "provenance"))
        if target == "experiment":
            experiment = edit_member(experiment, rng)[0]
        else:
            provenance = edit_member(provenance, rng)[0]
        if not isinstance(experiment, dict) or not isinstance(provenance, dict):
            continue
        for name, value in _places(experiment, provenance):
            accepted = _model_accepts(name, value)
            if plainly_valid(name, value):
                counts["plain"] += 1
                assert accepted, (name, value)
            counts["accepted" if accepted else "refused"] += 1
    print(counts)  # the edits reach both verdicts; most accepted values are read plainly
    assert counts["refused"] > 500 and counts["plain"] > 0.8 * counts["accepted"], counts


@pytest.mark.parametrize("name,value", [
    ("scan", {"scan_id": "s1", "index": "3", "elapsed_time": {"value": 1.0, "unit": "s"}}),
    ("scan", {"scan_id": "s1", "index": True, "elapsed_time": {"value": 1.0, "unit": "s"}}),
    ("metadata", {"experiment_id": "e", "acquired_at": "2024-01-02 03:04:05"}),
    ("metadata", {"experiment_id": "e", "acquired_at": "2024-02-30T00:00:00"}),
    ("instrument", {"nominal_speed": {"value": -1.0, "unit": "rpm"}}),
    ("scan", {"scan_id": " ", "index": 0, "elapsed_time": {"value": 1.0, "unit": "s"}}),
    ("export", {"member_count": 1.0}),
])
def test_lax_or_refused_forms_are_left_to_the_models(name, value):
    assert not plainly_valid(name, value)


def test_verifying_a_sound_archive_does_not_import_pydantic():
    path = next(p for p in ARCHIVES if p.name == "src_demo_experiment.aucx")
    code = ("import sys; from inspector.formats.aucx import open_archive\n"
            f"doc = open_archive({str(path)!r}); doc.verify()\n"
            "print(doc.ok, 'pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).parent.parent, check=True).stdout.split()
    assert out == ["True", "False"]
