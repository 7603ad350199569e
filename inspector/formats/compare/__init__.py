"""Comparing two documents: what differs, section by section (``inspector diff``).

A library package of the format layer, built on the Document API: both files are
opened with :func:`~inspector.formats.registry.open_document` and compared
through what their readers already offer (capabilities, tables, lazy arrays,
checksum tables, the object tree), never by reading the files again:

* :mod:`.model`: the differences and the report, with its stable JSON schema
  (docs/diff.md);
* :mod:`.fields`: nested metadata dictionaries, field by field;
* :mod:`.header`: format, schema and header/metadata fields;
* :mod:`.tables`: trial structure and tables (trial metadata), row by row;
* :mod:`.stimuli`: stimulus images and visual-representation records by typed ID;
* :mod:`.scans`: AUC experiments scan by scan, and their import/export records;
* :mod:`.arrays`, :mod:`.chunked`, :mod:`.values`: arrays, chunk by chunk in
  parallel, with a tolerance;
* :mod:`.members`: archive members by digest;
* :mod:`.objects`: any other HDF5 object and attribute;
* :mod:`.engine`: the order of the sections and the verdict;
* :mod:`.text`: the human-readable report.

Nothing here imports Qt.
"""
