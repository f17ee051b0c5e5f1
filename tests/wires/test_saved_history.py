"""A saved history in each wire's own request form: rendered by the wire's
``render_history`` and read back by the wire's own ``parse``, every history case of the
library on every column comes back as it was, or the cell is below, where the wire's JSON
has no field for some block (and the case document falls back to the neutral history).
A renderer that drops a signature fails the round trip."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance._cases.schema import Case
from conformance._runner import session_for
from conformance._targets.command_contract import EXIT_HISTORY_UNLOADABLE
from conformance.agent.runner import AgentError, document_history
from conformance.errors import HistoryLoadError
from conformance.vocabulary import Message, Reasoning, Text, ToolCall
from conformance.wires._registry import get_wire, split_column
from conformance.wires._saved_history import as_stored, hold, load
from tests.support import library

#: The cells whose history the wire's JSON cannot hold, and where it breaks: a signature
#: on a block whose field has none (Anthropic ``tool_use``, DeepSeek
#: ``reasoning_content``, Chat ``tool_calls``, a Responses ``function_call``), reasoning
#: where the wire has no field for it (plain Chat; a user message on Chat and
#: Responses), a Responses reasoning ``id`` elsewhere, child blocks inside a tool result
#: (Chat, Responses and Gemini results hold text only).
LOST: dict[tuple[str, str], str] = {
    (
        "cross-wire-child-notice-minted-elsewhere",
        "anthropic-messages",
    ): "message 2 block 2 (tool_call) does not come back as it was",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-chat",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-chat:deepseek",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-chat:openrouter",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-responses",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-claude-history-continued-elsewhere",
        "openai-chat",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-claude-history-continued-elsewhere",
        "openai-chat:deepseek",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-claude-tool-turn-continued-on-deepseek",
        "openai-chat:deepseek",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "anthropic-messages",
    ): "message 1 block 1 (tool_call) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "openai-chat",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "openai-chat:deepseek",
    ): "message 1 block 1 (tool_call) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "openai-chat:openrouter",
    ): "message 1 block 1 (tool_call) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "openai-responses",
    ): "message 1 block 1 (tool_call) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "anthropic-messages",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "gemini",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "openai-chat",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "openai-chat:deepseek",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "openai-chat:openrouter",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-tool-turn-continued-on-deepseek",
        "openai-chat:deepseek",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "deepseek-notice-blocks-omitted-reasoning-content-kept",
        "openai-chat:deepseek",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "responses-notice-blocks-omitted-reasoning-item-kept",
        "openai-responses",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-child-redacted-thinking-omitted",
        "openai-chat:openrouter",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-current-loop-assistant-blocks-kept",
        "openai-chat:openrouter",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-error-result-keeps-its-flag",
        "gemini",
    ): "message 2 comes back as a user message, not tool",
    (
        "user-input-omission-image-beside-child-blocks-kept",
        "openai-chat",
    ): "message 0 block 2 (reasoning) has no place on this wire",
    (
        "user-input-omission-image-beside-child-blocks-kept",
        "openai-chat:openrouter",
    ): "message 0 block 2 (reasoning) has no place on this wire",
    (
        "user-input-omission-image-beside-child-blocks-kept",
        "openai-responses",
    ): "message 0 block 2 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-chat",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-chat:deepseek",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-chat:openrouter",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-responses",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-chat",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-chat:deepseek",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-chat:openrouter",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-responses",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-tool-result-child-blocks",
        "gemini",
    ): "message 2 comes back as a user message, not tool",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-chat",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-chat:deepseek",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-chat:openrouter",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-responses",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-two-saved-notices",
        "openai-chat",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-two-saved-notices",
        "openai-chat:deepseek",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-two-saved-notices",
        "openai-chat:openrouter",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-two-saved-notices",
        "openai-responses",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-chat:gemini",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-chat:kimi",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-child-notice-minted-elsewhere",
        "openai-chat:ollama",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "cross-wire-claude-history-continued-elsewhere",
        "openai-chat:gemini",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-claude-history-continued-elsewhere",
        "openai-chat:kimi",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-claude-history-continued-elsewhere",
        "openai-chat:ollama",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-claude-tool-turn-continued-on-deepseek",
        "openai-chat:kimi",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "openai-chat:kimi",
    ): "message 1 block 1 (tool_call) does not come back as it was",
    (
        "cross-wire-gemini-history-continued-elsewhere",
        "openai-chat:ollama",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "openai-chat:gemini",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "openai-chat:kimi",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-history-continued-elsewhere",
        "openai-chat:ollama",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "cross-wire-responses-tool-turn-continued-on-deepseek",
        "openai-chat:kimi",
    ): "message 1 block 0 (reasoning) does not come back as it was",
    (
        "deepseek-notice-blocks-omitted-reasoning-content-kept",
        "openai-chat:kimi",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-image-beside-child-blocks-kept",
        "openai-chat:gemini",
    ): "message 0 block 2 (reasoning) has no place on this wire",
    (
        "user-input-omission-image-beside-child-blocks-kept",
        "openai-chat:kimi",
    ): "message 0 block 2 (reasoning) has no place on this wire",
    (
        "user-input-omission-image-beside-child-blocks-kept",
        "openai-chat:ollama",
    ): "message 0 block 2 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-chat:gemini",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-chat:kimi",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-notice-right-before-the-new-prompt",
        "openai-chat:ollama",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-chat:gemini",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-chat:kimi",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-saved-notice-child-blocks",
        "openai-chat:ollama",
    ): "message 2 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-chat:gemini",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-chat:kimi",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-tool-result-child-blocks",
        "openai-chat:ollama",
    ): "message 2 block 0 (tool_result) does not come back as it was",
    (
        "user-input-omission-two-saved-notices",
        "openai-chat:gemini",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-two-saved-notices",
        "openai-chat:kimi",
    ): "message 0 block 1 (reasoning) has no place on this wire",
    (
        "user-input-omission-two-saved-notices",
        "openai-chat:ollama",
    ): "message 0 block 1 (reasoning) has no place on this wire",
}


def history_cells() -> list[tuple[Case, str]]:
    return [
        (loaded.case, column)
        for loaded in sorted(library().cases, key=lambda c: c.case.id)
        if loaded.case.given.history
        for column in sorted(loaded.case.wires)
    ]


def origins(messages: tuple[Message, ...]) -> list[str | None]:
    return [getattr(b, "origin", None) for m in messages for b in m.blocks]


@pytest.mark.parametrize(
    ("case", "column"), history_cells(), ids=lambda v: v if isinstance(v, str) else v.id
)
def test_every_saved_history_comes_back_through_the_wires_parse(case: Case, column: str) -> None:
    wire_name, dialect = split_column(column)
    wire = get_wire(wire_name)
    held = hold(wire, case.given.history, dialect)
    if (case.id, column) in LOST:
        assert held.fields is None
        assert held.lost == LOST[case.id, column]
        return
    assert held.lost is None
    assert held.fields is not None
    back = load(wire, json.loads(json.dumps(held.fields)), held.origins, dialect)
    assert as_stored(back) == as_stored(case.given.history)
    assert origins(back) == origins(case.given.history)


def test_every_lost_cell_is_a_cell_of_the_library() -> None:
    cells = {(case.id, column) for case, column in history_cells()}
    assert set(LOST) <= cells


def _without_signatures(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_signatures(v)
            for k, v in value.items()
            if k not in ("signature", "thoughtSignature", "encrypted_content")
        }
    if isinstance(value, list):
        return [_without_signatures(v) for v in value]
    return value


SIGNED = (
    Message(role="user", blocks=(Text(text="Read a.txt"),)),
    Message(
        role="assistant",
        blocks=(
            Reasoning(text="Read it first.", signature="c2lnbmVkLXRob3VnaHQ="),
            ToolCall(id="call_1", name="read_file", arguments={"path": "a.txt"}),
        ),
    ),
)


@pytest.mark.parametrize("column", ["anthropic-messages", "openai-responses", "gemini"])
def test_a_renderer_that_drops_a_signature_fails_the_round_trip(column: str) -> None:
    wire = get_wire(column)
    assert hold(wire, SIGNED, None).fields is not None
    original = wire.render_history
    dropping = replace(wire, render_history=lambda m, d: _without_signatures(original(m, d)))
    held = hold(dropping, SIGNED, None)
    assert held.fields is None
    assert held.lost == "message 1 block 0 (reasoning) does not come back as it was"


def test_openrouter_keeps_the_signature_in_reasoning_details() -> None:
    fields = get_wire("openai-chat").render_history(SIGNED, "openrouter")
    details = fields["messages"][1]["reasoning_details"]
    assert details[0]["signature"] == "c2lnbmVkLXRob3VnaHQ="
    assert hold(get_wire("openai-chat"), SIGNED, "openrouter").fields == fields
    assert hold(get_wire("openai-chat"), SIGNED, None).fields is None  # plain Chat: no field


@pytest.mark.parametrize(
    ("fields", "origins", "message"),
    [
        (["not", "an", "object"], {}, "not a JSON object of request fields"),
        ({"messages": 3}, {}, "anthropic-messages does not read it: messages: Input should"),
        ({"messages": []}, {"messages.0.content.0": "gemini:x"}, "holds no block"),
        ({"messages": []}, {"messages.0": 3}, "not an object of strings"),
    ],
)
def test_saved_wire_json_that_does_not_load_says_why(
    fields: object, origins: object, message: str
) -> None:
    with pytest.raises(HistoryLoadError, match=message):
        load(get_wire("anthropic-messages"), fields, origins, None)


def test_the_case_document_carries_the_wire_form_and_the_agent_loads_it() -> None:
    case = library().by_id()["cross-wire-claude-history-continued-elsewhere"].case
    session = session_for(case, "anthropic-messages", None)
    document = session.contract(2)
    assert document["wire_history"]["messages"][1]["content"][0]["type"] == "thinking"
    assert document["wire_history_origins"] == {
        "messages.1.content.0": "anthropic-messages:claude-sonnet-4-5",
        "messages.3.content.0": "anthropic-messages:claude-sonnet-4-5",
    }
    assert "wire_history_lost" not in document
    assert origins(document_history(document)) == origins(session.history)
    assert as_stored(document_history(document)) == as_stored(session.history)
    assert "wire_history" not in session.contract(1)


def test_where_the_wire_cannot_hold_it_the_document_says_so_and_the_agent_loads_history() -> None:
    case = library().by_id()["cross-wire-claude-history-continued-elsewhere"].case
    session = session_for(case, "openai-chat", None)
    document = session.contract(2)
    assert document["wire_history"] is None
    assert document["wire_history_lost"] == LOST[case.id, "openai-chat"]
    assert document_history(document) == session.history


def test_the_agent_refuses_wire_json_it_cannot_load_with_the_history_exit_code() -> None:
    case = library().by_id()["saved-history-unsigned-thinking-mid-message"].case
    document = session_for(case, "anthropic-messages", None).contract(2)
    document["wire_history"] = {"messages": "not a list"}
    with pytest.raises(AgentError) as raised:
        document_history(document)
    assert raised.value.code == EXIT_HISTORY_UNLOADABLE
    assert "cannot load the saved history: anthropic-messages does not read it" in str(raised.value)


AGENT = "conformance.agent conformance._reference.adapter:ReferenceAdapter"


@pytest.mark.slow
def test_a_command_that_cannot_load_the_wire_history_is_an_error_with_the_reason(
    tmp_path: Path,
) -> None:
    """The reference agent passes the cell from the wire's JSON; handed JSON its wire
    does not read, it exits 92 and the cell is an ``error`` saying why."""
    from tests.targets.test_contract_v2 import run_cell

    agent = f"{shlex.quote(sys.executable)} -m {AGENT}"
    case = "saved-history-unsigned-thinking-mid-message"
    assert run_cell(agent, case).verdict == "pass"
    wrapper = tmp_path / "corrupt.py"
    wrapper.write_text(
        "import json, os, subprocess, sys\n"
        "path = os.environ['CONFORMANCE_CASE']\n"
        "doc = json.load(open(path))\n"
        "doc['wire_history'] = {'messages': 'not a list'}\n"
        "json.dump(doc, open(path, 'w'))\n"
        f"sys.exit(subprocess.call({agent!r}, shell=True))\n",
        encoding="utf-8",
    )
    result = run_cell(f"{shlex.quote(sys.executable)} {shlex.quote(str(wrapper))}", case)
    assert result.verdict == "error"
    assert result.reason is not None
    assert "could not load the saved history" in result.reason
    assert "anthropic-messages does not read it" in result.reason
