"""How checks quote what they saw: short strings whole, long ones cut with their length,
opaque payloads by length and hash only."""

from __future__ import annotations

import hashlib

from conformance._checks.quote import LIMIT, block, blocks, call, digest, payload, short, value
from tests.checks.kit import call as tool_call
from tests.checks.kit import text, think


def test_a_short_string_is_quoted_whole() -> None:
    assert short("a" * LIMIT) == repr("a" * LIMIT)


def test_a_long_string_is_cut_to_head_and_tail_with_its_length() -> None:
    long = "".join(chr(ord("a") + i % 26) for i in range(LIMIT + 1))
    assert short(long) == f"{long[:20]!r}…{long[-10:]!r}({LIMIT + 1} chars)"


def test_a_payload_is_named_by_length_and_hash_never_by_content() -> None:
    secret = "S" * 500
    assert digest(secret) == hashlib.sha256(secret.encode()).hexdigest()[:12]
    assert payload(secret) == f"500 chars, sha256 {digest(secret)}"
    assert "SSS" not in payload(secret)


def test_values_and_calls_are_compact() -> None:
    assert value({"path": "a"}) == '{"path":"a"}'
    assert value(list(range(30))).endswith("…")
    assert len(value(list(range(30)))) == 31
    assert value(None) == "None"
    assert call("output", [("text", "hi"), ("stop", "end")]) == "output(text='hi', stop='end')"


def test_a_block_shows_its_telling_fields_or_the_asked_ones() -> None:
    assert block(think("plan", "sig")) == "reasoning(text='plan', signature='sig')"
    assert block(tool_call("alpha"), ["id"]) == "tool_call(id='alpha')"
    assert blocks([text("a"), text("b")]) == "[text(text='a'), text(text='b')]"
