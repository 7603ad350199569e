"""What a child runs on one mutant: ``open_document`` + ``verify()`` + the verify-JSON line.

A target is any callable ``(path) -> Inspection`` named ``"module:function"``
(``--target``); the default is :func:`inspect`, which opens as the command line
does; :func:`inspect_as_app` opens as the desktop app does (an AUCX archive's
verification then also builds the plot's overview).  :mod:`fuzz.selftest` holds
hand-made targets that misbehave on purpose, to check the classifier;
:mod:`fuzz.window` opens each mutant in the real window.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_TARGET = "fuzz.targets:inspect"


@dataclass
class Inspection:
    """The result of a target that returned.

    Attributes:
        line: the verify-JSON line (``inspector.cli.json_line(doc.to_json())``).
        tracebacks: tracebacks of reader bugs (``internal.reader-failed``), in order.
    """

    line: str
    tracebacks: list[str] = field(default_factory=list)


Target = Callable[[Path], Inspection]


def resolve(spec: str) -> Target:
    """The callable named ``"module:function"``.

    Raises:
        ValueError: ``spec`` is not of that form, or names nothing callable.
    """
    module_name, sep, func_name = spec.partition(":")
    if not sep or not module_name or not func_name:
        raise ValueError(f"a target is 'module:function', not {spec!r}")
    func = getattr(importlib.import_module(module_name), func_name, None)
    if not callable(func):
        raise ValueError(f"{spec!r} is not callable")
    return func  # type: ignore[no-any-return]


def warm_up() -> None:
    """Import Inspector's headless code once, so forked children start with it loaded.

    Imports ``inspector.cli`` and every module under ``inspector.formats``
    (which never imports Qt; docs/architecture.md, "Layers") and discovers
    the registered readers.
    """
    import inspector.cli  # noqa: F401
    import inspector.formats as formats
    from inspector.formats.registry import readers

    for info in pkgutil.walk_packages(formats.__path__, prefix="inspector.formats."):
        importlib.import_module(info.name)
    readers()


def inspect(path: Path) -> Inspection:
    """Open ``path`` as ``inspector verify --json`` does and return its JSON line.

    Runs inside a worker pool of its own (a forked child has none running).
    Exceptions propagate: the child classifies them as escaped.
    """
    from inspector.cli import json_line
    from inspector.formats import open_document
    from inspector.formats.decoding.workers import worker_pool

    with worker_pool(), open_document(path) as doc:
        doc.verify()
        line = json_line(doc.to_json())
        tracebacks = [doc.traceback] if doc.traceback else []
    return Inspection(line, tracebacks)


def inspect_as_app(path: Path) -> Inspection:
    """Open ``path`` as the desktop app does and return its verify-JSON line.

    The app asks for the AUC plot's full-range overview at open
    (``auc_overview_columns``), so an archive whose arrays stay lazy builds it
    from the bytes its verification hashes (``inspector/formats/aucx/overview.py``);
    the overview is then combined to a plot's width as the view does.  The line
    must be the one :func:`inspect` gives: the overview never changes a finding.
    """
    from inspector.cli import json_line
    from inspector.formats import open_document
    from inspector.formats.analysis.scan_envelope import OVERVIEW_COLUMNS
    from inspector.formats.decoding.workers import worker_pool

    with worker_pool(), open_document(path, auc_overview_columns=OVERVIEW_COLUMNS) as doc:
        doc.verify()
        auc = doc.auc
        if auc is not None and auc.overview is not None:
            auc.overview.at_pixels(800)
        line = json_line(doc.to_json())
        tracebacks = [doc.traceback] if doc.traceback else []
    return Inspection(line, tracebacks)
