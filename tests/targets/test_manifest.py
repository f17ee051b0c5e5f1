"""The target manifest: strict schema, located errors, the shipped reference manifest,
and the declarations it gives a target (wires, capabilities, pins, timeout, model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.targets.command import CommandKind
from conformance.targets.manifest import REFERENCE_COMMAND, load_manifest, manifest_schema
from conformance.targets.resolve import TargetError, resolve_target

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
        "name: ref\nkind: conformance.reference.adapter:ReferenceAdapter\nwires: [gemini]\n",
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
        'name = "x"\nkind = "conformance.reference.adapter:ReferenceAdapter"\n'
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
