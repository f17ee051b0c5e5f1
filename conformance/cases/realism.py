"""The realism lint's one walk over a case: every scripted response and its blocks, then
every block of the saved assistant history the provider minted, each asked of the wire's
realism predicates (``conformance/wires/<wire>/realism.py``).  A problem is prefixed
with where it sits (``turns.0.responses.1.blocks.2: ...``)."""

from __future__ import annotations

from conformance.cases.schema import Case
from conformance.wires.roles import BlockSpot, Realism


def realism_problems(case: Case, realism: Realism, dialect: str | None = None) -> list[str]:
    """Every shape in ``case`` the wire (in ``dialect``) never sends, by location."""
    problems: list[str] = []
    model = case.given.options.model
    for t, turn in enumerate(case.given.turns):
        for r, response in enumerate(turn.responses):
            where = f"turns.{t}.responses.{r}"
            problems += [f"{where}: {p}" for p in realism.response(response, dialect)]
            blocks = tuple(response.blocks)
            for b, block in enumerate(blocks):
                spot = BlockSpot(True, b, blocks, response.stop, dialect, model)
                problems += [f"{where}.blocks.{b}: {p}" for p in realism.block(block, spot)]
    for m, message in enumerate(case.given.history):
        if message.role != "assistant":
            continue
        saved = tuple(message.blocks)
        for b, kept in enumerate(saved):
            if getattr(kept, "origin", None) is None:
                spot = BlockSpot(False, b, saved, None, dialect, model)
                problems += [f"history.{m}.blocks.{b}: {p}" for p in realism.block(kept, spot)]
    return problems
