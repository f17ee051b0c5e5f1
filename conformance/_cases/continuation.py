"""The responses that answer a continuation's own tool loop.

A continuation (``if_continued``) may call a tool; the answer to its tool results is then
a plain response later in the same turn. A target that ended the cut turn never asks for
either, so both are passed over together (the provider skips them when the next prompt
arrives; the transcript counts them as used)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Only the parameter's type: the transcript imports this module, and a command
    # target's helper imports the transcript without the case schema's models.
    from conformance._cases.schema import Case


def continuation_loops(case: Case) -> frozenset[int]:
    """Indices (in ``case.given.responses``) of the plain responses that follow an
    ``if_continued`` response in the same turn."""
    found: set[int] = set()
    index = 0
    for turn in case.given.turns:
        continued = False
        for response in turn.responses:
            continued = continued or response.if_continued
            if continued and not (response.if_continued or response.if_retried):
                found.add(index)
            index += 1
    return frozenset(found)
