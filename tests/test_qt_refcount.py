"""Guard against the PySide6 6.12 reference-count bug that aborts Python 3.11.

PySide6-Essentials 6.12.0 drops a reference to ``True``/``None`` on signal
emits with object arguments and on ``QGraphicsItem.update()``; on Python 3.11
the interpreter aborts ("bool_dealloc") after a few thousand plot updates.
pyproject.toml therefore pins ``PySide6-Essentials<6.12``; this test fails if
an installed Qt binding leaks those references again.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QGraphicsRectItem


class _Emitter(QObject):
    sig = Signal(object)


def test_signal_emit_and_item_update_keep_references(qapp):
    emitter = _Emitter()
    emitter.sig.connect(lambda value: None)
    item = QGraphicsRectItem(0, 0, 1, 1)
    true0, none0 = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(200):
        emitter.sig.emit(1)
        item.update()
    assert sys.getrefcount(True) - true0 > -50
    assert sys.getrefcount(None) - none0 > -50
