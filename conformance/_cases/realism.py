"""The realism lint's one walk over a case: every scripted response and its blocks, then
every block of the saved assistant history the provider minted, each asked of the wire's
realism predicates (``conformance/wires/_<wire>/realism.py``).  A problem is prefixed
with where it sits (``turns.0.responses.1.blocks.2: ...``) and ends with the id of the
realism check it breaks, so it can be cited and looked up (``wire-conformance checks
--rule ID``)."""

from __future__ import annotations

from conformance._cases.schema import Case
from conformance.verdict import Violation
from conformance.wires.roles import BlockSpot, Realism


def realism_problems(case: Case, realism: Realism, dialect: str | None = None) -> list[str]:
    """Every shape in ``case`` the wire (in ``dialect``) never sends, by location."""
    problems: list[str] = []
    model = case.given.options.model
    for t, turn in enumerate(case.given.turns):
        for r, response in enumerate(turn.responses):
            where = f"turns.{t}.responses.{r}"
            problems += [finding(where, v) for v in realism.response(response, dialect)]
            blocks = tuple(response.blocks)
            for b, block in enumerate(blocks):
                spot = BlockSpot(True, b, blocks, response.stop, dialect, model)
                problems += [finding(f"{where}.blocks.{b}", v) for v in realism.block(block, spot)]
    for m, message in enumerate(case.given.history):
        if message.role != "assistant":
            continue
        saved = tuple(message.blocks)
        for b, kept in enumerate(saved):
            if getattr(kept, "origin", None) is None:
                spot = BlockSpot(False, b, saved, None, dialect, model)
                where = f"history.{m}.blocks.{b}"
                problems += [finding(where, v) for v in realism.block(kept, spot)]
    return problems


def finding(where: str, found: Violation) -> str:
    """``where: text (check id)``: the finding as the lint prints it."""
    return f"{where}: {found.message} ({found.check})"
