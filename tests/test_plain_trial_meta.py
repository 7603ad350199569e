"""Plain trial metadata is decoded without pandas, and its DataFrame is the pandas decoder's.

The oracle is the pandas decoder itself (``_pandas_v1`` / ``_legacy``, which agree
with the reference reader: tests/test_vneurotk_oracle.py): for every recording of
the corpus with a ``trial_meta`` group, a plain table's frame, cells, labels,
dtypes and summary facts equal that decoder's.  A table that is not plain, or that
breaks a rule, is read by the pandas decoder alone, with its findings.
"""

from __future__ import annotations

import hashlib
import shutil
import threading
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from inspector.formats.hdf5.source import RuleError
from inspector.formats.table import PlainColumn, Table
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.trial_meta import (
    _legacy,
    _pandas_v1,
    plain_trial_meta,
    read_trial_meta,
)
from tests.conftest import FIXTURES

VNEUROTK = FIXTURES / "vneurotk"
RECORDINGS = sorted(p.relative_to(VNEUROTK).as_posix() for p in VNEUROTK.rglob("*.h5"))
#: The recordings whose trial metadata is plain, and those that need pandas.
PLAIN = {"v1/continuous_dense_f32_intids.h5", "v0/v001_continuous_dense_f32_intids.h5",
         "v1/patterns_stim_index.h5"}
NOT_PLAIN = {"v1/epochs_dense_f64_strids.h5",  # Int64, categorical, datetime_tz columns
             "v1/writer_str_column_missing.h5"}  # a NaN typed as a float in a str column


def _pandas_decoded(tm: h5py.Group) -> pd.DataFrame:
    encoding = tm.attrs.get("encoding")
    if isinstance(encoding, bytes):
        encoding = encoding.decode()
    return _pandas_v1(tm, lambda e: None) if encoding == "pandas_v1" else _legacy(tm)


def _with_trial_meta() -> list[str]:
    out = []
    for name in RECORDINGS:
        if name in ("edited/not_hdf5.h5", "edited/truncated_half.h5"):
            continue  # (not HDF5 files)
        with h5py.File(VNEUROTK / name, "r") as f:
            if isinstance(f.get("trial_meta"), h5py.Group):
                out.append(name)
    return out


@pytest.mark.parametrize("name", _with_trial_meta())
@pytest.mark.slow
def test_a_plain_table_is_the_pandas_decoders_table(name):
    with h5py.File(VNEUROTK / name, "r") as f:
        tm = f["trial_meta"]
        try:
            expected = _pandas_decoded(tm)
        except RuleError:
            expected = None
        table = plain_trial_meta(tm)
    if name in NOT_PLAIN:
        assert table is None
    if name in PLAIN:
        assert table is not None
    if table is None:
        return
    assert expected is not None  # a table that breaks a rule is never plain
    assert "pandas" not in type(table.column(0)).__module__
    reference = Table.of_frame(expected)
    assert len(table) == len(expected) and table.n_columns == expected.shape[1]
    assert table.labels == reference.labels
    assert table.dtype_names == reference.dtype_names
    assert table.facts() == reference.facts()
    assert table.index_dtype == reference.index_dtype
    assert np.array_equal(table.index_values(), reference.index_values())
    for col in range(table.n_columns):
        got, want = table.column(col), reference.column(col)
        assert got.dtype == want.dtype and not got.flags.writeable
        assert all(a is b or a == b or (pd.isna(a) and pd.isna(b))
                   for a, b in zip(got.tolist(), want.tolist(), strict=True))
        assert [type(v) for v in got.tolist()] == [type(v) for v in want.tolist()]
    pd.testing.assert_frame_equal(table.frame(), expected, check_exact=True)
    assert table.frame() is table.frame()  # built once


def test_the_corpus_has_plain_and_pandas_tables():
    listed = set(_with_trial_meta())
    assert PLAIN <= listed and NOT_PLAIN <= listed


def test_a_table_that_is_not_plain_keeps_the_pandas_decoders_findings():
    reported: list[RuleError] = []
    with h5py.File(VNEUROTK / "v1/writer_str_column_missing.h5", "r") as f:
        table = read_trial_meta(f["trial_meta"], reported.append)
        expected = _pandas_decoded(f["trial_meta"])
    assert not table.plain and table.frame_built
    assert [e.rule for e in reported] == [R.TM_NONFINITE]
    pd.testing.assert_frame_equal(table.frame(), expected, check_exact=True)


