"""pandas is imported only when a table needs it (docs/architecture.md, "Flows", "Open").

Each check runs in a fresh interpreter (the test process has imported pandas
long ago): opening and verifying a plain HDF5 file or a recording without
``trial_meta``, the CLI's ``verify --json``, the registry's discovery and the
window's warm-up imports leave ``pandas`` out of ``sys.modules``; a
recording with plain trial metadata opens without pandas too and builds its
DataFrame when asked, and typed scalar codes 6 and 7 still decode to
``pandas.NA`` and ``pandas.NaT`` themselves.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from tests.conftest import FIXTURES, load_expected
from tests.window_child import run_python

VNEUROTK = FIXTURES / "vneurotk"
#: A plain HDF5 file and recordings with neither trial_meta nor pandas-typed values.
WITHOUT_TABLES = ["edited/plain_unrelated.h5", "v1/continuous_small_chunks.h5",
                  "v1/continuous_uncompressed_i16.h5"]
#: Recordings with trial metadata (schema 1 "pandas_v1" and schema-0 legacy columns).
WITH_TABLES = ["v1/continuous_dense_f32_intids.h5", "v0/v001_continuous_dense_f32_intids.h5"]

_OPEN = """
import json, sys
from inspector.formats import open_document
from inspector.formats.decoding.workers import worker_pool
with worker_pool():
    out = []
    for path in sys.argv[1:]:
        with open_document(path) as doc:
            doc.verify()
            out.append({"ok": doc.ok, "kind": doc.kind_label, "tables": sorted(doc.tables),
                        "findings": [f.code for f in doc.findings]})
