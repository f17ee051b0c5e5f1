"""The request rules of the rule catalogue (``docs/rules.md``) section D, each with Google's real
error text, and the check that applies each, registered in ``BOOK`` in the order Gemini
checks them (``RULES`` is derived from it; ``validate`` runs the book).

Rules read the raw ``contents``: Gemini's errors name contents by index, and the
signature rules turn on where a ``thoughtSignature`` sits (a part-level sibling of
``functionCall``, or nested inside it), which the neutral view cannot tell apart.
"""

from __future__ import annotations

from collections.abc import Iterator

from conformance.wires import values
from conformance.wires.base import Rule, RuleViolation
from conformance.wires.gemini._checked import CheckedRequest
from conformance.wires.gemini._fields import get
from conformance.wires.gemini._signatures import part_signature
from conformance.wires.gemini._view import NAME
from conformance.wires.relayed_errors import (
    GEMINI_CALL_SIGNATURE_MISSING,
    GEMINI_SIGNATURE_CORRUPTED,
)
from conformance.wires.rulebook import RuleBook
from conformance.wires.thought_signatures import canonical, decodes, is_sentinel

CONTENTS_REQUIRED = Rule(
    id="gemini/contents-required",
    ref="rules §D (request shape)",
    statement="A request carries a non-empty `contents` list.",
    source=(
        "GenerateContentRequest reference (contents is required); the text as the API "
        "answers it in langchain-ai/langchain-google#1393 and other public reports"
    ),
    error="* GenerateContentRequest.contents: contents is not specified\n",
    error_type="INVALID_ARGUMENT",
)
PARTS_REQUIRED = Rule(
    id="gemini/parts-required",
    ref="rules §D (request shape)",
    statement="Every content has at least one part.",
    source=(
        "Content reference (parts); the text as the API answers it in public reports of "
        "history converters that emit empty contents (not in the rule catalogue)"
    ),
    error="* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty.\n",
    error_type="INVALID_ARGUMENT",
)
VALID_ROLE = Rule(
    id="gemini/valid-role",
    ref="rules §D (request shape)",
    statement="A content's role, when given, is `user` or `model`.",
    source=(
        "Content reference ('Must be either user or model'); songquanpeng/one-api#1385, "
        "the-open-agent/openagent#1666"
    ),
    error="Please use a valid role: user, model.",
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_NOT_NESTED = Rule(
    id="gemini/signature-not-nested",
    ref="rule D40",
    statement=(
        "A thoughtSignature is a part-level sibling of functionCall, never a field inside it."
    ),
    source=(
        "rule 40: TanStack/ai PR#459 (nested placement); FunctionCall has no such "
        "field, so the body is refused before validation: text from flachesis/gemini-rust "
        "PR#70 and farion1231/cc-switch PR#6690"
    ),
    error=(
        'Invalid JSON payload received. Unknown name "{name}" at '
        "'contents[{i}].parts[{j}].function_call': Cannot find field."
    ),
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_BASE64 = Rule(
    id="gemini/signature-base64",
    ref="rule D40, §D44 (replay exactly as received)",
    statement="A thoughtSignature decodes as base64: the field holds bytes.",
    source=(
        "Part reference (thoughtSignature is bytes); reference/real-targets-howto.md "
        "(google-genai decodes it); the text as public reports quote it for cut or "
        "re-encoded signatures (not in the rule catalogue)"
    ),
    error=(
        "Invalid value at 'contents[{i}].parts[{j}].thought_signature' (TYPE_BYTES), "
        'Base64 decoding failed for "{value}"'
    ),
    error_type="INVALID_ARGUMENT",
)
CALL_TURN_PLACED = Rule(
    id="gemini/call-turn-placement",
    ref="rule D42",
    statement=(
        "A model content with function calls comes right after a user content or a "
        "function-response content."
    ),
    source="rule 42: google-gemini/gemini-cli#26486, #26956; lobehub/lobehub#7298",
    error=(
        "Please ensure that function call turn comes immediately after a user turn or after "
        "a function response turn."
    ),
    error_type="INVALID_ARGUMENT",
)
RESPONSE_TURN_PLACED = Rule(
    id="gemini/response-turn-placement",
    ref="rule D42",
    statement=(
        "A content with function responses comes right after a model content with function "
        "calls, or after such a content answering the same calls (no orphan responses)."
    ),
    source=(
        "rule 42 (orphan responses); the text, which the catalogue does not quote, from "
        "google-gemini/gemini-cli#14183, BerriAI/litellm#26755 and lobehub/lobehub#7298; "
        "parallel calls answered in consecutive contents, one response each, answered 200 "
        "(crewAIInc/crewAI's test_gemini_parallel_native_tool_calling cassettes)"
    ),
    error="Please ensure that function response turn comes immediately after a function call turn.",
    error_type="INVALID_ARGUMENT",
)
RESPONSE_COUNT = Rule(
    id="gemini/response-count",
    ref="rule D41, §D42",
    statement=(
        "The contents after a function-call turn that hold function responses (one, or a "
        "run of them) have as many functionResponse parts as the turn has functionCall "
        "parts (a cancelled call still gets one)."
    ),
    source=(
        "rule 42: google-gemini/gemini-cli#2347, #4217, #5443, #16543, #17208; "
        "microsoft/vscode#299295 (calls left unanswered); the run of consecutive response "
        "contents counted as one, answered 200 (crewAIInc/crewAI's "
        "test_gemini_parallel_native_tool_calling cassettes)"
    ),
    error=(
        "Please ensure that the number of function response parts is equal to the number of "
        "function call parts of the function call turn."
    ),
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_REQUIRED = Rule(
    id="gemini/function-call-signature",
    ref="rule D40, §D41, §D45",
    statement=(
        "In the current turn (the contents after the last user content that is not only "
        "function responses), the first functionCall part of each model content the provider "
        "signed carries a part-level thoughtSignature, or one of the two documented dummy "
        "signatures."
    ),
    source=(
        "rule 40, 41, 45: thought-signatures doc (only the current turn is "
        "validated, first functionCall of each step); spring-projects/spring-ai PR#4977. "
        "`position` is the 1-based index of the model content in `contents`: the first call "
        "of a conversation is reported at position 2 (manthanabc/paws#103, "
        "codedogQBY/ReadAny#225), and Vertex's variant names the same content 'the 2. content "
        "block' (junjiem/dify-plugin-agent-mcp_sse#143)"
    ),
    error=GEMINI_CALL_SIGNATURE_MISSING,
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_MINTED = Rule(
    id="gemini/signature-corrupted",
    ref="rule D46, §C38, F7",
    statement=(
        "A thoughtSignature on a functionCall part decodes to the bytes of one this provider "
        "minted (either base64 alphabet, padded or not; the two documented dummy "
        "signatures, literal or base64, aside).  Signatures on text and thought parts are "
        "not enforced (F7)."
    ),
    source=(
        "rule 38, 46 and F7: anomalyco/opencode#4832, mastra-ai/mastra#23433, "
        "google-gemini/gemini-cli#13467.  The field is bytes (Part reference), so any base64 "
        "spelling of the minted bytes is accepted.  The dummies "
        "`skip_thought_signature_validator` and `context_engineering_is_the_way_to_go` "
        "(thought-signatures doc, FAQ) are accepted as the literal and as the base64 of "
        "their bytes, the form real clients send and the API answered 200 (pydantic/"
        "pydantic-ai tests/models/cassettes/test_google/"
        "test_thinking_with_tool_calls_from_other_model.yaml, "
        "test_google_model_structured_output.yaml)"
    ),
    error=GEMINI_SIGNATURE_CORRUPTED,
    error_type="INVALID_ARGUMENT",
)


BOOK: RuleBook[CheckedRequest] = RuleBook(NAME)


@BOOK.checks(CONTENTS_REQUIRED)
def _contents_required(check: CheckedRequest) -> Iterator[RuleViolation]:
    contents = get(check.view.raw, "contents")
    if not isinstance(contents, list) or not contents:
        yield CONTENTS_REQUIRED.violated("contents")


@BOOK.checks(PARTS_REQUIRED)
def _parts_required(check: CheckedRequest) -> Iterator[RuleViolation]:
    raw = get(check.view.raw, "contents")
    for i, content in enumerate(raw if isinstance(raw, list) else ()):
        parts = get(content, "parts") if isinstance(content, dict) else None
        if not isinstance(parts, list) or not parts:
            yield PARTS_REQUIRED.violated(f"contents[{i}].parts", i=i)


@BOOK.checks(VALID_ROLE)
def _valid_role(check: CheckedRequest) -> Iterator[RuleViolation]:
    for content in check.contents:
        if content.role not in (None, "", "user", "model"):
            yield VALID_ROLE.violated(f"contents[{content.index}].role")


@BOOK.checks(SIGNATURE_NOT_NESTED)
def _nested_signature(check: CheckedRequest) -> Iterator[RuleViolation]:
    for content in check.contents:
        for j, part in content.calls:
            call = get(part, "functionCall")
            for name in ("thoughtSignature", "thought_signature"):
                if name in call:
                    at = f"contents[{content.index}].parts[{j}].function_call"
                    yield SIGNATURE_NOT_NESTED.violated(at, name=name, i=content.index, j=j)


@BOOK.checks(SIGNATURE_BASE64)
def _signature_base64(check: CheckedRequest) -> Iterator[RuleViolation]:
    for content in check.contents:
        for j, part in content.parts:
            value = part_signature(part)
            if value is not None and not decodes(value):
                at = f"contents[{content.index}].parts[{j}]"
                yield SIGNATURE_BASE64.violated(at, i=content.index, j=j, value=value)


@BOOK.checks(CALL_TURN_PLACED)
def _call_turn_placed(check: CheckedRequest) -> Iterator[RuleViolation]:
    for position, content in enumerate(check.contents):
        before = check.at(position - 1)
        if content.call_turn and (before is None or before.model):
            yield CALL_TURN_PLACED.violated(f"contents[{content.index}]")


@BOOK.checks(RESPONSE_TURN_PLACED)
def _response_turn_placed(check: CheckedRequest) -> Iterator[RuleViolation]:
    """A response content follows a call turn, or a response content that does (the run
    of contents answering one call turn: Gemini joins consecutive contents of a role)."""
    placed = False
    for position, content in enumerate(check.contents):
        before = check.at(position - 1)
        if not content.response_turn:
            placed = False
            continue
        placed = before is not None and (before.call_turn or (before.response_turn and placed))
        if not placed:
            yield RESPONSE_TURN_PLACED.violated(f"contents[{content.index}]")


@BOOK.checks(RESPONSE_COUNT)
def _response_count(check: CheckedRequest) -> Iterator[RuleViolation]:
    """The responses of the run of response contents after a call turn, counted
    together.  A call turn that ends the request has no answer yet, so nothing is asked
    of it."""
    for position, content in enumerate(check.contents):
        after = check.at(position + 1)
        if not content.call_turn or after is None:
            continue
        answered = 0
        following = position + 1
        while (run := check.at(following)) is not None and run.response_turn:
            answered += len(run.responses)
            following += 1
        if answered != len(content.calls):
            yield RESPONSE_COUNT.violated(f"contents[{after.index}]")


@BOOK.checks(SIGNATURE_REQUIRED)
def _signature_required(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rules 40/41/45 on the current turn only; a step the provider did not sign (an
    unsigned script, a call it never served) is not asked for one."""
    starts = [k for k, content in enumerate(check.contents) if content.prompt]
    current = check.contents[starts[-1] + 1 :] if starts else check.contents
    signed = check.signed_calls()
    for content in current:
        if not content.call_turn or not check.call_ids(content) & signed:
            continue
        j, first = content.calls[0]
        if part_signature(first) is None:
            name = values.text(get(get(first, "functionCall"), "name"))
            at = f"contents[{content.index}].parts[{j}]"
            yield SIGNATURE_REQUIRED.violated(at, name=name, position=content.index + 1)


@BOOK.checks(SIGNATURE_MINTED)
def _signature_minted(check: CheckedRequest) -> Iterator[RuleViolation]:
    """The field is bytes: a signature re-spelled in the other base64 alphabet, or without
    padding, is the minted one."""
    minted = {canonical(payload) for payload in check.minted()}
    for content in check.contents:
        for j, part in content.calls:
            value = part_signature(part)
            if value is not None and not is_sentinel(value) and canonical(value) not in minted:
                yield SIGNATURE_MINTED.violated(f"contents[{content.index}].parts[{j}]")


RULES: tuple[Rule, ...] = BOOK.rules
