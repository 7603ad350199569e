"""Parse one small JSON member of an AUCX archive strictly and safely.

``manifest.json``, ``experiment.json`` and ``provenance.json`` are RFC 8259
JSON encoded as UTF-8 (AUCX on-disk notes §1).  Python's :func:`json.loads`
is more lenient and less robust than that, so :func:`parse_json_member`:

* rejects ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON values, RFC 8259
  §6) and numbers that overflow to an infinite float (``1e999``), unless
  asked to read them as Python (and openauc) does;
* turns every parse failure into a message instead of an exception:
  malformed JSON, bytes that are not UTF-8, integers longer than Python's
  digit limit (``ValueError``), nesting deep enough to exhaust the
  interpreter (``RecursionError``), memory exhaustion (``MemoryError``);
* rejects nesting deeper than :data:`MAX_DEPTH` levels (AUCX members are
  about four levels deep; deeper values would only strain every later
  consumer: display trees, ``verify --json``);
* rejects strings (values or keys) that cannot be encoded as UTF-8, i.e.
  lone surrogates written as ``\\ud800`` escapes (RFC 8259 §8.2: such text
  is not interoperable and cannot be written back out as UTF-8).

So a value it returns contains only dicts, lists, strings that are valid
Unicode, floats (finite unless the caller asked for Python's reading of
``NaN`` and ``Infinity``), ints, bools and None.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: Deepest nesting of arrays/objects accepted (the AUCX members use ~4).
MAX_DEPTH = 64
# a \uD800-\uDFFF escape: the only way a lone surrogate gets into parsed text
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class _Rejected(ValueError):
    """A JSON text that parses in Python but is not acceptable JSON."""


def _no_constant(token: str) -> Any:
    raise _Rejected(f"{token} is not a JSON value (RFC 8259 §6 has no NaN or Infinity)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Rejected(f"the number {text[:40]}{'...' if len(text) > 40 else ''} "
                        "overflows a double (RFC 8259 §6: numbers outside the double range "
                        "are not interoperable)")
    return value


def _check_tree(value: Any) -> str | None:
    """Why a parsed value is unacceptable (too deep, lone surrogates), or None.

    Iterative, so it cannot exhaust the stack; linear in the value's size.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            texts: Any = (item,)
        elif isinstance(item, dict):
            if depth > MAX_DEPTH:
                return f"nesting is deeper than {MAX_DEPTH} levels"
            texts = item.keys()
            stack.extend((v, depth + 1) for v in item.values()
                         if isinstance(v, (str, dict, list)))
        elif isinstance(item, list):
            if depth > MAX_DEPTH:
                return f"nesting is deeper than {MAX_DEPTH} levels"
            stack.extend((v, depth + 1) for v in item if isinstance(v, (str, dict, list)))
            continue
        else:
            continue
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                return (f"the string {text[:40]!r} contains a lone surrogate "
                        f"(\\u{ord(text[exc.start]):04x}), which is not Unicode text "
                        "(RFC 8259 §8.2)")
    return None


def _lenient(notes: list[str]) -> tuple[Any, Any]:
    """``parse_constant`` / ``parse_float`` that read NaN, Infinity and overflowing
    numbers as Python's :mod:`json` does, noting the first one in ``notes``."""
    def note(text: str) -> None:
        if not notes:
            shown = text if len(text) <= 40 else text[:40] + "..."
            notes.append(f"{shown} is not a JSON number (RFC 8259 §6); it is read as "
                         f"{float(text)!r}, as Python's json module and openauc read it")

    def constant(token: str) -> float:
        note(token)
        return float(token)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            note(text)
        return value
    return constant, number


def parse_json_member(raw: bytes, notes: list[str] | None = None) -> tuple[Any, str | None]:
    """``(value, None)`` for acceptable JSON, ``(None, reason)`` otherwise.

    ``raw`` is the member's bytes (UTF-8, no byte order mark).  Never raises
    for bad input; ``reason`` is one sentence fit for "<member> is not valid
    JSON: <reason>".  Rules: RFC 8259 (§6 numbers, §8.1 UTF-8, §8.2 Unicode
    strings) and AUCX on-disk notes §1 (members are UTF-8 JSON).

    With ``notes`` (a list), ``NaN``, ``Infinity``, ``-Infinity`` and numbers
    overflowing a double are read as the non-finite floats Python's
    :func:`json.loads` (and so openauc 0.1.0a1's loader) makes of them, and one
    sentence saying so is appended to ``notes``; without it they are refused.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"it is not UTF-8 text ({exc})"
    constant, number = ((_no_constant, _finite_float) if notes is None
                        else _lenient(notes))
    try:
        value = json.loads(text, parse_constant=constant, parse_float=number)
    except _Rejected as exc:
        return None, str(exc)
    except json.JSONDecodeError as exc:
        return None, str(exc)
    except RecursionError:
        return None, "its arrays/objects are nested too deeply to parse"
    except MemoryError:
        return None, "parsing it ran out of memory"
    except ValueError as exc:  # e.g. integers beyond sys.get_int_max_str_digits()
        return None, f"it holds a value Python cannot parse: {exc}"
    finally:
        del text
    # the walk is skipped when the bytes cannot hold a fault it looks for
    deep = raw.count(b"[") + raw.count(b"{") > MAX_DEPTH
    why = _check_tree(value) if deep or _SURROGATE_ESCAPE.search(raw) else None
    if why is not None:
        return None, why
    return value, None
