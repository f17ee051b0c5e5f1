"""google-genai (Google's Python Gen AI SDK) as a command target, black-box over HTTP.

One wrapper, two targets: the two ways Google's documentation shows a tool loop with
the SDK, both streamed, both on the Gemini API (``genai.Client(api_key=...,
http_options=HttpOptions(base_url=<loopback>))``, on the SDK's default API version,
``v1`` in 3.6.1: ``POST /v1/models/<model>:streamGenerateContent?alt=sse``):

* ``models`` (target ``google-genai``): the manual function-calling loop of the docs,
  on ``client.models.generate_content_stream``. The application keeps ``contents``
  itself: it appends the user's ``Content``, then the model's content, then one
  ``Content(role="user")`` of ``Part(function_response=...)``, one per call, and calls
  again. The SDK hands a stream back chunk by chunk and has no helper that assembles
  them, so the application does what the unary answer (the docs' ``candidates[0].
  content``) holds: one ``Content(role="model")`` of every part of every chunk, in
  order, thought parts, calls and signatures as they came, the text a stream split
  over chunks joined back into its part (a piece joins the text or thought part
  before it unless that part is signed or either is empty, as Google's ADK
  ``StreamingResponseAggregator`` joins streamed text; an unsigned empty text piece
  carries nothing and is left out, a signed one stays its own part).
* ``chats`` (target ``google-genai-chats``): ``client.chats.create(...)`` and
  ``chat.send_message_stream(...)``; the SDK keeps the history, the application sends
  the prompt, then the function responses as the next message. Automatic function
  calling (AFC) stays off: AFC runs Python callables and declares them from their
  signatures, while the case's tools are JSON-schema declarations with scripted
  results (the docs' manual path, ``FunctionDeclaration`` dicts); with declarations
  only, the SDK does not run AFC anyway. So both targets send the case's schemas as
  they are and answer calls the same way.

A call's result is ``FunctionResponse(id=<the call's id, when it has one>, name,
response={"output": ...})``; a failed tool answers ``{"error": ...}`` (the keys the
``FunctionResponse.response`` docstring names). Per-call results are found by the
call's id, or for an id-less call by its arguments (contract ``results``).

Capabilities: ``history`` (the document's ``wire_history`` is the Gemini ``contents``
JSON, loaded with ``types.Content.model_validate``: the ``contents`` the models loop
starts from, the ``history=`` of ``chats.create``); ``output-selection`` (the last
non-empty visible text of the final prompt's turn, the stop from the last
``finish_reason``); ``tool-choice`` (``tool_config.function_calling_config``: ``AUTO``,
``ANY``, ``NONE``, a named tool as ``ANY`` with ``allowed_function_names``). Not
declared: XML recovery (the SDK has none), pause-resume, prefill and betas (Anthropic
only).

Thinking is ``ThinkingConfig(include_thoughts=True, thinking_budget=N)`` (adaptive:
``include_thoughts`` only). A turn whose last ``finish_reason`` is ``MAX_TOKENS`` ends
the loop; its calls do not run, and they are answered as not run in the next user
content, before the next prompt (a model content's calls must be answered right after
it). A stream that ended without any ``finish_reason`` (a dropped connection that the
SDK ended quietly) is reported on stderr and treated the same way. A model answer with
no parts at all is not appended in the ``models`` loop (there is no content to
append); the SDK's chat records what it records.

Exit codes: 90 for any column but ``gemini``; 92 a ``wire_history`` that does not
load; 1 an HTTP error the provider answered (``errors.APIError``) or a network fault;
91 a response the SDK could not read (a JSON or validation error on the provider's
answer); 93 the SDK stopped the conversation with its own deliberate error (a
``ValueError`` it raises from its own code) instead of going on.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.targets.command_io import (
    CaseDocument,
    base_url,
    import_library,
    load_case,
    run_guarded,
    serve_or_run,
    stop,
    unsupported,
)

API_KEY = "conformance-gemini-key"
CUT = "not run: the response was cut before the call could run"
MODES = ("models", "chats")
DEFAULT_BUDGET = 1024
#: The command contract's "I cannot load the saved history".
EXIT_HISTORY_UNLOADABLE = 92
#: Reserved exit "the library stopped the conversation" (its own deliberate error).
EXIT_LIBRARY_STOPPED = 93
#: Gemini finish reasons and the contract's stop they report (others: none).
REFUSALS = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}


def _load() -> Any:
    from google import genai

    return genai


def raw_document() -> dict[str, Any]:
    """The case document as JSON, for the v2 fields ``CaseDocument`` does not type."""
    document = json.loads(Path(os.environ["CONFORMANCE_CASE"]).read_text(encoding="utf-8"))
    return document if isinstance(document, dict) else {}


def saved_history(types: Any, raw: dict[str, Any]) -> list[Any]:
    """The saved conversation as ``types.Content``: ``wire_history`` is the Gemini
    ``contents`` JSON itself; the case language's ``history`` has no SDK loader."""
    fields = raw.get("wire_history")
    if fields is None:
        if raw.get("history"):
            stop(EXIT_HISTORY_UNLOADABLE, "cannot load the saved history: no wire_history "
                 f"({raw.get('wire_history_lost', 'no reason given')})")  # fmt: skip
        return []
    try:
        return [types.Content.model_validate(content) for content in fields.get("contents", [])]
    except (ValueError, TypeError, AttributeError) as error:
        message = str(error).replace("\n", " ")[:400]
        stop(EXIT_HISTORY_UNLOADABLE, f"cannot load the saved history: {message}")


