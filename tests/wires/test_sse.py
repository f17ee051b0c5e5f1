"""SSE formatting and chunk splitting shared by the streaming wires."""

from __future__ import annotations

import pytest

from conformance.wires._sse import DONE, format_comment, format_event, fragments


def test_named_event_is_event_line_data_line_blank_line() -> None:
    assert format_event("ping", {"type": "ping"}) == b'event: ping\ndata: {"type":"ping"}\n\n'


def test_unnamed_event_has_only_a_data_line() -> None:
    assert format_event(None, {"a": [1, 2]}) == b'data: {"a":[1,2]}\n\n'


def test_data_is_compact_utf8_json() -> None:
    assert format_event("x", {"t": "é ü"}) == 'event: x\ndata: {"t":"é ü"}\n\n'.encode()


@pytest.mark.parametrize(
    ("text", "sizes", "pieces"),
    [
        ("abcdef", None, ["abcdef"]),
        ("abcdef", (2, 3), ["ab", "cde", "f"]),
        ("abcdef", (2, 4), ["ab", "cdef"]),
        ("abcdef", (4, 10, 3), ["abcd", "ef"]),
        ("", None, []),
        ("", (3,), []),
    ],
)
def test_fragments_cut_by_sizes_and_join_back(
    text: str, sizes: tuple[int, ...] | None, pieces: list[str]
) -> None:
    assert fragments(text, sizes) == pieces
    assert "".join(pieces) == text


def test_done_line_ends_a_chat_completions_stream() -> None:
    assert DONE == b"data: [DONE]\n\n"


def test_comment_is_a_colon_line_that_carries_no_event() -> None:
    assert format_comment("OPENROUTER PROCESSING") == b": OPENROUTER PROCESSING\n\n"
