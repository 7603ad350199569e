"""pyqtgraph's colour maps, each read from its file once per process.

``pg.colormap.get`` parses the map's CSV file on every call (about 20 ms), on
whichever thread calls it.  The plot modules ask for theirs as they are
imported (off the GUI thread: :mod:`inspector.runtime.preload`), so a view built
later finds it ready.
"""

from __future__ import annotations

from functools import cache

import pyqtgraph as pg


@cache
def colormap(name: str) -> pg.ColorMap:
    """The colour map ``name`` (e.g. ``"viridis"``), shared: do not modify it.

    Raises:
        FileNotFoundError: pyqtgraph knows no map of that name.
    """
    return pg.colormap.get(name)
