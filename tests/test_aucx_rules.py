"""The AUCX rule catalogue: every finding of the package comes from a declared
rule with its severity and source, and messages leave the file name to the
text report (inspector.formats.findings.with_file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import inspector.formats.aucx as aucx_pkg
from inspector.cli import format_report
from inspector.formats.aucx import open_archive
from inspector.formats.aucx.rules import AUCX_RULES
from inspector.formats.findings import RULES
from tests.conftest import FIXTURES, load_expected

AUCX = FIXTURES / "aucx"
PACKAGE = Path(aucx_pkg.__file__).parent
#: The codes that are not errors, with their severity (unchanged from before
#: the rule catalogue; corpus verdicts depend on them).
NOT_ERRORS = {
    "zip.prefixed-data": "warning", "zip.many-members": "warning",
    "array.declared-dtype": "warning", "verify.cancelled": "warning",
    "experiment.not-loaded": "warning", "manifest.mode-inferred": "info",
    "json.non-finite-number": "warning", "array.declared-count": "warning",
    "structure.not-checked": "warning",
}
SOURCES = ("AUCX 1.0 format document, '", "AUCX on-disk notes (spec/aucx-archive.md) §",
           "PKWARE APPNOTE 6.3.10 §", "RFC 8259", "NumPy .npy format", "Inspector's reader "
           "contract", "openauc 0.1.0a1 ")


def test_every_rule_is_registered_with_severity_summary_and_source():
    assert len(AUCX_RULES) >= 70
    for code, r in AUCX_RULES.items():
        assert RULES[code] is r or RULES[code] == r
        assert str(r.severity) == NOT_ERRORS.get(code, "error"), code
        assert r.summary.endswith(".") and len(r.summary) > 20, code
        assert r.source.startswith(SOURCES), (code, r.source)


def test_every_code_used_in_the_package_is_declared():
    text = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.glob("*.py"))
    used = set(re.findall(r"\bR\.([A-Z0-9_]+)\b", text))
    names = {name for name in dir(__import__("inspector.formats.aucx.rules",
                                             fromlist=["x"])) if name.isupper()}
    assert used and used <= names
    # no finding is made outside the catalogue, and no catch-all wrapper
    assert not re.search(r"\bdoc\.(error|warning|info)\(", text)
    assert "except Exception" not in text
    assert "(code, msg" not in text


ERRORED = [e["file"] for e in load_expected("aucx") if e["injected_problems"]]


@pytest.mark.parametrize("file", ERRORED)
def test_messages_do_not_name_the_file_but_the_report_does(file):
    doc = open_archive(AUCX / file)
    doc.verify()
    assert doc.findings
    report = format_report(doc)
    for f in doc.findings:
        assert file not in f.message and Path(file).stem not in f.message, f.message
        assert f.rule, f.code
        assert f"{file}: {f.message}" in report
