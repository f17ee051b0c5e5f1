"""The Responses rules (``reference/wire-rules.md`` section B), in check order, and the
error body OpenAI answers a broken one with:
``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.http import HttpResponse, json_response
from conformance.wires import values
from conformance.wires.base import Rule, RuleViolation


@dataclass(frozen=True)
class ResponsesRule(Rule):
    """A rule whose error body also carries OpenAI's ``code`` and ``param``.

    ``param`` is a template: ``"{at}"`` puts the violation's location there (OpenAI's
    ``input[3].role``); ``None`` writes ``null``.
    """

    code: str | None = None
    param: str | None = "input"


FIELD_REQUIRED = ResponsesRule(
    id="openai-responses/field-required",
    ref="wire-rules §B (request shape)",
    statement=(
        "A request names its `model`, and each input item carries the keys its type needs "
        "(a reasoning item an `id` when it has no `encrypted_content`)."
    ),
    source=(
        "Responses API reference (required parameters); text and code as OpenAI answers them "
        "in openai/codex#6926 and #6725 (`Missing required parameter: 'input[42].id'.`)"
    ),
    error="Missing required parameter: '{at}'.",
    code="missing_required_parameter",
    param="{at}",
)
REASONING_SUMMARY = ResponsesRule(
    id="openai-responses/reasoning-summary-required",
    ref="wire-rules §B24",
    statement="A replayed reasoning item keeps its `summary` (`[]` when empty), each part typed.",
    source=(
        "wire-rules rule 24 (its quoted text is a Responses-spec provider's, newo-ether/Agora"
        "#141); OpenAI's own text and code: GizClaw/flowcraft PR#528 (missing `summary` is "
        "`missing_required_parameter`), 64bit/async-openai#467 (`input[1].summary[0].type`)"
    ),
    error="Missing required parameter: '{at}'.",
    code="missing_required_parameter",
    param="{at}",
)
INVALID_ROLE = ResponsesRule(
    id="openai-responses/invalid-role",
    ref="wire-rules §B28",
    statement=(
        "A message item's role is assistant, system, developer or user: Chat-style `tool` "
        "messages are function_call_output items on this wire."
    ),
    source=(
        "wire-rules rule 28: Chevey339/kelivo PR#281; anomalyco/opencode#10803 (exact text); "
        "`param`/`code` follow OpenAI's invalid-value errors (not quoted in the catalogue)"
    ),
    error=(
        "Invalid value: '{role}'. Supported values are: 'assistant', 'system', 'developer', "
        "and 'user'."
    ),
    code="invalid_value",
    param="{at}",
)
CHAT_TOOL_CALLS = ResponsesRule(
    id="openai-responses/chat-tool-calls",
    ref="wire-rules §B28",
    statement="A message item has no Chat-style `tool_calls`: calls are function_call items.",
    source=(
        "wire-rules rule 28 (Chat-style history must be converted); the text is OpenAI's "
        "unknown-parameter form as openai/openai-go#392 shows it (not quoted in the catalogue)"
    ),
    error="Unknown parameter: '{at}'.",
    code="unknown_parameter",
    param="{at}",
)
ITEM_ID_PREFIX = ResponsesRule(
    id="openai-responses/item-id-prefix",
    ref="wire-rules §B28",
    statement=(
        "An input item's id has its type's prefix: `fc` for function_call (never the "
        "`call_` id or a `msg_` id), `msg` for message, `rs` for reasoning."
    ),
    source=(
        "wire-rules rule 28: continuedev/continue PR#11785; full text in nodetool-ai/nodetool "
        "PR#4252 and jlcodes99/cockpit-tools#2090; an empty id is tolerated (stacklok/mecatl"
        "#406); `code` inferred, not quoted"
    ),
    error="Invalid '{at}': '{id}'. Expected an ID that begins with '{prefix}'.",
    code="invalid_value",
    param="{at}",
)
PREVIOUS_RESPONSE_NOT_FOUND = ResponsesRule(
    id="openai-responses/previous-response-not-found",
    ref="wire-rules §B25",
    statement="`previous_response_id` names a response this provider stored (`store` on).",
    source=(
        "maximhq/bifrost#2441 (text and code `previous_response_not_found`, with `store` "
        "off); not quoted in the catalogue"
    ),
    error="Previous response with id '{id}' not found.",
    status=404,
    code="previous_response_not_found",
    param="previous_response_id",
)
ITEM_NOT_FOUND = ResponsesRule(
    id="openai-responses/item-not-found",
    ref="wire-rules §B25",
    statement=(
        "An item sent by id only (an item_reference, or a reasoning item without "
        "`encrypted_content`) names an item the provider stored; with `store: false` none is."
    ),
    source=(
        "wire-rules rule 25: anomalyco/opencode#7724, #8987, PR#2480; can1357/oh-my-pi#41; "
        "router-for-me/CLIProxyAPI#2381 (status, param and code)"
    ),
    error=(
        "Item with id '{id}' not found. Items are not persisted when `store` is set to false. "
        "Try again with `store` set to true, or remove this item from your input."
    ),
    status=404,
)
ENCRYPTED_CONTENT_VALID = ResponsesRule(
    id="openai-responses/encrypted-content-valid",
    ref="wire-rules §B22, §B30",
    statement=(
        "A reasoning item's `encrypted_content` is one this provider minted, byte for byte: "
        "not the incomplete value of `output_item.added`, not joined, not foreign."
    ),
    source=(
        "wire-rules rules 22 and 30: Wei-Shaw/sub2api#3138, #2863; pydantic/pydantic-ai#4608; "
        "edison7009/EchoBird#255; openai/codex#8145 (param and code)"
    ),
    error=(
        "The encrypted content {abbreviated} could not be verified. Reason: Encrypted content "
        "could not be decrypted or parsed."
    ),
    code="invalid_encrypted_content",
    param=None,
)
REASONING_FOLLOWED = ResponsesRule(
    id="openai-responses/reasoning-followed",
    ref="wire-rules §B26",
    statement=(
        "A reasoning item is immediately followed by the item it produced (a message or "
        "function_call; the very one the provider minted after it, when that carries its "
        "id), or by further reasoning items whose run ends in one (seed §108)."
    ),
    source=(
        "wire-rules rule 26: openai/codex#1227; vercel/ai#7099; continuedev/continue#8933 "
        "(param and code); openclaw/openclaw#1158"
    ),
    error="Item '{id}' of type 'reasoning' was provided without its required following item.",
)
REASONING_REQUIRED = ResponsesRule(
    id="openai-responses/reasoning-required",
    ref="wire-rules §B26, §B27",
    statement=(
        "A message or function_call carrying the id the provider minted travels right after "
        "the reasoning item that produced it."
    ),
    source=(
        "wire-rules rules 26 and 27: openai/codex#33044; cline/cline#12242, mastra-ai/mastra"
        "#8738, continuedev/continue#10018 (the function_call text, param and code)"
    ),
    error=(
        "Item '{id}' of type '{type}' was provided without its required 'reasoning' item: "
        "'{reasoning}'."
    ),
)
CALL_FOR_OUTPUT = ResponsesRule(
    id="openai-responses/call-for-output",
    ref="wire-rules §B28",
    statement="Every function_call_output answers a function_call earlier in the input.",
    source=(
        "wire-rules rule 28: continuedev/continue#10092 (text, param and code); "
        "leookun/cursor-byok#307; microsoft/vscode#320060"
    ),
    error="No tool call found for function call output with call_id {call_id}.",
)
OUTPUT_FOR_CALL = ResponsesRule(
    id="openai-responses/output-for-call",
    ref="wire-rules §B28 (the converse)",
    statement="Every function_call in the input is answered by a later function_call_output.",
    source=(
        "not quoted in the catalogue: smallmain/vscode-unify-chat-provider#40 (`400 No tool "
        "output found for function call call_eM9v….`), jlcodes99/cockpit-tools#1234; param "
        "and code assumed as for rule 28"
    ),
    error="No tool output found for function call {call_id}.",
)

RULES: tuple[Rule, ...] = (
    FIELD_REQUIRED,
    REASONING_SUMMARY,
    INVALID_ROLE,
    CHAT_TOOL_CALLS,
    ITEM_ID_PREFIX,
    PREVIOUS_RESPONSE_NOT_FOUND,
    ITEM_NOT_FOUND,
    ENCRYPTED_CONTENT_VALID,
    REASONING_FOLLOWED,
    REASONING_REQUIRED,
    CALL_FOR_OUTPUT,
    OUTPUT_FOR_CALL,
)


def error_answer(violation: RuleViolation) -> HttpResponse:
    """OpenAI's error answer: a ``ResponsesRule`` fills in its own ``code`` and ``param``;
    any other rule names the violation's location as ``param``."""
    rule = violation.rule
    if isinstance(rule, ResponsesRule):
        param = None if rule.param is None else rule.param.format(at=violation.at)
        code = rule.code
    else:
        param, code = violation.at, None
    error = {
        "message": violation.message,
        "type": rule.error_type,
        "param": param,
        "code": code,
    }
    request_id = "req_" + values.digest("error", rule.id, violation.message)[:32]
    return json_response(rule.status, {"error": error}, {"x-request-id": request_id})