def tool_config(types: Any, choice: Any) -> Any:
    """The case's tool choice as Gemini's ``functionCallingConfig``."""
    if not isinstance(choice, dict):
        return None
    mode = choice.get("mode")
    if mode == "tool":
        config = types.FunctionCallingConfig(
            mode="ANY", allowed_function_names=[str(choice.get("name"))]
        )
    else:
        config = types.FunctionCallingConfig(mode=str(mode).upper())
    return types.ToolConfig(function_calling_config=config)


def generation_config(types: Any, document: CaseDocument, raw: dict[str, Any]) -> Any:
    settings: dict[str, Any] = {"max_output_tokens": document.max_tokens}
    if document.system is not None:
        settings["system_instruction"] = document.system
    if document.tools:
        declarations = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in document.tools
        ]
        settings["tools"] = [types.Tool(function_declarations=declarations)]
        choice = tool_config(types, raw.get("tool_choice"))
        if choice is not None:
            settings["tool_config"] = choice
    if document.thinking_mode == "manual":
        settings["thinking_config"] = types.ThinkingConfig(
            include_thoughts=True, thinking_budget=document.budget_tokens or DEFAULT_BUDGET
        )
    elif document.thinking_mode == "adaptive":
        settings["thinking_config"] = types.ThinkingConfig(include_thoughts=True)
    # Declarations only: nothing for AFC to run; said explicitly, as the docs' manual loop.
    settings["automatic_function_calling"] = types.AutomaticFunctionCallingConfig(disable=True)
    return types.GenerateContentConfig(**settings)


class Results:
    """Each call's scripted result: by the call's id, or for an id-less call by its
    arguments (the first scripted result not yet used), else the tool's result."""

    def __init__(self, document: CaseDocument) -> None:
        self.document = document
        self.used: set[str] = set()

    def answer(self, call: Any) -> tuple[str, bool]:
        call_id = call.id or ""
        if not call_id:
            for key, scripted in self.document.results.items():
                if key in self.used or not isinstance(scripted, dict):
                    continue
                if scripted.get("arguments") == (call.args or {}):
                    call_id = key
                    break
        self.used.add(call_id)
        return self.document.result_of(call_id, call.name or "")


def response_part(types: Any, call: Any, content: str, failed: bool) -> Any:
    response = types.FunctionResponse(
        id=call.id, name=call.name, response={"error" if failed else "output": content}
    )
    return types.Part(function_response=response)


def _plain_text(part: Any) -> bool:
    """A text part (a thought or not) with nothing but its text, flag and signature."""
    fields = part.model_dump(exclude_none=True)
    return isinstance(part.text, str) and set(fields) <= {"text", "thought", "thought_signature"}


class Turn:
    """One streamed answer: its parts in order, and its last ``finish_reason``."""

    def __init__(self) -> None:
        self.parts: list[Any] = []
        self.finish: str | None = None

    def read(self, chunk: Any) -> None:
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is None:
            return
        if candidate.content is not None and candidate.content.parts:
            for part in candidate.content.parts:
                self.add(part)
        if candidate.finish_reason is not None:
            reason = candidate.finish_reason
            self.finish = str(getattr(reason, "value", reason))

    def add(self, part: Any) -> None:
        """A streamed part joins the text (or thought) part before it, as the unary
        answer holds it: a stream splits one part's text over chunks, and the signature
        rides the last piece. A signed part closes its part; an empty one (a signature
        carrier) stays alone; calls and every other kind stay as they came."""
        if _plain_text(part) and not part.text and part.thought_signature is None:
            return  # an unsigned empty piece carries nothing
        last = self.parts[-1] if self.parts else None
        if (
            last is not None
            and _plain_text(last)
            and _plain_text(part)
            and bool(last.thought) == bool(part.thought)
            and last.thought_signature is None
            and last.text
            and part.text
        ):
            update = {"text": last.text + part.text, "thought_signature": part.thought_signature}
            self.parts[-1] = last.model_copy(update=update)
            return
        self.parts.append(part)

    @property
    def calls(self) -> list[Any]:
        return [p.function_call for p in self.parts if p.function_call is not None]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if p.text and not p.thought)

    def stop(self) -> str | None:
        if self.finish is None:
            return "no_finish"
        if self.finish == "MAX_TOKENS":
            return "max_tokens"
        if self.finish in REFUSALS:
            return "refusal"
        if self.finish == "STOP":
            return "tool_calls" if self.calls else "end"
        return None  # OTHER, MALFORMED_FUNCTION_CALL, ...: no stop of the contract

    def cut(self) -> bool:
        return self.finish is None or self.finish == "MAX_TOKENS"


