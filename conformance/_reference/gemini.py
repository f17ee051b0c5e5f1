"""The Gemini wire for the reference adapter (``generateContent`` and its stream).

Decoding: every part becomes a fragment on one shared key — Gemini marks no block
boundary except a thought's signature, which rides the last part of the run it signs
and so ends that run (``flush-on-fresh-signed-text``: the decoder's form of the
tracker's fresh-text heuristic, which also keeps a signature-only run after a signed one
apart); an unsigned run is closed only by a visible part (``flush-on-visible-block``;
seed §24–§30).  Only ``thought: true`` makes
a part reasoning (rule 39); a ``thoughtSignature`` on a text part stays on that text
(rule 44), one that arrives alone in an empty text part is kept as its own block
(rule 43).  A ``functionCall`` part arrives whole, with its signature beside it; a call
without an ``id`` gets a deterministic one.  A stream that ends with ``finishReason``
and no parts is an empty turn (rule 48); one that ends without ``finishReason`` is a
cut.

Requests: model contents replay each stored part in place, a call's
``thoughtSignature`` as a part-level sibling of ``functionCall`` exactly where it came
(rules 40, 41); tool results become one ``functionResponse`` part per call, in the user
content right after the call turn (rule 42).  Signatures minted elsewhere are not
forwarded (rule 46, in ``outbound``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance._reference.codec import Decoded, ProviderError, UnsupportedBlock, WireCodec
from conformance._reference.fragments import (
    BlockEnd,
    CallStart,
    Fragment,
    MediaPiece,
    ReasoningPiece,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance._reference.outbound import (
    calls_of,
    merge_turns,
    no_inner_system,
    result_text,
    sendable,
    skips,
    split_system,
)
from conformance._reference.sse import events
from conformance._targets.api import CaseBrief, WireRequest, WireResponse
from conformance.vocabulary import (
    Block,
    Media,
    Message,
    Reasoning,
    Stop,
    Text,
    ToolCall,
    ToolChoice,
    ToolResult,
)

#: Budget for manual thinking when the brief names none.
DEFAULT_BUDGET = 1024
#: The one key every text and thought part shares: the wire marks no block boundary.
PARTS = 0

_FINISH: Mapping[str, Stop] = {
    "STOP": "end",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
}


class GeminiCodec(WireCodec):
    """Gemini: ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``."""

    wire = "gemini"
    signs_text = True

    def __init__(self, brief: CaseBrief, guards: Guards) -> None:
        super().__init__(brief, guards)
        self._unnamed = 0  # calls received without an id, numbered across the session

    # ------------------------------------------------------------ decoding

    def decode(self, response: WireResponse) -> Decoded:
        if not 200 <= response.status < 300:
            raise ProviderError(response.status, response.body.decode(errors="replace"))
        parts = _Parts(self)
        if response.streaming:
            for sse in events(response.body):
                if sse.json is not None and "error" in sse.json:
                    break  # a mid-stream error: the turn was cut
                if sse.json is not None:
                    parts.chunk(sse.json)
        else:
            body = response.json()
            for chunk in body if isinstance(body, list) else [body]:
                parts.chunk(chunk)
        return parts.decoded()

    def recovered_call_id(self, number: int) -> str:
        return f"recovered_call_{number}"

    def unnamed_call_id(self) -> str:
        """A deterministic id for a ``functionCall`` that came without one."""
        self._unnamed += 1
        return f"gemini_call_{self._unnamed}"

    # ------------------------------------------------------------ requests

    def request(self, history: Sequence[Message]) -> WireRequest:
        system, conversation = split_system(self.brief, history)
        no_inner_system(conversation)
        names = {c.id: c.name for m in conversation for c in calls_of(m.blocks)}
        kept = [Message(role=m.role, blocks=sendable(self, m)) for m in conversation]
        contents: list[dict[str, Any]] = []
        for message in merge_turns([m for m in kept if m.blocks or m.role == "assistant"]):
            if message.role == "assistant":
                blocks = self.arrange(message.blocks, repair=False)
                if skips(not blocks, self.guards):
                    continue
                contents.append({"role": "model", "parts": [self._part(b) for b in blocks]})
            else:
                parts = [_user_part(b, names) for b in message.blocks]
                contents.append({"role": "user", "parts": parts})
        model = self.brief.model
        path = f"/v1beta/models/{model}:streamGenerateContent?alt=sse"
        return WireRequest(body=self._body(system, contents), path=path)

    def _part(self, block: Block) -> dict[str, Any]:
        """One model part; a signature rides where it was minted."""
        if isinstance(block, Reasoning):
            if block.redacted:
                raise UnsupportedBlock("a redacted reasoning block has no Gemini part")
            return _signed({"text": block.text, "thought": True}, block.signature)
        if isinstance(block, Text):
            return _signed({"text": block.text}, block.signature)
        if isinstance(block, ToolCall):
            if not isinstance(block.arguments, dict):
                raise UnsupportedBlock(f"tool call {block.id} has unparsed arguments")
            call = {"name": block.name, "args": block.arguments, "id": block.id}
            if block.signature is None or self.guards.on("signature-beside-function-call"):
                return _signed({"functionCall": call}, block.signature)
            return {"functionCall": _signed(call, block.signature)}  # nested: rejected (rule 40)
        if isinstance(block, Media):
            return _inline(block)
        raise UnsupportedBlock(f"a model content cannot carry a {block.kind} block")

    def _body(self, system: str | None, contents: list[dict[str, Any]]) -> dict[str, Any]:
        brief = self.brief
        body: dict[str, Any] = {"contents": contents}
        if system is not None:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if brief.tools:
            declarations = [
                {"name": t.name, "description": t.description, "parameters": dict(t.parameters)}
                for t in brief.tools
            ]
            body["tools"] = [{"functionDeclarations": declarations}]
            if brief.tool_choice is not None:
                body["toolConfig"] = _tool_config(brief.tool_choice)
        config: dict[str, Any] = {"maxOutputTokens": brief.max_tokens}
        if brief.thinking.mode == "manual":
            budget = brief.thinking.budget_tokens or DEFAULT_BUDGET
            config["thinkingConfig"] = {"includeThoughts": True, "thinkingBudget": budget}
        elif brief.thinking.mode == "adaptive":
            config["thinkingConfig"] = {"includeThoughts": True}
        body["generationConfig"] = config
        return body


# ---------------------------------------------------------------- rendering


def _user_part(block: Block, names: Mapping[str, str]) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"text": block.text}
    if isinstance(block, Media):
        return _inline(block)
    if isinstance(block, ToolResult):
        key = "error" if block.is_error else "output"
        response = {
            "name": names.get(block.call_id, block.call_id),
            "response": {key: result_text(block)},
            "id": block.call_id,
        }
        return {"functionResponse": response}
    raise UnsupportedBlock(f"a user content cannot carry a {block.kind} block")


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    return {**part, "thoughtSignature": signature} if signature is not None else part


def _inline(block: Media) -> dict[str, Any]:
    return {"inlineData": {"mimeType": block.mime, "data": block.data}}


# ---------------------------------------------------------------- decoding


class _Parts:
    """GenerateContentResponse chunks -> fragments."""

    def __init__(self, codec: GeminiCodec) -> None:
        self._codec = codec
        self.fragments: list[Fragment] = []
        self._calls = 0
        self._finish: str | None = None

    def chunk(self, chunk: Mapping[str, Any]) -> None:
        candidates = chunk.get("candidates") or ()
        if not candidates:
            blocked = (chunk.get("promptFeedback") or {}).get("blockReason")
            self._finish = "SAFETY" if blocked else self._finish
            return
        candidate = candidates[0]
        for part in (candidate.get("content") or {}).get("parts") or ():
            if isinstance(part, dict):
                self._part(part)
        self._finish = candidate.get("finishReason") or self._finish

    def _part(self, part: Mapping[str, Any]) -> None:
        signature = part.get("thoughtSignature") or ""
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._calls += 1
            key = f"call{self._calls}"
            arguments = call.get("args")
            self.fragments.append(
                CallStart(
                    key,
                    call.get("id") or self._codec.unnamed_call_id(),
                    call.get("name") or "",
                    arguments if isinstance(arguments, dict) else {},
                    signature,
                )
            )
            self.fragments.append(BlockEnd(key))
        elif part.get("thought") is True:
            # a signature rides the last part of the thought it signs: it ends the run
            text = part.get("text") or ""
            self.fragments.append(ReasoningPiece(PARTS, text, signature, ends=bool(signature)))
        elif part.get("text") or signature:
            self.fragments.append(TextPiece(PARTS, part.get("text") or "", signature))
        elif isinstance(inline := part.get("inlineData"), dict) and inline.get("data"):
            # a model image is kept like any other part, so the history replays it (§78)
            mime, data = str(inline.get("mimeType") or ""), str(inline["data"])
            self.fragments.append(MediaPiece(PARTS, mime, data))
        # future part types have no neutral stream form; an empty text part without a
        # signature carries nothing

    def decoded(self) -> Decoded:
        if self._finish is None:
            return Decoded(tuple(self.fragments), "no_finish", False)
        stop = _FINISH.get(self._finish, "end")
        if stop == "end" and self._calls:
            stop = "tool_calls"
        return Decoded(tuple(self.fragments), stop, True)


def _tool_config(choice: ToolChoice) -> dict[str, Any]:
    """Gemini's spelling: ``functionCallingConfig.mode`` AUTO, ANY or NONE; a named tool
    is ANY restricted to it by ``allowedFunctionNames``."""
    config: dict[str, Any] = {"mode": "ANY" if choice.mode == "tool" else choice.mode.upper()}
    if choice.name is not None:
        config["allowedFunctionNames"] = [choice.name]
    return {"functionCallingConfig": config}
