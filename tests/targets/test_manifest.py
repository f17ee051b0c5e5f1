"""The target manifest: strict schema, located errors, the shipped reference manifest,
and the declarations it gives a target (wires, capabilities, pins, timeout, model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import main
from conformance._targets.command import CommandKind
from conformance._targets.manifest import REFERENCE_COMMAND, load_manifest, manifest_schema
from conformance._targets.resolve import resolve_target
from conformance.errors import TargetError

COMMAND = """
name = "my-agent"
kind = "command"
command = "node agent.mjs"
cwd = "agent"
env = { AGENT_MODE = "test" }
wires = ["anthropic-messages", "openai-chat:deepseek"]
capabilities = ["history", "output-selection"]
pins = { "truncation-*" = "we never retry", "pause-turn-resumes[anthropic-messages]" = "x" }
timeout = 12.5
model = "claude-my-model"
"""


def write(tmp_path: Path, text: str, name: str = "target.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_command_manifest_declares_the_target(tmp_path: Path) -> None:
    target = resolve_target(str(write(tmp_path, COMMAND)))
    assert target.name == "my-agent"
    assert isinstance(target.kind, CommandKind)
    assert target.kind.command == "node agent.mjs"
    assert target.kind.cwd == str(tmp_path / "agent")
    assert target.kind.environment["AGENT_MODE"] == "test"
    assert target.kind.model == "claude-my-model"
    assert target.kind.contract == 2
    assert target.timeout == 12.5
    assert target.capabilities == {"history", "output-selection"}
    assert target.speaks("openai-chat:deepseek")
    assert not target.speaks("openai-chat")
    assert target.speaks("anthropic-messages")
    assert not target.speaks("gemini")


def test_pins_may_be_globs_and_unknown_ones_are_named(tmp_path: Path) -> None:
    target = resolve_target(str(write(tmp_path, COMMAND)))
    assert target.pin_for("truncation-cut", "openai-chat") == "we never retry"
    assert target.pin_for("pause-turn-resumes", "anthropic-messages") == "x"
    assert target.pin_for("pause-turn-resumes", "gemini") is None
    assert target.unknown_pins({"truncation-a", "other"}) == [
        "pause-turn-resumes[anthropic-messages]"
    ]


def test_a_yaml_manifest_names_an_in_process_target(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: ref\nkind: conformance._reference.adapter:ReferenceAdapter\nwires: [gemini]\n",
        "target.yaml",
    )
    target = resolve_target(str(path))
    assert target.kind.name == "adapter"
    assert target.wires == frozenset({"gemini"})
    assert target.capabilities == frozenset()  # the manifest's declarations, not the class's


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (COMMAND + 'colour = "blue"\n', "colour: unknown key"),
        (COMMAND.replace('"openai-chat:deepseek"', '"openai-chatt"'), "unknown wire openai-chatt"),
        (COMMAND.replace('"history", ', '"time-travel", '), "capabilities.0"),
        (COMMAND.replace("timeout = 12.5", "timeout = -1"), "timeout"),
        ('name = "x"\nkind = "command"\n', "kind `command` needs `command`"),
        ('name = "x"\nkind = "nonsense"\n', "neither `command` nor `module:attr`"),
        (COMMAND + "contract = 1\n", "capabilities need contract 2"),
        ("name = [", "not valid TOML"),
    ],
)
def test_a_bad_manifest_is_a_located_error(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TargetError) as raised:
        resolve_target(str(path))
    assert str(path) in str(raised.value)
    assert message in str(raised.value)


def test_a_missing_manifest_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="cannot read the manifest"):
        resolve_target(str(tmp_path / "absent.toml"))


def test_the_cli_refuses_a_pin_for_an_unknown_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        'name = "x"\nkind = "conformance._reference.adapter:ReferenceAdapter"\n'
        'pins = { "no-such-case" = "why" }\n',
    )
    assert main(["run", "--target", str(path), "-q"]) == 2
    assert "pins name no case: no-such-case" in capsys.readouterr().out


def test_the_cli_refuses_a_bad_manifest_and_a_bad_jobs_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, COMMAND + "surprise = 1\n")
    assert main(["run", "--target", str(path), "-q"]) == 2
    assert "surprise: unknown key" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["run", "-j", "0"])


def test_the_shipped_reference_manifest_declares_everything() -> None:
    manifest = load_manifest(REFERENCE_COMMAND)
    target = resolve_target("reference-command")
    reference = resolve_target("reference")
    assert manifest.name == target.name == "reference-command"
    assert target.capabilities == reference.capabilities
    assert target.wires == reference.wires


def test_the_schema_is_exported_and_strict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["target", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema == json.loads(manifest_schema())
    assert schema["additionalProperties"] is False
    assert {"name", "kind", "command", "wires", "capabilities", "pins", "timeout", "model"} <= set(
        schema["properties"]
    )


# --- the column without a dialect, declared alone -------------------------------------


def test_openai_chat_openai_declares_the_plain_column_alone(tmp_path: Path) -> None:
    """A wrapper for OpenAI's own API is not spawned on every compatible server just
    to exit 90: `openai-chat:openai` is the column without a dialect, alone."""
    text = 'name = "t"\nkind = "command"\ncommand = "true"\nwires = ["openai-chat:openai"]\n'
    target = resolve_target(str(write(tmp_path, text)))
    assert target.speaks("openai-chat")
    assert not target.speaks("openai-chat:deepseek")
    assert not target.speaks("anthropic-messages")


def test_a_bare_wire_still_covers_its_dialects(tmp_path: Path) -> None:
    text = 'name = "t"\nkind = "command"\ncommand = "true"\nwires = ["openai-chat"]\n'
    target = resolve_target(str(write(tmp_path, text)))
    assert target.speaks("openai-chat")
    assert target.speaks("openai-chat:openrouter")


def test_a_plain_alias_of_a_wire_without_one_is_unknown(tmp_path: Path) -> None:
    text = 'name = "t"\nkind = "command"\ncommand = "true"\nwires = ["gemini:google"]\n'
    with pytest.raises(TargetError, match="unknown wire gemini:google"):
        resolve_target(str(write(tmp_path, text)))


# --- the runtime a command needs --------------------------------------------------------


def _program(tmp_path: Path, prints: str) -> Path:
    program = tmp_path / "bin" / "fake-node"
    program.parent.mkdir(exist_ok=True)
    program.write_text(f"#!/bin/sh\necho '{prints}'\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def _with_runtime(tmp_path: Path, runtime: str) -> Path:
    text = f'name = "t"\nkind = "command"\ncommand = "true"\nruntime = {runtime}\n'
    return write(tmp_path, text)


def test_a_found_runtime_is_handed_to_the_command(tmp_path: Path) -> None:
    program = _program(tmp_path, "v22.23.5")
    path = _with_runtime(tmp_path, '{ program = "bin/fake-node", min_version = "22" }')
    target = resolve_target(str(path))
    assert isinstance(target.kind, CommandKind)
    assert target.kind.environment["CONFORMANCE_RUNTIME"] == str(program.resolve())


def test_a_runtime_too_old_is_one_clear_line(tmp_path: Path) -> None:
    _program(tmp_path, "v18.19.0")
    path = _with_runtime(tmp_path, '{ program = "bin/fake-node", min_version = "22.1" }')
    with pytest.raises(TargetError, match=r"is version 18\.19\.0, older than 22\.1"):
        resolve_target(str(path))


def test_a_missing_runtime_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _with_runtime(tmp_path, '{ program = "no-such-program-xyz" }')
    assert main(["run", "--target", str(path), "--quiet"]) == 2
    out = capsys.readouterr().out
    assert "runtime.program: no-such-program-xyz is not found on PATH" in out


def test_a_runtime_is_for_commands_only(tmp_path: Path) -> None:
    text = 'name = "t"\nkind = "pkg.mod:Adapter"\nruntime = { program = "node" }\n'
    with pytest.raises(TargetError, match="`runtime`"):
        resolve_target(str(write(tmp_path, text)))


# --- `wire-conformance target FILE` ------------------------------------------------------


def test_target_file_describes_what_the_suite_will_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["target", str(write(tmp_path, COMMAND))]) == 0
    out = capsys.readouterr().out
    assert "a valid manifest (contract 2)" in out
    assert "columns it runs (2): anthropic-messages, openai-chat:deepseek" in out
    assert "columns it leaves out (n/a): gemini," in out
    assert "capabilities: history, output-selection" in out
    assert "  truncation-*: we never retry" in out
    assert f"cwd: {(tmp_path / 'agent').resolve()}" in out
    assert "env: AGENT_MODE=test" in out


def test_target_file_names_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, COMMAND.replace('"history"', '"histroy"'))
    assert main(["target", str(path)]) == 2
    assert f"{path}: capabilities.0" in capsys.readouterr().out


def test_target_needs_a_file_or_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["target"]) == 2
    assert "give a manifest FILE, or --schema" in capsys.readouterr().out
