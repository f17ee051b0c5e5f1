"""Every check of the suite, and the one entry point that runs them on a transcript.

The checklists are read in one fixed order, which is both the order ``all_checks`` lists
the checks in and the order their violations appear in a report:

1. ``recorded``: the provider rules, then each wire's rules (wires by name), which the
   scripted provider enforced while it served the run;
2. ``expectations``: the case's ``expect`` list;
3. ``ledger``: the opaque-payload ledger;
4. ``invariants``: the other universal invariants;
5. the check packs installed distributions declare (the entry-point group
   ``wire_conformance.checks``: a module with a ``CHECKLIST``), by entry name.

Same transcript, same list.
"""

from __future__ import annotations

from functools import cache

from conformance.checks import expectations, invariants, ledger, recorded, retries
from conformance.checks.check import Check, Checklist, Judged
from conformance.plugins import CHECKS, Plugin, attribute, load_each
from conformance.transcript import Transcript
from conformance.verdict import Violation
from conformance.wires.roles import Wire

__all__ = [
    "CHECKLISTS",
    "MORE_VIOLATIONS",
    "Check",
    "Judged",
    "all_checks",
    "registered",
    "run_checks",
]

#: The checklist of every module that judges checks, in report order.
CHECKLISTS: tuple[Checklist, ...] = (
    recorded.CHECKLIST,
    expectations.CHECKLIST,
    ledger.CHECKLIST,
    invariants.CHECKLIST,
    retries.CHECKLIST,
)


def _pack_checklist(plugin: Plugin) -> Checklist:
    checklist = attribute(plugin, "CHECKLIST")
    if not isinstance(checklist, Checklist):
        raise TypeError(f"{plugin.module}.CHECKLIST is not a Checklist")
    return checklist


@cache
def registered() -> tuple[Judged, ...]:
    """Every judge with its checks, in report order: the suite's, then the check packs'."""
    packs = [checklist for _, checklist in load_each(CHECKS, _pack_checklist)[0]]
    return tuple(judged for checklist in (*CHECKLISTS, *packs) for judged in checklist.judged)


#: The report's own entry, not a judge: a cell that broke more than the report keeps
#: (``runner.capped``) counts the rest in one entry with this id, so that every id a
#: report prints resolves in ``wire-conformance checks``.
MORE_VIOLATIONS = Check(
    id="report/more-violations",
    statement=(
        "A cell's report keeps at most 20 violations of one check and 100 in all; this "
        "entry counts the ones left out, by check (the verdict is judged on all of them)."
    ),
    source="the report's size limit (docs/report.md): a target that loops cannot make a "
    "report of megabytes",
    evidence="documented",
)


@cache
def all_checks() -> tuple[Check, ...]:
    """Every check (rules, expectations, ledger, invariants), in report order, then the
    report's own entry."""
    return (*(check for judged in registered() for check in judged.checks), MORE_VIOLATIONS)


def run_checks(transcript: Transcript, wire: Wire) -> list[Violation]:
    """Every violation of the run, judge by judge in report order."""
    found: list[Violation] = []
    for judged in registered():
        found += judged.judge(transcript, wire)
    return found
