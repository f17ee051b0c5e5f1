"""The case-file schema: strict pydantic models for ``cases/<family>/<id>.yaml``.

Modelled on test262 frontmatter: identity, provenance, features, the wires a case runs
on (each with the reason the wire really produces the shape), the conversation it
scripts (``given``) and the normative predicates over what the target sends (``expect``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    Discriminator,
    Field,
    NonNegativeInt,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from conformance.catalogue import catalogue, resolve
from conformance.catalogue._entries import Seed
from conformance.verdict import Evidence, Severity
from conformance.vocabulary import (
    CONTINUING_STOPS,
    REPAIRED_FAULTS,
    TRUNCATING_STOPS,
    BlockKind,
    Capability,
    Message,
    Options,
    Role,
    ScriptedResponse,
    Stop,
    StrictModel,
    Text,
    ToolCall,
    ToolSpec,
    summary_parts,
)

CASE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ISSUE_REF = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]+$")


# ---------------------------------------------------------------- provenance


class SeedRef(StrictModel):
    """A design behaviour of the project's catalogue (``seed: 96``, ``docs/rules.md``)."""

    seed: Annotated[int, Field(ge=1)]

    @field_validator("seed")
    @classmethod
    def _known(cls, value: int) -> int:
        if resolve(f"seed {value}") is None:
            raise ValueError(
                f"seed {value} is not in the catalogue (see `wire-conformance checks --rule "
                "seed:N` and docs/rules.md)"
            )
        return value


class RuleRef(StrictModel):
    """A wire rule (``1``–``53``), a bug report (``E1``…) or a drift note (``F1``…) of the
    project's catalogue (``docs/rules.md``)."""

    rule: int | str

    @field_validator("rule")
    @classmethod
    def _known(cls, value: int | str) -> int | str:
        entry = resolve(value)
        if entry is None or isinstance(entry, Seed):
            raise ValueError(
                f"rule {value} is not in the catalogue: a rule is {catalogue().citable()} "
                "(docs/rules.md)"
            )
        return value


class IssueRef(StrictModel):
    """A public issue or pull request, ``owner/repo#N``."""

    issue: str

    @field_validator("issue")
    @classmethod
    def _shape(cls, value: str) -> str:
        if not ISSUE_REF.match(value):
            raise ValueError("an issue is written owner/repo#N")
        return value


class RecordingRef(StrictModel):
    """A recorded conversation the case was made from (``wire-conformance recording
    to-case``): the file's name and its digest, so the case can be traced to it."""

    recording: str = Field(min_length=1)
    digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")


_CITATION_KEYS = ("rule", "seed", "issue", "recording")


def _citation_kind(value: Any) -> str | None:
    """Which citation a provenance item is, by its key, so a bad one gets one message."""
    if isinstance(value, dict):
        return next((key for key in _CITATION_KEYS if key in value), None)
    if isinstance(value, BaseModel):
        return next(k for k in _CITATION_KEYS if hasattr(value, k))
    return None


Provenance: TypeAlias = Annotated[
    Annotated[SeedRef, Tag("seed")]
    | Annotated[RuleRef, Tag("rule")]
    | Annotated[IssueRef, Tag("issue")]
    | Annotated[RecordingRef, Tag("recording")],
    Discriminator(
        _citation_kind,
        custom_error_type="citation",
        custom_error_message="a citation is one of rule: N, seed: N, issue: owner/repo#N "
        "or recording: FILE (with its digest)",
    ),
]


# ---------------------------------------------------------------- the script


def may_continue(response: ScriptedResponse) -> bool:
    """Whether a target may either end the turn on ``response`` or go on with the loop,
    both accepted by the provider: a response that cuts tool calls (one whose arguments
    do not parse, or any call of a response cut by the output limit or a dropped stream:
    answered with error results, unrun, and asked again, rule 33), a truncated stop
    (asked again, as the stop-reason docs suggest) or an empty response (asked again for
    text; a blank one, whose only blocks are whitespace-only texts, is empty to a client
    that trims its answer, as qwen-code does)."""
    if response.fault is not None:
        return False
    calls = [b for b in response.blocks if isinstance(b, ToolCall)]
    cut = any(not c.complete for c in calls)
    return cut or _blank(response) or response.stop in TRUNCATING_STOPS


