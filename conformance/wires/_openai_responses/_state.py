"""What the provider remembers, and a request's input expanded with it.

``StoredResponses`` holds every item the provider minted before a request, the responses it stored
and the encrypted contents it issued; ``ExpandedInput`` is the body's ``input`` with a
``previous_response_id`` and ``item_reference`` items expanded from what it stored: the
conversation the provider sees, which the parse and the checks both read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.vocabulary import ContentBlock, Reasoning, Role
from conformance.wires._openai_responses._ids import conversation_id, nonempty_id
from conformance.wires._openai_responses._kinds import item_type, side
from conformance.wires._openai_responses._minted import Minted, done_item, interim_content
from conformance.wires._openai_responses._view import ResponsesRequestView
from conformance.wires.context import ValidationContext


@dataclass(frozen=True)
class _Output:
    """One output item the provider minted, with what rule 26 pairs it with."""

    id: str
    block: ContentBlock | None  # None: an item with no neutral form (a hosted tool's call)
    item: dict[str, Any]  # its complete form, as the provider stores it (or type and id)
    stored: bool
    #: A reasoning item: the ids of what may follow it, the item minted right after it
    #: and, past items with no neutral form (a hosted tool's call, which a client may not
    #: replay; no report shows the provider refusing that), the next one with one.
    followers: tuple[str, ...]
    producer: str | None  # a message or call: the reasoning item minted right before it


@dataclass(frozen=True)
class StoredResponses:
    """What the provider remembers before a request: every item it minted (by id), the
    responses it stored, the encrypted contents it issued (each item's final one and
    the interim one its stream announced first), and the last response of each
    conversation object (a conversation holds every item of its responses)."""

    outputs: dict[str, _Output]
    responses: dict[str, tuple[ResponsesRequestView, Minted]]
    minted: frozenset[str]
    conversations: dict[str, tuple[ResponsesRequestView, Minted]]

    @classmethod
    def of(cls, context: ValidationContext) -> StoredResponses:
        views = {index: view for view, index in context.answered}
        outputs: dict[str, _Output] = {}
        responses: dict[str, tuple[ResponsesRequestView, Minted]] = {}
        conversations: dict[str, tuple[ResponsesRequestView, Minted]] = {}
        signatures: set[str] = set()
        at = context.served_at or range(len(context.served))
        for index, response in zip(at, context.served, strict=True):
            minted = Minted.of(response, index)
            view = views.get(index)
            # A fault (an HTTP error answer) stores nothing: no response the client could
            # chain on, and a conversation gets items only once its response completes
            # (rule 62), so a retried delta is not held twice.
            held = view if response.fault is None else None
            requested = held if isinstance(held, ResponsesRequestView) else None
            stored = requested is not None and requested.store
            if requested is not None and stored:
                responses[minted.response_id] = (requested, minted)
            if requested is not None and requested.conversation is not None:
                conversations[requested.conversation] = (requested, minted)
            outputs.update(_outputs(minted, requested is not None and requested.encrypted, stored))
            for b in response.blocks:
                if isinstance(b, Reasoning) and b.signature is not None:
                    # The interim token of output_item.added is OpenAI's own too, and no
                    # report shows it refused: the provider takes it, and the ledger is
                    # what asks for the final one (rule 22).
                    signatures.update((b.signature, interim_content(b.signature)))
        history_stored = context.options.store is not False
        for message in context.history:
            if message.role != "assistant":
                continue
            for saved in message.blocks:
                if not isinstance(saved, Reasoning) or saved.origin is not None:
                    continue
                if saved.signature is not None:
                    signatures.add(saved.signature)
                if saved.id is not None:
                    item = done_item(
                        saved, saved.id, encrypted=True, refusal=False, incomplete=False
                    )
                    outputs[saved.id] = _Output(saved.id, saved, item, history_stored, (), None)
        return cls(outputs, responses, frozenset(signatures), conversations)

    def stored(self, item_id: str | None) -> _Output | None:
        found = self.outputs.get(item_id or "")
        return found if found is not None and found.stored else None

    def by_signature(self, content: str) -> _Output | None:
        return next(
            (
                o
                for o in self.outputs.values()
                if isinstance(o.block, Reasoning) and o.block.signature == content
            ),
            None,
        )


NOTHING_STORED = StoredResponses({}, {}, frozenset(), {})


def _outputs(minted: Minted, encrypted: bool, stored: bool) -> dict[str, _Output]:
    """Every output item of one response by id, paired with its neighbours in the order
    it was served (rule 26): a reasoning item with what may follow it (``followers``),
    any other item with the reasoning item right before it.  A hosted tool's call sits
    between them as it did in the output, though it has no neutral form."""
    items = zip(minted.items(), minted.done_items(encrypted), strict=True)
    done = {b: item for (b, _, _), item in items}
    slots = minted.slots
    found: dict[str, _Output] = {}
    for k, slot in enumerate(slots):
        if slot.id is None:
            continue
        first = slot.blocks[0] if slot.blocks else None
        block = minted.response.blocks[first] if first is not None else None
        bare = {"type": slot.kind, "id": slot.id}
        item = done.get(first, bare) if first is not None else bare
        if slot.kind == "reasoning":
            later = slots[k + 1 :]
            neutral = next((s for s in later if s.blocks), None)
            candidates = [*later[:1], *([neutral] if neutral is not None else [])]
            followers = tuple(dict.fromkeys(s.id for s in candidates if s.id is not None))
            found[slot.id] = _Output(slot.id, block, item, stored, followers, None)
            continue
        before = slots[k - 1] if k > 0 else None
        producer = before.id if before is not None and before.kind == "reasoning" else None
        found[slot.id] = _Output(slot.id, block, item, stored, (), producer)
    return found


@dataclass(frozen=True)
class Entry:
    """One item of the conversation the provider sees, and where it came from:
    ``index`` is its position in the body's ``input`` (None: expanded from
    ``previous_response_id`` or the ``conversation`` it names)."""

    raw: Any
    at: str
    index: int | None

    @property
    def item(self) -> dict[str, Any]:
        return self.raw if isinstance(self.raw, dict) else {}

    @property
    def kind(self) -> str | None:
        return item_type(self.item)


@dataclass(frozen=True)
class ExpandedInput:
    """A body's input, expanded with what the provider stored."""

    entries: tuple[Entry, ...]
    store: bool
    stored: StoredResponses
    previous_found: bool
    body: dict[str, Any]
    #: Ids of the saved history's items this provider minted in an earlier session: they
    #: may be stored server-side, which the run cannot see.
    saved_ids: frozenset[str] = frozenset()

    @classmethod
    def of(cls, body: dict[str, Any], context: ValidationContext | None) -> ExpandedInput:
        memory = StoredResponses.of(context) if context is not None else NOTHING_STORED
        store = body.get("store") is not False
        entries: list[Entry] = []
        previous = nonempty_id(body.get("previous_response_id"))
        found = memory.responses.get(previous or "")
        conversation = memory.conversations.get(conversation_id(body.get("conversation")) or "")
        continued = found or conversation
        if continued is not None:
            earlier, minted = continued
            where = "previous_response_id" if found is not None else "conversation"
            entries += [Entry(item, where, None) for item in earlier.items]
            entries += [Entry(item, where, None) for item in minted.done_items(earlier.encrypted)]
        raw_input = body.get("input", [])
        if isinstance(raw_input, str):
            entries.append(Entry({"role": "user", "content": raw_input}, "input", 0))
        elif isinstance(raw_input, list):
            for i, item in enumerate(raw_input):
                stored = memory.stored(nonempty_id(item.get("id"))) if _is_reference(item) else None
                raw = stored.item if stored is not None and store else item
                entries.append(Entry(raw, f"input[{i}]", i))
        found_previous = previous is None or found is not None
        saved = _saved_ids(context) if context is not None else frozenset()
        return cls(tuple(entries), store, memory, found_previous, body, saved)

    @property
    def sent(self) -> list[Entry]:
        """The entries the body's ``input`` itself holds (references resolved)."""
        return [e for e in self.entries if e.index is not None]

    def reasoning_id(self, item: dict[str, Any]) -> str | None:
        """A reasoning item's id; one sent without (OpenAI tolerates it) is known by its
        encrypted content, which the provider decrypts."""
        own = nonempty_id(item.get("id"))
        content = item.get("encrypted_content")
        if own is None and isinstance(content, str):
            found = self.stored.by_signature(content)
            return found.id if found is not None else None
        return own

    def signature(self, item: dict[str, Any]) -> str | None:
        """A reasoning item's encrypted content, or the stored one its id names."""
        content = item.get("encrypted_content")
        if isinstance(content, str):
            return content
        stored = self.stored.stored(nonempty_id(item.get("id"))) if self.store else None
        return stored.block.signature if stored and isinstance(stored.block, Reasoning) else None


def _saved_ids(context: ValidationContext) -> frozenset[str]:
    """Reasoning ids of the case's saved history minted on OpenAI Responses (no origin,
    or an origin on this wire: another model of the same provider and organisation)."""
    return frozenset(
        block.id
        for message in context.history
        for block in message.blocks
        if isinstance(block, Reasoning)
        and block.id
        and (block.origin is None or block.origin.startswith("openai-responses:"))
    )


def _is_reference(item: object) -> bool:
    return isinstance(item, dict) and item.get("type") == "item_reference"


def side_of(entry: Entry) -> Role | None:
    """Which neutral message an item belongs to (None: none), from the wire's table of
    item types (``_kinds``)."""
    return side(entry.kind, entry.item.get("role"))
