"""The same work sent to a Dask distributed scheduler (``--dask ADDRESS``).

Optional: ``distributed`` (the ``distributed`` extra of the package) is
imported only here, when ``--dask`` is given, and every Dask worker must
have Inspector installed (tasks are :func:`~.work.verify_entry` by name).
At most as many files are in flight as the cluster has worker threads, so
the per-file time limit counts, near enough, from when a file starts.  A
file whose task fails (its worker died: ``KilledWorker``, after the
scheduler's own retries) or overruns the limit gets an ``unreadable``
outcome; a Dask worker cannot be made to stop a running task, so an
overrun task is cancelled and left to finish or be restarted by the cluster.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from inspector.batch.work import Outcome, VerifyOptions, failed_outcome, verify_entry
from inspector.formats.core_rules import CHECK_FAILED, VERIFY_TIMEOUT, WORKER_CRASHED

__all__ = ["DaskUnavailable", "DaskWorkers"]

Work = Callable[[str, VerifyOptions], Outcome]


class DaskUnavailable(RuntimeError):
    """``--dask`` was given but ``distributed`` is not installed, or the scheduler
    cannot be reached; the message says which and what to do."""


def _client(address: Any, connect_timeout: float) -> Any:
    """A ``distributed.Client`` of ``address`` (an address, or a cluster object).

    Raises:
        DaskUnavailable: no ``distributed``, or no scheduler at ``address``.
    """
    try:
        from distributed import Client
    except ImportError as exc:
        raise DaskUnavailable(
            "--dask needs the Dask distributed scheduler client, which is not installed: "
            "pip install 'vneurotk-aucx-inspector[distributed]' (or pip install distributed)"
        ) from exc
    try:
        return Client(address, timeout=connect_timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise DaskUnavailable(f"--dask {address}: cannot reach the scheduler: {exc}") from exc


class DaskWorkers:
    """Files verified on a Dask cluster, as :class:`~.local.LocalWorkers` does locally.

    Args:
        address: the scheduler (``tcp://host:8786``) or a cluster object
            (``LocalCluster``).
        options, timeout, work: as for :class:`~.local.LocalWorkers`.
        connect_timeout: seconds to wait for the scheduler.

    Raises:
        DaskUnavailable: see :func:`_client`.
    """

    def __init__(self, address: Any, options: VerifyOptions, *, timeout: float | None = None,
                 work: Work = verify_entry, connect_timeout: float = 30.0) -> None:
        self.options = options
        self.timeout = timeout
        self.work = work
        self.client = _client(address, connect_timeout)
        workers = self.client.scheduler_info().get("workers", {})
        self.capacity = max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))
        self._tasks: dict[int, tuple[str, Any, float]] = {}

    def free(self) -> bool:
        """True while fewer files than the cluster's threads are in flight."""
        return len(self._tasks) < self.capacity

    def running(self) -> int:
        """Files in flight."""
        return len(self._tasks)

    def submit(self, index: int, name: str) -> None:
        """Send ``name`` (entry number ``index``) to the cluster."""
        future = self.client.submit(self.work, name, self.options, pure=False)
        limit = self.timeout if self.timeout else float("inf")
        self._tasks[index] = (name, future, time.monotonic() + limit)

    def collect(self, wait_s: float) -> list[tuple[int, Outcome]]:
        """The files finished within ``wait_s`` seconds (or overdue), as ``(index, outcome)``."""
        from distributed import wait

        if not self._tasks:
            return []
        soonest = min(deadline for _, _, deadline in self._tasks.values())
        try:
            wait([f for _, f, _ in self._tasks.values()], return_when="FIRST_COMPLETED",
                 timeout=max(0.01, min(wait_s, soonest - time.monotonic())))
        except TimeoutError:
            pass
        out = []
        for index, (name, future, deadline) in list(self._tasks.items()):
            outcome = self._outcome(name, future, deadline)
            if outcome is not None:
                del self._tasks[index]
                out.append((index, outcome))
        return out

    def _outcome(self, name: str, future: Any, deadline: float) -> Outcome | None:
        """The outcome of a finished or overdue task; None while it runs in time."""
        if not future.done():
            if time.monotonic() < deadline:
                return None
            future.cancel()
            return failed_outcome(name, VERIFY_TIMEOUT,
                                  f"verification did not finish within the time limit of "
                                  f"{self.timeout:g} s and was cancelled", self.options)
        if future.status == "finished":
            result: Outcome = future.result()
            return result
        exc = future.exception() if future.status == "error" else None
        if exc is None or type(exc).__name__ == "KilledWorker":
            return failed_outcome(name, WORKER_CRASHED,
                                  "the Dask worker verifying the file died (or the task was "
                                  f"lost: {future.status})", self.options)
        return failed_outcome(name, CHECK_FAILED, f"verification failed unexpectedly: "
                                                  f"{type(exc).__name__}: {exc}", self.options)

    def close(self) -> None:
        """Cancel what is in flight and disconnect (the cluster itself is left running)."""
        for _, future, _ in self._tasks.values():
            future.cancel()
        self._tasks = {}
        self.client.close()
