"""``inspector verify`` of many files: inputs, worker processes, a Dask cluster.

* :mod:`.inputs`: what the command line names (paths, URLs, folders walked
  by content, glob patterns, ``--from`` lists) as an ordered list of entries;
* :mod:`.work`: the verification of one entry, run in a worker (a process
  of this machine or a Dask worker), returning its printed output and status;
* :mod:`.local`: worker processes of this machine, one file each at a time,
  so that a crash or a hang is the verdict of that file only;
* :mod:`.cluster`: the same work sent to a Dask distributed scheduler;
* :mod:`.run`: the driver: bounded in-flight work, output in input order,
  the progress line and the summary.

This package sits beside the entry points (docs/architecture.md, "Layers"):
it imports the format layer, never Qt, and not :mod:`inspector.cli` (the CLI
hands it the function that renders one document).
"""
