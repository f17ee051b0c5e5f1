"""Whole conversations as cases: several user turns, each a tool loop of calling
responses (faults between them) and one response that ends it, realistic on one wire
column and clean under the case lint.

The lint (``conformance._cases.lint.lint_case``) is the last word: a drawn case it finds
a problem in is rejected, so every generated case could be committed to the library.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from hypothesis import reject
from hypothesis import strategies as st

from conformance._cases.lint import lint_case
from conformance._cases.schema import Case, ExpectNoMessage, Given, RuleRef, Turn, may_continue
from conformance.generate._features import features_of
from conformance.generate._mint import Mint, call_id_prefix
from conformance.generate.payloads import sentences
from conformance.generate.responses import Shaping, ending_responses, faults, loop_responses
from conformance.vocabulary import Options, ScriptedResponse, Text, ThinkingConfig, ToolSpec
from conformance.wires._registry import get_wire, split_column

#: The tools every generated conversation offers, with the results the suite hands out.
TOOLS = (
    ToolSpec(
        name="read_file",
        description="Read a file of the project",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
        result="retries = 5",
    ),
    ToolSpec(
        name="search_docs",
        description="Search the documentation",
        parameters={"type": "object", "properties": {"query": {"type": "string"}}},
        result="Retry policy: at most 5 attempts.",
    ),
)

#: What a generated case cites until a failure names its check: the ledger's rules,
#: which every conversation with a replay token exercises (rule 5, 7: each token back
#: exactly once, in place).
GENERATED_PROVENANCE = (RuleRef(rule=5), RuleRef(rule=7))

#: The one expectation of a generated case; the invariants and the wire's rules, which
#: run on every case, do the judging.
NO_EMPTY_MESSAGE = ExpectNoMessage.model_validate(
    {
        "in": {"request": "each"},
        "no_message": "empty",
        "why": "a generated conversation: the universal invariants and the wire rules judge it",
    }
)


def case_id(column: str, given: Given) -> str:
    """A stable id from the conversation's content (the same draw, the same id)."""
    digest = hashlib.sha256(given.model_dump_json().encode()).hexdigest()[:10]
    return f"generated-{column.replace(':', '-')}-{digest}"


#: The answer to a target that goes on from a cut or empty ending response.
CONTINUATION = ScriptedResponse(
    if_continued=True, stop="end", blocks=(Text(text="Asked again, here is the answer in full."),)
)


@st.composite
def turns(
    draw: st.DrawFn, shaping: Shaping, mint: Mint, max_loops: int = 2, fault_odds: int = 6
) -> Turn:
    """One user turn: up to ``max_loops`` calling responses, then one that ends it (and,
    when a target may go on from it, the continuation); a fault may stand before any of
    them (about one in ``fault_odds``)."""
    script: list[ScriptedResponse] = []
    loops = draw(st.integers(min_value=0, max_value=max_loops))
    for step in range(loops + 1):
        if draw(st.integers(min_value=1, max_value=fault_odds)) == fault_odds:
            script.append(draw(faults()))
        ending = step == loops
        script.append(
            draw(ending_responses(shaping, mint) if ending else loop_responses(shaping, mint))
        )
    if may_continue(script[-1]):
        script.append(CONTINUATION)  # what a target that asks again gets (the lint's rule)
    return Turn(user=draw(sentences(2, 6)), responses=tuple(script))


@st.composite
def cases(draw: st.DrawFn, column: str, max_turns: int = 3, max_loops: int = 2) -> Case:
    """A lint-clean case for ``column`` (``wire`` or ``wire:dialect``)."""
    wire_name, dialect = split_column(column)
    wire = get_wire(wire_name)
    options = Options(thinking=ThinkingConfig(mode="adaptive"))
    realism = wire.realism
    tools = tuple(t.name for t in TOOLS)
    shaping = Shaping(realism, dialect, options.model, tools, call_ids=wire_name == "gemini")
    mint = Mint(call_id_prefix(realism, dialect, options.model))
    count = draw(st.integers(min_value=1, max_value=max_turns))
    drawn = tuple(draw(turns(shaping, mint, max_loops)) for _ in range(count))
    given = Given(tools=TOOLS, options=options, turns=drawn)
    case = build_case(column, given, GENERATED_PROVENANCE)
    problems = lint_case(case, f"{case.features[0]}/{case.id}.yaml")
    if problems:
        reject()
    return case


def build_case(
    column: str,
    given: Given,
    provenance: Sequence[object],
    notes: str | None = None,
    case_id_: str | None = None,
) -> Case:
    """The case around ``given``: its features, the column with its reason, one
    expectation, ``provenance``."""
    return Case.model_validate(
        {
            "id": case_id_ or case_id(column, given),
            "title": f"A generated conversation on {column}, judged by the invariants and rules",
            "provenance": list(provenance),
            "features": list(features_of(given)),
            "wires": {
                column: f"Generated for {column} within the wire's realism predicates, the "
                "ones the case lint applies."
            },
            "notes": notes,
            "given": given,
            "expect": [NO_EMPTY_MESSAGE],
        }
    )