def halt_accepted(response: ScriptedResponse) -> bool:
    """Whether a library may stop the whole conversation right after ``response`` (raise
    instead of going on) and lose nothing the provider would keep: where the turn may end
    anyway (``may_continue``: a cut call, a truncated stop, an empty response), after a
    refusal, and after a scripted fault other than one that asks for a repaired retry
    (a 400 naming the history leaves the session wedged until it is repaired, rule 30).
    Anywhere else the provider sent a response a client can use, so stopping loses the
    user's turn.  A response's own ``halt`` overrides this."""
    if response.halt is not None:
        return response.halt == "accepted"
    if response.fault is not None:
        return response.fault.kind not in REPAIRED_FAULTS
    return may_continue(response) or response.stop == "refusal"


def _blank(response: ScriptedResponse) -> bool:
    """No blocks, or only texts holding nothing but whitespace: no answer to show."""
    return all(isinstance(b, Text) and not b.text.strip() for b in response.blocks)


class Turn(StrictModel):
    """A user prompt and the responses of its tool loop, in order.

    Every response but the last continues the loop (the target answers its tool calls and
    asks again); the last one ends the turn.
    """

    user: str
    responses: tuple[ScriptedResponse, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _loop_shape(self) -> Turn:
        for r, response in enumerate(self.responses):
            before = self.responses[r - 1] if r else None
            if response.if_retried and (
                before is None or before.stop != "no_finish" or before.fault is not None
            ):
                raise ValueError(
                    f"responses.{r}: `if_retried` follows a dropped stream (`no_finish`, no "
                    "fault: a fault's retry gets the next response anyway)"
                )
            if before is not None and before.if_retried and response.if_continued:
                before = self.responses[r - 2]  # both answer the dropped stream
            if response.if_continued and (before is None or not may_continue(before)):
                raise ValueError(
                    f"responses.{r}: `if_continued` follows a response a target may end the "
                    "turn on or go on from: a cut tool call, a truncated stop "
                    "(`max_tokens`, `no_finish`) or an empty response"
                )
        last = self.responses[-1]
        if last.fault is not None:
            raise ValueError(
                "a fault is never the last response of a turn: a retry needs an answer"
            )
        calls = [b for b in last.blocks if isinstance(b, ToolCall)]
        # A call whose arguments do not parse marks the turn as cut whatever the stop
        # claims (rule 33), so a correct target ends the loop there.
        cut = any(not c.complete for c in calls)
        if last.stop in CONTINUING_STOPS and calls and not cut:
            raise ValueError(
                "the last response of a turn ends the tool loop: a complete tool call "
                "with stop `tool_calls` would make the target ask again"
            )
        return self


class CallResult(StrictModel):
    """What one scripted call returns when it runs: its own text, and whether the tool
    failed (an error result: Anthropic ``is_error``, Gemini's ``error`` response; Chat and
    Responses outputs carry no flag, so there only the text tells)."""

    content: str
    is_error: bool = False


class Given(StrictModel):
    """The conversation a case scripts."""

    system: str | None = None
    tools: tuple[ToolSpec, ...] = ()
    options: Options = Options()
    history: tuple[Message, ...] = Field(
        default=(), description="A saved history the conversation continues from."
    )
    turns: tuple[Turn, ...] = Field(min_length=1)
    results: dict[str, CallResult] = Field(
        default_factory=dict,
        description="A result per scripted call id, instead of its tool's `result`; "
        "`is_error: true` makes the tool fail.",
    )

    @model_validator(mode="after")
    def _results_name_calls(self) -> Given:
        calls = {b.id for r in self.responses for b in r.blocks if isinstance(b, ToolCall)}
        unknown = sorted(set(self.results) - calls)
        if unknown:
            raise ValueError(
                f"results: {', '.join(map(repr, unknown))} is no scripted tool call's id"
            )
        return self

    @model_validator(mode="after")
    def _prefill_is_one_request(self) -> Given:
        """A prefilled turn is stored as each client sees fit (the prefill joined to the
        answer, or not), so the requests after one would judge that choice, which the
        provider leaves open: a prefill case is one request."""
        if self.options.prefill is not None and len(self.responses) != 1:
            raise ValueError(
                "options.prefill: a prefill case scripts one turn of one response "
                "(what a client stores of a prefilled turn is its own choice)"
            )
        return self

    def result_of(self, call_id: str, tool: ToolSpec) -> CallResult:
        """What the call returns when it runs: its own result, else its tool's."""
        return self.results.get(call_id) or CallResult(content=tool.result)

    @model_validator(mode="after")
    def _tools_offered(self) -> Given:
        names = [t.name for t in self.tools]
        if len(names) != len(set(names)):
            raise ValueError("tool names repeat")
        choice = self.options.tool_choice
        if choice is not None and not names:
            raise ValueError("options.tool_choice needs tools to choose from")
        if choice is not None and choice.name is not None and choice.name not in names:
            raise ValueError(f"options.tool_choice: tool `{choice.name}` is not offered")
        for t, turn in enumerate(self.turns):
            for r, response in enumerate(turn.responses):
                for block in response.blocks:
                    if isinstance(block, ToolCall) and block.name not in names:
                        raise ValueError(
                            f"turns.{t}.responses.{r}: tool `{block.name}` is not offered"
                        )
        return self

    @property
    def responses(self) -> tuple[ScriptedResponse, ...]:
        """Every scripted response, in the order the provider serves them."""
        return tuple(r for turn in self.turns for r in turn.responses)

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)


