"""The analytical-ultracentrifugation (AUC) experiment every AUC format reads into.

A library the AUC readers build on (it registers no reader): the experiment
model (:mod:`.model`), the structural and readiness questions asked of every
AUC document (:mod:`.structure`, :mod:`.structure_checks`,
:mod:`.structure_facts`, :mod:`.structure_rules`) and the export of an AUC
experiment to a new AUCX archive (:mod:`.export`).
"""