print(json.dumps({"pandas": "pandas" in sys.modules, "docs": out}))
"""


def _open_in_child(*paths: Path) -> dict:
    return json.loads(run_python(_OPEN, *map(str, paths)).strip().splitlines()[-1])


@pytest.fixture
def schema0_without_meta(tmp_path: Path) -> Path:
    """The schema-0 recording ``v0/v001_continuous_dense_f32_intids.h5`` without ``/trial_meta``."""
    path = tmp_path / "v0_no_trial_meta.h5"
    shutil.copyfile(VNEUROTK / "v0/v001_continuous_dense_f32_intids.h5", path)
    with h5py.File(path, "r+") as f:
        assert "trial_meta" in f and "vneurotk_schema_version" not in f.attrs
        del f["trial_meta"]
    return path


@pytest.mark.slow
def test_open_and_verify_without_tables_never_import_pandas(schema0_without_meta):
    got = _open_in_child(*(VNEUROTK / n for n in WITHOUT_TABLES), schema0_without_meta)
    assert got["pandas"] is False
    kinds = [d["kind"] for d in got["docs"]]
    assert kinds == ["HDF5 file"] + ["VneuroTK recording"] * 3  # plain_unrelated: no recording
    assert [d["tables"] for d in got["docs"]] == [[]] * 4
    assert [d["ok"] for d in got["docs"][1:3]] == [True, True]  # corpus verdicts: valid
    assert "schema.historical" in got["docs"][3]["findings"]


@pytest.mark.slow
def test_cli_verify_json_of_a_plain_file_never_imports_pandas():
    code = ("import io, json, sys, contextlib\n"
            "from inspector.cli import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    rc = main(['verify', '--json', sys.argv[1]])\n"
            "print(json.dumps({'rc': rc, 'line': buf.getvalue(), "
            "'pandas': 'pandas' in sys.modules}))\n")
    for name, fmt in (("edited/plain_unrelated.h5", "hdf5"),
                      ("v1/continuous_small_chunks.h5", "vneurotk-recording")):
        got = json.loads(run_python(code, str(VNEUROTK / name)).strip().splitlines()[-1])
        assert got["pandas"] is False, name
        line = json.loads(got["line"])
        assert line["format"] == fmt
        assert got["rc"] == (0 if line["ok"] and line["structure_ok"] else 1)


@pytest.mark.slow
def test_registry_discovery_and_window_warm_up_never_import_pandas():
    code = ("import importlib, sys\n"
            "import inspector.formats.registry as r\n"
            "r.readers()\n"
            "names = r.reader_modules()\n"
            "from inspector.ui.main_window import VIEW_MODULES\n"
            "for n in [*names, *VIEW_MODULES]:\n"
            "    importlib.import_module(n)\n"
            "print(len(names), 'pandas' in sys.modules)\n")
    out = run_python(code, env={"QT_QPA_PLATFORM": "offscreen"}).split()
    assert int(out[-2]) > 20 and out[-1] == "False"


@pytest.mark.slow
def test_a_recording_with_plain_trial_meta_opens_without_pandas_and_builds_its_dataframe():
    expected = {r["file"]: r["trial_meta"] for r in load_expected("vneurotk")}
    code = ("import json, sys\n"
            "from inspector.formats import open_document\n"
            "out = {}\n"
            "for path in sys.argv[1:]:\n"
            "    before = 'pandas' in sys.modules\n"
            "    table = open_document(path).tables['trial_meta']\n"
            "    opened = 'pandas' in sys.modules\n"
            "    df = table.frame()\n"
            "    import pandas as pd\n"
            "    out[path] = {'before': before, 'opened': opened, 'plain': table.plain,\n"
            "                 'frame': type(df) is pd.DataFrame,\n"
            "                 'rows': len(df), 'columns': list(df.columns),\n"
            "                 'dtypes': [str(d) for d in df.dtypes],\n"
            "                 'index_kind': type(df.index).__name__,\n"
            "                 'first_index': [int(v) for v in df.index[:3]],\n"
            "                 'rt': [None if v != v else v for v in df['rt'].tolist()]}\n"
            "print(json.dumps(out))\n")
    paths = [str(VNEUROTK / n) for n in WITH_TABLES]
    got = json.loads(run_python(code, *paths).strip().splitlines()[-1])
    for name, path in zip(WITH_TABLES, paths, strict=True):
        g, e = got[path], expected[name]
        first = name == WITH_TABLES[0]
        assert g["plain"] is True
        assert g["before"] is g["opened"] is not first  # the first frame imports pandas
        assert g["frame"] is True
        assert (g["rows"], g["columns"], g["dtypes"]) == (e["rows"], e["columns"], e["dtypes"])
        assert g["index_kind"] == e["index_kind"] == "RangeIndex"
        assert g["first_index"] == [v["value"] for v in e["first_index"]] == [0, 1, 2]
    # the cells themselves, as h5py reads the schema-0 columns (numpy as oracle)
    with h5py.File(VNEUROTK / WITH_TABLES[1]) as f:
        rt = f["trial_meta/rt"][()]
    assert got[paths[1]]["rt"] == [None if np.isnan(v) else float(v) for v in rt]
    assert got[paths[0]]["rt"] == [0.412, 0.388, None, 0.501, 0.455, 0.397]


@pytest.mark.slow
def test_typed_codes_6_and_7_are_pandas_na_and_nat(tmp_path):
    path = tmp_path / "typed.h5"
    with h5py.File(path, "w") as f:
        g = f.create_group("ids")
        g.attrs["encoding"] = "vneurotk_scalar_v1"
        g["types"] = np.array([2, 5, 6, 7], dtype=np.uint8)
        g["values"] = np.array(["7", "", "", ""], dtype=h5py.string_dtype())
    code = ("import sys, h5py\n"
            "from inspector.formats.vneurotk.scalars import read_sequence\n"
            "from inspector.formats.hdf5.values import is_missing, typed\n"
            "assert 'pandas' not in sys.modules\n"
            "with h5py.File(sys.argv[1]) as f:\n"
            "    values = read_sequence(f['ids'], '/ids')\n"
            "import pandas as pd\n"
            "print(values[0], values[1] is None, values[2] is pd.NA, values[3] is pd.NaT,\n"
            "      [typed(v)['type'] for v in values], [is_missing(v) for v in values])\n")
    out = run_python(code, str(path)).strip().splitlines()[-1]
    assert out == ("7 True True True ['int', 'none', 'na', 'nat'] "
                   "[False, True, True, True]")


def test_pandas_values_recognise_pandas_scalars_only():
    from inspector.formats.values.pandas_values import is_na, is_nat, is_timestamp

    assert is_na(pd.NA) and not is_na(None) and not is_na(float("nan")) and not is_na(pd.NaT)
    assert is_nat(pd.NaT) and not is_nat(np.datetime64("NaT")) and not is_nat(pd.NA)
    assert is_timestamp(pd.Timestamp("2024-01-02")) and not is_timestamp(np.datetime64("2024"))
    import datetime as dt
    assert not is_timestamp(dt.datetime(2024, 1, 2)) and not is_timestamp("2024-01-02")


_WINDOW = """
import json, sys, threading, time
from PySide6.QtCore import Qt
from inspector.app import make_application
from inspector.formats.decoding.workers import worker_pool
first = {}
class Finder:  # the thread that imports pandas (any import, importlib's too)
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            first.setdefault("thread", threading.current_thread().name)
sys.meta_path.insert(0, Finder())
with worker_pool():
    app = make_application()
    from inspector.ui.main_window import MainWindow
    win = MainWindow(); win.show()
    shown = {}
    def content():
        panel = tab.tables["trial_meta"]
        shown.update(pandas="pandas" in sys.modules, rows=panel.model.rowCount(),
                     cells=[[panel.model.index(r, c).data() for c in (3, 4)] for r in range(3)],
                     header=panel.model.headerData(0, Qt.Orientation.Horizontal))
    (tab,) = win.open_paths([sys.argv[1]])
    tab.views_ready.connect(content)
    while not (win.all_tabs_ready() and win.is_idle()):
        app.processEvents()
        time.sleep(0.005)  # (a wait, not a spin: the jobs and timers run meanwhile)
    idle_at = "pandas" in sys.modules  # (the frames wait for the tab to stay idle)
    while not tab.frames.built:
        app.processEvents()
        time.sleep(0.005)
    panel = tab.tables["trial_meta"]
    panel.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # rt: missing last
    order = [panel.model.source_row(r) for r in range(panel.model.rowCount())]
    print(json.dumps({"shown": shown, "first": first, "idle_at": idle_at,
                      "order": order}))
