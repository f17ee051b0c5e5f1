"""Request fields and beta values the provider cannot judge, answered explicitly.

The catalogue lists what each wire's real API takes (``conformance.catalogue._features``).
A request carrying a top-level field or a beta value on none of the lists gets the real
API's own answer for one it does not know; one carrying a field the real API takes but
the provider does not model (server-side state, server-side edits of the conversation)
gets an explicit "not modelled by this suite" answer.  Neither is a verdict on the
client: the list may lag behind the real API, and an unmodelled feature changes what the
provider would see.  ``decide`` gives such a cell ``error``, naming the feature, and the
recordings audit leaves such a request unjudged or shows the list wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from conformance.catalogue._features import Treatment, UnknownAnswer, WireFeatures, features
from conformance.catalogue.book import rule
from conformance.http import HttpRequest
from conformance.verdict import Rule, Violation

#: The three answers, as the checks list them; each wire's answer fills in the real
#: API's error text and type (``_answered``).
UNKNOWN_FIELD_RULE = rule("provider/unknown-field", __name__)
UNKNOWN_BETA_RULE = rule("provider/unknown-beta", __name__)
UNMODELLED_RULE = rule("provider/unmodelled-feature", __name__)
FEATURE_RULES = (UNKNOWN_FIELD_RULE, UNKNOWN_BETA_RULE, UNMODELLED_RULE)
#: The rules whose answer leaves a cell unjudged: its verdict is ``error``.
UNJUDGEABLE = frozenset(feature.id for feature in FEATURE_RULES)


def why_unjudged(violation: Violation) -> str:
    """A verdict's reason for a request answered with one of ``FEATURE_RULES``."""
    if violation.check == UNKNOWN_FIELD_RULE.id:
        return (
            f"it carries the field `{violation.at}`, which the real API does not take as "
            f"far as this suite knows (it would answer: {violation.message})"
        )
    if violation.check == UNKNOWN_BETA_RULE.id:
        return (
            "it carries a beta value the real API does not take as far as this suite "
            f"knows (it would answer: {violation.message})"
        )
    return violation.message


def listed_for(wire: str, dialect: str | None) -> WireFeatures | None:
    """The lists a request on ``wire`` (and ``dialect``) is held to, if any."""
    listed = features().wires.get(wire)
    if listed is None or (listed.without_dialect_only and dialect is not None):
        return None
    return listed


def unjudgeable(
    wire: str, dialect: str | None, request: HttpRequest, body: Mapping[str, object]
) -> Violation | None:
    """The first top-level field (in the body's order), then the first beta value, that
    the provider cannot judge, as the violation it answers; ``None`` when there is none."""
    listed = listed_for(wire, dialect)
    if listed is None:
        return None
    return next(_findings(wire, listed, request, body), None)


def _findings(
    wire: str, listed: WireFeatures, request: HttpRequest, body: Mapping[str, object]
) -> Iterator[Violation]:
    for field in body:
        treatment = listed.treatment(field)
        if treatment is None:
            rule = _answered(wire, UNKNOWN_FIELD_RULE, listed.unknown_field)
            yield rule.violated(field, name=field)
        elif treatment is Treatment.UNMODELLED:
            why = listed.why_unmodelled(field)
            yield _unmodelled(wire, listed, f"the field `{field}`", why, field)
    if listed.beta_header is None:
        return
    for value in _betas(request.header(listed.beta_header)):
        if value in listed.betas:
            continue
        if listed.unknown_beta is not None:
            rule = _answered(wire, UNKNOWN_BETA_RULE, listed.unknown_beta)
            yield rule.violated(name=value)
        else:
            why = "no public source shows what the real API does with this value"
            yield _unmodelled(wire, listed, f"`{listed.beta_header}: {value}`", why, None)


def _betas(header: str | None) -> list[str]:
    return [value.strip() for value in (header or "").split(",") if value.strip()]


def _answered(wire: str, rule: Rule, answer: UnknownAnswer) -> Rule:
    """``rule`` with ``wire``'s real answer: its error text, type and sources (and, on
    Responses, OpenAI's ``code`` and ``param``)."""
    answered = replace(
        rule,
        error=answer.error,
        error_type=answer.error_type,
        source=f"{rule.source}: " + ", ".join(answer.sources),
        evidence="observed",
    )
    if wire == "openai-responses":
        return replace(answered, code=answer.code, param="{at}")
    return answered


def _unmodelled(wire: str, listed: WireFeatures, named: str, why: str, at: str | None) -> Violation:
    rule = replace(
        UNMODELLED_RULE,
        error_type=listed.unknown_field.error_type,
        source=f"{UNMODELLED_RULE.source}: " + ", ".join(listed.field_sources),
    )
    if wire == "openai-responses":
        rule = replace(rule, code="unmodelled_feature", param="{at}")
    return rule.violated(at, name=named, why=why)
