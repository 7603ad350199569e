"""Python's cyclic garbage collector, run on the GUI thread only.

Left to itself the collector runs on whichever thread allocates when a generation's
count passes its threshold, and then destroys whatever Qt wrappers it finds in
unreachable cycles on that thread.  A job thread that destroys a ``QObject`` takes
Qt's connection lock and, for a PySide wrapper, waits for the interpreter lock
inside the destructor; the GUI thread, holding the interpreter lock, can be waiting
for that connection lock (making a ``QMenu``, connecting a signal): a deadlock,
seen twice in suite runs (stop 24).  pyqtgraph documents the same remedy
(``pyqtgraph.util.garbage_collector.GarbageCollector``): automatic collection is
turned off and a timer on the GUI thread collects when the interpreter would have
(:meth:`GuiThreadCollector.check`).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from inspector.runtime.switches import enabled

#: How often the GUI thread looks at the collector's counts (milliseconds).
CHECK_INTERVAL_MS = 50
#: Reasons to hold full collections (:func:`hold_full_collections`): the process starts
#: (the application is made, its first files open and import the readers) and the
#: window's warm-up imports every other module.
START_UP = "start-up"
WARM_UP = "warm-up"
#: ... and a tab imports pandas and builds its tables' DataFrames (``ui/table_frames.py``).
TABLE_FRAMES = "table frames"
#: Longest start-up hold, milliseconds: the window's warm-up ends it sooner, and a process
#: that never warms a window up (a test, ``--screenshot``) collects again after it.
START_UP_HOLD_MS = 30_000


class GuiThreadCollector(QObject):
    """Turns automatic collection off and collects from a timer on the GUI thread.

    Created on the GUI thread with the application as parent; :meth:`stop`
    turns automatic collection back on.  The thresholds are those in force when
    it was made (``gc.get_threshold()``).
    """

    def __init__(self, parent: QObject | None = None,
                 interval_ms: int = CHECK_INTERVAL_MS) -> None:
        super().__init__(parent)
        self.thresholds: tuple[int, int, int] = gc.get_threshold()
        self.long_lived_total = 0  # (as the interpreter starts: see check)
        self.long_lived_pending = 0
        self.allocated_since_full = 0
        self._holds: set[str] = set()  # why full collections wait (hold_full_collections)
        t0, t1, t2 = self.thresholds
        self.full_every = t0 * (t1 + 1) * (t2 + 1)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        gc.disable()
        self._timer.start()

    @property
    def full_held(self) -> bool:
        """Full collections wait: someone holds them (:func:`hold_full_collections`)."""
        return bool(self._holds)

    def hold(self, held: bool, reason: str) -> None:
        """Hold full collections for ``reason``, or stop holding them for it.

        When the last hold ends, what joined the old generation meanwhile counts
        as its long-lived size (``long_lived_total``), as if a full collection had
        found it alive, which is what one would have found of the imports that
        made it.  Without that the collection held back would come at the next
        look, and walk them all on the GUI thread (about 100 ms once the
        scientific stack is imported).
        """
        was_held = self.full_held
        if held:
            self._holds.add(reason)
            return
        self._holds.discard(reason)
        if was_held and not self._holds:
            self.long_lived_total += self.long_lived_pending
            self.long_lived_pending = 0
            self.allocated_since_full = 0

    def check(self) -> int:
        """Collect what is due now; the number of unreachable objects found.

        Nothing is due until generation 0's count (container allocations minus
        deallocations) exceeds its threshold.  Then the young generations are
        collected together (``gc.collect(1)``): a timer looks far less often
        than the interpreter would, so its generation 0 holds thousands of
        objects, and collecting both young generations at once walks each object
        once on its way to the old generation where the interpreter's two steps
        walk it twice, and no single collection grows with the time since the
        last one.  The old generation is collected instead when as many objects
        were allocated since its last collection as make the interpreter collect
        it (``full_every``: generation 0's threshold times one more than each
        older generation's, 84 700 by default) and at least a quarter as many objects joined it
        since its last collection (``long_lived_pending``) as survived that
        collection (``long_lived_total``), so that full collections stay as rare
        as the interpreter keeps them (CPython's ``Modules/gcmodule.c``,
        ``collect_generations``).  Both are counted from the net allocations
        and the unreachable objects each collection reports, never by listing
        objects: ``gc.get_objects`` on this thread holds a reference to a tuple
        another thread is still filling, which then fails in
        ``_PyTuple_Resize`` ("bad argument to internal function", seen in a
        window child).
        """
        allocated = gc.get_count()[0]
        if allocated <= self.thresholds[0]:
            return 0
        self.allocated_since_full += allocated
        if (not self.full_held and self.allocated_since_full > self.full_every
                and self.long_lived_pending >= self.long_lived_total / 4):
            unreachable = gc.collect(2)
            survivors = self.long_lived_total + self.long_lived_pending + allocated - unreachable
            self.long_lived_total = max(0, survivors)
            self.long_lived_pending = 0
            self.allocated_since_full = 0
            return unreachable
        unreachable = gc.collect(1)
        self.long_lived_pending += max(0, allocated - unreachable)
        return unreachable

    def stop(self) -> None:
        """Stop the timer and give collection back to the interpreter."""
        self._timer.stop()
        gc.enable()


_installed: list[GuiThreadCollector] = []


def install_gui_thread_collector(app: QObject) -> GuiThreadCollector:
    """The process's :class:`GuiThreadCollector`, made on first call with ``app`` as parent.

    Call on the GUI thread, once the ``QApplication`` exists.
    """
    if not _installed:
        _installed.append(GuiThreadCollector(app))
    return _installed[0]


def hold_during_start_up(app: QObject) -> None:
    """Hold full collections from now until the window's warm-up ends them
    (:func:`hold_full_collections` with :data:`START_UP`), for at most
    :data:`START_UP_HOLD_MS`.

    Call once, when the process makes its application: until the warm-up is
    done, nearly every object made is module code that never becomes garbage.
    """
    hold_full_collections(True, START_UP)
    QTimer.singleShot(START_UP_HOLD_MS, app, lambda: hold_full_collections(False, START_UP))


def freeze_long_lived() -> None:
    """Move every object alive now out of the collector's reach, for good (``gc.freeze()``).

    Meant for the moment the window has imported everything and shows no
    document: what is alive is module code and the window's own widgets, which
    never become garbage, and which would make every later full collection walk
    the hundreds of thousands of objects the scientific stack brings (about
    100 ms on the 2-core machine, on the GUI thread).  The young generations are
    collected first; garbage already in the old generation (from start-up) stays,
    once, a bounded cost.  Afterwards :class:`GuiThreadCollector`'s counts start
    again, with the frozen objects as the old generation's size: the next full
    collection waits until a quarter as many objects have joined it, as the
    interpreter's rule would have it had they stayed (with an empty old
    generation it came as soon as a file was opened, 35 ms on the GUI thread to
    find nothing in a hostile archive's objects).
    """
    if not enabled("freeze"):
        return
    gc.collect(1)
    gc.freeze()
    for collector in _installed:
        collector.long_lived_total = gc.get_freeze_count()
        collector.long_lived_pending = 0
        collector.allocated_since_full = 0


def hold_full_collections(held: bool, reason: str = WARM_UP) -> None:
    """Make full collections wait (``held``) for ``reason``, or let them run again when due
    once no reason holds them (:meth:`GuiThreadCollector.hold`).

    For start-up (:data:`START_UP`) and the window's warm-up (:data:`WARM_UP`):
    their imports make objects that never become garbage, and
    :func:`freeze_long_lived` afterwards takes them out of reach, so a full
    collection meanwhile would walk them on the GUI thread for nothing (40 ms,
    measured while ``inspector FILE`` opened a 1 GB recording during its imports).
    """
    if not enabled("collection-holds"):
        return
    for collector in _installed:
        collector.hold(held, reason)
