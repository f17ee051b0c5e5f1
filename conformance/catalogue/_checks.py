"""Every check's data, by its stable id: ``checks.yaml`` and the fragments outside
packages contribute, loaded into ``verdict.Rule`` values (strict: an unknown or missing
field fails the load).

The ids are the ones reports, snapshots and ``wire-conformance checks`` cite, so this
file is the one place a check's statement, source, error text, status, severity and
evidence are written; the modules that judge hold predicates registered by id
(``conformance.catalogue.book``).

A package outside ``conformance`` (a wire of its own) contributes its checks with a
fragment of the same shape plus a ``namespace``: every id it holds starts with
``<namespace>/``, and a namespace the shipped catalogue or another fragment already uses
is refused, so ids cannot collide (``contribute``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import typing
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from conformance.errors import CatalogueFragmentError
from conformance.verdict import Evidence, Rule

#: A check id: ``expect``, ``<namespace>/<slug>`` or, for a realism check,
#: ``<namespace>/realism/<slug>`` (lowercase words and hyphens).
CHECK_ID = r"^[a-z][a-z0-9-]*(/[a-z0-9][a-z0-9-]*){0,2}$"
_NAMESPACE = re.compile(r"[a-z][a-z0-9-]*")


def _rule_fields() -> dict[str, Any]:
    """``verdict.Rule``'s fields as a pydantic model's, with what the catalogue asks
    more of an entry: an id of the id grammar, a statement and a source worth reading,
    and evidence said outright.  The one list of a check's fields is ``Rule``'s."""
    hints = typing.get_type_hints(Rule)
    fields: dict[str, Any] = {f.name: (hints[f.name], f.default) for f in dataclasses.fields(Rule)}
    fields.update(
        id=(Annotated[str, Field(pattern=CHECK_ID)], ...),
        statement=(str, Field(min_length=10)),
        source=(str, Field(min_length=3)),
        evidence=(Evidence, ...),
    )
    return fields


if typing.TYPE_CHECKING:

    class _RuleFields(BaseModel, Rule):
        """What the model made below holds, as the type checker sees it: a Rule's fields."""

else:
    _RuleFields = create_model(
        "_RuleFields", __config__=ConfigDict(extra="forbid", frozen=True), **_rule_fields()
    )


class CheckEntry(_RuleFields):
    """One check as the catalogue writes it: a ``Rule``'s fields, checked."""

    #: Why no predicate judges this entry (the report's own entry): without it, an entry
    #: no module registers fails the listing.
    documentation_only: str | None = None

    def rule(self) -> Rule:
        return Rule(**self.model_dump(exclude={"documentation_only"}))


