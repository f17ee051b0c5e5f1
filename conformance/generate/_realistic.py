"""Keeping a drawn response to what its wire really sends, by asking the wire's realism
predicates: the very ones the case lint walks (``conformance._cases.realism``), never a
second copy of them.

A drawn block the wire never sends where it sits is first simplified (stream directives,
Responses item fields, then its token dropped), and removed when no simpler form is
realistic; the response's stop and noise are drawn only among those the wire sends.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.verdict import Violation
from conformance.vocabulary import ContentBlock, Noise, ScriptedResponse, Stop, ToolCall
from conformance.wires.roles import BlockSpot, Realism

#: Field resets tried in order on an unrealistic block, each on top of the previous.
_SIMPLER: tuple[dict[str, object], ...] = (
    {"empty_chunk_before_signature": False},
    {"signature_chunks": None},
    {"chunks": None},
    {"id": None, "summary": None},
    {"signature": None},
)


def _problems(
    realism: Realism,
    blocks: tuple[ContentBlock, ...],
    index: int,
    stop: Stop,
    dialect: str | None,
    model: str,
) -> list[Violation]:
    spot = BlockSpot(True, index, blocks, stop, dialect, model)
    return realism.block(blocks[index], spot)


def _simpler(block: ContentBlock) -> list[ContentBlock]:
    """``block`` with ever more of its optional fields reset (fields it has only)."""
    forms: list[ContentBlock] = []
    current = block
    for reset in _SIMPLER:
        fields = {k: v for k, v in reset.items() if k in type(block).model_fields}
        if not fields or all(getattr(current, k) == v for k, v in fields.items()):
            continue
        if isinstance(current, ToolCall) and "id" in fields:
            continue  # a call's id is its identity, not a Responses item field
        current = current.model_copy(update=fields)
        forms.append(current)
    return forms


def realistic_blocks(
    realism: Realism,
    blocks: Sequence[ContentBlock],
    stop: Stop,
    dialect: str | None,
    model: str,
) -> tuple[ContentBlock, ...]:
    """``blocks`` kept to what the wire sends in a response stopped with ``stop``: each
    unrealistic block simplified or removed, until the predicates find no problem."""
    kept = tuple(blocks)
    index = 0
    while index < len(kept):
        if not _problems(realism, kept, index, stop, dialect, model):
            index += 1
            continue
        for form in _simpler(kept[index]):
            trial = (*kept[:index], form, *kept[index + 1 :])
            if not _problems(realism, trial, index, stop, dialect, model):
                kept = trial
                break
        else:
            kept = kept[:index] + kept[index + 1 :]
        index = 0  # a change may make an earlier block's neighbourhood realistic, or not
    return kept


def realistic_stops(realism: Realism, stops: Sequence[Stop], dialect: str | None) -> list[Stop]:
    """The stops of ``stops`` the wire sends at all."""
    return [
        s for s in stops if not realism.response(ScriptedResponse.model_construct(stop=s), dialect)
    ]


def realistic_noise(
    realism: Realism, noise: tuple[Noise, ...], stop: Stop, dialect: str | None
) -> tuple[Noise, ...]:
    """The noise events of ``noise`` the wire sends (each asked alone)."""
    return tuple(
        n
        for n in noise
        if not realism.response(ScriptedResponse.model_construct(stop=stop, noise=(n,)), dialect)
    )
