"""Provider error texts that more than one wire answers with: a router or a compatibility
endpoint relays its upstream's own text (OpenRouter passes Anthropic's and Google's
errors through; Gemini's OpenAI-compatible endpoint answers with the Gemini API's).
One copy each, so the wire that owns the text and the wires that relay it never drift.
Each text's provenance is in the rule that answers with it first (``anthropic-messages/
signature-valid``, ``gemini/function-call-signature``, ``gemini/signature-corrupted``).
"""

from __future__ import annotations

#: Anthropic's answer to a thinking block whose signature it did not mint.
ANTHROPIC_INVALID_SIGNATURE = "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
#: Google's answer to a current-turn function call without its thought signature.
GEMINI_CALL_SIGNATURE_MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required "
    "for tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position "
    "{position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures "
    "for more details."
)
#: Google's answer to a thought signature that does not decode to one it minted.
GEMINI_SIGNATURE_CORRUPTED = "Corrupted thought signature."
