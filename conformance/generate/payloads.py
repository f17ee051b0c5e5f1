"""The leaves of a generated conversation: words, opaque payloads, tool arguments and
chunkings, each drawn so it shrinks toward the shortest realistic value.

Opaque payloads are drawn as bytes and minted as standard base64 later
(``conformance.generate._mint``), so every token of a conversation is distinct, as the
case lint demands, however hypothesis shrinks the bytes.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

#: Plain words a model writes; hypothesis shrinks a sentence toward the first one.
WORDS = (
    "ok",
    "the",
    "file",
    "retry",
    "limit",
    "is",
    "five",
    "checking",
    "config",
    "tests",
    "pass",
    "now",
)

#: Argument names of the generated tools' JSON objects.
ARGUMENT_NAMES = ("path", "query", "limit", "recursive", "pattern")


def sentences(min_words: int = 1, max_words: int = 6) -> st.SearchStrategy[str]:
    """A short sentence of plain words (never empty when ``min_words`` >= 1)."""
    return st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words).map(" ".join)


def visible_texts() -> st.SearchStrategy[str]:
    """Text a response shows: usually a sentence, sometimes empty or whitespace, which
    providers do stream (an empty text block before a tool call)."""
    blank = st.sampled_from(("", " ", "\n"))
    return st.one_of(sentences(), sentences(), sentences(), blank)


def payload_bytes() -> st.SearchStrategy[bytes]:
    """The random part of an opaque payload; shrinks to nothing."""
    return st.binary(min_size=0, max_size=24)


def chunkings() -> st.SearchStrategy[tuple[int, ...] | None]:
    """A stream directive: fragment sizes, or ``None`` for one piece.  Lists of sizes
    shrink well: toward fewer, smaller fragments, then none."""
    sizes = st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=4)
    return st.one_of(st.none(), sizes.map(tuple))


def json_values() -> st.SearchStrategy[Any]:
    """A realistic JSON argument value: a string, a number, a flag or a short list."""
    return st.one_of(
        sentences(1, 3),
        st.integers(min_value=0, max_value=1000),
        st.booleans(),
        st.lists(sentences(1, 2), max_size=3),
    )


def arguments() -> st.SearchStrategy[dict[str, Any]]:
    """A tool call's argument object."""
    return st.dictionaries(st.sampled_from(ARGUMENT_NAMES), json_values(), max_size=3)


def cut_arguments(complete: dict[str, Any], at: int) -> str:
    """``complete``'s JSON cut short at about ``at`` characters: never a whole object, as
    a call cut by the output limit streams it."""
    text = json.dumps(complete, separators=(",", ":"))
    return text[: max(1, min(at, len(text) - 1))]
