"""Imported once by the ``forkserver`` before it forks any worker (:mod:`.local`).

Importing this module imports every format package and every module of
each (numpy, h5py, pandas and yaml with them), so that each worker process
forked from the server starts with them loaded instead of importing them
itself: on a busy machine that import is most of a short run's time.  A
module that fails to import is left for the worker to report when a file
needs it.
"""

from __future__ import annotations

import contextlib
import importlib

from inspector.batch import work  # noqa: F401 - the module every task runs
from inspector.formats.registry import reader_modules, readers

readers()
for _name in reader_modules():
    with contextlib.suppress(Exception):
        importlib.import_module(_name)
