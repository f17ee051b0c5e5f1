"""The Anthropic Messages wire, ``POST /v1/messages``.

The modules of the wire contract (``conformance/wires/_assembly.py``), one job each:
``route`` (where a request goes), ``parse`` (a request body into the neutral view),
``render`` (a scripted turn as Anthropic sends it, SSE events or the JSON message, and
its error answer), ``rules`` (the rules of the rule catalogue (``docs/rules.md``) section A with
Anthropic's real error texts, each bound to its check in ``BOOK``), ``validate`` (the book
run over ``_raw.CheckedRequest``), ``read`` (a recorded answer back into a scripted
turn), ``realism`` (the predicates of the case linter's realism walk) and ``wire`` (the
wire's own data; ``WIRE`` is assembled from them all).  Private helpers: ``_blocks``,
``_raw``, ``_stops``, ``_view``.

Rules read the raw body, not the neutral view: Anthropic's errors point at the body's own
message and block indices, and some rules turn on keys the neutral view cannot hold (a
``thinking`` block without its ``signature`` key, for one).
"""

from conformance.wires._anthropic_messages._view import AnthropicRequestView
from conformance.wires._anthropic_messages.rules import (
    BUDGET_BELOW_MAX_TOKENS,
    FIELD_REQUIRED,
    FINAL_BLOCK_THINKING,
    FORCED_TOOL_CHOICE,
    LATEST_IMMUTABLE,
    LEADING_THINKING,
    MESSAGE_NONEMPTY,
    PREFILL_TRAILING_WHITESPACE,
    PREFILL_WITH_THINKING,
    RULES,
    SIGNATURE_VALID,
    TEXT_NONEMPTY,
    TEXT_NONWHITESPACE,
    THINKING_OFF_FINAL_ASSISTANT,
    THINKING_SIGNATURE_REQUIRED,
    THINKING_TEXT_REQUIRED,
    TOOL_INPUT_OBJECT,
    TOOL_RESULT_MATCHED,
    TOOL_RESULTS_FIRST,
    TOOL_USE_ANSWERED,
    UNKNOWN_BLOCK_TYPE,
    USER_NONEMPTY,
)
from conformance.wires._assembly import assemble

WIRE = assemble(__name__)

__all__ = [
    "BUDGET_BELOW_MAX_TOKENS",
    "FIELD_REQUIRED",
    "FINAL_BLOCK_THINKING",
    "FORCED_TOOL_CHOICE",
    "LATEST_IMMUTABLE",
    "LEADING_THINKING",
    "MESSAGE_NONEMPTY",
    "PREFILL_TRAILING_WHITESPACE",
    "PREFILL_WITH_THINKING",
    "RULES",
    "SIGNATURE_VALID",
    "TEXT_NONEMPTY",
    "TEXT_NONWHITESPACE",
    "THINKING_OFF_FINAL_ASSISTANT",
    "THINKING_SIGNATURE_REQUIRED",
    "THINKING_TEXT_REQUIRED",
    "TOOL_INPUT_OBJECT",
    "TOOL_RESULTS_FIRST",
    "TOOL_RESULT_MATCHED",
    "TOOL_USE_ANSWERED",
    "UNKNOWN_BLOCK_TYPE",
    "USER_NONEMPTY",
    "WIRE",
    "AnthropicRequestView",
]
