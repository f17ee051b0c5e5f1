"""Reading a recorded provider response: the helpers every wire's ``read``
shares, each turning bad input into a ``ResponseReadError`` that says where it is."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

from conformance.errors import ResponseReadError
from conformance.vocabulary import ContentBlock, ScriptedResponse, ServedIds
from conformance.wires._nesting import too_deep

_T = TypeVar("_T")


def response_text(body: bytes) -> str:
    """The body as UTF-8 text, which every provider sends; a stray byte is named, and
    so is JSON nested too deep to read without running out of stack."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ResponseReadError("the body is not UTF-8 text", f"byte {error.start}") from None
    problem = too_deep(body)
    if problem is not None:
        raise ResponseReadError(problem, "the body")
    return text


def read_json_body(body: bytes) -> dict[str, Any]:
    """A non-streamed response body: one JSON object (a cut or garbled body is named by
    the byte where JSON stops making sense)."""
    text = response_text(body)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        at = f"byte {len(text[: error.pos].encode())}"
        raise ResponseReadError(f"the body is not JSON: {error.msg}", at) from None
    if not isinstance(value, dict):
        raise ResponseReadError("the body is not a JSON object", "byte 0")
    return value


_JSON_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    dict: "an object",
    list: "an array",
    bool: "a boolean",
}


def required(item: Mapping[str, Any], key: str, kind: type[_T], at: str) -> _T:
    """``item[key]``, which must be there and be a ``kind`` (a bool is no int)."""
    value = item.get(key)
    if value is None:
        raise ResponseReadError(f"`{key}` is missing", at)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ResponseReadError(f"`{key}` is not {_JSON_NAMES.get(kind, kind.__name__)}", at)
    return value


def call_arguments(text: str, *, complete: bool) -> dict[str, Any] | str:
    """A call's arguments from their JSON text: the object when the text is one, else
    the raw text (a call cut mid-arguments).  A finished call that sent no text at all
    had no arguments: ``{}``."""
    if not text and complete:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value if isinstance(value, dict) else text


def neutral_response(
    stop: str, blocks: Sequence[ContentBlock], at: str, ids: ServedIds | None = None
) -> ScriptedResponse:
    """The response read back (with the ids it was served under, for a stateful wire), or
    a ``ResponseReadError`` when its parts contradict each other (a ``tool_calls`` stop
    without a call, one call id twice)."""
    try:
        return ScriptedResponse(stop=stop, blocks=tuple(blocks), ids=ids)
    except ValidationError as error:
        problem = error.errors()[0]
        raise ResponseReadError(str(problem["msg"]).removeprefix("Value error, "), at) from None
