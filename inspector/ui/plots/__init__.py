"""Lazy plots of document arrays (issue 6).

:class:`PlotPanel` is the entry point used by the document tab:
``PlotPanel(doc, jobs, parent=None)`` then ``panel.show_array(name)``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from inspector.formats.document import Document
from inspector.jobs import JobRunner


class PlotPanel(QWidget):
    """A plot of one array of a document, read lazily on background jobs.

    Args:
        doc: the opened document (its ``arrays`` and ``extra`` are used).
        jobs: the runner that executes every read.
        parent: Qt parent widget.
    """

    def __init__(self, doc: Document, jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.jobs = jobs
        self.current: str | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.message = QLabel("Select an array to plot.")
        self.plot = pg.PlotWidget()
        lay.addWidget(self.message)
        lay.addWidget(self.plot, 1)

    def show_array(self, name: str) -> None:
        """Plot ``doc.arrays[name]`` (unknown names show a message)."""
        self.current = name
        self.plot.clear()
        ref = self.doc.arrays.get(name)
        if ref is None:
            self.message.setText(f"No array named {name!r}.")
            return
        self.message.setText(f"{name}: shape {ref.shape}, dtype {ref.dtype}")
        index = tuple(None if a == ref.sample_axis else 0 for a in range(ref.ndim))
        if not index:
            return
        n = ref.shape[ref.sample_axis]

        def work(ctx):
            return ref.envelope(index, 0, n, 1000)

        def done(env):
            if self.current != name:
                return
            x = np.repeat(env.x, 2)
            y = np.column_stack([env.lo, env.hi]).ravel()
            self.plot.plot(x, y, connect="finite")

        self.jobs.submit(work, on_done=done, key=f"plot:{id(self)}")
