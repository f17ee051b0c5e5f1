"""The contract every wire package keeps: the same public modules, each defining the same
public names with the same parameters, so a reader who knows one wire knows where
everything of another sits.  Helpers a wire needs beyond that live in underscore
modules (``_stops.py``, ``_state.py``) that only the package itself imports.

The contract is the one statement of a wire's shape: ``assemble`` builds the
``roles.Wire`` of a package from it (each name is the ``Wire`` field of the same name,
lower-cased), and ``contract_problems`` checks one package against it
(``tests/wires/test_contract.py`` runs it on every registered wire).  A name whose field
has a default is optional: a wire without dialects defines no ``DIALECTS``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from conformance.verdict import Rule
from conformance.wires.roles import Realism, Wire

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
        # a recorded response back into a scripted one, and the noise its stream carried
        "read": {"read": ("body", "streaming", "dialect"), "noise": ("events", "body")},
        # the predicates of the case linter's one realism walk, registered by realism
        # check id in the books ``RESPONSE`` and ``BLOCK``, and the options the provider
        # refuses before any turn; the two predicates and ``REALISM_RULES`` are made from
        # the books where a package leaves them out (``_FROM_BOOKS``)
        "realism": {
            "response_problems": ("response", "dialect"),
            "block_problems": ("block", "spot"),
            "options_problems": ("options", "tools"),
            "RESPONSE": None,
            "BLOCK": None,
            "REALISM_RULES": None,
        },
        # the wire's own data: its name, how its clients find it, its ledger hints, its
        # dialects and default models, its server-side state, a recording's case options,
        # its provider hosts and their real paths, and where its tools keep their schema
        "wire": {
            "NAME": None,
            "CLIENT": None,
            "HINTS": None,
            "MODELS": None,
            "DIALECTS": None,
            "PLAIN_DIALECT": None,
            "unseen_state": ("view", "bodies"),
            "settle": ("body", "later"),
            "defers": ("view",),
            "poll_of": ("request",),
            "case_options": ("view",),
            "HOSTS": None,
            "PATH_REWRITES": None,
            "TOOL_SCHEMA_KEYS": None,
        },
    }
)
#: The contract names that are not the ``Wire`` field of their lower-cased name: the
#: realism predicates and checks make ``Wire.realism``; the books (``BOOK``, ``RESPONSE``,
#: ``BLOCK``) are where the rules come from.
_FIELDS: Mapping[str, str | None] = MappingProxyType(
    {
        "response_problems": "realism.response",
        "block_problems": "realism.block",
        "options_problems": "realism.options",
        "REALISM_RULES": "realism.rules",
        "RESPONSE": None,
        "BLOCK": None,
        "BOOK": None,
    }
)


#: The realism names a package may leave out because the books make them: the response
#: and block predicates run ``RESPONSE`` and ``BLOCK``, and ``REALISM_RULES`` lists both
#: books' checks (a package that reports a check outside the books, as Anthropic's
#: options check, lists its rules itself).
_FROM_BOOKS: Mapping[str, Callable[[Any], Any]] = MappingProxyType(
    {
        "response": lambda module: module.RESPONSE.run,
        "block": lambda module: module.BLOCK.run,
        "rules": lambda module: (*module.RESPONSE.rules, *module.BLOCK.rules),
    }
)


def field_of(name: str) -> str | None:
    """The ``Wire`` field a contract name fills (``realism.block``: a field of
    ``Wire.realism``), or ``None`` for a name no field holds."""
    return _FIELDS.get(name, name.lower())


def optional(name: str) -> bool:
    """Whether a package may leave ``name`` out: its field has a default."""
    path = field_of(name)
    if path is None:
        return False
    if path.startswith("realism.") and path.partition(".")[2] in _FROM_BOOKS:
        return True
    owner: type[Any] = Realism if path.startswith("realism.") else Wire
    found = {f.name: f for f in dataclasses.fields(owner)}[path.rpartition(".")[2]]
    return not (
        found.default is dataclasses.MISSING and found.default_factory is dataclasses.MISSING
    )


#: Each package's wire, once assembled.
_ASSEMBLED: dict[str, Wire] = {}


def assemble(package: str) -> Wire:
    """The ``Wire`` of the wire package ``package`` (a dotted name), read from its job
    modules by the contract: one object per package, however often it is asked for (a
    package's ``__init__`` may assemble itself as ``WIRE`` while it is first imported)."""
    importlib.import_module(package)
    if package in _ASSEMBLED:
        return _ASSEMBLED[package]
    fields: dict[str, Any] = {}
    predicates: dict[str, Any] = {}
    for module_name, names in CONTRACT.items():
        module = importlib.import_module(f"{package}.{module_name}")
        for name in names:
            path = field_of(name)
            if path is None or not hasattr(module, name):
                continue
            owner, _, field = path.rpartition(".")
            (predicates if owner else fields)[field] = getattr(module, name)
    books = importlib.import_module(f"{package}.realism")
    for field, made in _FROM_BOOKS.items():
        if field not in predicates:
            predicates[field] = made(books)
    return _ASSEMBLED.setdefault(package, Wire(realism=Realism(**predicates), **fields))


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
    problems = [
        f"{dotted}: `{n}` is missing" for n in expected if n not in defined and not optional(n)
    ]
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
