"""How deep a JSON text nests, measured without parsing it.

Python's JSON parser and every walk over its result recurse once per level: a body
nested a thousand levels deep ends in a ``RecursionError`` far from where it came in.
The suite measures the depth first, at C speed (strings removed by a regular
expression, then only the brackets counted), and refuses what nests deeper than
``MAX_DEPTH`` with an error that says so.
"""

from __future__ import annotations

import re
from itertools import accumulate

#: The deepest a request or response body may nest.  Real bodies nest about a dozen
#: levels (tool arguments a few more); the walks downstream stay far below Python's
#: recursion limit at this depth.
MAX_DEPTH = 128

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def depth(text: bytes | str) -> int:
    """The deepest bracket nesting of a JSON text (0 for a scalar); brackets inside
    strings do not count.  Malformed text gets a number too: its parser names the
    fault."""
    raw = text.encode("utf-8", errors="replace") if isinstance(text, str) else text
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(accumulate(_STEP[b] for b in brackets))


def too_deep(text: bytes | str) -> str | None:
    """Why ``text`` cannot be read (it nests deeper than ``MAX_DEPTH``), or ``None``."""
    found = depth(text)
    if found <= MAX_DEPTH:
        return None
    return f"the JSON nests {found} levels deep, deeper than the {MAX_DEPTH} the suite reads"
