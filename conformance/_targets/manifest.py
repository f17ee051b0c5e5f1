"""The target manifest: a TOML or YAML file that declares a target beside its code.

A user commits ``target.toml`` next to their agent and runs ``--target target.toml``.
It names the target, how to run it (a shell command, or ``module:attr`` in-process),
the wires it speaks, its capabilities, its pins, its timeout and the model name it is
told.  The schema is strict: an unknown key, a wire that does not exist or a bad value
is an error naming the file and the key.  ``manifest_schema()`` is its JSON Schema.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from conformance._targets.api import CONTRACT_VERSION
from conformance._targets.tool_names import ToolNames
from conformance.errors import ManifestError, close_to
from conformance.vocabulary import Capability
from conformance.wires._registry import columns, declarable, declared_columns

MANIFEST_SUFFIXES = (".toml", ".yaml", ".yml")
#: The manifest shipped in the package that runs the reference adapter as a command
#: (a session: one process holds many cells).
REFERENCE_COMMAND = Path(__file__).with_name("reference-command.toml")
#: The same command run once per cell (no session): both modes stay runnable and tested.
REFERENCE_COMMAND_PROCESS = Path(__file__).with_name("reference-command-process.toml")
#: The manifests the package ships, by the name ``--target`` takes.
BUNDLED_MANIFESTS = {
    "reference-command": REFERENCE_COMMAND,
    "reference-command-process": REFERENCE_COMMAND_PROCESS,
}
#: Set for every command run: the Python running the suite, so a manifest can run
#: ``"$CONFORMANCE_PYTHON" -m ...`` in the same environment.
PYTHON_VARIABLE = "CONFORMANCE_PYTHON"
#: Set for a command whose manifest names a ``runtime``: that program's absolute path.
RUNTIME_VARIABLE = "CONFORMANCE_RUNTIME"


class Runtime(BaseModel):
    """The program a command needs (a Node binary, a venv's Python): found before any
    cell runs, so a missing or too old one is one clear line, not a column of errors.
    The command gets its absolute path as ``$CONFORMANCE_RUNTIME``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    program: str = Field(
        min_length=1,
        description="a name on PATH, or a path relative to the manifest (a venv's bin/python)",
    )
    min_version: str | None = Field(
        None,
        pattern=r"^[0-9]+(\.[0-9]+)*$",
        description="the oldest version that works, compared with the first version the "
        "program prints for `version_args`",
    )
    version_args: list[str] = Field(default_factory=lambda: ["--version"])


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
    session: bool = Field(
        False,
        description="the command holds many cells in one process: started once per worker, "
        "each cell one JSON line on stdin, answered on $CONFORMANCE_REPLY_FD (kind `command`)",
    )
    tool_names: ToolNames | None = Field(
        None, description="the target's names for the case's tools (prefix and/or table)"
    )
    runtime: Runtime | None = Field(
        None, description="the program the command needs, checked before the run (kind `command`)"
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
        known = set(declarable())
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
            if (
                self.command is not None
                or self.cwd is not None
                or self.env
                or self.build
                or self.runtime
                or self.session
            ):
                raise ValueError(
                    "`command`, `cwd`, `env`, `runtime`, `build` and `session` are for kind "
                    "`command` only"
                )
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
    return spec in BUNDLED_MANIFESTS or spec.endswith(MANIFEST_SUFFIXES)


def manifest_path(spec: str) -> Path:
    return BUNDLED_MANIFESTS.get(spec) or Path(spec)


def command_environment(manifest: Manifest, runtime: Path | None = None) -> dict[str, str]:
    """The variables a manifest's command gets on top of the suite's own; ``runtime``:
    the program its ``runtime`` names, found (``find_runtime``)."""
    found = {RUNTIME_VARIABLE: str(runtime)} if runtime is not None else {}
    return {PYTHON_VARIABLE: sys.executable, **found, **manifest.env}


def find_runtime(manifest: Manifest, path: Path) -> tuple[Path, str | None] | None:
    """The program the manifest at ``path`` needs and the version it reports, or
    ``None`` when it names none; a ``ManifestError`` says why a program is missing, does
    not run, or is older than ``min_version``."""
    runtime = manifest.runtime
    if runtime is None:
        return None
    program = runtime.program
    where = path.parent / (manifest.cwd or "")
    candidate = (where / program) if ("/" in program or "\\" in program) else None
    found = str(candidate) if candidate is not None and candidate.is_file() else None
    found = found or (shutil.which(program) if candidate is None else None)
    if found is None:
        raise ManifestError(
            f"{path}: runtime.program: {program} is not found"
            + ("" if candidate is not None else " on PATH")
        )
    try:
        done = subprocess.run(
            [found, *runtime.version_args], capture_output=True, text=True, timeout=30,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ManifestError(f"{path}: runtime.program: {found} does not run: {error}") from None
    printed = re.search(r"(\d+(?:\.\d+)*)", done.stdout + done.stderr)
    version = printed.group(1) if printed else None
    if runtime.min_version is not None:
        if version is None:
            raise ManifestError(
                f"{path}: runtime.min_version: {found} {' '.join(runtime.version_args)} "
                "prints no version"
            )
        if _numbers(version) < _numbers(runtime.min_version):
            raise ManifestError(
                f"{path}: runtime.min_version: {found} is version {version}, older than "
                f"{runtime.min_version}"
            )
    return Path(found).resolve(), version


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def manifest_schema() -> str:
    """The manifest's JSON Schema, as printed by ``wire-conformance target --schema``."""
    schema = Manifest.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "wire-conformance target manifest"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def describe_manifest(path: Path) -> str:
    """What ``wire-conformance target FILE`` prints: the manifest checked (its runtime
    found) and what the suite will do with it: the columns it runs, its capabilities,
    pins and the command as it will be run.  A ``ManifestError`` says what is wrong."""
    manifest = load_manifest(path)
    runtime = find_runtime(manifest, path)
    lines = [f"{path}: a valid manifest (contract {manifest.contract})", f"name: {manifest.name}"]
    if manifest.kind == "command":
        cwd = (path.parent / manifest.cwd) if manifest.cwd else path.parent
        lines += ["kind: command", f"command: {manifest.command}", f"cwd: {cwd.resolve()}"]
        if manifest.session:
            lines.append("session: one process holds many cells")
        environment = command_environment(manifest, runtime[0] if runtime else None)
        lines += [f"env: {name}={value}" for name, value in environment.items()]
        if runtime is not None:
            found, version = runtime
            lines.append(f"runtime: {found} (version {version or 'not printed'})")
    else:
        lines.append(f"kind: in-process {manifest.kind}")
    ran = sorted(declared_columns(manifest.wires)) if manifest.wires else list(columns())
    lines.append(f"columns it runs ({len(ran)}): {', '.join(ran)}")
    left = sorted(set(columns()) - set(ran))
    if left:
        lines.append(f"columns it leaves out (n/a): {', '.join(left)}")
    lines.append("capabilities: " + (", ".join(manifest.capabilities) or "none"))
    lines.append(f"pins ({len(manifest.pins)}):")
    lines += [f"  {pin}: {reason}" for pin, reason in manifest.pins.items()]
    if manifest.timeout is not None:
        lines.append(f"timeout: {manifest.timeout:g} s per cell")
    if manifest.model is not None:
        lines.append(f"model: {manifest.model}")
    return "\n".join(lines) + "\n"
