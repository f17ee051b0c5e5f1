"""The decisions every wire makes on the stored history before rendering a request.

Shared, so that each guard stays one decision point however many wires use it:

* ``sendable`` — per stored message, what may be sent at all: user/tool input loses
  reasoning and tool calls (``replay``, seed §1–§8); reasoning minted elsewhere is
  omitted and a foreign token on a text or call is not forwarded (rules 38, 46, 51);
  blank text is omitted (rule 15) unless the wire signs text and it carries a token
  (rule 43), or it is the message a Responses reasoning item produced (rules 26, 27);
  reasoning without the token its wire requires is omitted (rules 3, 25);
* ``without_trailing_reasoning`` — no assistant message ends with reasoning (rules 9, 26);
* ``skips`` — an assistant message with nothing left to send is not sent (rule 15, §165);
* ``merge_turns`` — for wires whose roles alternate (Anthropic, Gemini): adjacent
  assistant messages join in order, never hoisted (§84), and tool results open the user
  message that follows them (rules 13, 42).
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance._reference.codec import UnsupportedBlock, WireCodec
from conformance._reference.guards import Guards
from conformance._reference.replay import input_blocks
from conformance._targets.api import CaseBrief
from conformance.vocabulary import Block, Media, Message, Reasoning, Text, ToolCall, ToolResult


def sendable(codec: WireCodec, message: Message) -> tuple[Block, ...]:
    """The blocks of one stored message a request on ``codec``'s wire may carry."""
    guards = codec.guards
    kept: list[Block] = []
    blocks = input_blocks(message, guards)
    for index, block in enumerate(blocks):
        if _minted_elsewhere(block) and guards.on("omit-foreign-reasoning"):
            if isinstance(block, Reasoning):
                continue
            block = block.model_copy(update={"signature": None})
        if (
            isinstance(block, Text)
            and message.role == "assistant"
            and _blank(block, codec)
            and not _follows_reasoning_alone(kept, blocks[index + 1 :], codec)
            and guards.on("omit-blank-text")
        ):
            continue
        if (
            isinstance(block, Reasoning)
            and codec.missing_token(block)
            and guards.on("omit-unsigned-thinking")
        ):
            continue
        kept.append(block)
    return tuple(kept)


def without_trailing_reasoning(blocks: tuple[Block, ...], guards: Guards) -> tuple[Block, ...]:
    """An assistant message's blocks without the reasoning run that ends it: nothing on
    the wire follows it (Anthropic rule 9; a Responses reasoning item must be followed by
    the item it produced, rule 26)."""
    if guards.on("omit-trailing-reasoning"):
        while blocks and isinstance(blocks[-1], Reasoning):
            blocks = blocks[:-1]
    return blocks


def skips(empty: bool, guards: Guards) -> bool:
    """Whether an assistant message is left out because nothing in it can be sent."""
    return empty and guards.on("skip-empty-assistant")


def merge_turns(messages: Sequence[Message]) -> list[Message]:
    """Concatenate adjacent assistant messages; tool results absorb the tool results and
    the one user prompt that follow them, and stay first.  Roles become the two a
    strictly alternating wire knows (assistant, user)."""
    merged: list[Message] = []
    previous: str | None = None
    for message in messages:
        joins = bool(merged) and (
            (previous == "assistant" and message.role == "assistant")
            or (previous == "tool" and message.role in ("tool", "user"))
        )
        role = "assistant" if message.role == "assistant" else "user"
        if joins:
            merged[-1] = Message(role=role, blocks=merged[-1].blocks + message.blocks)
        else:
            merged.append(Message(role=role, blocks=message.blocks))
        previous = message.role
    return merged


def split_system(brief: CaseBrief, history: Sequence[Message]) -> tuple[str | None, list[Message]]:
    """The top-level system prompt — the brief's, then the leading system messages of
    a saved history — and the rest of the conversation."""
    parts = [brief.system] if brief.system else []
    start = 0
    while start < len(history) and history[start].role == "system":
        parts.extend(b.text for b in history[start].blocks if isinstance(b, Text))
        start += 1
    return ("\n\n".join(parts) if parts else None), list(history[start:])


def no_inner_system(messages: Sequence[Message]) -> None:
    """Wires with one top-level system prompt have no place for a later one."""
    if any(m.role == "system" for m in messages):
        raise UnsupportedBlock("a system message inside the conversation has no place here")


def result_text(result: ToolResult) -> str:
    """A tool result's content as one text (wires whose results are strings)."""
    if isinstance(result.content, str):
        return result.content
    for block in result.content:
        if not isinstance(block, Text):
            raise UnsupportedBlock(f"a {block.kind} block in a tool result needs a content list")
    return "".join(b.text for b in result.content if isinstance(b, Text))


def data_url(media: Media) -> str:
    return f"data:{media.mime};base64,{media.data}"


def calls_of(blocks: Sequence[Block]) -> list[ToolCall]:
    return [b for b in blocks if isinstance(b, ToolCall)]


def _minted_elsewhere(block: Block) -> bool:
    """A block with an ``origin`` was minted by another provider, model or session."""
    return isinstance(block, Reasoning | Text | ToolCall) and block.origin is not None


def _follows_reasoning_alone(
    kept: Sequence[Block], rest: Sequence[Block], codec: WireCodec
) -> bool:
    """Whether a blank text is all that follows a kept reasoning item, on a wire where
    reasoning is sent only with an item it produced right after it: dropping the text
    there would take its reasoning with it (rule 26), which must come back within its
    tool loop (rule 27).  A text or call right after the blank one follows it as well."""
    return (
        codec.reasoning_needs_follower
        and bool(kept)
        and isinstance(kept[-1], Reasoning)
        and not (rest and isinstance(rest[0], Text | ToolCall))
        and codec.guards.on("keep-reasoning-follower")
    )


def _blank(block: Text, codec: WireCodec) -> bool:
    return not block.text.strip() and not (codec.signs_text and block.signature)