class RealismEntry(BaseModel):
    """One realism check: a shape a wire never sends, as the case lint reports it.  A
    lint finding is no verdict, so it claims no severity or evidence of its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=CHECK_ID)]
    #: The finding's text, with the ``{placeholders}`` its predicate fills in.
    finding: str = Field(min_length=10)

    def rule(self) -> Rule:
        return Rule(
            id=self.id,
            statement=self.finding,
            source="the case lint's realism walk (cases --lint)",
            error=self.finding,
        )


class CheckCatalogue(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Only a contributed fragment names one: the prefix of every id it holds.
    namespace: str | None = None
    checks: tuple[CheckEntry, ...] = ()
    realism: tuple[RealismEntry, ...] = ()

    def ids(self) -> list[str]:
        return [entry.id for entry in self.checks] + [entry.id for entry in self.realism]


#: Fragments contributed by packages outside ``conformance``, by namespace, in the
#: order they were contributed.
_FRAGMENTS: dict[str, tuple[str, CheckCatalogue]] = {}


def _parse(text: str, origin: str) -> CheckCatalogue:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data: Any = yaml.load(text, Loader=loader)  # a safe loader
        return CheckCatalogue.model_validate(data)
    except (yaml.YAMLError, ValidationError) as error:
        raise CatalogueFragmentError(f"{origin}: not a checks catalogue: {error}") from None


@cache
def _shipped() -> CheckCatalogue:
    text = resources.files("conformance.catalogue").joinpath("checks.yaml").read_text("utf-8")
    return _parse(text, "conformance/catalogue/checks.yaml")


def _namespace_of(check_id: str) -> str:
    return check_id.split("/", 1)[0]


def contribute(package: str, resource: str = "checks.yaml") -> str:
    """Load the checks fragment ``resource`` that ``package`` ships (read with
    ``importlib.resources``) beside the shipped catalogue; its namespace is returned.

    Every id must start with the fragment's ``namespace/``, and the namespace must be
    used by no shipped check and no other fragment.  Contributing the same package's
    fragment twice is a no-op, so an entry point may load it as often as it is asked."""
    origin = f"{package}:{resource}"
    try:
        text = resources.files(package).joinpath(resource).read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError) as error:
        raise CatalogueFragmentError(f"{origin}: cannot be read ({error})") from None
    fragment = _parse(text, origin)
    namespace = fragment.namespace
    if namespace is None or not _NAMESPACE.fullmatch(namespace):
        raise CatalogueFragmentError(
            f"{origin}: a contributed fragment names its `namespace` (lowercase words and "
            "hyphens), the prefix of every id it holds"
        )
    if _FRAGMENTS.get(namespace, ("", None))[0] == origin:
        return namespace
    taken = {_namespace_of(check_id) for check_id in _shipped().ids()}
    if namespace in taken or namespace in _FRAGMENTS:
        owner = "the shipped catalogue" if namespace in taken else _FRAGMENTS[namespace][0]
        raise CatalogueFragmentError(f"{origin}: namespace {namespace!r} is taken by {owner}")
    outside = [i for i in fragment.ids() if not i.startswith(f"{namespace}/")]
    if outside:
        raise CatalogueFragmentError(
            f"{origin}: ids outside namespace {namespace!r}: {', '.join(outside)}"
        )
    _FRAGMENTS[namespace] = (origin, fragment)
    _forget()
    return namespace


def contribute_beside(module: str) -> str | None:
    """Contribute the ``checks.yaml`` an outside wire or check pack ships beside
    ``module`` (in the directory of its package), before ``module`` is imported, so its
    predicates find their entries; ``None`` when it ships none.  The entry-point loaders
    call it for every plugin: a distribution never calls ``contribute`` itself."""
    spec = importlib.util.find_spec(module)
    if spec is None:
        return None
    package = module if spec.submodule_search_locations else module.rpartition(".")[0]
    if not package or not resources.files(package).joinpath("checks.yaml").is_file():
        return None
    return contribute(package)


def withdraw(namespace: str) -> None:
    """Forget a contributed fragment (a test's clean-up)."""
    _FRAGMENTS.pop(namespace, None)
    _forget()


def _forget() -> None:
    check_entries.cache_clear()
    realism_entries.cache_clear()
    check_rules.cache_clear()


def _catalogues() -> tuple[CheckCatalogue, ...]:
    return (_shipped(), *(fragment for _, fragment in _FRAGMENTS.values()))


@cache
def check_entries() -> Mapping[str, CheckEntry]:
    """Every check entry by id (realism apart): the shipped ones in file order, then each
    fragment's; an id written twice, in either section, fails."""
    seen: set[str] = set()
    for check_id in (i for catalogue in _catalogues() for i in catalogue.ids()):
        if check_id in seen:
            raise CatalogueFragmentError(f"check id {check_id!r} is written twice")
        seen.add(check_id)
    return {entry.id: entry for catalogue in _catalogues() for entry in catalogue.checks}


@cache
def realism_entries() -> Mapping[str, RealismEntry]:
    """Every realism check by id: the shipped ones in file order, then each fragment's."""
    check_entries()  # the ids are checked for collisions there
    return {entry.id: entry for catalogue in _catalogues() for entry in catalogue.realism}


@cache
def _rules_of(catalogue: CheckCatalogue) -> Mapping[str, Rule]:
    found = {entry.id: entry.rule() for entry in catalogue.checks}
    return found | {entry.id: entry.rule() for entry in catalogue.realism}


@cache
def check_rules() -> Mapping[str, Rule]:
    """Every check by id, one ``Rule`` value each, built once per catalogue: every module
    that looks a check up holds the same one."""
    check_entries()  # the ids are checked for collisions there
    found: dict[str, Rule] = {}
    for catalogue in _catalogues():
        found.update(_rules_of(catalogue))
    return found


def documentation_only() -> tuple[Rule, ...]:
    """The entries no predicate judges, each saying why (``documentation_only``)."""
    rules = check_rules()
    return tuple(rules[i] for i, e in check_entries().items() if e.documentation_only)
