"""Turn a ``--target`` spec into a target the runner can drive.

``reference`` is the bundled reference adapter (``reference-command`` the same, run as
a command session through a manifest shipped in the package, ``reference-command-process``
as a command once per cell); a ``*.toml``/``*.yaml`` path is a
target manifest (``conformance._targets.manifest``); ``module:attr`` names an ``Adapter`` or
``Client`` (a class, instantiated without arguments, an instance, or a factory function
returning one); ``cmd:<shell command>`` is a command target; any other name is a target an
installed distribution declares in the entry-point group ``wire_conformance.targets``
(``name = "module:attr"``).
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import get_args

from conformance._interrupt import Interrupted
from conformance._paths import segment
from conformance._plugins import TARGETS, Plugin, load_each
from conformance._targets.adapter import AdapterKind
from conformance._targets.api import Adapter, Client, TargetBase
from conformance._targets.command import CommandKind, parse_command_spec
from conformance._targets.command_name import command_name
from conformance._targets.kind import Crash, TargetKind
from conformance._targets.manifest import (
    command_environment,
    find_runtime,
    is_manifest_spec,
    load_manifest,
    manifest_path,
)
from conformance._targets.session import SessionKind
from conformance._targets.tool_names import ToolNames
from conformance.errors import (
    ManifestError,
    TargetError,
    UnsafePath,
    close_to,
    unknown_names,
)
from conformance.vocabulary import Capability
from conformance.wires._registry import declarable, declared_columns

__all__ = ["REFERENCE_SPEC", "ResolvedTarget", "TargetError", "command_name", "resolve_target"]


#: How a ``cmd:`` target, which declares nothing, gets a capability.
CMD_CAPABILITIES = (
    "a `cmd:` target declares none; if it has it, run it from a target manifest that "
    "lists it under `capabilities`: docs/targets.md#target-manifests"
)
#: The bundled reference adapter, the default target.
REFERENCE_SPEC = "conformance._reference.adapter:ReferenceAdapter"


@dataclass(frozen=True)
class ResolvedTarget:
    """A runnable target: the kind object that holds its conversations, and its
    declarations.

    ``wires`` is ``None`` for a command target: it declares nothing, so every wire a
    case names is attempted (narrow it with ``--wire``).
    """

    spec: str
    name: str
    kind: TargetKind
    wires: frozenset[str] | None
    capabilities: frozenset[str] = frozenset()
    pins: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None
    #: The target's own names for the case's tools (a manifest's ``tool_names``).
    tool_names: ToolNames | None = None
    #: Where this target declares a capability it has (its manifest, its class, or a
    #: manifest to write for a ``cmd:`` target): an ``n/a`` reason says how to fix it.
    declare_capabilities: str | None = None

    def __post_init__(self) -> None:
        # The name is a directory under the snapshot and saved-exchange roots.
        try:
            segment(self.name, "the target name")
        except UnsafePath as error:
            raise TargetError(str(error)) from None

    def speaks(self, column: str) -> bool:
        """Whether the target runs ``column`` (a wire, or ``wire:dialect``); declaring a
        bare wire covers all of its dialects, ``openai-chat:openai`` the column without a
        dialect alone (``registry.declared_columns``)."""
        if self.wires is None:
            return True
        return column in declared_columns(self.wires)

    @property
    def capability_gap(self) -> str:
        """Why a case needing capabilities the target lacks is ``n/a`` (after "needs
        capability X, "): its kind's reason and where the target would declare them."""
        gap = self.kind.capability_gap
        return gap if self.declare_capabilities is None else f"{gap} ({self.declare_capabilities})"

    @property
    def bundled_reference(self) -> bool:
        """Whether this is the reference adapter shipped with the suite (the default
        target): a run on it must never look like a green run of the user's code."""
        return self.spec == REFERENCE_SPEC

    def pin_for(self, case_id: str, wire: str) -> str | None:
        """The pin of a cell: ``id[wire]`` first, then ``id``, then the first glob (in
        the order declared) that matches ``id[wire]`` or ``id``."""
        exact = self.pins.get(f"{case_id}[{wire}]") or self.pins.get(case_id)
        if exact is not None:
            return exact
        cell = f"{case_id}[{wire}]"
        return next(
            (
                reason
                for pattern, reason in self.pins.items()
                if fnmatch.fnmatchcase(cell, pattern) or fnmatch.fnmatchcase(case_id, pattern)
            ),
            None,
        )

    def unknown_pins(self, case_ids: set[str]) -> list[str]:
        """The pins that name no case of ``case_ids`` (a glob that matches none too)."""
        return [
            pin
            for pin in self.pins
            if not any(fnmatch.fnmatchcase(i, pin.partition("[")[0]) for i in case_ids)
        ]


def target_from_object(
    obj: object, spec: str | None = None, name: str | None = None
) -> ResolvedTarget:
    """A target from an ``Adapter``/``Client`` class (instantiated without arguments), an
    instance, or a factory function returning one."""
    if not isinstance(obj, TargetBase) and callable(obj):
        obj = _construct(obj, spec)
    spec = spec or f"{type(obj).__module__}:{type(obj).__qualname__}"
    kind: TargetKind
    if isinstance(obj, Adapter):
        kind = AdapterKind(obj)
    elif isinstance(obj, Client):
        # Imported here: the client kind brings the loopback provider and its HTTP stack,
        # which an adapter held as a command (a process per cell) never uses.
        from conformance._targets.client import ClientKind

        kind = ClientKind(obj)
    else:
        raise TargetError(f"{spec} is a {type(obj).__name__}, not an Adapter or Client target")
    problems = [
        problem
        for problem in (
            unknown_names("wire", obj.wires, declarable()),
            unknown_names("capability", obj.capabilities, get_args(Capability)),
        )
        if problem is not None
    ]
    if problems:  # as strict as a manifest: a typo is not a silent n/a
        raise TargetError(f"{spec}: " + "; ".join(problems))
    return ResolvedTarget(
        spec=spec,
        name=name or obj.name,
        kind=kind,
        wires=frozenset(obj.wires),
        capabilities=frozenset(obj.capabilities),
        pins=dict(obj.pins),
        declare_capabilities=f"if it has it, list it in {spec}.capabilities",
    )


def _failure(doing: str, error: BaseException) -> TargetError:
    """A ``TargetError`` for any exception (``SystemExit`` too) a target's import or
    constructor raised, with its short traceback."""
    crash = Crash.of(error)
    return TargetError(f"{doing} raised {crash}\n{crash.traceback}")


def _construct(factory: Callable[[], object], spec: str | None) -> object:
    """Call a target's class or factory; whatever it raises names it."""
    name = spec or getattr(factory, "__qualname__", repr(factory))
    try:
        return factory()
    except (KeyboardInterrupt, Interrupted):
        raise
    except BaseException as error:  # sys.exit in a constructor must not end the suite
        raise _failure(f"constructing {name}", error) from None


def _path_hint(module_name: str, error: ImportError) -> str:
    """What to put on ``sys.path`` when the target's own module (not one it imports) is
    not found: the directory that holds it, usually the project root."""
    missing = getattr(error, "name", None)
    if not isinstance(error, ModuleNotFoundError) or missing is None:
        return ""
    if missing != module_name.split(".")[0]:
        # a dependency of the target, or a module inside a package that was found
        return ""
    return (
        f"; put the directory that holds {missing.split('.')[0]!r} on sys.path: run from "
        "your project root (the command line adds the current directory), set "
        'PYTHONPATH=., or for pytest set `pythonpath = ["."]` under '
        "[tool.pytest.ini_options]"
    )


def target_from_manifest(path: Path, name: str | None = None) -> ResolvedTarget:
    """The target a manifest declares; its declarations override the object's own."""
    try:
        manifest = load_manifest(path)
        runtime = find_runtime(manifest, path)
    except ManifestError as error:
        raise TargetError(str(error)) from None
    kind: TargetKind
    if manifest.kind == "command":
        assert manifest.command is not None  # the schema demands it
        kind = (SessionKind if manifest.session else CommandKind)(
            manifest.command,
            contract=manifest.contract,
            cwd=str((path.parent / manifest.cwd) if manifest.cwd else path.parent.resolve()),
            environment=command_environment(manifest, runtime[0] if runtime else None),
            model=manifest.model,
        )
    else:
        kind = resolve_target(manifest.kind).kind
    return ResolvedTarget(
        spec=str(path),
        name=name or manifest.name,
        kind=kind,
        wires=frozenset(manifest.wires) or None,
        capabilities=frozenset(manifest.capabilities),
        pins=dict(manifest.pins),
        timeout=manifest.timeout,
        tool_names=manifest.tool_names,
        declare_capabilities=f"if it has it, list it under `capabilities` in {path}",
    )


def _named(plugin: Plugin) -> str:
    if ":" not in plugin.value:
        raise ValueError("a named target is `module:attr`")
    return plugin.value.strip()


@cache
def _named_targets() -> tuple[dict[str, str], dict[str, str]]:
    loaded, failures = load_each(TARGETS, _named)
    return {plugin.name: value for plugin, value in loaded}, failures


def named_target(spec: str) -> str:
    """The ``module:attr`` an installed distribution names ``spec`` by, else ``spec``;
    a name whose plugin failed to load says why."""
    if ":" in spec:
        return spec
    named, failures = _named_targets()
    if spec in failures:
        raise TargetError(failures[spec])
    return named.get(spec, spec)


def resolve_target(spec: str, name: str | None = None) -> ResolvedTarget:
    """Resolve ``reference``, ``reference-command``, a manifest (``*.toml``, ``*.yaml``),
    ``module:attr`` or ``cmd:<shell command>``."""
    if is_manifest_spec(spec):
        return target_from_manifest(manifest_path(spec), name)
    try:
        command = parse_command_spec(spec)
    except ValueError as error:
        raise TargetError(str(error)) from None
    if command is not None:
        return ResolvedTarget(
            spec,
            name or command_name(command),
            CommandKind(command),
            None,
            declare_capabilities=CMD_CAPABILITIES,
        )
    if spec == "reference":
        spec = REFERENCE_SPEC
    spec = named_target(spec)
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise TargetError(f"{spec!r}: a target is `reference`, `module:attr` or `cmd:<command>`")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = _path_hint(module_name, error)
        raise TargetError(f"cannot import {module_name!r}: {error}{hint}") from error
    except (KeyboardInterrupt, Interrupted):
        raise
    except BaseException as error:  # any exception, SystemExit too, names the module
        raise _failure(f"importing {module_name!r}", error) from None
    obj: object = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = [n for n in dir(obj) if not n.startswith("_")]
            raise TargetError(
                f"{module_name!r} has no attribute {attr!r}{close_to(part, names)}"
            ) from None
    return target_from_object(obj, spec, name)
