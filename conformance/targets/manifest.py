"""The target manifest: a TOML or YAML file that declares a target beside its code.

A user commits ``target.toml`` next to their agent and runs ``--target target.toml``.
It names the target, how to run it (a shell command, or ``module:attr`` in-process),
the wires it speaks, its capabilities, its pins, its timeout and the model name it is
told.  The schema is strict: an unknown key, a wire that does not exist or a bad value
is an error naming the file and the key.  ``manifest_schema()`` is its JSON Schema.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from conformance.errors import ConformanceError, close_to
from conformance.model import Capability
from conformance.targets.base import CONTRACT_VERSION
from conformance.targets.tool_names import ToolNames
from conformance.wires.registry import columns, wire_names

MANIFEST_SUFFIXES = (".toml", ".yaml", ".yml")
#: The manifest shipped in the package that runs the reference adapter as a command.
REFERENCE_COMMAND = Path(__file__).with_name("reference-command.toml")
#: Set for every command run: the Python running the suite, so a manifest can run
#: ``"$CONFORMANCE_PYTHON" -m ...`` in the same environment.
PYTHON_VARIABLE = "CONFORMANCE_PYTHON"


class ManifestError(ConformanceError, ValueError):
    """A manifest that cannot be read or does not follow the schema."""


class Manifest(BaseModel):
    """One target, declared.  ``kind`` is ``command`` (run ``command``) or a
    ``module:attr`` naming an in-process Adapter or Client."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9._-]+$")
    kind: str = Field(min_length=1, description="`command`, or `module:attr` for in-process")
    command: str | None = Field(None, description="the shell command (kind `command`)")
    cwd: str | None = Field(None, description="working directory, relative to the manifest")
    env: dict[str, str] = Field(default_factory=dict, description="variables added")
    wires: list[str] = Field(
        default_factory=list, description="wires or wire:dialect columns; empty: every wire"
    )
    capabilities: list[Capability] = Field(default_factory=list)
    pins: dict[str, str] = Field(
        default_factory=dict, description="case id, `id[wire]` or glob → reason"
    )
    timeout: float | None = Field(None, gt=0, le=86400, description="seconds per cell")
    model: str | None = Field(None, min_length=1, description="model name told to the target")
    contract: Literal[1, 2] = Field(2, description="command contract version")
    tool_names: ToolNames | None = Field(
        None, description="the target's names for the case's tools (prefix and/or table)"
    )
    build: str | None = Field(
        None,
        min_length=1,
        description="shell command run in a scratch copy of cwd before probing a mutant "
        "(kind `command`; `wire-conformance probe` only)",
    )

    @field_validator("wires")
    @classmethod
    def _known_wires(cls, wires: list[str]) -> list[str]:
        known = set(wire_names()) | set(columns())
        unknown = [f"{w}{close_to(w, known)}" for w in wires if w not in known]
        if unknown:
            raise ValueError(
                f"unknown wire {', '.join(unknown)}; the wires are {', '.join(sorted(known))}"
            )
        return wires

    def model_post_init(self, _context: Any) -> None:
        if self.kind == "command" and not (self.command or "").strip():
            raise ValueError("kind `command` needs `command`, the shell command to run")
        if self.kind != "command":
            if self.command is not None or self.cwd is not None or self.env or self.build:
                raise ValueError("`command`, `cwd`, `env` and `build` are for kind `command` only")
            if ":" not in self.kind:
                raise ValueError(f"kind {self.kind!r} is neither `command` nor `module:attr`")
        if self.contract == CONTRACT_VERSION and self.capabilities:
            raise ValueError("capabilities need contract 2 (history, output file)")


def _located(path: Path, error: ValidationError) -> ManifestError:
    lines = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown key"
        lines.append(f"{path}: {where}: {message}")
    return ManifestError("\n".join(lines))


def _document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(f"{path}: cannot read the manifest: {error}") from None
    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        return yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as error:
        raise ManifestError(f"{path}: not valid {path.suffix[1:].upper()}: {error}") from None


def load_manifest(path: Path) -> Manifest:
    """The manifest at ``path``; any fault is a ``ManifestError`` naming file and key."""
    document = _document(path)
    if not isinstance(document, dict):
        raise ManifestError(f"{path}: a manifest is a table of keys")
    try:
        return Manifest.model_validate(document)
    except ValidationError as error:
        raise _located(path, error) from None


def is_manifest_spec(spec: str) -> bool:
    return spec == "reference-command" or spec.endswith(MANIFEST_SUFFIXES)


def manifest_path(spec: str) -> Path:
    return REFERENCE_COMMAND if spec == "reference-command" else Path(spec)


def command_environment(manifest: Manifest) -> dict[str, str]:
    """The variables a manifest's command gets on top of the suite's own."""
    return {PYTHON_VARIABLE: sys.executable, **manifest.env}


def manifest_schema() -> str:
    """The manifest's JSON Schema, as printed by ``wire-conformance target --schema``."""
    schema = Manifest.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "wire-conformance target manifest"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
