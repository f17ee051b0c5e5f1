"""The contract every wire package keeps: the same public modules, each defining the same
public names with the same parameters, so a reader who knows one wire knows where
everything of another sits.  Helpers a wire needs beyond that live in underscore
modules (``_stops.py``, ``_state.py``) that only the package itself imports.

``contract_problems`` checks one package against it (``tests/wires/test_contract.py``
runs it on every registered wire).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from conformance.verdict import Rule

#: Each public module, and each public name it defines: a function with its parameters
#: (``None``: a value, not a function).  ``rules`` and ``realism`` may define any number
#: of ``Rule`` constants besides: handles on catalogue checks (``BOOK.rule("<id>")``).
CONTRACT: Mapping[str, Mapping[str, tuple[str, ...] | None]] = MappingProxyType(
    {
        # where a request goes: what the provider serves, and a target's default path
        "route": {
            "serves": ("request",),
            "endpoint": ("model", "stream"),
            "wants_stream": ("request", "view"),
        },
        # a request body into the neutral view, and its raw conversation items
        "parse": {"parse": ("request", "context"), "history_items": ("view",)},
        # a scripted response as the provider sends it, its error answer, and a saved
        # conversation as the request fields that hold it
        "render": {
            "render": ("response", "context"),
            "render_error": ("violation",),
            "render_history": ("messages", "dialect"),
        },
        # the rules and the checks that apply them (``BOOK``), ``RULES`` derived from it
        "rules": {"BOOK": None, "RULES": None},
        # the request checked against the book
        "validate": {"validate": ("view", "context")},
        # a recorded response back into a scripted one
        "read": {"read": ("body", "streaming", "dialect")},
        # the predicates of the case linter's one realism walk, registered by realism
        # check id in ``RESPONSE`` and ``BLOCK``, ``RULES`` derived from them
        "realism": {
            "response_problems": ("response", "dialect"),
            "block_problems": ("block", "spot"),
            "RESPONSE": None,
            "BLOCK": None,
            "RULES": None,
        },
        # the assembled ``roles.Wire``
        "wire": {"WIRE": None},
    }
)


def public_modules(package: str) -> set[str]:
    """The modules of ``package`` whose names do not start with an underscore."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError(f"{package} is not a package")
    return {
        info.name
        for info in pkgutil.iter_modules(spec.submodule_search_locations)
        if not info.name.startswith("_")
    }


def defined_names(path: Path) -> list[str]:
    """The public names a module defines at its top level (imports are not definitions)."""
    names: list[str] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [name for name in names if not name.startswith("_")]


def contract_problems(package: str) -> list[str]:
    """How ``package`` (a dotted name) departs from the contract (empty: it keeps it)."""
    found = public_modules(package)
    problems = [f"{package}: no module `{m}`" for m in sorted(set(CONTRACT) - found)]
    problems += [
        f"{package}: public module `{m}` is not in the contract (make it `_{m}`)"
        for m in sorted(found - set(CONTRACT))
    ]
    for name in sorted(set(CONTRACT) & found):
        problems += _module_problems(f"{package}.{name}", CONTRACT[name])
    return problems


def _module_problems(dotted: str, expected: Mapping[str, tuple[str, ...] | None]) -> list[str]:
    module = importlib.import_module(dotted)
    source = Path(inspect.getfile(module))
    defined = defined_names(source)
    problems = [f"{dotted}: `{n}` is missing" for n in expected if n not in defined]
    for name in defined:
        value = getattr(module, name, None)
        if name not in expected:
            if not (dotted.endswith((".rules", ".realism")) and isinstance(value, Rule)):
                problems.append(f"{dotted}: `{name}` is not in the contract (make it `_{name}`)")
            continue
        parameters = expected[name]
        if parameters is None:
            continue
        if not callable(value):
            problems.append(f"{dotted}: `{name}` is not a function")
            continue
        actual = tuple(inspect.signature(value).parameters)
        if actual != parameters:
            problems.append(
                f"{dotted}: `{name}` takes ({', '.join(actual)}), "
                f"the contract says ({', '.join(parameters)})"
            )
    return problems
