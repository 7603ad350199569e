"""The experiment-group chooser of a document that holds several experiments.

A document offering :class:`~inspector.formats.capabilities.ExperimentGroups`
(``doc.groups``) shows one of its experiments; this bar, above the tab's
views, lists every group's key and says which one is shown.  Choosing
another asks the tab to open that group (``groups.open(key)``, on a job: it
reads the source again) and to show the new document in its place, so the
scans table, the scan list, the plot, the provenance and File > Export to
AUCX all follow the choice.  Nothing here names a format
(docs/architecture.md, "Seams").
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from inspector.formats.capabilities import ExperimentGroups


class GroupBar(QWidget):
    """A one-line bar: "Experiment group: [key ▾]  (n groups)".

    Args:
        groups: the document's groups (``keys`` listed in order, ``selected``
            shown as current).
        parent: Qt parent widget.

    Attributes:
        combo: the ``QComboBox`` of the group keys.

    Signals:
        group_chosen(str): the user chose another group (its key).
    """

    group_chosen = Signal(str)

    def __init__(self, groups: ExperimentGroups, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("groupBar")
        self.keys = tuple(groups.keys)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        label = QLabel("Experiment group:")
        self.combo = QComboBox()
        self.combo.setObjectName("groupCombo")
        self.combo.addItems(list(self.keys))
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        tip = (f"This source holds {len(self.keys)} experiments. The tables, the plot and "
               "File > Export to AUCX show the one chosen here.")
        self.combo.setToolTip(tip)
        label.setBuddy(self.combo)
        self.note = QLabel(f"{len(self.keys):,} groups")
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        lay.addWidget(label)
        lay.addWidget(self.combo)
        lay.addWidget(self.note, 1)
        self.set_current(groups.selected)
        self.combo.activated.connect(self._activated)

    def current(self) -> str | None:
        """The key shown as current (None when the bar lists no group)."""
        return self.combo.currentText() or None

    def set_current(self, key: str | None) -> None:
        """Show ``key`` as the current group (no signal); an unknown key selects nothing."""
        self.combo.blockSignals(True)
        try:
            self.combo.setCurrentIndex(self.keys.index(key) if key in self.keys else -1)
        finally:
            self.combo.blockSignals(False)

    def set_busy(self, key: str | None) -> None:
        """While group ``key`` opens the choice is disabled (None: enabled again)."""
        self.combo.setEnabled(key is None)
        self.note.setText(f"opening {key}…" if key else f"{len(self.keys):,} groups")

    def _activated(self, index: int) -> None:
        if 0 <= index < len(self.keys):
            self.group_chosen.emit(self.keys[index])
