"""What every real-library wrapper shares: reading the case document, the scripted tool
results, the reserved exit codes, and one place that turns a library's exception into
the exit the command contract defines.

The wrappers under ``harness/targets/<library>/`` are command targets (contract v2): the
suite starts one per case x wire against a loopback provider, or, for a manifest with
``session = true``, one per worker that holds every cell it is handed (``serve_or_run``,
the package's session helper, around the wrapper's ``main``).  This module imports
nothing but the standard library (and that helper, which imports nothing else either), so
a wrapper runs in a venv that holds only the library it drives (and the suite, which
starts it).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import sys
import traceback
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

# The wrappers' one import for both modes (re-exported).
from conformance.examples.command_session import serve_or_run as serve_or_run

#: The command does not speak this wire (or dialect): the cell is ``n/a``.
EXIT_WIRE_UNSUPPORTED = 90
#: The library refused a response the provider really sends: a ``fail``.
EXIT_RESPONSE_REFUSED = 91
#: The library is missing or broken in this environment: an ``error`` saying which.
EXIT_LIBRARY_MISSING = 3
#: The library stopped the conversation on purpose: it raised its own error instead of
#: going on (openai-agents' ModelBehaviorError on ``response.incomplete``, pydantic-ai's
#: OutputTokenLimitExceeded).  Not a crash: the suite judges what was sent, and the stop
#: passes only where the turn may end (the last stderr line is the library's message).
EXIT_CONVERSATION_STOPPED = 93
#: The conversation stopped on an exception (an HTTP error the provider answered, or a
#: library fault): the suite judges it, a rule violation makes it a ``fail``.
EXIT_STOPPED = 1


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    result: str


@dataclass(frozen=True)
class CaseDocument:
    """The ``CONFORMANCE_CASE`` document, typed: what the wrapper may use."""

    case: str
    wire: str
    dialect: str | None
    model: str
    system: str | None
    prompts: list[str]
    tools: list[Tool]
    thinking_mode: str
    budget_tokens: int | None
    max_tokens: int
    store: bool | None
    include: list[str] | None
    history: list[Any] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    #: Anthropic betas the case configures (capability ``betas``): the wrapper passes
    #: them the way the library's documentation shows (a header or a betas setting).
    betas: list[str] = field(default_factory=list)

    @property
    def column(self) -> str:
        """``wire`` or ``wire:dialect``, the report's column name."""
        return f"{self.wire}:{self.dialect}" if self.dialect else self.wire

    def result_for(self, name: str) -> str:
        """The scripted result of a tool, as the suite's own tools answer."""
        tool = next((t for t in self.tools if t.name == name), None)
        return tool.result if tool else f"unknown tool {name!r}"

    def result_of(self, call_id: str, name: str) -> tuple[str, bool]:
        """What one call returns and whether its tool failed: the case's own result for
        that call id when it scripts one (contract: ``results``), else the tool's."""
        scripted = self.results.get(call_id)
        if isinstance(scripted, dict):
            return str(scripted.get("content", "")), bool(scripted.get("is_error"))
        return self.result_for(name), False


def load_case(path: str | None = None) -> CaseDocument:
    """The case document named by ``CONFORMANCE_CASE``; a missing one is exit 2."""
    where = path or os.environ.get("CONFORMANCE_CASE")
    if not where:
        stop(2, "CONFORMANCE_CASE is not set: run this wrapper through wire-conformance")
    try:
        raw = json.loads(Path(where).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        stop(2, f"cannot read the case document {where}: {error}")
    thinking = raw.get("thinking") or {}
    return CaseDocument(
        case=raw["case"],
        wire=raw["wire"],
        dialect=raw.get("dialect"),
        model=raw["model"],
        system=raw.get("system"),
        prompts=list(raw.get("prompts") or []),
        tools=[
            Tool(t["name"], t.get("description") or "", dict(t["parameters"]), t["result"])
            for t in raw.get("tools") or []
        ],
        thinking_mode=thinking.get("mode", "off"),
        budget_tokens=thinking.get("budget_tokens"),
        max_tokens=int(raw["max_tokens"]),
        store=raw.get("store"),
        include=raw.get("include"),
        history=list(raw.get("history") or []),
        results=dict(raw.get("results") or {}),
        betas=[str(beta) for beta in raw.get("betas") or []],
    )


def base_url() -> str:
    """The loopback provider, ``http://127.0.0.1:<port>`` (no path)."""
    return os.environ["CONFORMANCE_BASE_URL"].rstrip("/")


def stop(code: int, message: str) -> NoReturn:
    """Exit with ``code``; the last stderr line is the reason the report shows."""
    sys.stderr.write(message.rstrip() + "\n")
    sys.stderr.flush()
    raise SystemExit(code)


def unsupported(document: CaseDocument, why: str) -> NoReturn:
    stop(EXIT_WIRE_UNSUPPORTED, f"{document.column}: {why}")


def import_library(load: Callable[[], Any], package: str) -> Any:
    """Import the library, or exit 3 naming the package: a wrapper run in an environment
    without its library is an ``error`` that says which, never a traceback to decode."""
    try:
        return load()
    except ImportError as error:
        stop(EXIT_LIBRARY_MISSING, f"{package} is not installed here ({error})")
    except Exception as error:  # a library that crashes at import
        stop(EXIT_LIBRARY_MISSING, f"{package} failed at import: {type(error).__name__}: {error}")


def never(_error: BaseException) -> bool:
    """For a library with no exception of the kind asked about."""
    return False


def run_guarded(
    main: Callable[[], None],
    refused: Callable[[BaseException], bool],
    stopped: Callable[[BaseException], bool] = never,
) -> NoReturn:
    """Run ``main``; exit 0 when it ends, 93 when ``stopped(exception)`` says the library
    stopped the conversation on purpose (its own documented stop, never a wrapper crash),
    91 when ``refused(exception)`` says it rejected a response the provider sent, else 1
    with the exception on stderr (the suite makes that a ``fail`` when a broken rule
    explains it, an ``error`` otherwise).  The last stderr line is the library's message."""
    try:
        main()
    except SystemExit:
        raise
    except BaseException as error:  # every library fault is reported, none escapes raw
        tail = "".join(traceback.format_exception(error)[-6:])
        sys.stderr.write(tail)
        message = f"{type(error).__name__}: {str(error)[:600]}".replace("\n", " ")
        if stopped(error):
            stop(EXIT_CONVERSATION_STOPPED, message)
        stop(EXIT_RESPONSE_REFUSED if refused(error) else EXIT_STOPPED, message)
    sys.stdout.flush()
    raise SystemExit(0)


#: The one event loop of this process, made by the first cell that needs one.
_RUNNER: asyncio.Runner | None = None


def run_async(conversation: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run one cell's coroutine on this process's one event loop.

    ``asyncio.run`` per cell closes its loop when the cell ends, but a library may cache
    an async HTTP client across calls (pydantic-ai's ``cached_async_http_client``,
    LiteLLM's client cache): in the next cell of a session that client's connections are
    bound to a closed loop.  So the process keeps one loop; what ``asyncio.run`` would
    still do at the cell's end, cancel the tasks the cell left running, is done here, so
    nothing of one cell runs on in the next.  One cell as a process: the same."""
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = asyncio.Runner()
        atexit.register(_RUNNER.close)
    try:
        _RUNNER.run(conversation())
    finally:
        _cancel_leftovers(_RUNNER.get_loop())


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel and await the tasks a cell left on ``loop`` (as ``asyncio.run`` does)."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in left:
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))


def library_version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"
