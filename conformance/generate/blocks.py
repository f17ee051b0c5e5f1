"""Strategies for single assistant blocks over the shape language, for any wire.

Each strategy draws every form the neutral vocabulary has (signed, text-less, unsigned,
redacted and summarised reasoning; plain and signed text; complete tool calls with
their stream chunkings).  Which of them a wire really sends is not decided here: the
wire's realism predicates decide, through ``conformance.generate._realistic``.  Opaque
payloads and call ids are placeholders until ``conformance.generate._mint`` makes them
unique.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from functools import cache

from hypothesis import strategies as st

from conformance.generate.payloads import (
    arguments,
    chunkings,
    payload_bytes,
    sentences,
    visible_texts,
)
from conformance.vocabulary import ContentBlock, Reasoning, Text, ToolCall

#: The id every drawn call carries until minting gives it a unique, wire-shaped one.
PENDING_ID = "pending"


@cache
def payloads() -> st.SearchStrategy[str]:
    """A placeholder opaque payload (standard base64 of the drawn bytes)."""
    return payload_bytes().map(lambda raw: base64.b64encode(raw).decode("ascii"))


@cache
def maybe_payload() -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), payloads())


@cache
def reasoning_blocks() -> st.SearchStrategy[Reasoning]:
    """A reasoning episode: signed, text-less (signature only), unsigned, redacted, or a
    summarised item (the Responses form), with optional text and signature chunkings and,
    on a signed one, Claude's empty fragment before the signature (a stream directive
    the wires that do not stream Claude's thinking simplify away)."""
    signed = st.builds(
        Reasoning,
        text=sentences(),
        signature=payloads(),
        chunks=chunkings(),
        signature_chunks=chunkings(),
        empty_chunk_before_signature=st.booleans(),
    )
    text_less = st.builds(
        Reasoning,
        text=st.just(""),
        signature=payloads(),
        empty_chunk_before_signature=st.booleans(),
    )
    unsigned = st.builds(Reasoning, text=sentences(), chunks=chunkings())
    redacted = st.builds(Reasoning, redacted=st.just(True), data=payloads())
    summarised = st.builds(
        Reasoning,
        id=st.just("rs_pending"),
        summary=st.lists(sentences(), max_size=2).map(tuple),
        signature=payloads(),
        signature_chunks=chunkings(),
    )
    return st.one_of(signed, text_less, unsigned, redacted, summarised)


@cache
def text_blocks() -> st.SearchStrategy[Text]:
    """Visible text, sometimes empty or whitespace, sometimes signed (Gemini)."""
    return st.builds(Text, text=visible_texts(), chunks=chunkings(), signature=maybe_payload())


def tool_calls(tools: Sequence[str]) -> st.SearchStrategy[ToolCall]:
    """A complete call of one of ``tools`` with realistic JSON arguments."""
    return _tool_calls(tuple(tools))


@cache
def _tool_calls(tools: tuple[str, ...]) -> st.SearchStrategy[ToolCall]:
    return st.builds(
        ToolCall,
        id=st.just(PENDING_ID),
        name=st.sampled_from(tuple(tools)),
        arguments=arguments(),
        chunks=chunkings(),
        signature=maybe_payload(),
    )


def content_blocks(tools: Sequence[str]) -> st.SearchStrategy[ContentBlock]:
    """Any block a response may hold (reasoning first: it shrinks toward reasoning)."""
    return _content_blocks(tuple(tools))


@cache
def _content_blocks(tools: tuple[str, ...]) -> st.SearchStrategy[ContentBlock]:
    return st.one_of(reasoning_blocks(), text_blocks(), tool_calls(tools))


@cache
def answer_blocks() -> st.SearchStrategy[ContentBlock]:
    """A block of a response that ends the turn: reasoning or text."""
    return st.one_of(reasoning_blocks(), text_blocks())
