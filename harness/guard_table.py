"""The reference adapter's guards and the cases that fail without each one.

    python -m harness.guard_table > docs/reference-adapter.md

The test suite regenerates the table and compares it with the committed document, so
the documentation of what makes each guard load-bearing cannot drift from the code.
"""

from __future__ import annotations

from conformance._cases.library import load_library
from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.guards import GUARDS, Guards
from conformance._runner import Job, RunOptions, plan, run_job, run_jobs
from conformance._targets.resolve import target_from_object
from conformance.verdict import Result

FAILING = ("fail", "error")

HEADER = """\
# The reference adapter

`conformance/_reference/` is the bundled reference adapter, the default target: an
independent implementation of every wire that passes every case strictly. It shares
only the neutral model and the target API with the suite (never the wire modules, the
checks or the provider), so a bug in the judge cannot hide behind the same bug here.

Each guard below is one decision point in the code (`if guards.on("<id>"):`) that
exists to prevent a known bug. `ReferenceAdapter(disabled={"<id>"})` re-creates the
bug; the test suite does that for every guard and requires some case of the bundled
library to fail (under `--strict`). The last column lists those cases, as
`case@column`. This file is generated: `python -m harness.guard_table > docs/reference-adapter.md`.

| guard | what it keeps true | source | cases that fail without it |
|---|---|---|---|
"""


class _Consulted(Guards):
    """All guards on, remembering which ones the code asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def on(self, guard_id: str) -> bool:
        self.asked.add(guard_id)
        return super().on(guard_id)


def killers() -> dict[str, list[str]]:
    """For every guard, the cells that fail when it alone is disabled (strict).

    A cell whose reference run never asks about a guard runs the same code with that
    guard disabled (the adapter is deterministic, and the first difference can only come
    from an answer of ``guards.on``), so its verdict is the reference's: each guard's
    run is limited to the cells that ask about it, a fraction of the library, and the
    table is the one a run of the whole library per guard gives."""
    cases = [c.case for c in load_library().cases]
    options = RunOptions(strict=True)
    recording = ReferenceAdapter()
    consulted = recording.guards = _Consulted()
    reference = target_from_object(recording)
    asking: dict[str, list[Job]] = {guard: [] for guard in GUARDS}
    failing: list[str] = []  # cells the reference itself fails: none, unless it regressed
    for job in plan(cases, reference):
        consulted.asked.clear()
        result, _ = run_job(reference, job, options)
        for guard in consulted.asked:
            asking[guard].append(job)
        if result.verdict in FAILING:
            failing.append(_cell(result))
    found: dict[str, list[str]] = {}
    for guard in sorted(GUARDS):
        target = target_from_object(ReferenceAdapter(disabled=frozenset({guard})))
        results = run_jobs(target, asking[guard], options)
        ran = {_cell(r) for r in results}
        cells = {_cell(r) for r in results if r.verdict in FAILING}
        found[guard] = sorted(cells | {cell for cell in failing if cell not in ran})
    return found


def _cell(result: Result) -> str:
    return f"{result.case}@{result.wire}"


def markdown(found: dict[str, list[str]]) -> str:
    rows = []
    for guard in sorted(GUARDS):
        entry = GUARDS[guard]
        cells = ", ".join(f"`{cell}`" for cell in found[guard]) or "**none**"
        rows.append(f"| `{guard}` | {entry.statement} | {entry.source} | {cells} |")
    return HEADER + "\n".join(rows) + "\n"


def main() -> None:
    print(markdown(killers()), end="")


if __name__ == "__main__":
    main()