def _edited(tmp_path: Path, edit) -> Path:
    path = tmp_path / "edited.h5"
    shutil.copyfile(VNEUROTK / "v1/continuous_dense_f32_intids.h5", path)
    with h5py.File(path, "r+") as f:
        edit(f["trial_meta"])
    return path


def _replace(group: h5py.Group, name: str, values: np.ndarray) -> None:
    del group[name]
    group[name] = values


EDITS = {
    # the dtype attribute is not the stored values' dtype: pandas casts them
    "int32 of int64 values": lambda tm: tm["columns/0"].attrs.modify("dtype", "int32"),
    # a column shorter than the others: pandas aligns it, with missing values
    "a short column": lambda tm: _replace(tm["columns/1"], "values", np.array([0.5, 0.25])),
    # big-endian numbers
    "big-endian": lambda tm: _replace(tm["columns/0"], "values",
                                      np.arange(6, dtype=">i8")),
    # a 2-D numpy column
    "2-D values": lambda tm: _replace(tm["columns/1"], "values", np.zeros((6, 2))),
    # a range index longer than the columns
    "index too long": lambda tm: tm["index"].attrs.modify("stop", np.int64(7)),
    # a float dtype pandas has no plain name for
    "float16": lambda tm: (tm["columns/1"].attrs.modify("dtype", "float16"),
                           _replace(tm["columns/1"], "values", np.zeros(6, np.float16))),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_unusual_table_is_left_to_the_pandas_decoder(tmp_path, edit):
    path = _edited(tmp_path, EDITS[edit])
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with h5py.File(path, "r") as f:
        tm = f["trial_meta"]
        assert plain_trial_meta(tm) is None
        try:
            expected: pd.DataFrame | RuleError = _pandas_decoded(tm)
        except RuleError as exc:
            expected = exc
        reported: list[RuleError] = []
        try:
            got: Table | RuleError = read_trial_meta(tm, reported.append)
        except RuleError as exc:
            got = exc
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    if isinstance(expected, RuleError):
        assert isinstance(got, RuleError) and (got.rule, str(got)) == (expected.rule,
                                                                       str(expected))
        return
    assert isinstance(got, Table) and not got.plain
    pd.testing.assert_frame_equal(got.frame(), expected, check_exact=True)


def test_the_index_too_long_is_the_length_mismatch_finding(tmp_path):
    path = _edited(tmp_path, EDITS["index too long"])
    with h5py.File(path, "r") as f, pytest.raises(RuleError) as err:
        read_trial_meta(f["trial_meta"], lambda e: None)
    assert err.value.rule is R.TM_LENGTH_MISMATCH


def test_text_columns_with_a_missing_value_are_not_plain(tmp_path):
    def edit(tm: h5py.Group) -> None:
        values = tm["columns/4/values"]
        types = values["types"][()]
        types[2] = 5  # None (typed scalar code 5)
        _replace(values, "types", types)
    path = _edited(tmp_path, edit)
    with h5py.File(path, "r") as f:
        assert plain_trial_meta(f["trial_meta"]) is None
        table = read_trial_meta(f["trial_meta"], lambda e: None)
        expected = _pandas_decoded(f["trial_meta"])
    pd.testing.assert_frame_equal(table.frame(), expected, check_exact=True)
    assert pd.isna(table.frame().iloc[2, 4])


def test_plain_columns_must_be_text_labelled_and_as_long_as_the_index():
    ints = np.arange(3)
    with pytest.raises(ValueError, match="index"):
        Table.of_columns((PlainColumn("a", ints, "int64"),), range(4))
    with pytest.raises(ValueError, match="text"):
        Table.of_columns((PlainColumn(1, ints, "int64"),), range(3))
    with pytest.raises(ValueError, match="at least one"):
        Table.of_columns((), range(3))


def test_two_threads_asking_for_the_frame_share_one():
    n = 20_000
    table = Table.of_columns((PlainColumn("t", np.arange(n), "int64"),
                              PlainColumn("s", np.array([f"s{i}" for i in range(n)],
                                                        dtype=object), "str")), range(n))
    frames: list[pd.DataFrame] = []
    threads = [threading.Thread(target=lambda: frames.append(table.frame())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(frames) == 4 and all(f is frames[0] for f in frames)
    assert frames[0]["s"].dtype == "str" and frames[0]["s"].iloc[n - 1] == f"s{n - 1}"
    assert frames[0]["t"].to_numpy().tolist() == list(range(n))
