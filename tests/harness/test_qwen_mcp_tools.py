"""The qwen-code wrapper's MCP server answers each call with its own scripted result.

MCP's ``tools/call`` carries a tool name and arguments, never the model's call id, so
the server tells the calls apart by the arguments the contract document gives with each
result. Before, both calls of ``per-call-results-failing-tool-keeps-its-own-result`` got
the tool's one result and the CLI failed the case on all three wires."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conformance._runner import session_for
from tests.support import library_case

SERVER = Path(__file__).resolve().parents[2] / "harness" / "targets" / "qwen-code" / "mcp_tools.mjs"
CASE = "per-call-results-failing-tool-keeps-its-own-result"


def _calls(document: dict[str, Any], arguments: list[dict[str, Any]], tmp: Path) -> list[Any]:
    path = tmp / "case.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    lines = [
        {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": a},
        }
        for n, a in enumerate(arguments)
    ]
    done = subprocess.run(
        ["node", str(SERVER)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        env={"CONFORMANCE_CASE": str(path)},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return [json.loads(line)["result"] for line in done.stdout.splitlines()]


def test_the_document_gives_each_scripted_result_its_calls_arguments() -> None:
    results = session_for(library_case(CASE), "anthropic-messages", None).contract()["results"]
    assert results["toolu_01M5dXq8RkTnVw2LpYc7HsJa"]["arguments"] == {"path": "pyproject.toml"}
    assert results["toolu_01Gq4NzW7vKs2TbXe9LmPdRf"]["arguments"] == {"path": "setup.cfg"}


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node on this machine")
def test_each_call_gets_the_result_scripted_for_its_arguments(tmp_path: Path) -> None:
    document = session_for(library_case(CASE), "anthropic-messages", None).contract()
    got = _calls(
        document, [{"path": "setup.cfg"}, {"path": "pyproject.toml"}, {"path": "x"}], tmp_path
    )
    assert [(r["content"][0]["text"][:6], r["isError"]) for r in got] == [
        ("ENOENT", True),
        ("name =", False),
        ("(the t", False),  # no scripted call sent these arguments: the tool's result
    ]
