"""The layer order of ``docs/architecture.md``, enforced on the source: a module imports
only from its own unit and from units of lower layers, so no package-level cycle can
form and nothing downstream reaches back upstream ("one direction")."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import conformance

PACKAGE = Path(conformance.__file__).parent
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"

#: Layer of every unit (a top-level module or subpackage of ``conformance``).
LAYERS: dict[str, int] = {
    "version": 0,
    "errors": 0,
    "vocabulary": 0,
    "model": 1,
    "http": 0,
    "verdict": 0,
    "_interrupt": 0,
    "_renamed": 0,
    "_paths": 1,
    "catalogue": 1,
    "_settings": 1,
    "wires": 2,
    "_cases": 3,
    "_transcript": 4,
    "_provider": 5,
    "_targets": 6,
    "_checks": 6,
    "_decide": 7,
    "_snapshots": 7,
    "_exchanges": 7,
    "_reference": 7,
    "_runner": 8,
    "_report": 9,
    "_probe": 9,
    "_recording": 9,
    "generate": 9,
    "_rounds": 9,
    "pytest": 10,
    "_commands": 10,
    "agent": 10,
    "_cli": 11,
    "examples": 0,
    "_plugins": 0,
    "__init__": 12,
    "__main__": 12,
}


def unit_of(module: str) -> str | None:
    """``conformance.wires._gemini.parse`` -> ``wires``; ``conformance`` -> ``__init__``."""
    parts = module.split(".")
    if parts[0] != "conformance":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def imported(source: str, module: str) -> Iterator[str]:
    """Every ``conformance`` module ``source`` imports, relative imports resolved."""
    package = module.split(".") if module.endswith("__init__") else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield ".".join([*base, *([node.module] if node.module else [])])
            elif node.module:
                yield node.module


def upward_imports(source: str, module: str) -> list[str]:
    """The imports of ``module`` that break the layer order, as ``unit -> unit`` lines."""
    own = unit_of(module) or "__init__"
    found: list[str] = []
    for target in imported(source, module):
        unit = unit_of(target)
        if unit is None or unit == own:
            continue
        if unit not in LAYERS or LAYERS[unit] >= LAYERS[own]:
            found.append(f"{own} -> {unit} ({target})")
    return found


def sources() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield module_name(path), path


def test_every_unit_has_a_layer() -> None:
    units = {unit_of(module) for module, _ in sources()}
    assert units - set(LAYERS) == set()


def test_no_module_imports_upward_or_sideways() -> None:
    broken = [
        f"{path.relative_to(PACKAGE.parent)}: {line}"
        for module, path in sources()
        for line in upward_imports(path.read_text(encoding="utf-8"), module)
    ]
    assert broken == []


def test_the_scan_catches_an_upward_and_a_sideways_import() -> None:
    source = (
        "from conformance._runner import plan\n"
        "import conformance._checks.ledger\n"
        "from conformance.vocabulary import Message\n"
        "from . import render\n"
    )
    assert upward_imports(source, "conformance._targets.api") == [
        "_targets -> _runner (conformance._runner)",
        "_targets -> _checks (conformance._checks.ledger)",
    ]
    assert upward_imports("from ..._cli import main\n", "conformance.wires._gemini.parse") == [
        "wires -> _cli (conformance._cli)"
    ]


def test_the_documented_layers_are_the_enforced_ones() -> None:
    """docs/architecture.md lists each layer as ``N. `unit`, `unit` ...``."""
    documented: dict[str, int] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\|\s*(\d+)\s*\|([^|]*)\|", line)
        if match:
            for unit in re.findall(r"`([\w]+)`", match.group(2)):
                documented[unit] = int(match.group(1))
    assert documented == LAYERS


def test_no_module_is_named_like_pytests_internals() -> None:
    assert [p for _, p in sources() if p.stem == "_pytest" or p.parent.name == "_pytest"] == []


def wire_package_of(module: str) -> str | None:
    """``conformance.wires._gemini.rules`` -> ``gemini``; a shared module of ``wires``
    (``conformance.wires._thought_signatures``) belongs to no wire package."""
    parts = module.split(".")
    if parts[:2] != ["conformance", "wires"] or len(parts) < 3:
        return None
    return (
        parts[2] if (PACKAGE / "wires" / parts[2]).is_dir() and parts[2].startswith("_") else None
    )


def sibling_wire_imports(source: str, module: str) -> list[str]:
    """The imports of ``module`` that reach into another wire package: a wire package
    may import the shared modules of ``conformance.wires`` and lower layers, never a
    sibling wire (what two wires share moves up into ``conformance.wires``), so each
    wire stays one self-contained package an outside distribution could ship alike."""
    own = wire_package_of(module)
    if own is None:
        return []
    found: list[str] = []
    for target in imported(source, module):
        other = wire_package_of(target)
        if other is not None and other != own:
            found.append(f"wires.{own} -> wires.{other} ({target})")
    return found


def test_no_wire_package_imports_a_sibling_wire() -> None:
    broken = [
        f"{path.relative_to(PACKAGE.parent)}: {line}"
        for module, path in sources()
        for line in sibling_wire_imports(path.read_text(encoding="utf-8"), module)
    ]
    assert broken == []


def test_the_scan_catches_a_sibling_wire_import() -> None:
    source = (
        "from conformance.wires._gemini._signatures import part_signature\n"
        "from conformance.wires._thought_signatures import canonical\n"
        "from conformance.wires._openai_chat import parse\n"
        "from . import render\n"
    )
    assert sibling_wire_imports(source, "conformance.wires._openai_chat.rules") == [
        "wires._openai_chat -> wires._gemini (conformance.wires._gemini._signatures)"
    ]
    assert sibling_wire_imports(source, "conformance.wires._registry") == []
