"""XML-style tool-call recovery (wire-rules 50, seed §53–§64)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import Any

import pytest

from conformance._reference.consolidate import TurnBlock
from conformance._reference.guards import Guards
from conformance._reference.xml_recovery import recover
from conformance.vocabulary import Reasoning, Text, ToolCall

BASH = {
    "type": "object",
    "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
}
OFFERED: dict[str, dict[str, Any]] = {"bash": BASH, "read_file": {"type": "object"}}
INVOKE = '<invoke name="bash"><parameter name="command">ls</parameter></invoke>'


def ids() -> Callable[[], str]:
    numbers = count(1)
    return lambda: f"toolu_recovered_{next(numbers)}"


def run(blocks: list[TurnBlock], *disabled: str) -> tuple[TurnBlock, ...] | None:
    return recover(blocks, OFFERED, Guards(disabled), ids())


def bash(command: str, id: str = "toolu_recovered_1", **more: Any) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments={"command": command, **more})


def test_invoke_dialect() -> None:
    assert run([Text(text=INVOKE)]) == (bash("ls"),)


def test_invoke_inside_function_calls_with_typed_parameters() -> None:
    markup = (
        "<function_calls>\n"
        '<invoke name="bash">\n<parameter name="command">\nls -la\n</parameter>\n'
        '<parameter name="timeout">30</parameter>\n</invoke>\n'
        '<invoke name="read_file"><parameter name="path">"a.txt"</parameter>'
        '<parameter name="options">{"lines": 5}</parameter></invoke>\n'
        "</function_calls>"
    )
    assert run([Text(text=markup)]) == (
        bash("ls -la", timeout=30),
        ToolCall(
            id="toolu_recovered_2",
            name="read_file",
            arguments={"path": "a.txt", "options": {"lines": 5}},
        ),
    )


def test_a_string_typed_parameter_stays_a_string() -> None:
    """The schema says string: "42" is not turned into a number."""
    markup = '<invoke name="bash"><parameter name="command">42</parameter></invoke>'
    assert run([Text(text=markup)]) == (bash("42"),)


def test_tool_call_function_dialect() -> None:
    """qwen-code#10692: the dialect the harness's own prompt teaches."""
    markup = (
        "<tool_call>\n<function=bash>\n<parameter=command>\npwd\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    assert run([Text(text=markup)]) == (bash("pwd"),)


def test_remaining_prose_is_kept_in_place() -> None:
    """§53, §60: "Sure.\\n<invoke …>" -> [T("Sure."), FC]; off drops the prose (§130)."""
    turn: list[TurnBlock] = [Text(text="Sure.\n" + INVOKE + "\nDone.")]
    assert run(turn) == (Text(text="Sure.\n\nDone."), bash("ls"))
    assert run(turn, "xml-keep-remaining-text") == (bash("ls"),)


def test_a_signed_text_keeps_its_signature_on_what_remains() -> None:
    """§56 (a stray Gemini signature on the text holding markup), rules 43, 44: the
    token stays on the prose, or alone in an empty text when no prose is left."""
    signed: list[TurnBlock] = [Text(text="Sure.\n" + INVOKE, signature="gemini-sig")]
    assert run(signed) == (Text(text="Sure.", signature="gemini-sig"), bash("ls"))
    bare: list[TurnBlock] = [Text(text=INVOKE, signature="gemini-sig")]
    assert run(bare) == (Text(text="", signature="gemini-sig"), bash("ls"))
    assert run(bare, "xml-keep-remaining-text") == (bash("ls"),)


def test_an_episode_survives_and_precedes_the_recovered_call() -> None:
    """§54, §59: the removal consumes visible text only; off deletes the episode (M3)."""
    episode = Reasoning(text="planning…", signature="sig-survive")
    turn: list[TurnBlock] = [episode, Text(text="Sure.\n" + INVOKE)]
    assert run(turn) == (episode, Text(text="Sure."), bash("ls"))
    assert run(turn, "xml-keep-episodes") == (Text(text="Sure."), bash("ls"))


def test_a_signed_episode_after_the_markup_still_precedes_the_call() -> None:
    """§58: calls are appended last; off splices them before the episode (§128)."""
    episode = Reasoning(text="after", signature="sig")
    turn: list[TurnBlock] = [Text(text=INVOKE), episode]
    assert run(turn) == (episode, bash("ls"))
    assert run(turn, "xml-calls-after-episodes") == (bash("ls"), episode)


def test_an_unsigned_episode_of_a_complete_turn_is_kept() -> None:
    """§62: [Θ("REASONING"), XML] -> [Θ("REASONING"), FC]."""
    episode = Reasoning(text="REASONING")
    assert run([episode, Text(text=INVOKE)]) == (episode, bash("ls"))


def test_unknown_tools_are_left_as_text() -> None:
    """Rule 50: only offered tools; off recovers any name."""
    markup = '<invoke name="nope"><parameter name="x">1</parameter></invoke>'
    assert run([Text(text=markup)]) is None
    recovered = run([Text(text=markup)], "xml-offered-tools-only")
    assert recovered == (ToolCall(id="toolu_recovered_1", name="nope", arguments={"x": 1}),)


def test_known_and_unknown_calls_in_one_text() -> None:
    unknown = '<invoke name="nope"><parameter name="x">1</parameter></invoke>'
    assert run([Text(text=unknown + INVOKE)]) == (Text(text=unknown), bash("ls"))


@pytest.mark.parametrize(
    "prose",
    [
        'Use <invoke name="bash"> to run commands.',
        '<invoke name="bash"><parameter name="command">ls</parameter>',
        '<invoke name="bash">run ls<parameter name="command">ls</parameter></invoke>',
        "<tool_call><function=bash><parameter=command>ls</parameter></tool_call>",
    ],
)
def test_prose_and_malformed_markup_are_left_untouched(prose: str) -> None:
    assert run([Text(text=prose)]) is None


def test_a_mention_before_a_real_call_does_not_hide_it() -> None:
    prose = 'The <invoke name="bash"> tag runs commands:\n'
    assert run([Text(text=prose + INVOKE)]) == (Text(text=prose.strip()), bash("ls"))


def test_ids_are_deterministic_and_sequential() -> None:
    first = run([Text(text=INVOKE + INVOKE)])
    assert first == (bash("ls"), bash("ls", id="toolu_recovered_2"))
    assert run([Text(text=INVOKE + INVOKE)]) == first
