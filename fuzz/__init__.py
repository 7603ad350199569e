"""A fuzzing harness for Inspector's three input formats (not part of the installed package).

``python -m fuzz`` mutates the files of ``tests/fixtures`` (VneuroTK HDF5
recordings, AUCX archives, CSV/TSV AUC sources), runs every mutant through
``inspector.formats.open_document(path)`` and ``doc.verify()`` in a child
process with a wall-time and an address-space limit, and sorts each run into
one outcome class (:mod:`fuzz.outcomes`).  Every mutant that is not clean is
kept as a reproducer (:mod:`fuzz.reproducers`) that ``python -m fuzz.replay``
runs again.  See ``fuzz/README.md``.

The children are forked from a parent that has already imported
``inspector`` (a fork server), so a mutant costs a few milliseconds of
set-up instead of a fresh interpreter; ``--subprocess`` starts a fresh
interpreter per mutant instead.
"""

from __future__ import annotations

FORMATS = ("hdf5", "aucx", "csv")
"""The format names of ``--format`` (``all`` runs each in turn)."""
