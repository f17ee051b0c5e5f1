"""A command target's name (its snapshot directory) comes from the program it runs, not
the exact command string: before, any change of flag, path or interpreter gave a new
``cmd-<hash>`` directory and orphaned every snapshot."""

from __future__ import annotations

import pytest

from conformance._targets.command_name import command_name
from conformance._targets.resolve import resolve_target


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("node my-agent.mjs", "cmd-my-agent"),
        ("node agents/my-agent.mjs --verbose", "cmd-my-agent"),
        ("/opt/node22/bin/node /home/me/agents/my-agent.mjs", "cmd-my-agent"),
        ("python3 -m my_pkg.agent", "cmd-my_pkg.agent"),
        ("/venv/bin/python3.12 -u -m my_pkg.agent --flag", "cmd-my_pkg.agent"),
        ("./run.sh", "cmd-run"),
        ("uv run python agent.py", "cmd-agent"),
        ("env FOO=1 node a.js", "cmd-a"),
        ("my-agent", "cmd-my-agent"),
        ("'unterminated", "cmd-unterminated"),
    ],
)
def test_the_name_is_the_program(command: str, name: str) -> None:
    assert command_name(command) == name


def test_the_same_program_with_other_flags_keeps_its_snapshot_directory() -> None:
    one = resolve_target("cmd:node agents/my-agent.mjs")
    other = resolve_target("cmd:/usr/local/bin/node ./agents/my-agent.mjs --log debug")
    assert one.name == other.name == "cmd-my-agent"
    assert resolve_target("cmd:node my-agent.mjs", "mine").name == "mine"
