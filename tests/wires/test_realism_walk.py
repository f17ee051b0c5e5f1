"""The realism lint is one walk over a case (``conformance/_cases/realism.py``): it asks a
wire's predicates about every scripted response, every block where it sits, and every
saved assistant block the provider minted, and prefixes each answer with its place."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._cases.realism import realism_problems
from conformance.catalogue.book import RuleBook
from conformance.generate.blocks import content_blocks
from conformance.verdict import Rule, Violation
from conformance.vocabulary import (
    Block,
    Media,
    ScriptedResponse,
    ServerToolResult,
    ServerToolUse,
    Stop,
    ToolResult,
)
from conformance.wires._registry import dialects_by_wire, get_wire
from conformance.wires.roles import BlockSpot, Realism
from tests.wires.kit import end, realism_case

WIRES = Path(__file__).resolve().parents[2] / "conformance" / "wires"


WHOLE = Rule("test/realism/whole", "A whole response.", "this test")
PART = Rule("test/realism/part", "A block where it sits.", "this test")


def spy() -> tuple[Realism, list[str]]:
    """Predicates that find one problem everywhere they are asked, and note the spot."""
    asked: list[str] = []

    def response(found: ScriptedResponse, dialect: str | None) -> list[Violation]:
        asked.append(f"response {found.stop} {dialect}")
        return [WHOLE.violation("whole")]

    def block(found: Block, spot: BlockSpot) -> list[Violation]:
        where = "scripted" if spot.scripted else "saved"
        asked.append(
            f"{found.kind} {where} {spot.index} stop={spot.stop} last={spot.last} "
            f"after={spot.after and spot.after.kind} before={len(spot.before)} "
            f"model={spot.model} dialect={spot.dialect}"
        )
        return [PART.violation("part")]

    return Realism(response=response, block=block), asked


def test_the_walk_asks_about_responses_blocks_and_minted_history_in_order() -> None:
    case = realism_case(
        "openai-chat:deepseek",
        end({"kind": "text", "text": "a"}, {"kind": "text", "text": "b"}, stop_="max_tokens"),
        history=[
            {"role": "user", "blocks": [{"kind": "text", "text": "old"}]},
            {
                "role": "assistant",
                "blocks": [
                    {"kind": "text", "text": "kept", "origin": "elsewhere"},
                    {"kind": "text", "text": "mine"},
                ],
            },
        ],
        options={"model": "deepseek-reasoner"},
    )
    realism, asked = spy()
    assert realism_problems(case, realism, "deepseek") == [
        "turns.0.responses.0: whole (test/realism/whole)",
        "turns.0.responses.0.blocks.0: part (test/realism/part)",
        "turns.0.responses.0.blocks.1: part (test/realism/part)",
        "history.1.blocks.1: part (test/realism/part)",
    ]
    assert asked == [
        "response max_tokens deepseek",
        "text scripted 0 stop=max_tokens last=False after=text before=0 "
        "model=deepseek-reasoner dialect=deepseek",
        "text scripted 1 stop=max_tokens last=True after=None before=1 "
        "model=deepseek-reasoner dialect=deepseek",
        "text saved 1 stop=None last=False after=None before=0 "
        "model=deepseek-reasoner dialect=deepseek",
    ]


def imports_cases(source: str) -> bool:
    """Whether ``source`` imports anything of ``conformance._cases``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(n == "conformance._cases" or n.startswith("conformance._cases.") for n in names):
            return True
    return False


def test_no_wire_module_imports_the_cases_layer() -> None:
    offenders = [
        str(path.relative_to(WIRES))
        for path in sorted(WIRES.rglob("*.py"))
        if imports_cases(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_an_import_of_the_cases_layer_is_seen() -> None:
    assert imports_cases("from conformance._cases.schema import Case\n")
    assert imports_cases("import conformance._cases\n")
    assert not imports_cases(
        "from conformance.vocabulary import Block\nimport conformance.casework\n"
    )


#: Blocks of the kinds the generator does not draw, odd enough to break what checks them.
_OTHER_KINDS: tuple[Block, ...] = (
    Media(mime="image/png", data="not base64 ~"),
    ServerToolUse(id="call_1", name="web_search"),
    ServerToolResult(call_id="nowhere", type="tool_result"),
    ToolResult(call_id="call_1", content="done"),
)


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@given(
    drawn=st.lists(content_blocks(["lookup"]), min_size=1, max_size=3),
    data=st.data(),
)
def test_a_realism_predicate_finds_nothing_outside_the_kinds_it_is_registered_on(
    drawn: list[Block], data: st.DataObject
) -> None:
    """The realism lint skips a predicate about a block of a kind it is not registered
    ``on`` (``RuleBook.run``): asked directly about every such block where it may sit
    (served or saved, any stop, dialect and neighbours), it finds nothing, so the skip
    hides no finding."""
    blocks = (*drawn, *_OTHER_KINDS)
    blocks = tuple(data.draw(st.permutations(blocks)))
    stop = data.draw(st.sampled_from([None, *get_args(Stop)]))
    model = data.draw(st.sampled_from(["", "anthropic/claude-sonnet-4", "gemini-2.5-pro"]))
    for name, dialects in dialects_by_wire().items():
        book = getattr(get_wire(name).realism.block, "__self__", None)
        assert isinstance(book, RuleBook), name
        for entry in book.registered:
            if not entry.on:
                continue
            for dialect in (None, *dialects):
                for scripted in (True, False):
                    for index, block in enumerate(blocks):
                        if isinstance(block, entry.on):
                            continue
                        spot = BlockSpot(scripted, index, blocks, stop, dialect, model)
                        found = list(entry.predicate(block, spot))
                        assert not found, (name, dialect, entry.predicate, block, found)
