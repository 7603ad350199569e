"""VneuroTK HDF5 recording reader (schema 0 and 1), lazy and diagnostic.

Entry point: :func:`open_recording`.  Rules come from the seed document
(``seeds/000_e18c8503e755d934.txt``) and the working notes
(``spec/vneurotk-recording.md``).  Modules:

* :mod:`.source`: read-only HDF5 handle, locking fallback, replacement guard.
* :mod:`.header`: format header and data-mode rules.
* :mod:`.arrays`: lazy dense and COO array references.
* :mod:`.labels`, :mod:`.trials`: stimulus labels and trial structure.
* :mod:`.trial_meta`: trial metadata as a DataFrame.
* :mod:`.vision`: visual representations and stimulus images.
* :mod:`.tree`: raw HDF5 object tree, links and virtual datasets.
* :mod:`.summary`: header/provenance trees and table facts.
* :mod:`.reader`: the orchestration.
"""

from __future__ import annotations

from inspector.formats.vneurotk.reader import SUMMARY_KEYS, open_recording

__all__ = ["SUMMARY_KEYS", "open_recording"]
