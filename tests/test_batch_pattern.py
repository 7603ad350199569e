"""Glob patterns of ``inspector verify`` (``inspector/batch/pattern.py``): the same
matches as :func:`glob.glob` on a tree without links, and a finite expansion, each real
file once, on folders holding links to themselves."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from inspector.batch.inputs import Entry, expand
from inspector.batch.pattern import expand_pattern
from tests.conftest import FIXTURES

SEED = FIXTURES / "vneurotk" / "v1" / "epochs_dense_f64_strids.h5"
PATTERNS = ("**", "**/*.h5", "a/**", "a/**/*", "a/**/c/*", "*/**/*.h5", "**/b", "a*/**",
            ".hid/**", "**/.5.h5", "d/**", "a/**/", "**/", "**/b/", "a/*/2.h5", "*.h5",
            "a/**/[0-9].*", "?/**/?.h5")


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    for d in ("a/b/c", ".hid/x", "d"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("a/1.h5", "a/b/2.h5", "a/b/c/3.txt", ".hid/x/4.h5", "d/.5.h5", "6.h5"):
        (tmp_path / f).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("pattern", PATTERNS)
def test_patterns_match_what_glob_matches_without_links(tree, pattern):
    assert expand_pattern(pattern) == sorted(set(glob.glob(pattern, recursive=True)))
    absolute = str(tree / pattern)
    assert expand_pattern(absolute) == sorted(set(glob.glob(absolute, recursive=True)))


def test_links_to_folders_are_matched_but_never_entered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("g")
    os.symlink(".", "g/a")
    os.symlink(".", "g/b")
    os.symlink("..", "g/up")
    (tmp_path / "g" / "ok.h5").write_bytes(b"")
    assert expand_pattern("g/**") == ["g/", "g/a", "g/b", "g/ok.h5", "g/up"]
    assert expand_pattern("g/**/*.h5") == ["g/ok.h5"]


def test_a_pattern_over_a_self_link_names_each_real_file_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("g")
    os.symlink(".", "g/a")  # glob.glob's ** followed it: g/a/a/.../a, an unreadable entry
    (tmp_path / "g" / "ok.h5").write_bytes(SEED.read_bytes())
    assert expand(["g/**"]) == [Entry("g/ok.h5")]
    os.symlink(".", "g/b")  # two links: about 2**40 paths for glob.glob
    assert expand(["g/**", "g/**/*.h5"]) == [Entry("g/ok.h5")]
