"""Computations over a document's arrays, shared by every format.

A library (it registers no reader): lazy array references and their min/max
envelopes (:mod:`.arrays`), the per-column envelopes of AUC scans
(:mod:`.scan_envelope`) and trial-averaged responses by condition
(:mod:`.trial_average`, which also holds the bounded chunk inflation the
HDF5 readers use).
"""
