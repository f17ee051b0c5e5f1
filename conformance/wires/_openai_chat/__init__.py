"""The OpenAI Chat Completions wire, ``POST /v1/chat/completions``, in three flavours:
OpenAI itself (no dialect), ``deepseek`` (DeepSeek's ``reasoning_content``) and
``openrouter`` (OpenRouter's ``reasoning`` and ``reasoning_details``).

Four jobs, as for every wire: render a scripted turn as the provider sends it
(data-only SSE chunks ending in ``data: [DONE]``, or one JSON completion), parse a
request body into the neutral view, validate it with the rules of
the rule catalogue (``docs/rules.md``) section C, answering with the provider's real error texts in
its own envelope, and read a recorded answer back into a scripted turn.  The dialect
comes from the context (``RenderContext.dialect``, ``ValidationContext.dialect``; an
argument when reading).  Plain OpenAI ignores reasoning fields it does not know: they are
left out of the neutral view and never rejected.

The modules of the wire contract (``conformance/wires/_assembly.py``), one job each;
``wire`` holds the wire's own data; ``WIRE`` is assembled from them all:

- ``route``: the paths real clients post to.
- ``parse``: a request body as the neutral view.
- ``render``: a scripted response as SSE chunks or one JSON completion, and the error
  answer in the provider's envelope (``_errors``).
- ``rules``: the provider rules (ids, sources, error texts), each bound to its check in
  ``BOOK``; ``validate`` runs the book over ``_checked.CheckedRequest``.
- ``read``: a recorded response back into a scripted one.
- ``realism``: the predicates of the case linter's realism walk.
- Private helpers: ``_dialects`` (the wire's name, the dialect names and OpenRouter's
  upstream), ``_stops`` (neutral stop <-> ``finish_reason``), ``_details`` (OpenRouter's
  ``reasoning_details``, both ways), ``_messages`` (a message's reasoning and content).

Decisions the rules leave open:

- Rule 33 has no provider side here.  Neither OpenAI nor DeepSeek is known to reject an
  assistant tool call whose ``function.arguments`` is not valid JSON (the public 400s
  for that come from vLLM, SGLang, Cloudflare Workers AI and other compatible servers:
  local-inference-lab/vllm#684, sgl-project/sglang PR#28035, sinameraji/kimiflare
  PR#52), so no rejection is invented; the invariant ``truncated-call-not-run`` judges
  what a client does with such a call.
- Rule 35 (DeepSeek thinking mode): every assistant message with tool calls carries the
  key ``reasoning_content`` as a string; ``""`` passes (rule 36, Kimi's placeholder),
  ``null`` counts as missing.  The value is not compared with what was minted: DeepSeek
  cannot verify it, and it is visible text, not an opaque replay token, so the ledger
  does not cover it either.  Thinking mode is ``thinking.type == "enabled"`` or a
  ``reasoner`` model.  DeepSeek V4 documents thinking as on by default, but a request
  without either switch cannot be told from a V3.2 ``deepseek-chat`` request, so it is
  not assumed (no false positive).  Drift F1: the V3.2-era text is used (it names the
  message); V4 answers "The `reasoning_content` in the thinking mode must be passed back
  to the API." with no index (qwersyk/Newelle#404, AgentiLoop/Agent#22); the R1-era
  400 for *sending* ``reasoning_content`` (F1a) is not enforced.
- Rule 37 (OpenRouter): the upstream is read from the model name: ``google/…`` is
  Gemini, anything else is taken to be Anthropic (whose ``anthropic-claude-v1`` format
  WIRES.md renders).  Upstream errors pass through OpenRouter's envelope ``{"error":
  {"message": "Provider returned error", "code": 400, "metadata": {"raw", …}}}``.
  Anthropic checks every signature it is sent (§A8) and rejects a thinking block whose
  signature was dropped (OpenRouterTeam/ai-sdk-provider#423); Gemini checks thought
  signatures (§D46) and, for the current turn's latest call, that one came back
  (§D40).  A changed ``reasoning.encrypted`` blob on an Anthropic route has no known
  text, so only the ledger judges it.  Where the upstream index of a message is needed
  (``messages.{i}.content.{j}``, Gemini's ``position``), it is inferred: system
  messages leave the list and consecutive user/tool messages become one.
- Rule 32 on OpenRouter uses OpenAI's texts and envelope: OpenRouter's own answer to an
  unpaired tool message is not documented.  Provider-level errors (malformed body,
  request beyond the script) use OpenAI's envelope on every dialect.
- Ledger hints are the defaults.  A signed Reasoning's companion is its text: right for
  Anthropic, whose signature covers the thinking text.  Gemini's signature does not cover
  the summary text OpenRouter relays with it (Gemini validates only that the signature is
  present and genuine), so on a ``google/…`` route an edited summary under a kept
  signature is reported by the ledger although Gemini would accept it; ``companion``
  cannot see the model, and OpenRouter tells clients to send ``reasoning_details`` back
  unmodified, so the stricter reading stands.
- The neutral view puts an assistant message's reasoning first (WIRES.md): this wire has
  no place for an episode between two calls, so where interleaved episodes sat relative
  to the calls is lost on the way back, and the provider accepts that.
"""

from conformance.wires._assembly import assemble
from conformance.wires._openai_chat._details import reasoning_episodes
from conformance.wires._openai_chat._dialects import upstream
from conformance.wires._openai_chat.rules import (
    DEEPSEEK_REASONING_CONTENT,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    OPENROUTER_ANTHROPIC_SIGNATURE,
    OPENROUTER_GEMINI_DETAILS,
    OPENROUTER_GEMINI_SIGNATURE,
    TOOL_CALL_ID_FOUND,
    TOOL_CALLS_ANSWERED,
    TOOL_MESSAGE_ANSWERS,
)

WIRE = assemble(__name__)

__all__ = [
    "DEEPSEEK_REASONING_CONTENT",
    "DEEPSEEK_TOOL_CALLS_ANSWERED",
    "DEEPSEEK_TOOL_MESSAGE_ANSWERS",
    "OPENROUTER_ANTHROPIC_SIGNATURE",
    "OPENROUTER_GEMINI_DETAILS",
    "OPENROUTER_GEMINI_SIGNATURE",
    "TOOL_CALLS_ANSWERED",
    "TOOL_CALL_ID_FOUND",
    "TOOL_MESSAGE_ANSWERS",
    "WIRE",
    "reasoning_episodes",
    "upstream",
]
