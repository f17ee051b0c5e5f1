"""The rules of ``reference/wire-rules.md`` section A, in check order, each with the
error text Anthropic really answers; ``validate.py`` applies them."""

from __future__ import annotations

from conformance.wires.base import Rule

LEADING_THINKING_TEXT = (
    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
    "We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"
)

FIELD_REQUIRED = Rule(
    id="anthropic-messages/field-required",
    ref="wire-rules §A (request shape)",
    statement=(
        "A request carries `model` and `max_tokens`, each message its `role` and `content`, "
        "and each block the keys its type requires."
    ),
    source=(
        "Messages API reference (required parameters); pydantic-style text in the same form "
        "as the `…thinking.signature: Field required` error that wire-rules rule 3 quotes"
    ),
    error="{at}: Field required",
)
UNKNOWN_BLOCK_TYPE = Rule(
    id="anthropic-messages/unknown-block-type",
    ref="wire-rules §A (request shape); seed §7",
    statement="Every block of a message's content has a type the Messages API knows.",
    source=(
        "seed §7 (unsupported blocks are rejected, not dropped); pydantic tagged-union text as "
        "Anthropic answers it in public bug reports (not catalogued in wire-rules.md)"
    ),
    error=(
        "messages.{i}.content.{j}: Input tag '{tag}' found using 'type' does not match any "
        "of the expected tags: {expected}"
    ),
)
THINKING_SIGNATURE_REQUIRED = Rule(
    id="anthropic-messages/thinking-signature-required",
    ref="wire-rules §A3",
    statement="A thinking block carries the signature that arrived in its signature_delta.",
    source=(
        "wire-rules rule 3: langchain-ai/langchain PR#29971; OpenRouterTeam/ai-sdk-provider#423; "
        "OnesoftQwQ/opencode-go-copilot v1.12.2 (rule 8)"
    ),
    error="messages.{i}.content.{j}.thinking.signature: Field required",
)
THINKING_TEXT_REQUIRED = Rule(
    id="anthropic-messages/thinking-text-required",
    ref="wire-rules §A4",
    statement='A signature-only thinking block keeps its `"thinking": ""` key.',
    source="wire-rules rule 4: langchain-ai/langchain#38638, #38639",
    error="messages.{i}.content.{j}.thinking.thinking: Field required",
)
TOOL_INPUT_OBJECT = Rule(
    id="anthropic-messages/tool-input-object",
    ref="wire-rules §A2, §A16",
    statement="A tool_use block's `input` is a JSON object, never the raw argument text.",
    source=(
        "wire-rules rule 2 (the final tool_use.input is always an object) and rule 16 "
        "(truncated calls); text from anthropics/claude-code#6696 and "
        "anthropics/anthropic-sdk-typescript#648 (pydantic-style, not in wire-rules.md)"
    ),
    error="messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary",
)
USER_NONEMPTY = Rule(
    id="anthropic-messages/user-message-nonempty",
    ref="wire-rules §A15",
    statement="A user message has non-empty content.",
    source="wire-rules rule 15: anthropics/claude-code#6774, #3196",
    error="messages.{i}: user messages must have non-empty content",
)
MESSAGE_NONEMPTY = Rule(
    id="anthropic-messages/message-nonempty",
    ref="wire-rules §A15; F3",
    statement="Only a final assistant message may have empty content.",
    source=(
        "wire-rules rule 15: corespeed-io/zypher-agent PR#122, coder/mux PR#1251; F3: "
        "experientiallabs/experiential PR#804 got HTTP 200 for assistant `content: []`, so "
        "the final position is accepted"
    ),
    error=(
        "messages.{i}: all messages must have non-empty content except for the optional "
        "final assistant message"
    ),
)
TEXT_NONEMPTY = Rule(
    id="anthropic-messages/text-nonempty",
    ref="wire-rules §A15",
    statement="A text block is never empty.",
    source="wire-rules rule 15: experientiallabs/experiential PR#804; vercel/ai PR#5783",
    error="messages: text content blocks must be non-empty",
)
TEXT_NONWHITESPACE = Rule(
    id="anthropic-messages/text-nonwhitespace",
    ref="wire-rules §A15",
    statement="A text block holds more than whitespace.",
    source="wire-rules rule 15: anthropics/claude-code#6774, #3196",
    error="messages: text content blocks must contain non-whitespace text",
)
FORCED_TOOL_CHOICE = Rule(
    id="anthropic-messages/forced-tool-choice-with-thinking",
    ref="wire-rules §A11",
    statement="With manual thinking, tool_choice is `auto` or `none`, never forcing a tool.",
    source=(
        "wire-rules rule 11: thinking-tool-workflows doc; run-llama/llama_index#19641; "
        "mastra-ai/mastra#7507"
    ),
    error="Thinking may not be enabled when tool_choice forces tool use.",
)
BUDGET_BELOW_MAX_TOKENS = Rule(
    id="anthropic-messages/budget-below-max-tokens",
    ref="wire-rules §A12",
    statement=(
        "With manual thinking, budget_tokens < max_tokens, unless interleaved thinking "
        "(beta header) runs with tools."
    ),
    source=(
        "wire-rules rule 12c: sigoden/aichat#1304; extended-thinking doc (the budget may "
        "exceed max_tokens with interleaved thinking and tools); the text is the prefix "
        "wire-rules.md quotes"
    ),
    error="`max_tokens` must be greater than `thinking.budget_tokens`",
)
TOOL_USE_ANSWERED = Rule(
    id="anthropic-messages/tool-use-answered",
    ref="wire-rules §A13",
    statement="Every tool_use is answered by a tool_result in the very next (user) message.",
    source=(
        "wire-rules rule 13: anthropics/anthropic-sdk-typescript#653; anthropics/claude-code"
        "#1237, #2697, #13460; Kilo-Org/kilocode#5163"
    ),
    error=(
        "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    ),
)
TOOL_RESULT_MATCHED = Rule(
    id="anthropic-messages/tool-result-matched",
    ref="wire-rules §A13",
    statement="Every tool_result answers a tool_use of the message right before it.",
    source="wire-rules rule 13: decocms/studio#1803; anthropics/claude-code#13460",
    error=(
        "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
        "{ids}. Each `tool_result` block must have a corresponding `tool_use` block in the "
        "previous message."
    ),
)
TOOL_RESULTS_FIRST = Rule(
    id="anthropic-messages/tool-results-first",
    ref="wire-rules §A13",
    statement="The tool_result blocks open the message that answers a tool_use message.",
    source=(
        "wire-rules rule 13 (its quote drops the index prefix and the backticks); exact text "
        "from anthropics/claude-code#37 and theredsix/cerebellum#5"
    ),
    error=(
        "messages.{i}: Did not find {n} `tool_result` block(s) at the beginning of this "
        "message. Messages following `tool_use` blocks must begin with a matching number of "
        "`tool_result` blocks."
    ),
)
FINAL_BLOCK_THINKING = Rule(
    id="anthropic-messages/final-block-not-thinking",
    ref="wire-rules §A9",
    statement="No assistant message ends with a thinking block.",
    source="wire-rules rule 9: tailcallhq/forgecode#2107",
    error="messages.{i}: The final block in an assistant message cannot be `thinking`.",
)
THINKING_OFF_FINAL_ASSISTANT = Rule(
    id="anthropic-messages/thinking-off-final-assistant",
    ref="wire-rules §A9",
    statement="With thinking off, an assistant message in final position holds no thinking.",
    source="wire-rules rule 9: tailcallhq/forgecode#1853, #1195",
    error=(
        "messages.{i}.content.{j}: When thinking is disabled, an `assistant` message in the "
        "final position cannot contain `thinking`. To use thinking blocks, enable `thinking` "
        "in your request."
    ),
)
LEADING_THINKING = Rule(
    id="anthropic-messages/leading-thinking",
    ref="wire-rules §A6; seed §86, §93",
    statement=(
        "With manual thinking, the assistant message of the running tool loop starts with "
        "its thinking, unless its turn had none."
    ),
    source=(
        "wire-rules rule 6: epam/ai-dial-adapter-bedrock PR#290 (full text); vercel/ai#8865; "
        "BerriAI/litellm#15601; seed §93 (a tool turn without thinking is left alone)"
    ),
    error=LEADING_THINKING_TEXT,
)
SIGNATURE_VALID = Rule(
    id="anthropic-messages/signature-valid",
    ref="wire-rules §A3, §A8",
    statement=(
        "Every thinking block's signature is one this provider minted, byte for byte "
        "(never fabricated, foreign, joined or cut)."
    ),
    source=(
        "wire-rules rules 3 and 8: OpenRouterTeam/ai-sdk-provider#423; "
        "code-yeongyu/oh-my-openagent#2775; ding113/claude-code-hub#518"
    ),
    error="messages.{i}.content.{j}: Invalid `signature` in `thinking` block",
)
LATEST_IMMUTABLE = Rule(
    id="anthropic-messages/latest-thinking-immutable",
    ref="wire-rules §A5, §A7",
    statement=(
        "The thinking and redacted_thinking blocks of the latest assistant message come back "
        "exactly as the response sent them: same text, signature, data, count and order."
    ),
    source=(
        "wire-rules rules 5 and 7: anthropics/claude-code#19539, #25361; "
        "Yeachan-Heo/gajae-code#4247; lidge-jun/opencodex PR#5140; BerriAI/litellm#9058"
    ),
    error=(
        "messages.{i}.content.{j}: `thinking` or `redacted_thinking` blocks in the latest "
        "assistant message cannot be modified. These blocks must remain as they were in the "
        "original response."
    ),
)

RULES: tuple[Rule, ...] = (
    FIELD_REQUIRED,
    UNKNOWN_BLOCK_TYPE,
    THINKING_SIGNATURE_REQUIRED,
    THINKING_TEXT_REQUIRED,
    TOOL_INPUT_OBJECT,
    FORCED_TOOL_CHOICE,
    BUDGET_BELOW_MAX_TOKENS,
    USER_NONEMPTY,
    MESSAGE_NONEMPTY,
    TEXT_NONEMPTY,
    TEXT_NONWHITESPACE,
    TOOL_USE_ANSWERED,
    TOOL_RESULT_MATCHED,
    TOOL_RESULTS_FIRST,
    FINAL_BLOCK_THINKING,
    THINKING_OFF_FINAL_ASSISTANT,
    LEADING_THINKING,
    SIGNATURE_VALID,
    LATEST_IMMUTABLE,
)
