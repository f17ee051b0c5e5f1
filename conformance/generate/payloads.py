"""The leaves of a generated conversation: words, opaque payloads, tool arguments and
chunkings, each drawn so it shrinks toward the shortest realistic value.

Opaque payloads are drawn as bytes and minted as standard base64 later
(``conformance.generate._mint``), so every token of a conversation is distinct, as the
case lint demands, however hypothesis shrinks the bytes.

Every strategy here and in ``blocks`` and ``responses`` is built once per set of
arguments (``functools.cache``) and the same object is drawn from again: hypothesis
validates a strategy it has not seen and works out its emptiness and labels, which cost
a generated conversation more than judging it when the composite strategies built the
whole tree afresh for every draw.  A strategy holds no state between draws, so the
same object draws exactly what an equal new one would.
"""

from __future__ import annotations

import json
from functools import cache
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


@cache
def sentences(min_words: int = 1, max_words: int = 6) -> st.SearchStrategy[str]:
    """A short sentence of plain words (never empty when ``min_words`` >= 1)."""
    return _new_sentences(min_words, max_words)


def _new_sentences(min_words: int = 1, max_words: int = 6) -> st.SearchStrategy[str]:
    """A sentence strategy that is a new object: ``one_of`` keeps one of several
    branches that are the same object, so weighting a branch by repeating it needs
    distinct ones."""
    return st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words).map(" ".join)


@cache
def visible_texts() -> st.SearchStrategy[str]:
    """Text a response shows: usually a sentence (three branches of four), sometimes
    empty or whitespace, which providers do stream (an empty text block before a tool
    call)."""
    blank = st.sampled_from(("", " ", "\n"))
    return st.one_of(_new_sentences(), _new_sentences(), _new_sentences(), blank)


@cache
def payload_bytes() -> st.SearchStrategy[bytes]:
    """The random part of an opaque payload; shrinks to nothing."""
    return st.binary(min_size=0, max_size=24)


@cache
def chunkings() -> st.SearchStrategy[tuple[int, ...] | None]:
    """A stream directive: fragment sizes, or ``None`` for one piece.  Lists of sizes
    shrink well: toward fewer, smaller fragments, then none."""
    sizes = st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=4)
    return st.one_of(st.none(), sizes.map(tuple))


@cache
def json_values() -> st.SearchStrategy[Any]:
    """A realistic JSON argument value: a string, a number, a flag or a short list."""
    return st.one_of(
        sentences(1, 3),
        st.integers(min_value=0, max_value=1000),
        st.booleans(),
        st.lists(sentences(1, 2), max_size=3),
    )


@cache
def arguments() -> st.SearchStrategy[dict[str, Any]]:
    """A tool call's argument object."""
    return st.dictionaries(st.sampled_from(ARGUMENT_NAMES), json_values(), max_size=3)


def cut_arguments(complete: dict[str, Any], at: int) -> str:
    """``complete``'s JSON cut short at about ``at`` characters: never a whole object, as
    a call cut by the output limit streams it."""
    text = json.dumps(complete, separators=(",", ":"))
    return text[: max(1, min(at, len(text) - 1))]
