"""The official Python SDK's tool runner (``anthropic``'s
``client.beta.messages.tool_runner``) as a command target, black-box over HTTP.

One wrapper, two targets: ``threads`` (the runner's default: since 2.10.0 it keeps the
conversation server-side in a message thread, sending the ``message-threads-2026-08-12``
beta, ``thread: {"type": "create"}`` first and then ``continue`` with only the new
messages, and falling back to the whole history when the server answers
``thread_unsupported_request``) and ``nothread`` (``thread=False``, the runner's
documented switch: every request sends the whole history).  Both read the SDK's own
source for their behaviour: ``anthropic/resources/beta/messages/messages.py``
``tool_runner`` and ``anthropic/lib/threads/_thread_state.py``.

Each prompt is one ``tool_runner(..., stream=True)`` run with the case's tools (a
``BetaBuiltinFunctionTool`` per tool: the schema is the case's, and ``call`` answers the
scripted result; a failed one raises ``ToolError``, which the runner sends as
``is_error``).  The runner has no way to take a new user message once its loop has ended
(its iterator is spent), so each later prompt starts a new runner on the conversation
the SDK held at the end of the last one: the ``messages`` of the runner's thread (the
runner keeps it in ``_thread``; the Python runner has no public accessor, unlike the
TypeScript one's ``runner.params``), so the history is the SDK's own, not the wrapper's
idea of it.  In the threaded target each prompt therefore opens a new thread with the
whole conversation, then continues it within the prompt's tool loop.

The tool results are matched to call ids (a case may script a result per call): the
loop body reads each reply's ``tool_use`` blocks before the runner runs them, in order.

Capabilities: ``history`` (``wire_history`` is the messages the runner starts from),
``output-selection`` (the last non-empty text of the last prompt's replies, complete
when the last ended with ``end_turn``; after a stream that ended early, the text so
far), ``pause-resume`` (the runner resumes ``pause_turn`` itself: threaded with
``messages: []``, unthreaded by resending the paused reply), ``tool-choice``
(``tool_choice``; a forced tool with thinking on goes as ``auto``, rule 11), ``betas``
(``betas=[...]``).  Not declared: XML recovery, prefill.

Exits: 90 for any column but ``anthropic-messages``; 92 when no Anthropic messages hold
the saved history; 91 when the SDK could not read a response; 1 for an HTTP error the
provider answered, or a stream that ended early (the SDK raises), or any other fault.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.targets.command_io import (
    CaseDocument,
    Tool,
    base_url,
    import_library,
    load_case,
    run_guarded,
    serve_or_run,
    stop,
    unsupported,
)

API_KEY = "sk-ant-conformance"
MODES = ("threads", "nothread")
EXIT_HISTORY_UNLOADABLE = 92
OUTPUT_STOPS = {
    "end_turn": "end",
    "stop_sequence": "end",
    "tool_use": "tool_calls",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "pause_turn": "pause",
}


def _load() -> Any:
    import anthropic

    return anthropic


def raw_document() -> dict[str, Any]:
    """The case document as JSON: the fields ``CaseDocument`` does not type (the
    saved history's wire form, the tool choice)."""
    raw: dict[str, Any] = json.loads(
        Path(os.environ["CONFORMANCE_CASE"]).read_text(encoding="utf-8")
    )
    return raw


def saved_messages(raw: dict[str, Any]) -> list[Any]:
    """The saved conversation as the Anthropic messages the runner starts from."""
    if not raw.get("history"):
        return []
    fields = raw.get("wire_history")
    if not isinstance(fields, dict) or not isinstance(fields.get("messages"), list):
        reason = raw.get("wire_history_lost", "no reason given")
        stop(EXIT_HISTORY_UNLOADABLE, f"cannot load the saved history: no messages ({reason})")
    return list(fields["messages"])


def tool_choice(choice: Any) -> dict[str, Any] | None:
    if not isinstance(choice, dict):
        return None
    mode = choice.get("mode")
    if mode == "tool":
        return {"type": "tool", "name": choice.get("name")}
    return {"type": mode} if mode in ("auto", "any", "none") else None


class Calls:
    """The calls of the reply being answered, in order: a tool's ``call`` gets only its
    input, and the case may script a result per call id."""

    def __init__(self, document: CaseDocument) -> None:
        self.document = document
        self.pending: list[tuple[str, str]] = []

    def expect(self, message: Any) -> None:
        self.pending = [(b.id, b.name) for b in message.content if b.type == "tool_use"]

    def answer(self, name: str) -> tuple[str, bool]:
        index = next((i for i, (_, n) in enumerate(self.pending) if n == name), None)
        if index is None:
            return self.document.result_for(name), False
        call_id, _ = self.pending.pop(index)
        return self.document.result_of(call_id, name)


def runnable(anthropic: Any, tool: Tool, calls: Calls) -> Any:
    from anthropic.lib.tools import BetaBuiltinFunctionTool, ToolError

    class CaseTool(BetaBuiltinFunctionTool):  # type: ignore[misc]
        def to_dict(self) -> Any:
            return {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters,
            }

        def call(self, input: object) -> Any:
            content, failed = calls.answer(tool.name)
            if failed:
                raise ToolError(content)
            return content

    return CaseTool()


class Conversation:
    def __init__(self, anthropic: Any, document: CaseDocument, raw: dict[str, Any], mode: str):
        self.document = document
        self.raw = raw
        self.threaded = mode == "threads"
        self.client = anthropic.Anthropic(base_url=base_url(), api_key=API_KEY, max_retries=0)
        self.calls = Calls(document)
        self.tools = [runnable(anthropic, t, self.calls) for t in document.tools]
        self.history: list[Any] = saved_messages(raw)
        self.replies: list[Any] = []
        self.current: Any = None  # the reply being streamed

    def options(self) -> dict[str, Any]:
        document = self.document
        options: dict[str, Any] = {}
        if document.system is not None:
            options["system"] = document.system
        if document.thinking_mode == "manual":
            budget = document.budget_tokens or 1024
            options["thinking"] = {"type": "enabled", "budget_tokens": budget}
        elif document.thinking_mode == "adaptive":
            options["thinking"] = {"type": "adaptive"}
        choice = tool_choice(self.raw.get("tool_choice"))
        if choice is not None and "thinking" in options and choice["type"] in ("any", "tool"):
            # Rule 11: thinking cannot be on with a forced tool; the contract has the
            # command adjust the request (here, as an app would: the choice is left auto).
            choice = {"type": "auto"}
        if choice is not None:
            options["tool_choice"] = choice
        if document.betas:
            options["betas"] = list(document.betas)
        if not self.threaded:
            options["thread"] = False
        return options

    def run(self) -> None:
        for prompt in self.document.prompts:
            self.history.append({"role": "user", "content": prompt})
            runner = self.client.beta.messages.tool_runner(
                model=self.document.model,
                max_tokens=self.document.max_tokens,
                messages=list(self.history),
                tools=self.tools,
                stream=True,
                **self.options(),
            )
            self.replies = []
            for stream in runner:
                self.current = stream
                message = stream.get_final_message()
                self.current = None
                self.replies.append(message)
                self.calls.expect(message)  # before the runner runs the calls
            # The conversation as the SDK holds it (its thread's public ``messages``):
            # the replies as recorded, a stream that ended early cut to its finished
            # blocks (``ThreadState.record_partial_reply``), and the tool results.
            self.history = list(runner._thread.messages)

    def cut(self) -> Any:
        """The reply streamed so far when the stream ended early, else ``None``."""
        if self.current is None:
            return None
        try:
            return self.current.current_message_snapshot
        except Exception:  # no message_start arrived: nothing was streamed
            return None

    def write_output(self, path: Path) -> None:
        """What the app hands its parent: the last non-empty text of the last prompt's
        replies (a final reply may be empty), complete when the last reply ended the
        turn; after a stream that ended early, the text streamed so far, not complete."""
        cut = self.cut()
        messages = [*self.replies, *([cut] if cut is not None else [])]
        if not messages:
            return
        texts = ["".join(b.text for b in m.content if b.type == "text") for m in messages]
        text = next((t for t in reversed(texts) if t.strip()), None)
        last = None if cut is not None else self.replies[-1].stop_reason
        stop_name = OUTPUT_STOPS.get(last or "")
        document = {"text": text, "complete": last == "end_turn", "stop": stop_name}
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")


def refused(error: BaseException) -> bool:
    """A response the SDK could not read (not an HTTP error the provider answered, and
    not a connection that ended)."""
    import anthropic
    import pydantic

    if isinstance(error, anthropic.APIStatusError | anthropic.APIConnectionError):
        return False
    return isinstance(error, pydantic.ValidationError | json.JSONDecodeError)


def converse(anthropic: Any, document: CaseDocument, mode: str) -> Callable[[], None]:
    def run() -> None:
        conversation = Conversation(anthropic, document, raw_document(), mode)
        output = os.environ.get("CONFORMANCE_OUTPUT")
        try:
            conversation.run()
        except BaseException:
            # A stream that ended early still hands over what it streamed.
            if output and conversation.cut() is not None:
                conversation.write_output(Path(output))
            raise
        if output:
            conversation.write_output(Path(output))

    return run


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "threads"
    if mode not in MODES:
        stop(2, f"usage: run_anthropic_tool_runner.py [{'|'.join(MODES)}] (got {mode!r})")
    anthropic = import_library(_load, "anthropic")
    document = load_case()
    if document.wire != "anthropic-messages":
        unsupported(document, "the anthropic SDK's tool runner speaks Anthropic Messages only")
    run_guarded(converse(anthropic, document, mode), refused)


if __name__ == "__main__":
    serve_or_run(main)
