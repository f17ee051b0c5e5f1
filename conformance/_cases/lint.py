"""The case-library linter (test262-style): what the schema alone cannot see.

The loader already enforces the schema, unique ids, file names, known wires, features
and dialects.  The linter adds the cross-field rules: every shape is realistic on each
wire the case names, a case lives in the directory of one of its features, a turn only
continues past a final-looking response when the case needs XML recovery, every
response a target may go on from scripts its continuation, expectations name requests
the script can produce, and no opaque payload is minted twice.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from conformance._cases.authoring import (
    budget_problems,
    reference_problems,
    user_message_problems,
)
from conformance._cases.load_problem import LoadProblem
from conformance._cases.loader import CaseSet, LoadedCase
from conformance._cases.realism import realism_problems
from conformance._cases.schema import (
    Case,
    ExpectAnyOf,
    Expectation,
    ExpectOutput,
    ExpectRequests,
    Turn,
    may_continue,
)
from conformance.vocabulary import CONTINUING_STOPS, ToolCall, opaque_fields
from conformance.wires._registry import get_wire, split_column


@dataclass(frozen=True)
class LintProblem:
    file: str
    case: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.case}: {self.message}"


def _requests(expectations: tuple[Expectation, ...]) -> list[int]:
    numbers: list[int] = []
    for expectation in expectations:
        if isinstance(expectation, ExpectAnyOf):
            numbers += _requests(expectation.any_of)
        elif not isinstance(expectation, ExpectRequests | ExpectOutput):
            request = expectation.where.request
            if isinstance(request, int):
                numbers.append(request)
    return numbers


def _unanswered_continuations(turn: Turn) -> list[int]:
    """Responses a target may go on from (``may_continue``: a cut call, a truncated stop,
    an empty or blank response) that no ``if_continued`` response answers: a target that asks
    again there (pydantic-ai's nudge, the stop-reason docs' advice) would run past the
    script, a false failure, since the provider accepts both reactions."""
    missing: list[int] = []
    for r, response in enumerate(turn.responses):
        if not may_continue(response):
            continue
        after = turn.responses[r + 1 :]
        if after and after[0].if_retried:
            after = after[1:]  # the identical retry's answer; the continuation comes next
        if not after or not after[0].if_continued:
            missing.append(r)
    return missing


def _unseen_result_ids(case: Case) -> list[str]:
    """A result scripted for one call is looked up by the id the client reports; on the
    Gemini wire a call shows its id only when its response says ``gemini_call_ids``
    (real Gemini leaves it out), so a result for a hidden call could never be found."""
    if "gemini" not in case.wires:
        return []
    hidden = {
        block.id
        for response in case.given.responses
        if not response.gemini_call_ids
        for block in response.blocks
        if isinstance(block, ToolCall)
    }
    return [
        f"gemini: results.{call_id}: the call is rendered without its id, so no client can "
        "look its result up; set `gemini_call_ids: true` on its response"
        for call_id in sorted(set(case.given.results) & hidden)
    ]


def lint_case(case: Case, file: str) -> list[str]:
    """Problems of one case (empty when it is clean)."""
    problems: list[str] = []
    # The name of the file's directory, as ``Path(file).parent.name`` gives it: a loaded
    # case's file is a ``str(Path)``, already normalised (building a Path per case was a
    # tenth of the lint's own work).
    family = os.path.basename(os.path.dirname(file))
    if family not in case.features:
        problems.append(f"lives in {family}/ but does not list the feature {family!r}")
    for column in sorted(case.wires):
        wire, dialect = split_column(column)
        realism = get_wire(wire).realism
        problems += [f"{column}: {p}" for p in realism_problems(case, realism, dialect)]
    for t, turn in enumerate(case.given.turns):
        for r, response in enumerate(turn.responses[:-1]):
            if response.fault is not None:
                continue  # a retry of the faulted request gets the next response
            if turn.responses[r + 1].if_continued or turn.responses[r + 1].if_retried:
                continue  # served only to a target that goes on or retries after the cut
            if response.stop not in CONTINUING_STOPS and "xml-recovery" not in case.needs:
                problems.append(
                    f"turns[{t}].responses[{r}] stops with {response.stop!r} but the turn goes "
                    "on: only a target that recovers an XML tool call asks again "
                    "(requires: [xml-recovery])"
                )
        problems += [
            f"turns[{t}].responses[{r}] may be gone on from (a cut call, a truncated stop or "
            "an empty or blank response) but no `if_continued` response follows it: script the "
            "continuation a target that asks again gets"
            for r in _unanswered_continuations(turn)
        ]
    scripted = len(case.given.responses)
    for number in _requests(case.expect):
        if abs(number) > scripted:
            problems.append(f"an expectation names request {number}; the script answers {scripted}")
    problems += budget_problems(case)
    problems += reference_problems(case)
    problems += user_message_problems(case)
    problems += _unseen_result_ids(case)
    payloads = Counter(
        value
        for response in case.given.responses
        for block in response.blocks
        for value in opaque_fields(block).values()
    )
    problems += [
        f"opaque payload minted twice: {value[:24]}…" for value, n in payloads.items() if n > 1
    ]
    return problems


@dataclass(frozen=True)
class LintedLibrary:
    """What linting a library found: how many cases loaded, the load errors in the
    order they were met, and every lint problem in case-id order."""

    cases: int
    errors: tuple[LoadProblem, ...]
    problems: tuple[LintProblem, ...]


def lint_each(items: Iterable[LoadedCase | LoadProblem]) -> LintedLibrary:
    """Lint cases as they load (``loader.each_case``), keeping of each only its
    problems, never the case: memory stays flat however large the library.  The
    problems come out in case-id order, as ``lint`` gives them."""
    found: dict[str, list[LintProblem]] = {}
    errors: list[LoadProblem] = []
    count = 0
    for item in items:
        if isinstance(item, LoadProblem):
            errors.append(item)
            continue
        count += 1
        case, file = item.case, item.file
        problems = [LintProblem(file, case.id, p) for p in lint_case(case, file)]
        if problems:
            found[case.id] = problems
    ordered = tuple(problem for key in sorted(found) for problem in found[key])
    return LintedLibrary(count, tuple(errors), ordered)


def lint(cases: CaseSet) -> list[LintProblem]:
    """Every lint problem of a loaded library, in case order."""
    return list(lint_each(cases.cases).problems)
