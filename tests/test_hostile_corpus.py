"""The hostile corpus (fuzz/hostile/) at its small scale: every command of every case
ends within its limits, prints no traceback, leaks no forbidden bytes and reports the
expected findings.  ``python -m fuzz.hostile --scale full`` runs the documented sizes.

The commands are forked from fork servers (``fuzz.hostile.zygote``, one set per test
process) rather than started afresh: the same bounds, without an interpreter start
per command."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the harness is a top-level folder, not an installed package
    sys.path.insert(0, str(ROOT))

from fuzz.hostile import all_cases  # noqa: E402
from fuzz.hostile.case import HostileCase, static_target  # noqa: E402
from fuzz.hostile.runner import Zygotes, _judge, run_case  # noqa: E402

SMALL = [c for c in all_cases() if "small" in c.only_scales]


@pytest.fixture(scope="module")
def zygotes():
    with Zygotes() as servers:
        yield servers


@pytest.mark.parametrize("case", SMALL, ids=[c.name for c in SMALL])
@pytest.mark.slow
def test_hostile_case_is_survived(case, tmp_path, zygotes):
    report = run_case(case, "small", tmp_path, zygotes)
    failures = [(c["argv"], c["problems"]) for c in report["commands"] if c["problems"]]
    assert report["passed"], failures


def _case(**kw) -> HostileCase:
    base = dict(name="t", area="t", build=static_target(lambda f, s: f),
                commands=(("verify", "--json", "{target}"),))
    return HostileCase(**{**base, **kw})


def test_judge_names_each_broken_bound():
    case = _case(forbidden_output=(b"root:x:0:0",), expect_codes=frozenset({"x.y"}),
                 rss_limit_mb=100, max_line_bytes=10)
    argv = ("verify", "--json", "f")
    problems = _judge(case, argv, 0, 150.0, False,
                      b'{"findings": [{"code": "a.b"}], "pad": "root:x:0:0"}', b"")
    text = " | ".join(problems)
    assert "memory: peak RSS 150 MB" in text
    assert "forbidden bytes" in text
    assert "output line of" in text
    assert "expected finding codes missing: ['x.y']" in text
    assert _judge(case, argv, -11, 10.0, False, b"", b"")[0] == "crash: ended by signal 11"
    assert _judge(case, argv, 0, 10.0, True, b"", b"")[0].startswith("hang")
    assert "a Python traceback was printed" in _judge(
        _case(), ("dump", "f"), 1, 1.0, False, b"", b"Traceback (most recent call last):\n")
    assert _judge(_case(), ("dump", "f"), 1, 1.0, False, b"ok\n", b"") == []
