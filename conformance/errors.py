"""The root of every exception the suite raises on purpose.

``except ConformanceError`` catches what the suite reports about its inputs — a case
file that does not load, a target spec that names nothing runnable, a request or a
recorded response a wire cannot read — and nothing else: a bug in the suite still
surfaces as the exception it is.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class ConformanceError(Exception):
    """Something the suite was given (a file, a spec, a body) is not usable."""


def close_to(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known names close to a mistyped one, else ``""``:
    an unknown wire, capability, case id or attribute is nearly always a typo."""
    matches = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.6)
    if not matches:
        return ""
    return " (did you mean " + " or ".join(repr(m) for m in matches) + "?)"


def unknown_names(kind: str, names: Iterable[str], known: Iterable[str]) -> str | None:
    """``unknown wire anthropic (did you mean 'anthropic-messages'?); known: …`` for
    the names not in ``known``, or ``None`` when every name is known."""
    vocabulary = sorted(set(known))
    unknown = sorted(set(names) - set(vocabulary))
    if not unknown:
        return None
    each = ", ".join(f"{name}{close_to(name, vocabulary)}" for name in unknown)
    return f"unknown {kind} {each}; known: {', '.join(vocabulary)}"
