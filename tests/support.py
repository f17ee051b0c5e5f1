"""Shared by the self-tests: the bundled library, run on an in-process target."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from conformance._cases.library import load_library
from conformance._cases.loader import CaseSet
from conformance._cases.schema import Case
from conformance._runner import RunOptions, plan, run_job, run_jobs
from conformance._targets.resolve import target_from_object
from conformance._transcript import Transcript
from conformance.verdict import EvidenceThreshold, Result


@cache
def library() -> CaseSet:
    return load_library()


def run_library(
    target: object, strict: bool = True, evidence: EvidenceThreshold = "observed"
) -> dict[tuple[str, str], Result]:
    """Every bundled case × wire on ``target`` (an Adapter or Client instance)."""
    resolved = target_from_object(target)
    jobs = plan((c.case for c in library().cases), resolved)
    options = RunOptions(strict=strict, evidence=evidence)
    return {r.key: r for r in run_jobs(resolved, jobs, options)}


@cache
def reference_run(strict: bool) -> Mapping[tuple[str, str], Result]:
    """``run_library`` of the reference adapter, run once per process and read by every
    test that needs it (results are frozen, the mapping read-only)."""
    from conformance._reference.adapter import ReferenceAdapter

    return MappingProxyType(run_library(ReferenceAdapter(), strict=strict))


def failing(results: Mapping[tuple[str, str], Result]) -> set[tuple[str, str]]:
    return {key for key, r in results.items() if r.verdict in ("fail", "error")}


def library_case(case_id: str) -> Case:
    """The bundled case ``case_id``."""
    return next(c.case for c in library().cases if c.case.id == case_id)


def run_cell(
    target: object, case: Case, column: str, strict: bool = False
) -> tuple[Result, Transcript]:
    """One cell of ``case`` on ``target``: its result and the exchanges behind it."""
    resolved = target_from_object(target)
    job = next(j for j in plan([case], resolved) if j.column == column)
    result, transcript = run_job(resolved, job, RunOptions(strict=strict))
    assert transcript is not None
    return result, transcript


def column_results(
    target_name: str, column: str, cases: tuple[str, ...], options: RunOptions
) -> dict[str, Result]:
    """The result of each of ``cases`` on ``column`` for the target ``target_name``
    names, by case id: what the delta clients' tests compare with the stateless run."""
    from conformance._targets.resolve import resolve_target

    target = resolve_target(target_name)
    cells = [c.case for c in library().cases if c.case.id in cases]
    jobs = [j for j in plan(cells, target) if j.column == column]
    return {r.case: r for r in run_jobs(target, jobs, options)}


def judged(result: Result) -> tuple[str, list[tuple[str, str]], list[tuple[str, str]], int]:
    """What two runs of one cell must agree on: verdict, violations, warnings, requests."""
    return (
        result.verdict,
        sorted((v.check, v.message) for v in result.violations),
        sorted((v.check, v.message) for v in result.warnings),
        result.requests,
    )
