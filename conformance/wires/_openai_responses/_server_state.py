"""The server-side state a Responses request continues, and whether a recording shows it.

A Responses request can rest on what the provider stored earlier: ``previous_response_id``
names a stored response, and ``conversation`` names a Conversations API object whose items
the provider keeps.  When the response a request chains on was answered before the
recording began (or by another session), or the request continues a stored conversation,
the provider's memory holds what the recording never shows; judging the request against
the recording alone would refuse what the provider accepted.  The audit
(``conformance._recording.audit``) asks this module and leaves such a request unjudged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from conformance.wires._openai_responses._ids import nonempty_id
from conformance.wires.context import RequestView


def _conversation_id(raw: object) -> str | None:
    """``conversation`` is an id, or an object with one (``{"id": "conv_…"}``)."""
    if isinstance(raw, dict):
        raw = raw.get("id")
    return nonempty_id(raw)


def _returned(response_id: str, bodies: Sequence[bytes]) -> bool:
    """Whether one of the earlier answers is the response ``response_id`` (its ``id``
    field, in a JSON body or in a stream's events)."""
    pattern = re.compile(rb'"id"\s*:\s*"' + re.escape(response_id.encode()) + rb'"')
    return any(pattern.search(body) for body in bodies)


def unseen_state(view: RequestView, bodies: Sequence[bytes]) -> str | None:
    """Why the request rests on state that the earlier answers ``bodies`` do not show,
    or ``None`` when it rests on none they do not show."""
    conversation = _conversation_id(view.raw.get("conversation"))
    if conversation is not None:
        return (
            f"continues the stored conversation {conversation}, whose items the provider "
            "keeps server-side"
        )
    previous = nonempty_id(view.raw.get("previous_response_id"))
    if previous is not None and not _returned(previous, bodies):
        return (
            f"chains on the stored response {previous}, which was answered before the "
            "recording began"
        )
    return None
