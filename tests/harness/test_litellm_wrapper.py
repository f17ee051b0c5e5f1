"""The LiteLLM wrapper answers each call with the case's own result for it, though
LiteLLM reports a Gemini call under an id that carries its signature
(``<id>__thought__<signature>``): a lookup by the full id returned the tool's default."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from harness.targets.command_io import CaseDocument, load_case

WRAPPER = Path(__file__).resolve().parents[2] / "harness" / "targets" / "litellm" / "run_litellm.py"
CASE = {
    "version": 2, "case": "x", "wire": "gemini", "dialect": None, "model": "gemini-2.5-flash",
    "system": None, "prompts": ["hi"], "thinking": {"mode": "adaptive"}, "max_tokens": 1024,
    "tools": [{"name": "read_file", "description": "", "parameters": {"type": "object"},
               "result": "default"}],
    "results": {"r1pyp4kz": {"content": "scripted", "is_error": False}},
}  # fmt: skip


def _wrapper() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_litellm", WRAPPER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _document(tmp_path: Path) -> CaseDocument:
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    return load_case(str(case))


def test_a_call_id_carrying_a_signature_gets_its_scripted_result(tmp_path: Path) -> None:
    wrapper, document = _wrapper(), _document(tmp_path)
    call_id = "r1pyp4kz__thought__uUdOYnsePfVuSUdEZUd2NYAm"
    assert wrapper.execute(document, call_id, "read_file", "{}") == "scripted"
    assert wrapper.execute(document, "r1pyp4kz", "read_file", "{}") == "scripted"


def test_another_call_still_gets_the_tool_default(tmp_path: Path) -> None:
    wrapper, document = _wrapper(), _document(tmp_path)
    assert wrapper.execute(document, "r2cfg8wm__thought__r1pyp4kz", "read_file", "{}") == "default"
    assert wrapper.execute(document, "r1pyp4kzX", "read_file", "{}") == "default"
