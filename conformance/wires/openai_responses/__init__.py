"""The OpenAI Responses wire, ``POST /v1/responses``.

Four jobs: render a scripted turn as OpenAI sends it (the semantic SSE event stream, or
the JSON response object), parse a request body into the neutral view, validate it with
the rules of ``reference/wire-rules.md`` section B, answering with OpenAI's real error
texts and error body (``{"error": {"message", "type", "param", "code"}}``), and read a
recorded answer back into a scripted turn.

The wire is stateful: with ``store`` on (OpenAI's default) a request may continue a
stored response (``previous_response_id``) or name stored items by id (``item_reference``,
a reasoning item without ``encrypted_content``).  The parse expands those references
with what the provider served before, so the neutral view and ``history_items`` are the
conversation the provider sees, not the delta the client sent.  The ids the provider
mints (``resp_``, ``rs_``, ``msg_``, ``fc_``) are derived in one place, ``minted.Minted``,
used by render and by the expansion alike.

Modules, one job each:

``ids``       an item's id as the wire reads it (an empty one counts as none)
``view``      ``ResponsesRequestView``: the neutral view plus the request's state fields
``minted``    the ids and complete output items the provider mints for a response
``state``     what the provider remembers (``Book``) and the input expanded with it
``render``    scripted response -> SSE event stream / JSON response object
``parse``     request body -> neutral view (references expanded)
``rules``     the rules (``ResponsesRule`` constants, ``RULES``) and OpenAI's error body
``checks``    the validation that applies the rules
``read``      recorded response -> scripted turn
``realism``   the lint of case shapes OpenAI never produces
``wire``      ``OpenAIResponses``: thin methods that call the modules above
"""

from __future__ import annotations

from conformance.wires.openai_responses._rule import ResponsesRule
from conformance.wires.openai_responses._view import ResponsesRequestView
from conformance.wires.openai_responses.rules import (
    CALL_FOR_OUTPUT,
    CHAT_TOOL_CALLS,
    ENCRYPTED_CONTENT_VALID,
    FIELD_REQUIRED,
    INVALID_ROLE,
    ITEM_ID_PREFIX,
    ITEM_NOT_FOUND,
    OUTPUT_FOR_CALL,
    PREVIOUS_RESPONSE_NOT_FOUND,
    REASONING_FOLLOWED,
    REASONING_REQUIRED,
    REASONING_SUMMARY,
    RULES,
)
from conformance.wires.openai_responses.wire import WIRE

__all__ = [
    "CALL_FOR_OUTPUT",
    "CHAT_TOOL_CALLS",
    "ENCRYPTED_CONTENT_VALID",
    "FIELD_REQUIRED",
    "INVALID_ROLE",
    "ITEM_ID_PREFIX",
    "ITEM_NOT_FOUND",
    "OUTPUT_FOR_CALL",
    "PREVIOUS_RESPONSE_NOT_FOUND",
    "REASONING_FOLLOWED",
    "REASONING_REQUIRED",
    "REASONING_SUMMARY",
    "RULES",
    "WIRE",
    "ResponsesRequestView",
    "ResponsesRule",
]
