"""A command target's stable name: its snapshot directory and its name in reports.

Derived from the program the command runs, not from the exact command string, so that
adding a flag, moving the checkout or switching interpreters does not orphan every
snapshot: ``node agents/my-agent.mjs --verbose`` is ``cmd-my-agent``, ``python -m
my_pkg.agent`` is ``cmd-my_pkg.agent``, ``./run.sh`` is ``cmd-run``.  Interpreters and
launchers (``python3``, ``node``, ``uv run``, ``env``...) and their options are skipped
to reach the script or module.  Two commands of one program share a name: give each its
own with ``--target-name`` / ``--conformance-target-name``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath

#: Programs that run another program: the name comes from what they run.
LAUNCHERS = frozenset(
    {
        "env", "uv", "uvx", "run", "poetry", "pipx", "npx", "pnpm", "yarn", "exec",
        "node", "deno", "bun", "tsx", "ts-node", "ruby", "perl", "php", "bash", "sh",
        "zsh", "java", "dotnet", "go", "cargo", "python", "pypy", "pypy3",
    }
)  # fmt: skip
_PYTHON = re.compile(r"python[0-9.]*(\.exe)?$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _launcher(program: str) -> bool:
    return program in LAUNCHERS or bool(_PYTHON.fullmatch(program))


def _program(words: list[str]) -> str:
    """The script or module the command runs, past launchers, options and variables."""
    for index, word in enumerate(words):
        if word in ("-m", "-c") and index + 1 < len(words):
            return words[index + 1] if word == "-m" else "inline"
        if word.startswith("-") or ("=" in word and not word.startswith(("/", "."))):
            continue
        name = PurePath(word).name
        if _launcher(name):
            continue
        return PurePath(name).stem if PurePath(name).suffix else name
    return PurePath(words[0]).name if words else "command"


def command_name(command: str) -> str:
    """``cmd-<program>``: stable across flags, paths and interpreters (see above)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    name = _UNSAFE.sub("-", _program(words)).strip("-.") or "command"
    return f"cmd-{name}"
