"""A/B cell tables: the same selection on two targets, per case × wire both verdicts
and what flipped, the table a reviewer reads to see what a change fixed and broke.

``fixed``: red on the baseline (fail, error, or xfail: a failure its manifest pins),
green on the target (pass, or a documented limitation the case itself pins); ``broke``:
the other way; ``still failing``: red on both (a pin names a defect, it does not mend
it); ``changed``: any other difference (n/a on one side); ``same``: equal verdicts.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

from conformance.verdict import Result, Verdict

Flip: TypeAlias = Literal["fixed", "broke", "still failing", "changed", "same"]
FLIPS: tuple[Flip, ...] = ("fixed", "broke", "still failing", "changed", "same")
_RED = frozenset({"fail", "error", "xfail"})
_GREEN = frozenset({"pass", "pinned"})
AB_FORMAT = "wire-conformance-ab"
AB_VERSION = 1


class Cell(BaseModel):
    model_config = ConfigDict(frozen=True)

    case: str
    wire: str
    target: Verdict | None
    baseline: Verdict | None
    flip: Flip


class ABTable(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: str = AB_FORMAT
    version: int = AB_VERSION
    target: str
    baseline: str
    cells: tuple[Cell, ...]

    @property
    def counts(self) -> dict[str, int]:
        seen = Counter(c.flip for c in self.cells)
        return {f: seen[f] for f in FLIPS}

    def to_json(self) -> str:
        data = self.model_dump(mode="json")
        data["summary"] = self.counts
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


def flip(target: Verdict | None, baseline: Verdict | None) -> Flip:
    if target == baseline:
        return "still failing" if target in _RED else "same"
    if baseline in _RED and target in _GREEN:
        return "fixed"
    if baseline in _GREEN and target in _RED:
        return "broke"
    if baseline in _RED and target in _RED:
        return "still failing"
    return "changed"


def compare(
    target_name: str,
    baseline_name: str,
    target: Sequence[Result],
    baseline: Sequence[Result],
) -> ABTable:
    """Both runs' cells, sorted by case and wire (a cell one side lacks is ``None``)."""
    ours = {(r.case, r.wire): r.verdict for r in target}
    theirs = {(r.case, r.wire): r.verdict for r in baseline}
    cells = tuple(
        Cell(
            case=case,
            wire=wire,
            target=ours.get((case, wire)),
            baseline=theirs.get((case, wire)),
            flip=flip(ours.get((case, wire)), theirs.get((case, wire))),
        )
        for case, wire in sorted(ours.keys() | theirs.keys())
    )
    return ABTable(target=target_name, baseline=baseline_name, cells=cells)


def ab_text(table: ABTable, everything: bool = False) -> str:
    """The cells that differ (all with ``everything``), then the counts."""
    shown = [c for c in table.cells if everything or c.flip != "same"]
    width = max((len(f"{c.case}[{c.wire}]") for c in shown), default=4)
    lines = [
        f"{'cell':<{width}}  {table.baseline[:16]:<16}  {table.target[:16]:<16}  flip",
    ]
    for c in shown:
        cell = f"{c.case}[{c.wire}]"
        lines.append(f"{cell:<{width}}  {c.baseline or '-':<16}  {c.target or '-':<16}  {c.flip}")
    counts = ", ".join(f"{n} {f}" for f, n in table.counts.items() if n)
    lines.append(f"{table.target} against {table.baseline}: {counts}")
    return "\n".join(lines) + "\n"
