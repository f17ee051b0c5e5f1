"""Issue 15 on the Gemini wire: spellings the provider accepts that the suite refused.

``thoughtSignature`` is protobuf ``bytes`` (any base64 spelling of the minted bytes is
the minted signature), the sentinel comes in two encodings, and
``functionResponse.response`` is a free-form object.  Each test failed before the fix.
"""

from __future__ import annotations

import base64

import pytest

from conformance.vocabulary import Text, ToolResult
from conformance.wires._thought_signatures import (
    SENTINEL,
    SENTINEL_BASE64,
    canonical,
    is_sentinel,
)
from tests.wires.test_gemini import (
    PARALLEL,
    PARALLEL_ANSWERS,
    SIG_A,
    SIG_T,
    answer,
    body,
    call,
    errors,
    loop,
    model,
    parse,
    thought,
    user,
)


def urlsafe(signature: str, padded: bool = False) -> str:
    spelled = base64.urlsafe_b64encode(base64.b64decode(signature)).decode()
    return spelled if padded else spelled.rstrip("=")


def test_the_minted_signatures_hold_both_alphabets_characters() -> None:
    """The regression needs a signature whose two spellings differ."""
    assert urlsafe(SIG_A) != SIG_A
    assert urlsafe(SIG_A, padded=True) != SIG_A


@pytest.mark.parametrize("padded", [False, True])
def test_a_url_safe_call_signature_is_the_minted_one(padded: bool) -> None:
    replay = loop(
        model(
            thought("plan", urlsafe(SIG_T, padded)),
            call("read", {"p": "a"}, "call_a", urlsafe(SIG_A, padded)),
            call("read", {"p": "b"}, "call_b"),
        ),
        PARALLEL_ANSWERS,
    )
    assert errors(replay, served=[PARALLEL]) == []  # was: Corrupted thought signature.


def test_the_view_carries_a_url_safe_signature_in_the_minted_spelling() -> None:
    view = parse(loop(model(call("read", {}, "call_a", urlsafe(SIG_A))), PARALLEL_ANSWERS))
    assert view.messages[1].blocks[0].signature == SIG_A  # type: ignore[union-attr]


@pytest.mark.parametrize("spelled", [SENTINEL_BASE64, urlsafe(SENTINEL_BASE64)])
def test_the_view_carries_the_sentinel_as_the_literal(spelled: str) -> None:
    """The one place a Gemini payload's spelling is settled is the parse: the ledger
    compares what the view holds, so the sentinel must reach it as the literal."""
    view = parse(loop(model(call("read", {}, "call_a", spelled)), PARALLEL_ANSWERS))
    assert view.messages[1].blocks[0].signature == SENTINEL  # type: ignore[union-attr]


def test_other_bytes_are_still_corrupted() -> None:
    other = base64.b64encode(b"not the minted bytes").decode()
    replay = loop(model(call("read", {"p": "a"}, "call_a", other)), PARALLEL_ANSWERS)
    assert "Corrupted thought signature." in errors(replay, served=[PARALLEL])


@pytest.mark.parametrize("spelled", [SENTINEL, SENTINEL_BASE64, urlsafe(SENTINEL_BASE64)])
def test_the_sentinel_is_accepted_in_both_encodings(spelled: str) -> None:
    sentinel = model(
        call("read", {"p": "a"}, "call_a", spelled), call("read", {"p": "b"}, "call_b")
    )
    assert is_sentinel(spelled)
    assert canonical(spelled) == SENTINEL
    assert errors(loop(sentinel, PARALLEL_ANSWERS), served=[PARALLEL]) == []


@pytest.mark.parametrize(
    "response",
    [{"return_value": "42 rows"}, {"content": "42 rows"}, {"output": "42 rows"}],
)
def test_a_function_response_under_any_single_key_is_its_result(response: object) -> None:
    view = parse(
        body(
            user("go"), model(call("read", {}, "c1")), user(answer(response=response, call_id="c1"))
        )
    )
    (block,) = view.messages[2].blocks
    assert isinstance(block, ToolResult)
    assert (block.call_id, block.content, block.is_error) == ("c1", "42 rows", False)


def test_a_function_response_with_several_keys_is_its_json() -> None:
    response = {"rows": 42, "table": "t"}
    view = parse(
        body(
            user("go"), model(call("read", {}, "c1")), user(answer(response=response, call_id="c1"))
        )
    )
    (block,) = view.messages[2].blocks
    assert isinstance(block, ToolResult)
    assert (block.call_id, block.content) == ("c1", '{"rows":42,"table":"t"}')
    assert block.readings == ("t", '{"rows":42,"table":"t"}')


def test_an_error_alone_is_still_an_error_result() -> None:
    view = parse(
        body(
            user("go"),
            model(call("read", {}, "c1")),
            user(answer(response={"error": "no"}, call_id="c1")),
        )
    )
    (block,) = view.messages[2].blocks
    assert isinstance(block, ToolResult)
    assert block.is_error
    assert not isinstance(block, Text)


def test_inline_data_is_bytes_too_so_the_view_carries_it_in_the_standard_spelling() -> None:
    """Issue 13: equality follows the wire's own format wherever it defines bytes.
    ``inlineData.data`` is protobuf ``bytes`` like thoughtSignature: a library that
    re-encodes an image URL-safe and unpadded sends the same bytes (was: a different
    ``data``, so a pattern pinning the media failed a correct client)."""
    from conformance.vocabulary import Media
    from tests.wires.test_gemini import body as request_body

    png = base64.b64encode(bytes(range(250, 256)) + b"\xfb\xff").decode()
    assert urlsafe(png) != png
    for spelled in (png, urlsafe(png), urlsafe(png, padded=True), png.rstrip("=")):
        part = {"inlineData": {"mimeType": "image/png", "data": spelled}}
        view = parse(request_body(user("look", part)))
        assert view.messages[0].blocks[1] == Media(mime="image/png", data=png)
    not_base64 = {"inlineData": {"mimeType": "image/png", "data": "not base64!"}}
    view = parse(request_body(user("look", not_base64)))
    assert view.messages[0].blocks[1] == Media(mime="image/png", data="not base64!")