# ---------------------------------------------------------------- expectations


class BlockPattern(StrictModel):
    """A partial block: only the fields written in the case are compared.

    Writing ``signature: null`` demands that the block carries no signature.
    """

    kind: BlockKind | None = None
    text: str | None = None
    text_contains: str | None = None
    signature: str | None = None
    redacted: bool | None = None
    data: str | None = None
    id: str | None = None
    summary: tuple[str, ...] | None = None
    name: str | None = None
    arguments: dict[str, Any] | str | None = None
    call_id: str | None = None
    is_error: bool | None = None
    content: str | None = None
    content_contains: str | None = None

    @field_validator("summary")
    @classmethod
    def _summary_as_views_read_it(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """``summary: []`` means no summary parts, as it does in every view (it never
        matched anything: the views read ``[]`` as no summary)."""
        return summary_parts(value)


class Where(StrictModel):
    """Which captured request(s), and which message(s) in them.

    ``request`` counts from 1 in arrival order (negative counts from the end; ``each``
    means every request).  ``role`` filters messages; ``nth`` picks one of the matching
    messages (negative from the end) and, when omitted, every matching message counts.
    """

    request: int | Literal["each"] = -1
    role: Role | None = None
    nth: int | None = None

    @field_validator("request")
    @classmethod
    def _nonzero(cls, value: int | str) -> int | str:
        if value == 0:
            raise ValueError("requests count from 1 (or from -1 at the end)")
        return value


class _Scoped(StrictModel):
    """What every expectation may say about where it applies.

    ``wires`` lists the columns (``wire`` or ``wire:dialect``, as the case's own
    ``wires`` names them) the expectation holds on; unset, it holds on every column the
    case runs on.  One case then states what differs per wire (the view a wire can show,
    a shape only one provider demands) instead of splitting into near-copies."""

    wires: tuple[str, ...] | None = Field(default=None, min_length=1)

    def applies(self, column: str) -> bool:
        return self.wires is None or column in self.wires


class ExpectBlocks(_Scoped):
    """The selected message holds exactly these blocks, in this order."""

    where: Where = Field(alias="in")
    blocks: tuple[BlockPattern, ...]
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None

    @model_validator(mode="after")
    def _one_message(self) -> ExpectBlocks:
        if self.where.nth is None:
            raise ValueError("`blocks` compares one message: give `in.nth`")
        return self


class ExpectContains(_Scoped):
    """The selected message(s) hold these blocks in this order, other blocks between."""

    where: Where = Field(alias="in")
    contains: tuple[BlockPattern, ...] = Field(min_length=1)
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class ExpectNone(_Scoped):
    """No block of the selected message(s) matches the pattern."""

    where: Where = Field(alias="in")
    none: BlockPattern
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class ExpectNoMessage(_Scoped):
    """No selected message is empty (``empty: true``) or holds only matching blocks."""

    where: Where = Field(alias="in")
    no_message: Literal["empty"]
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class ExpectRequests(_Scoped):
    """The target sent exactly this many requests (``0``: it stopped before sending any,
    a reaction a case accepts where the provider would refuse the configuration as given,
    so a client that refuses it locally loses nothing on the wire)."""

    requests: NonNegativeInt
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class SentPattern(StrictModel):
    """What a request carries besides its messages: headers and top-level body values.

    ``header`` maps a header name to a token its comma-separated value must list (as
    ``anthropic-beta`` lists betas); ``body`` maps a dotted body path to the JSON value
    it must equal (``null``: the path is absent); ``lists`` maps a dotted body path to
    items the list there must hold, in any order, among others (``include``)."""

    header: dict[str, str] = Field(default_factory=dict)
    body: dict[str, Any] = Field(default_factory=dict)
    lists: dict[str, tuple[Any, ...]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _something(self) -> SentPattern:
        if not (self.header or self.body or self.lists):
            raise ValueError("`sent` names at least one header, body path or list")
        return self


class ExpectSent(_Scoped):
    """Every selected request carries these headers and body values (``in.request``
    selects; ``role`` and ``nth`` do not apply)."""

    where: Where = Field(alias="in", default_factory=lambda: Where(request="each"))
    sent: SentPattern
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class ExpectSame(_Scoped):
    """Every selected request sends the same value for each named item: a dotted body
    path (absent is a value too) or ``header:<name>``.  "The thinking configuration
    holds for the whole tool loop" is ``same: [thinking]`` on the loop's requests."""

    where: Where = Field(alias="in", default_factory=lambda: Where(request="each"))
    same: tuple[str, ...] = Field(min_length=1)
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class OutputPattern(StrictModel):
    """What a target selects as the conversation's final output (a subagent's result)."""

    text: str | None = None
    complete: bool | None = None
    stop: Stop | None = None


class ExpectOutput(_Scoped):
    output: OutputPattern
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


class ExpectAnyOf(_Scoped):
    """At least one of these expectations holds."""

    any_of: tuple[Expectation, ...] = Field(min_length=2)
    why: str | None = None
    severity: Severity = "must"
    #: What the expectation rests on; unset: ``design`` when the case cites only the
    #: seed behaviours (a design document), else ``observed`` (``Case.evidence``).
    evidence: Evidence | None = None


def _expectation_tag(value: Any) -> str | None:
    """The kind of an expectation: its first tag key, from a mapping (a case file) or a
    model (a case built in code); anything else (a scalar, a list) has none, so it is the
    discriminator's located error, never an exception out of the load."""
    if isinstance(value, dict):
        keys = value.keys()
    elif isinstance(value, BaseModel):
        keys = type(value).model_fields.keys()
    else:
        return None
    tags = ("blocks", "contains", "none", "no_message", "requests", "output", "any_of", "sent")
    for tag in (*tags, "same"):
        if tag in keys:
            return tag
    return None


Expectation: TypeAlias = Annotated[
    Annotated[ExpectBlocks, Tag("blocks")]
    | Annotated[ExpectContains, Tag("contains")]
    | Annotated[ExpectNone, Tag("none")]
    | Annotated[ExpectNoMessage, Tag("no_message")]
    | Annotated[ExpectRequests, Tag("requests")]
    | Annotated[ExpectOutput, Tag("output")]
    | Annotated[ExpectAnyOf, Tag("any_of")]
    | Annotated[ExpectSent, Tag("sent")]
    | Annotated[ExpectSame, Tag("same")],
    Discriminator(
        _expectation_tag,
        custom_error_type="expectation_kind",
        custom_error_message=(
            "an expectation has one of the keys blocks, contains, none, no_message, "
            "requests, output, any_of, sent, same"
        ),
    ),
]

ExpectAnyOf.model_rebuild()


# ---------------------------------------------------------------- the case


class WireUse(StrictModel):
    """Why a wire really produces this case's shape."""

    reason: str = Field(min_length=10)


class Case(StrictModel):
    """One conformance case."""

    id: str
    title: str = Field(min_length=5)
    provenance: tuple[Provenance, ...] = Field(min_length=1)
    features: tuple[str, ...] = Field(min_length=1)
    requires: tuple[Capability, ...] = ()
    status: Literal["normative", "pinned"] = "normative"
    pinned_reason: str | None = None
    wires: dict[str, WireUse | str] = Field(
        min_length=1,
        description="Each wire (or `wire:dialect`) the case runs on, with the reason that "
        "wire really produces the shape.",
    )
    notes: str | None = None
    given: Given
    expect: tuple[Expectation, ...] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not CASE_ID.match(value):
            raise ValueError("a case id is lowercase words joined by hyphens")
        return value

    @field_validator("features")
    @classmethod
    def _known_features(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        known = (info.context or {}).get("features")
        if known is not None:
            unknown = [f for f in value if f not in known]
            if unknown:
                raise ValueError(
                    f"unknown feature {', '.join(map(repr, unknown))}; "
                    "the vocabulary is cases/FEATURES.txt"
                )
        if len(value) != len(set(value)):
            raise ValueError("features repeat")
        return value

    @field_validator("wires")
    @classmethod
    def _reasons(
        cls, value: dict[str, WireUse | str], info: ValidationInfo
    ) -> dict[str, WireUse | str]:
        dialects: dict[str, tuple[str, ...]] | None = (info.context or {}).get("wires")
        for column, use in value.items():
            wire, _, dialect = column.partition(":")
            if dialects is not None and wire not in dialects:
                raise ValueError(f"unknown wire {wire!r}; known: {', '.join(sorted(dialects))}")
            if dialects is not None and dialect and dialect not in dialects[wire]:
                known = ", ".join(dialects[wire]) or "none"
                raise ValueError(f"wire `{wire}` has no dialect {dialect!r} (dialects: {known})")
            reason = use if isinstance(use, str) else use.reason
            if len(reason.strip()) < 10:
                raise ValueError(f"wire `{column}` needs the reason it produces this shape")
        return value

    @model_validator(mode="after")
    def _expectations_name_its_columns(self) -> Case:
        for at, columns in _scoped_columns(self.expect, "expect"):
            unknown = [c for c in columns if c not in self.wires]
            if unknown:
                raise ValueError(
                    f"{at}.wires names {', '.join(map(repr, unknown))}, which the case does "
                    f"not run on (its columns: {', '.join(self.wires)})"
                )
        return self

    @model_validator(mode="after")
    def _pin_has_reason(self) -> Case:
        if self.status == "pinned" and not self.pinned_reason:
            raise ValueError("a pinned case names its limitation in `pinned_reason`")
        if self.status == "normative" and self.pinned_reason:
            raise ValueError("`pinned_reason` belongs to pinned cases only")
        return self

    @property
    def needs(self) -> frozenset[str]:
        """Capabilities a target must declare to run this case."""
        needs = set(self.requires)
        if self.given.history:
            needs.add("history")
        if self.given.options.tool_choice is not None:
            needs.add("tool-choice")
        if self.given.options.prefill is not None:
            needs.add("prefill")
        if self.given.options.betas:
            needs.add("betas")
        if self.expects_output:
            needs.add("output-selection")
        return frozenset(needs)

    @property
    def expects_output(self) -> bool:
        """Whether an expectation judges the selected output (also as one alternative of
        an ``any_of``)."""
        return any(_judges_output(e) for e in self.expect)

    @property
    def evidence(self) -> Evidence:
        """What the case's expectations rest on unless one says otherwise: ``design`` when
        every citation is a seed behaviour (a design document), else ``observed``."""
        if all(isinstance(p, SeedRef) for p in self.provenance):
            return "design"
        return "observed"


def _judges_output(expectation: Expectation) -> bool:
    if isinstance(expectation, ExpectAnyOf):
        return any(_judges_output(e) for e in expectation.any_of)
    return isinstance(expectation, ExpectOutput)


def _scoped_columns(
    expectations: tuple[Expectation, ...], at: str
) -> list[tuple[str, tuple[str, ...]]]:
    """Every expectation's ``wires`` (nested ``any_of`` alternatives too), located."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for e, expectation in enumerate(expectations):
        where = f"{at}[{e}]"
        if expectation.wires is not None:
            found.append((where, expectation.wires))
        if isinstance(expectation, ExpectAnyOf):
            found += _scoped_columns(expectation.any_of, f"{where}.any_of")
    return found
