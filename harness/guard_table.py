"""The reference adapter's guards and the cases that fail without each one.

    python -m harness.guard_table > docs/reference-adapter.md

The test suite regenerates the table and compares it with the committed document, so
the documentation of what makes each guard load-bearing cannot drift from the code.
"""

from __future__ import annotations

from conformance.cases.library import load_library
from conformance.reference.adapter import ReferenceAdapter
from conformance.reference.guards import GUARDS
from conformance.runner import RunOptions, plan, run_jobs
from conformance.targets.resolve import target_from_object

HEADER = """\
# The reference adapter

`conformance/reference/` is the bundled reference adapter, the default target: an
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


def killers() -> dict[str, list[str]]:
    """For every guard, the cells that fail when it alone is disabled (strict)."""
    cases = [c.case for c in load_library().cases]
    found: dict[str, list[str]] = {}
    for guard in sorted(GUARDS):
        target = target_from_object(ReferenceAdapter(disabled=frozenset({guard})))
        results = run_jobs(target, plan(cases, target), RunOptions(strict=True))
        found[guard] = sorted(
            f"{r.case}@{r.wire}" for r in results if r.verdict in ("fail", "error")
        )
    return found


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
