"""pandas scalars recognised without importing pandas.

pandas is imported only where a table is built (a ``DataFrame`` or
``Series``: trial metadata, AUC scan tables, trial averages) or where a
``pandas.NA``/``pandas.NaT`` value is made (docs/architecture.md, "Flows",
"Open"): its import holds the interpreter lock for about a quarter of a
second, which opening a file without a table must not pay.  A value can be
a pandas object only once pandas has been imported, so the checks here look
pandas up in :data:`sys.modules` and never import it.
"""

from __future__ import annotations

import sys
from typing import Any

#: Stands for a pandas name while pandas is not (completely) imported: no value is it.
_ABSENT = object()


def _pandas_name(name: str) -> Any:
    """``pandas.<name>`` if pandas is imported (and already defines it), else :data:`_ABSENT`."""
    pd = sys.modules.get("pandas")
    return _ABSENT if pd is None else getattr(pd, name, _ABSENT)


def is_na(value: Any) -> bool:
    """True if ``value`` is ``pandas.NA``; never imports pandas."""
    return value is _pandas_name("NA")


def is_nat(value: Any) -> bool:
    """True if ``value`` is ``pandas.NaT``; never imports pandas."""
    return value is _pandas_name("NaT")


def is_timestamp(value: Any) -> bool:
    """True if ``value`` is a ``pandas.Timestamp``; never imports pandas."""
    cls = _pandas_name("Timestamp")
    return isinstance(cls, type) and isinstance(value, cls)
