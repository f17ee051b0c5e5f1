"""The feature names (``cases/FEATURES.txt``) a generated conversation exercises, told
from its shape, most specific first: the first names the library directory a saved
counterexample belongs in."""

from __future__ import annotations

import itertools

from conformance._cases.schema import Given
from conformance.vocabulary import TRUNCATING_STOPS, Reasoning, ScriptedResponse, Text, ToolCall


def _response_features(response: ScriptedResponse) -> list[str]:
    blocks = response.blocks
    found: list[str] = []
    if response.fault is not None:
        found.append("faults")
    if response.stop in TRUNCATING_STOPS:
        found.append("truncation")
    if response.stop == "refusal":
        found.append("refusal")
    episodes = [i for i, b in enumerate(blocks) if isinstance(b, Reasoning)]
    calls = [i for i, b in enumerate(blocks) if isinstance(b, ToolCall)]
    if episodes and calls and max(episodes) > min(calls):
        found.append("interleaved-episodes")
    if any(b - a == 1 for a, b in itertools.pairwise(episodes)):
        found.append("back-to-back-episodes")
    reasoning = [b for b in blocks if isinstance(b, Reasoning)]
    if any(r.redacted for r in reasoning):
        found.append("redacted-reasoning")
    if any(r.signature and not r.text and not r.redacted for r in reasoning):
        found.append("signature-only-episode")
    if any(
        (r.signature_chunks and len(r.signature_chunks) > 1) or r.empty_chunk_before_signature
        for r in reasoning
    ):
        found.append("split-signatures")
    if len(calls) > 1:
        found.append("parallel-tool-calls")
    if any(isinstance(b, ToolCall) and b.chunks for b in blocks):
        found.append("tool-arguments")
    if any(isinstance(b, Text) and not b.text.strip() for b in blocks):
        found.append("empty-content")
    if not blocks and response.fault is None:
        found.append("empty-terminal-message")
    if response.noise:
        found.append("stream-events")
    return found


def features_of(given: Given) -> tuple[str, ...]:
    """Every feature the conversation exercises, without repeats, in a stable order."""
    found: list[str] = []
    for response in given.responses:
        found += _response_features(response)
    if any(isinstance(b, ToolCall) for r in given.responses for b in r.blocks):
        found.append("tool-pairing")
    if any(
        getattr(b, "signature", None) or getattr(b, "data", None)
        for r in given.responses
        for b in r.blocks
    ):
        found.append("opaque-ledger")
    found.append("append-only-history")
    return tuple(dict.fromkeys(found))
