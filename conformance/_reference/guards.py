"""The reference adapter's named guards: every decision point that exists to prevent a
known bug, with the entry it comes from.

Each guard is checked at exactly one decision point as ``if guards.on("<id>"):``.
Disabling it (``ReferenceAdapter(disabled=frozenset({"<id>"}))``) re-creates the bug the
entry describes, which is how the suite proves the guard is load-bearing: some case
must fail without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Guard:
    """One guard: a stable id, what it keeps true, and where that requirement comes from."""

    id: str
    statement: str
    source: str


_ALL = (
    # ---------------------------------------------------------------- consolidation
    Guard(
        "flush-on-visible-block",
        "An open reasoning episode is closed, in place, when a text or tool-call block arrives.",
        "seed §24(a), §25, §29 (the interleaved shape; layered under the boundary guard)",
    ),
    Guard(
        "flush-on-fresh-signed-text",
        "Reasoning with fresh text closes an open episode that already has text and a "
        "signature; on Gemini a thought's signature part ends its run.",
        "seed §24(b), §27, mutant M1 §113 (layered under the boundary guard)",
    ),
    Guard(
        "keep-signature-only-text",
        "A text part that carries only a signature (empty text) is kept as its own block.",
        "rule 43, google-gemini/gemini-cli#25808 (isValidContent dropped it)",
    ),
    Guard(
        "flush-on-episode-boundary",
        "An explicit end of a reasoning block on the wire (Anthropic content_block_stop, "
        "Responses output_item.done, an OpenRouter detail index) closes its episode.",
        "seed §38 (removes the §34, §35 and §37 limitations of the heuristic), §108",
    ),
    # ---------------------------------------------------------------- truncation
    Guard(
        "answer-orphaned-calls",
        "A stored call without a result (a cancelled call in a saved session) is answered "
        "with an error result before the conversation goes on.",
        "rule 42, 13, 32, 52; google-gemini/gemini-cli#5443, #16415",
    ),
    Guard(
        "truncated-calls-not-run",
        "Calls of a truncated turn are never executed; the complete ones are answered with "
        "an error result.",
        "rule 16, 33",
    ),
    Guard(
        "unparsable-arguments-truncate",
        "A turn whose finish claims tool calls but whose call arguments do not parse is "
        "handled as truncated.",
        "rule 33 (routers and vLLM parsers report tool_calls for a cut call)",
    ),
    # ---------------------------------------------------------------- faults
    Guard(
        "retry-unchanged",
        "A transient fault (429, 500, 503, 529) is retried with the request unchanged: the "
        "pending prompt is not appended again.",
        "rule 52 (never a different history after a transient error); SDK retry behaviour",
    ),
    # ---------------------------------------------------------------- XML recovery
    Guard(
        "xml-keep-episodes",
        "XML recovery consumes visible text only, never a reasoning episode.",
        "seed §54, §55, mutant M3 §115",
    ),
    Guard(
        "xml-calls-after-episodes",
        "Recovered calls are appended after every surviving reasoning episode.",
        "seed §58, §59, §128",
    ),
    Guard(
        "xml-keep-remaining-text",
        "The prose around recovered markup, and the signature of its text, stay in the turn.",
        "seed §53, §56, §60, §130, rule 44",
    ),
    Guard(
        "xml-offered-tools-only",
        "Only markup that names an offered tool is recovered.",
        "rule 50",
    ),
    # ---------------------------------------------------------------- request
    Guard(
        "skip-empty-assistant",
        "An assistant message with nothing left to send is not replayed.",
        "seed §165, rule 15",
    ),
    Guard(
        "omit-blank-text",
        "Empty and whitespace-only text blocks of the model's turns are not sent (a user's "
        "prompt is sent as the user wrote it).",
        "rule 15",
    ),
    Guard(
        "keep-reasoning-follower",
        "On Responses, a blank message that is the only item after a reasoning item is "
        "sent all the same: the reasoning must come back within its tool loop, and only "
        "with an item it produced after it.",
        "rule 26, 27",
    ),
    Guard(
        "omit-unsigned-thinking",
        "Reasoning without the replay token its wire requires (Anthropic signature or data, "
        "a Responses item id, encrypted_content when store is false) is left out of the "
        "request (kept in the history).",
        "seed §100(a), rule 3, 8, 25",
    ),
    Guard(
        "omit-foreign-reasoning",
        "Reasoning minted elsewhere (a block with an origin) is left out of the request, "
        "and a foreign signature on a text or call is not forwarded.",
        "rule 8, 38, 46, 51",
    ),
    Guard(
        "omit-trailing-reasoning",
        "No assistant message of a request ends with a reasoning block (on Responses: no "
        "reasoning item without the item it produced).",
        "rule 9, 26",
    ),
    Guard(
        "all-thinking-or-none",
        "On Anthropic, a message without a tool_use whose trailing signed thinking is "
        "omitted (rule 9) sends none of its thinking: a latest assistant message's thinking "
        "goes back unchanged or not at all.",
        "rule 7, 9; found by generation (seed=1: a max_tokens cut call after interleaved thinking)",
    ),
    Guard(
        "omit-reasoning-in-user-input",
        "Reasoning and tool-call blocks inside user or tool-result input are omitted "
        "from the request, not rejected.",
        "seed §1–§6, §8",
    ),
    Guard(
        "leading-thinking-first-run",
        "Manual mode moves only the first contiguous run of thinking blocks to the front.",
        "seed §86, §88, §89, mutant M5 §117",
    ),
    Guard(
        "leading-thinking-every-tool-turn",
        "Manual mode repairs every assistant message with a tool_use, not only the latest.",
        "seed §90, §91, mutant M4 §116",
    ),
    Guard(
        "leading-thinking-redacted-counts",
        "A redacted_thinking block counts as thinking for the leading-thinking repair.",
        "seed §96, §138",
    ),
    Guard(
        "reset-after-refusal",
        "A user turn that ended in a refusal is not replayed.",
        "rule 17",
    ),
    # ---------------------------------------------------------------- wire specifics
    Guard(
        "encrypted-content-from-done",
        "A Responses reasoning item's encrypted_content is taken from output_item.done, "
        "never from output_item.added.",
        "rule 22",
    ),
    Guard(
        "output-from-item-events",
        "A streamed Responses turn is assembled from its item events; the terminal "
        "event's output is only a fallback for a stream that sent none.",
        "rule 23 (NousResearch/hermes-agent#5736: output [] after streamed items)",
    ),
    Guard(
        "drop-unverifiable-reasoning",
        "After Responses answers invalid_encrypted_content, the reasoning items sent so far "
        "are left out and the request is retried once.",
        "rule 30, 52 (pydantic/pydantic-ai PR#5482, Wei-Shaw/sub2api#3138)",
    ),
    Guard(
        "include-encrypted-content",
        "A Responses request with store false asks include reasoning.encrypted_content.",
        "rule 25",
    ),
    Guard(
        "reasoning-content-on-tool-turns",
        "On DeepSeek and Kimi every assistant message with tool_calls carries "
        'reasoning_content, "" when none was captured.',
        "rule 35, 36",
    ),
    Guard(
        "call-signature-in-extra-content",
        "On Gemini's OpenAI-compatible endpoint a call's thought signature goes back in "
        "its tool call's extra_content.google.thought_signature.",
        "rule 47 (manthanabc/paws#103, Gitlawb/openclaude#67)",
    ),
    Guard(
        "new-id-starts-new-call",
        "A Chat tool-call delta with a new id at an index already in use starts a new "
        "call (Ollama streams every call at index 0).",
        "rule 31",
    ),
    Guard(
        "adaptive-thinking-on-new-models",
        "On Claude 4.7 and later a manual thinking configuration is sent as adaptive "
        "(those models refuse thinking.type enabled), without the interleaved beta.",
        "rule 12b, 12d (Sylinko/Everywhere#410)",
    ),
    Guard(
        "no-prefill-with-thinking",
        "With thinking on, a turn's request ends on the user's prompt: no assistant prefill.",
        "rule 10 (prefill doc: non-thinking modes only; Aider-AI/aider#3820)",
    ),
    Guard(
        "prefill-no-trailing-whitespace",
        "An assistant prefill is sent without trailing whitespace (and not at all when "
        "nothing else is left).",
        "rule 10 (prefill doc; tailcallhq/forgecode#1872)",
    ),
    Guard(
        "configured-betas-every-request",
        "Every request of the conversation sends the Anthropic betas its user configured "
        "(the interleaved-thinking beta lets a manual budget above max_tokens run with "
        "tools); the interleaved beta is left out for adaptive thinking.",
        "rule 12c, 12d; seed §85 (sigoden/aichat#1304)",
    ),
    Guard(
        "forced-tool-choice-auto-with-thinking",
        "With manual thinking, a tool choice that forces a tool is sent as auto (the "
        "thinking configuration of the loop stays as it is).",
        "rule 11 (run-llama/llama_index#19641, mastra-ai/mastra#7507), rule 12a",
    ),
    Guard(
        "signature-beside-function-call",
        "A Gemini thoughtSignature of a call goes on its part, beside functionCall, never "
        "inside it.",
        "rule 40 (TanStack/ai PR#459 nested it)",
    ),
    # ---------------------------------------------------------------- output
    Guard(
        "output-last-nonempty-text",
        "The output is the last non-empty assistant text of the final user turn.",
        "seed §166–§168, §175, rule 49",
    ),
)

GUARDS: Mapping[str, Guard] = MappingProxyType({guard.id: guard for guard in _ALL})


class UnknownGuard(KeyError):
    """A guard id nobody declared (a typo in a probe or in the code)."""


class Guards:
    """Which guards are on for one adapter.  Unknown ids fail loudly, so a mistyped
    guard can never silently be 'disabled'."""

    def __init__(self, disabled: Iterable[str] = ()) -> None:
        self.disabled = frozenset(disabled)
        unknown = sorted(self.disabled - GUARDS.keys())
        if unknown:
            raise UnknownGuard(f"unknown guard(s): {', '.join(unknown)}")

    def on(self, guard_id: str) -> bool:
        if guard_id not in GUARDS:
            raise UnknownGuard(f"unknown guard: {guard_id}")
        return guard_id not in self.disabled
