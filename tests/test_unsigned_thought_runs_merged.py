"""Unsigned Gemini thought runs joined into one part before the first call (litellm
1.110.2 does this): Gemini validates only signatures, so the provider accepts it and
the in-place layout is a ``should`` (suite-fixes.md 13); the calls, in order and with the
first one's signature, stay a ``must``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.codec import WireCodec
from conformance._reference.gemini import GeminiCodec
from harness.accepted._rewrite import Rewriting
from harness.broken import HoistThinkingAdapter, MergeEpisodesAdapter
from tests.support import library_case, run_cell

CASE = "gemini-unsigned-thought-runs-around-signed-calls-kept-apart"


def _unsigned_thought(part: Mapping[str, Any]) -> bool:
    return part.get("thought") is True and "thoughtSignature" not in part


class MergeUnsignedThoughtsCodec(Rewriting, GeminiCodec):
    """Every model content's unsigned thought parts become one part, placed first."""

    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        for content in body.get("contents") or ():
            parts = content.get("parts") or []
            thoughts = [p for p in parts if _unsigned_thought(p)]
            if content.get("role") == "model" and len(thoughts) > 1:
                merged = {"text": "".join(p.get("text", "") for p in thoughts), "thought": True}
                content["parts"] = [merged, *(p for p in parts if not _unsigned_thought(p))]
        return body


class UnsignedCallsCodec(MergeUnsignedThoughtsCodec):
    """The same, and the calls' signatures dropped too: what Gemini refuses."""

    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        for content in super().rewrite(body).get("contents") or ():
            for part in content.get("parts") or ():
                if "functionCall" in part:
                    part.pop("thoughtSignature", None)
        return body


class MergeUnsignedThoughtsAdapter(ReferenceAdapter):
    name: ClassVar[str] = "merge-unsigned-thoughts"
    wires: ClassVar[frozenset[str]] = frozenset({"gemini"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"gemini": MergeUnsignedThoughtsCodec}


class UnsignedCallsAdapter(MergeUnsignedThoughtsAdapter):
    name: ClassVar[str] = "unsigned-calls"
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"gemini": UnsignedCallsCodec}


def test_merged_unsigned_runs_pass_with_a_should_warning() -> None:
    result, transcript = run_cell(MergeUnsignedThoughtsAdapter(), library_case(CASE), "gemini")
    assert result.verdict == "pass", (result.reason, result.violations)
    assert [w.severity for w in result.warnings] == ["should"]
    model = json.loads(transcript.exchanges[1].request.body)["contents"][1]["parts"]
    assert model[0] == {"text": "RUN-ONE: read alpha first.RUN-TWO: then beta.", "thought": True}


def test_the_merge_fails_under_strict() -> None:
    result, _ = run_cell(MergeUnsignedThoughtsAdapter(), library_case(CASE), "gemini", strict=True)
    assert result.verdict == "fail"
    assert {v.severity for v in result.violations} == {"should"}


def test_a_call_without_its_signature_still_fails() -> None:
    result, _ = run_cell(UnsignedCallsAdapter(), library_case(CASE), "gemini")
    assert result.verdict == "fail"
    assert ("expect", "must") in {(v.check, v.severity) for v in result.violations}


def test_the_reference_passes_strict() -> None:
    result, _ = run_cell(ReferenceAdapter(), library_case(CASE), "gemini", strict=True)
    assert result.verdict == "pass", result.violations


def test_the_broken_merge_and_hoist_fail_it_only_under_strict() -> None:
    """Both move run two ahead of the first call (tests/harness/test_broken.py no longer
    lists this cell for them: with no signature on the runs the provider accepts it)."""
    for adapter in (MergeEpisodesAdapter(), HoistThinkingAdapter()):
        lenient, _ = run_cell(adapter, library_case(CASE), "gemini")
        strict, _ = run_cell(adapter, library_case(CASE), "gemini", strict=True)
        assert (lenient.verdict, strict.verdict) == ("pass", "fail"), adapter.name
