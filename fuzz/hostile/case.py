"""One hostile case: how to build its input, what to run on it, what must hold."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Scale = Literal["small", "full"]
"""``small``: seconds and a few MB, run in CI; ``full``: the sizes the issue names."""

Builder = Callable[[Path, Scale], AbstractContextManager[str]]
"""Build the input in the given (empty) folder at the scale; the context yields the
target as Inspector takes it (a path, a folder or a URL) and tears down servers on exit."""


@dataclass(frozen=True)
class HostileCase:
    """A hand-made hostile input and the commands run on it.

    ``commands`` are ``inspector`` argument lists with ``{target}`` (the built input)
    and ``{out}`` (a fresh output path) placeholders, e.g. ``("verify", "--json",
    "{target}")``; the runner adds ``python -m inspector`` and runs each in its own
    process.  A command passes when it ends (no signal, no hang) within
    ``time_limit_s`` with peak RSS under ``rss_limit_mb``, prints no Python traceback,
    its stdout lines are each under ``max_line_bytes``, no byte string of
    ``forbidden_output`` appears in its stdout or stderr, its exit status is in
    ``exit_codes``, and, for a ``verify --json`` command, every code of
    ``expect_codes`` is among its findings' codes.  With ``interrupt_after_s``, each
    command gets SIGINT (Ctrl-C) that many seconds after it starts, and
    ``time_limit_s`` still bounds the whole run.
    """

    name: str
    area: str
    build: Builder
    commands: tuple[tuple[str, ...], ...]
    expect_codes: frozenset[str] = frozenset()
    forbidden_output: tuple[bytes, ...] = ()
    exit_codes: frozenset[int] = frozenset({0, 1})
    time_limit_s: float = 60.0
    rss_limit_mb: float = 500.0
    max_line_bytes: int = 2_000_000
    description: str = ""
    interrupt_after_s: float | None = None
    only_scales: frozenset[str] = field(default_factory=lambda: frozenset({"small", "full"}))


def static_target(make: Callable[[Path, Scale], Path]) -> Builder:
    """A :data:`Builder` for inputs that are plain files or folders (no server).

    ``make(folder, scale)`` writes the input under ``folder`` and returns its path.
    """
    from contextlib import contextmanager

    @contextmanager
    def build(folder: Path, scale: Scale) -> Iterator[str]:
        yield str(make(folder, scale))

    return build
