"""The OpenAI Responses wire, ``POST /v1/responses``.

Four jobs: render a scripted turn as OpenAI sends it (the semantic SSE event stream, or
the JSON response object), parse a request body into the neutral view, validate it with
the rules of the rule catalogue (``docs/rules.md``) section B, answering with OpenAI's real error
texts and error body (``{"error": {"message", "type", "param", "code"}}``), and read a
recorded answer back into a scripted turn.

The wire is stateful: with ``store`` on (OpenAI's default) a request may continue a
stored response (``previous_response_id``) or name stored items by id (``item_reference``,
a reasoning item without ``encrypted_content``).  The parse expands those references
with what the provider served before, so the neutral view and ``history_items`` are the
conversation the provider sees, not the delta the client sent.  The ids the provider
mints (``resp_``, ``rs_``, ``msg_``, ``fc_``) are derived in one place, ``_minted.Minted``,
used by render and by the expansion alike.

The modules of the wire contract (``conformance/wires/_assembly.py``), one job each:

``route``     where a request goes (``/v1/responses``)
``parse``     request body -> neutral view (references expanded)
``render``    scripted response -> SSE event stream / JSON response object; OpenAI's
              error body (``{"error": {"message", "type", "param", "code"}}``)
``rules``     the predicates, each registered in ``BOOK`` with the catalogue checks it judges
``validate``  the book run over the expanded input
``read``      recorded response -> scripted turn
``realism``   the predicates of the case linter's realism walk
``wire``      the wire's own data (``WIRE`` is assembled from them all)

Private helpers: ``_ids`` (an item's id as the wire reads it), ``_view`` (the request
view plus its state fields), ``_minted`` (the ids and output items the provider mints),
``_state`` (what the provider stored, ``StoredResponses``, and the input expanded with
it, ``ExpandedInput``), ``_kinds`` (every item type, by the side of the conversation it
belongs to), ``_content`` (message content).
"""

from __future__ import annotations

from conformance.wires._assembly import assemble
from conformance.wires._openai_responses._view import ResponsesRequestView
from conformance.wires._openai_responses.rules import (
    CALL_FOR_OUTPUT,
    CHAT_TOOL_CALLS,
    DUPLICATE_ITEM,
    ENCRYPTED_CONTENT_VALID,
    FIELD_REQUIRED,
    INVALID_ROLE,
    ITEM_ID_PREFIX,
    ITEM_NOT_FOUND,
    OUTPUT_FOR_CALL,
    PREVIOUS_RESPONSE_NOT_FOUND,
    PREVIOUS_WITH_CONVERSATION,
    REASONING_FOLLOWED,
    REASONING_REQUIRED,
    REASONING_SUMMARY,
    RULES,
)

WIRE = assemble(__name__)

__all__ = [
    "CALL_FOR_OUTPUT",
    "CHAT_TOOL_CALLS",
    "DUPLICATE_ITEM",
    "ENCRYPTED_CONTENT_VALID",
    "FIELD_REQUIRED",
    "INVALID_ROLE",
    "ITEM_ID_PREFIX",
    "ITEM_NOT_FOUND",
    "OUTPUT_FOR_CALL",
    "PREVIOUS_RESPONSE_NOT_FOUND",
    "PREVIOUS_WITH_CONVERSATION",
    "REASONING_FOLLOWED",
    "REASONING_REQUIRED",
    "REASONING_SUMMARY",
    "RULES",
    "WIRE",
    "ResponsesRequestView",
]