class Conversation:
    """The tool loop over the prompts, the same for both modes; ``send`` is the mode."""

    def __init__(self, genai: Any, document: CaseDocument, raw: dict[str, Any], mode: str):
        from google.genai import types

        self.types = types
        self.document = document
        self.mode = mode
        self.client = genai.Client(
            api_key=API_KEY, http_options=types.HttpOptions(base_url=base_url())
        )
        self.config = generation_config(types, document, raw)
        history = saved_history(types, raw)
        self.contents: list[Any] = list(history)
        self.chat: Any = None
        if mode == "chats":
            self.chat = self.client.chats.create(
                model=document.model, config=self.config, history=history
            )
        self.results = Results(document)
        self.final: list[Turn] = []

    def send(self, parts: list[Any]) -> Turn:
        turn = Turn()
        if self.chat is not None:
            for chunk in self.chat.send_message_stream(parts):
                turn.read(chunk)
            return turn
        self.contents.append(self.types.Content(role="user", parts=parts))
        stream = self.client.models.generate_content_stream(
            model=self.document.model, contents=self.contents, config=self.config
        )
        for chunk in stream:
            turn.read(chunk)
        if turn.parts:
            self.contents.append(self.types.Content(role="model", parts=list(turn.parts)))
        return turn

    def run(self) -> None:
        types = self.types
        pending: list[Any] = []  # answers of calls a cut turn left unrun
        for prompt in self.document.prompts:
            self.final = []
            parts = [*pending, types.Part(text=prompt)]
            pending = []
            while True:
                turn = self.send(parts)
                self.final.append(turn)
                calls = turn.calls
                if turn.cut():
                    if turn.finish is None:
                        print("the stream ended without a finish_reason", file=sys.stderr)
                    pending = [response_part(types, c, CUT, True) for c in calls]
                    break
                if not calls:
                    break
                parts = [response_part(types, c, *self.results.answer(c)) for c in calls]

    def write_output(self, path: Path) -> None:
        texts = [turn.text for turn in self.final]
        text = next((t for t in reversed(texts) if t.strip()), None)
        last = self.final[-1].stop() if self.final else None
        document = {"text": text, "complete": last == "end", "stop": last}
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")


def _raised_in_sdk(error: BaseException) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and f"{os.sep}google{os.sep}genai{os.sep}" in frames[-1].filename


def refused(error: BaseException) -> bool:
    """A provider answer the SDK could not read: JSON or validation errors on it."""
    import pydantic
    from google.genai import errors

    return isinstance(
        error, errors.UnknownApiResponseError | pydantic.ValidationError | (json.JSONDecodeError)
    )


def library_stop(error: BaseException) -> bool:
    """The SDK's own deliberate error (a ``ValueError`` it raises from its own code, its
    function-calling errors): it stopped the conversation instead of going on."""
    import pydantic
    from google.genai import errors

    if isinstance(error, errors.APIError) or refused(error):
        return False
    deliberate = isinstance(error, ValueError) and not isinstance(error, pydantic.ValidationError)
    return deliberate and _raised_in_sdk(error)


def converse(genai: Any, document: CaseDocument, mode: str) -> None:
    raw = raw_document()
    conversation = Conversation(genai, document, raw, mode)
    try:
        conversation.run()
    except Exception as error:
        if not library_stop(error):
            raise
        sys.stderr.write("".join(traceback.format_exception(error)[-6:]))
        message = f"{type(error).__name__}: {str(error)[:600]}".replace("\n", " ")
        stop(EXIT_LIBRARY_STOPPED, message)
    output = os.environ.get("CONFORMANCE_OUTPUT")
    if output:
        conversation.write_output(Path(output))


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "models"
    if mode not in MODES:
        stop(2, f"usage: run_google_genai.py [{'|'.join(MODES)}] (got {mode!r})")
    genai = import_library(_load, "google-genai")
    document = load_case()
    if document.wire != "gemini" or document.dialect is not None:
        unsupported(document, "google-genai speaks the Gemini API (generateContent) only")
    run_guarded(lambda: converse(genai, document, mode), refused)


if __name__ == "__main__":
    serve_or_run(main)