"""


@pytest.mark.slow
def test_the_window_shows_plain_trial_meta_before_pandas_and_builds_its_frame_off_the_gui_thread():
    path = VNEUROTK / WITH_TABLES[0]
    got = json.loads(run_python(_WINDOW, str(path),
                                env={"QT_QPA_PLATFORM": "offscreen"}).strip().splitlines()[-1])
    with h5py.File(path) as f:
        assert f["trial_meta/columns/4"].attrs["dtype"] == "str"
    assert got["shown"]["pandas"] is False  # the table was shown before pandas was imported
    assert got["shown"]["rows"] == 6 and got["shown"]["header"] == "trial_no"
    # an object column quotes its text, a str column does not (as for a DataFrame)
    assert got["shown"]["cells"] == [['"yes"', "left"], ['"no"', "right"], ['"yes"', "left"]]
    # numpy as the oracle of the sort: rt descending, missing last
    rt = np.array([0.412, 0.388, np.nan, 0.501, 0.455, 0.397])
    finite = np.flatnonzero(~np.isnan(rt))
    expected = finite[np.argsort(-rt[finite], kind="stable")].tolist() + [2]
    assert got["order"] == expected
    assert got["first"]["thread"] != "MainThread"


@pytest.mark.slow
def test_an_archive_whose_scans_table_is_plain_opens_and_verifies_without_pandas():
    sample = Path(__file__).resolve().parent.parent / "resources" / "samples" \
        / "src_demo_experiment.aucx"
    got = _open_in_child(sample)
    assert got["pandas"] is False
    assert got["docs"] == [{"ok": True, "kind": got["docs"][0]["kind"], "tables": ["scans"],
                            "findings": got["docs"][0]["findings"]}]
    assert "AUCX" in got["docs"][0]["kind"]
