"""Case expectations, evaluated exactly as ``conformance/_cases/schema.py`` defines them.

Requests are numbered like the exchanges: 1-based in arrival order over EVERY request
the target sent (so ``request 2`` is the second HTTP request, and the numbers in messages
match ``Violation.request`` everywhere).  Selecting a request whose body did not parse is
a violation (the expectation cannot hold on bytes that are not a request); ``each``
skips such requests, which already carry a ``provider/malformed-request`` violation.

A conversation the target's library stopped on purpose (``Transcript.halted``) never
reached its later requests: a request count, an output, an ``any_of`` with such an
alternative, a positive expectation on a request it did not send or on the last
request (``-1``, meant as the conversation's last), and a negative one on a request it
did not send, are not judged there (``decide``
judges the stop itself); what it did send is judged as usual.

Positive expectations (``blocks``, ``contains``) fail when the selected message does not
exist; negative ones (``none``, ``no_message``) hold vacuously on no message.  ``none``
also looks inside tool-result content, so "no reasoning in tool input" catches reasoning
nested in a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance._cases.schema import (
    BlockPattern,
    ExpectAnyOf,
    Expectation,
    ExpectBlocks,
    ExpectContains,
    ExpectNoMessage,
    ExpectNone,
    ExpectOutput,
    ExpectRequests,
    ExpectSame,
    ExpectSent,
    OutputPattern,
    Where,
)
from conformance._checks import quote
from conformance._checks.check import JudgeBook
from conformance._checks.walk import carries, placed, result_text
from conformance._transcript import Transcript
from conformance.verdict import Evidence, Violation, strongest, weakest
from conformance.vocabulary import Block, ToolResult
from conformance.wires.context import RequestView
from conformance.wires.roles import Wire

BOOK = JudgeBook("expectations", __name__)

EXPECT = BOOK.rule("expect")

#: Pattern fields that test containment, and the block field they look into.
_CONTAINS = {"text_contains": "text", "content_contains": "content"}
#: How many blocks a ``contains`` failure quotes from what it searched.
_QUOTED = 8


@dataclass(frozen=True)
class _Finding:
    """Why an expectation failed, before it is numbered and given a severity."""

    message: str
    request: int | None = None
    at: str | None = None
    #: The most this finding can rest on, when less than its expectation's evidence:
    #: an output that differs only in what the design documents add (``_output``).
    evidence: Evidence | None = None


@dataclass(frozen=True)
class _Request:
    number: int
    view: RequestView


@BOOK.checks(EXPECT)
def expectations(transcript: Transcript, wire: Wire) -> list[Violation]:
    """The case's expectations, as a judge (they read no wire hook)."""
    return expectation_violations(transcript)


def expectation_violations(transcript: Transcript) -> list[Violation]:
    """Every failed expectation of the case, in the order the case writes them."""
    found: list[Violation] = []
    for i, expectation in enumerate(transcript.case.expect):
        if not expectation.applies(transcript.wire):
            continue  # written for other columns of the case
        if transcript.halted is not None and unreached(expectation, len(transcript.exchanges)):
            continue  # about the part of the conversation its library never held
        evidence = expectation.evidence or transcript.case.evidence
        for finding in _evaluate(expectation, transcript):
            found.append(
                EXPECT.violation(
                    f"expect[{i}] {finding.message}",
                    request=finding.request,
                    at=finding.at,
                    severity=expectation.severity,
                    evidence=weakest(evidence, finding.evidence or evidence),
                    why=getattr(expectation, "why", None),
                    expectation=i,
                )
            )
    return found


def unreached(expectation: Expectation, sent: int) -> bool:
    """Whether ``expectation`` is about what a conversation stopped after ``sent``
    requests never reached (see the module docstring)."""
    if isinstance(expectation, ExpectRequests | ExpectOutput):
        return True
    if isinstance(expectation, ExpectAnyOf):
        return any(unreached(alternative, sent) for alternative in expectation.any_of)
    if isinstance(expectation, ExpectBlocks | ExpectContains | ExpectSent | ExpectSame):
        request = expectation.where.request
        return isinstance(request, int) and (request < 0 or request > sent)
    if isinstance(expectation, ExpectNone | ExpectNoMessage):
        request = expectation.where.request  # what exists is judged; a later one never came
        return isinstance(request, int) and request > sent
    return False


def matches(pattern: BlockPattern, block: Block) -> bool:
    """Whether ``block`` has every field the case wrote in ``pattern``."""
    for name in pattern.model_fields_set:
        wanted = getattr(pattern, name)
        if name in _CONTAINS:
            actual = _actual(_CONTAINS[name], block)
            if wanted is not None and not (isinstance(actual, str) and wanted in actual):
                return False
        elif name == "content" and isinstance(block, ToolResult) and isinstance(wanted, str):
            if not carries(block, wanted):
                return False
        elif _actual(name, block) != wanted:
            return False
    return True


def _evaluate(expectation: Expectation, transcript: Transcript) -> list[_Finding]:
    if isinstance(expectation, ExpectBlocks):
        return _blocks(expectation, transcript)
    if isinstance(expectation, ExpectContains):
        return _contains(expectation, transcript)
    if isinstance(expectation, ExpectNone):
        return _none(expectation, transcript)
    if isinstance(expectation, ExpectNoMessage):
        return _no_message(expectation, transcript)
    if isinstance(expectation, ExpectRequests):
        return _requests_sent(expectation, transcript)
    if isinstance(expectation, ExpectOutput):
        return _output(expectation, transcript)
    if isinstance(expectation, ExpectSent):
        return _sent(expectation, transcript)
    if isinstance(expectation, ExpectSame):
        return _same(expectation, transcript)
    return _any_of(expectation, transcript)


# ---------------------------------------------------------------- selection


def _requests(where: Where, transcript: Transcript) -> tuple[list[_Request], list[_Finding]]:
    exchanges = transcript.exchanges
    if where.request == "each":
        return [_Request(e.number, e.view) for e in exchanges if e.view is not None], []
    wanted = where.request
    index = wanted - 1 if wanted > 0 else len(exchanges) + wanted
    if not 0 <= index < len(exchanges):
        if transcript.ended_on_dropped_stream():
            return [], []  # it stopped on a dropped stream: only what it sent is judged
        return [], [_Finding(f"request {wanted}: the target sent {len(exchanges)} request(s)")]
    exchange = exchanges[index]
    if exchange.view is None:
        problem = exchange.problem or "no neutral view"
        return [], [
            _Finding(
                f"request {exchange.number}: its body did not parse ({problem})",
                request=exchange.number,
            )
        ]
    return [_Request(exchange.number, exchange.view)], []


def _messages(where: Where, view: RequestView) -> list[int]:
    """Indexes of the selected messages of one request."""
    matching = [i for i, message in enumerate(view.messages) if where.role in (None, message.role)]
    if where.nth is None:
        return matching
    if -len(matching) <= where.nth < len(matching):
        return [matching[where.nth]]
    return []


def _scope(where: Where, number: int) -> str:
    if where.nth is None:
        return f"request {number}, {where.role or 'all'} messages"
    role = f"{where.role} " if where.role else ""
    return f"request {number}, {role}message {where.nth}"


def _no_such_message(where: Where, request: _Request) -> _Finding:
    count = len(_messages(where.model_copy(update={"nth": None}), request.view))
    kind = f"{where.role} " if where.role else ""
    return _Finding(
        f"{_scope(where, request.number)}: no such message (the request has {count} "
        f"{kind}message(s))",
        request=request.number,
    )


# ---------------------------------------------------------------- quoting


def _actual(name: str, block: Block) -> Any:
    """The value of a pattern field on a block (a result's content as its text)."""
    if name == "content":
        return result_text(block) if isinstance(block, ToolResult) else None
    return getattr(block, name, None)


def _fields(pattern: BlockPattern) -> list[str]:
    """The fields the case wrote, in schema order, without ``kind``."""
    return [
        name
        for name in BlockPattern.model_fields
        if name in pattern.model_fields_set and name != "kind"
    ]


def _pattern(pattern: BlockPattern) -> str:
    return quote.call(pattern.kind or "block", ((n, getattr(pattern, n)) for n in _fields(pattern)))


def _patterns(patterns: tuple[BlockPattern, ...]) -> str:
    return "[" + ", ".join(_pattern(p) for p in patterns) + "]"


def _found(block: Block, pattern: BlockPattern | None) -> str:
    """A found block, showing the fields ``pattern`` compares, then its telling ones
    (only those when the pattern is about another kind of block): what was compared,
    and what the block is."""
    names = [] if pattern is None else [_CONTAINS.get(n, n) for n in _fields(pattern)]
    if not names or (pattern is not None and pattern.kind not in (None, block.kind)):
        return quote.block(block)
    unique = list(dict.fromkeys(names))
    unique += [n for n in quote.telling(block) if n not in unique]
    return quote.call(block.kind, ((n, _actual(n, block)) for n in unique))


def _found_list(blocks: list[Block], patterns: tuple[BlockPattern, ...]) -> str:
    aligned = [_found(b, patterns[i] if i < len(patterns) else None) for i, b in enumerate(blocks)]
    return "[" + ", ".join(aligned) + "]"


# ---------------------------------------------------------------- the expectations


def _blocks(expectation: ExpectBlocks, transcript: Transcript) -> list[_Finding]:
    requests, findings = _requests(expectation.where, transcript)
    wanted = expectation.blocks
    for request in requests:
        scope = _scope(expectation.where, request.number)
        chosen = _messages(expectation.where, request.view)
        if not chosen:
            findings.append(_no_such_message(expectation.where, request))
            continue
        m = chosen[0]
        found = list(request.view.messages[m].blocks)
        if len(found) != len(wanted):
            findings.append(
                _Finding(
                    f"{scope}: expected {len(wanted)} block(s) {_patterns(wanted)}, "
                    f"found {len(found)} {_found_list(found, wanted)}",
                    request=request.number,
                    at=request.view.where(m),
                )
            )
            continue
        for b, (pattern, block) in enumerate(zip(wanted, found, strict=True)):
            if not matches(pattern, block):
                findings.append(
                    _Finding(
                        f"{scope}, block {b}: expected {_pattern(pattern)}, "
                        f"found {_found(block, pattern)}",
                        request=request.number,
                        at=request.view.where(m, b),
                    )
                )
                break
    return findings


def _contains(expectation: ExpectContains, transcript: Transcript) -> list[_Finding]:
    requests, findings = _requests(expectation.where, transcript)
    wanted = expectation.contains
    for request in requests:
        chosen = _messages(expectation.where, request.view)
        if not chosen:
            findings.append(_no_such_message(expectation.where, request))
            continue
        pool = [b for m in chosen for b in request.view.messages[m].blocks]
        matched = 0
        for block in pool:
            if matched < len(wanted) and matches(wanted[matched], block):
                matched += 1
        if matched == len(wanted):
            continue
        missing = wanted[matched]
        after = f"after the first {matched}, " if matched else ""
        quoted = ", ".join(_found(b, missing) for b in pool[:_QUOTED])
        more = ", …" if len(pool) > _QUOTED else ""
        findings.append(
            _Finding(
                f"{_scope(expectation.where, request.number)}: expected in order "
                f"{_patterns(wanted)}; {after}no {_pattern(missing)} among "
                f"[{quoted}{more}]",
                request=request.number,
                at=request.view.where(chosen[0]) if len(chosen) == 1 else None,
            )
        )
    return findings


def _none(expectation: ExpectNone, transcript: Transcript) -> list[_Finding]:
    requests, findings = _requests(expectation.where, transcript)
    for request in requests:
        chosen = set(_messages(expectation.where, request.view))
        for item in placed(request.view.messages, request.view.where):
            if item.message in chosen and matches(expectation.none, item.block):
                findings.append(
                    _Finding(
                        f"{_scope(expectation.where, request.number)}: expected no "
                        f"{_pattern(expectation.none)}, found "
                        f"{_found(item.block, expectation.none)} at {item.place}",
                        request=request.number,
                        at=item.at,
                    )
                )
    return findings


def _no_message(expectation: ExpectNoMessage, transcript: Transcript) -> list[_Finding]:
    requests, findings = _requests(expectation.where, transcript)
    for request in requests:
        for m in _messages(expectation.where, request.view):
            message = request.view.messages[m]
            if not message.blocks:
                findings.append(
                    _Finding(
                        f"{_scope(expectation.where, request.number)}: expected no empty "
                        f"message, found an empty {message.role} message {m}",
                        request=request.number,
                        at=request.view.where(m),
                    )
                )
    return findings


def _requests_sent(expectation: ExpectRequests, transcript: Transcript) -> list[_Finding]:
    sent = len(transcript.exchanges)
    if sent == expectation.requests:
        return []
    if sent < expectation.requests and transcript.ended_on_dropped_stream():
        return []  # stopping on a dropped stream is accepted: fewer requests, judged as sent
    return [_Finding(f"expected {expectation.requests} request(s), found {sent}")]


def _output(expectation: ExpectOutput, transcript: Transcript) -> list[_Finding]:
    wanted = expectation.output
    names = [n for n in OutputPattern.model_fields if n in wanted.model_fields_set]
    expected = quote.call("output", ((n, getattr(wanted, n)) for n in names))
    output = transcript.output
    if output is None:
        return [_Finding(f"expected {expected}; {transcript.output_error or 'no output selected'}")]
    differ = [n for n in names if getattr(output, n) != getattr(wanted, n)]
    if not differ:
        return []
    found = quote.call("output", ((n, getattr(output, n)) for n in OutputPattern.model_fields))
    return [
        _Finding(
            f"expected {expected}, found {found}",
            evidence=_output_evidence(differ, output.text, wanted.text),
        )
    ]


def _output_evidence(differ: list[str], text: str | None, wanted: str | None) -> Evidence | None:
    """What an output mismatch rests on.  No provider sees the selected output; the
    public reports behind rule 49 are about its text (the last non-empty assistant text,
    never a tool result).  How completeness and the stop are reported, and an absent
    text told from an empty one, come from the design documents only: a mismatch in
    nothing else is ``design`` (a warning by default), whatever the case cites."""
    text_differs = "text" in differ and not (not text and not wanted)
    return None if text_differs else "design"


def _any_of(expectation: ExpectAnyOf, transcript: Transcript) -> list[_Finding]:
    failures: list[list[_Finding]] = []
    alternatives = [a for a in expectation.any_of if a.applies(transcript.wire)]
    if not alternatives:
        return []  # every alternative was written for other columns
    bounds: list[Evidence] = []
    for alternative in alternatives:
        found = _evaluate(alternative, transcript)
        if not found:
            return []
        failures.append(found)
        # An alternative fails at a threshold when any of its findings reaches it; the
        # whole fails only when every alternative does: an alternative broken only by
        # design holds at the default threshold, so the whole rests on design.
        cap = alternative.evidence or "documented"
        bounds.append(strongest(*(weakest(f.evidence or "documented", cap) for f in found)))
    # Alternatives that failed the same way are named together, their reason once.
    alike: dict[str, list[int]] = {}
    for i, found in enumerate(failures, 1):
        alike.setdefault(", ".join(f.message for f in found), []).append(i)
    reasons = "; ".join(
        f"({', '.join(map(str, numbers))}) {text}" for text, numbers in alike.items()
    )
    requests = {f.request for found in failures for f in found}
    bound = weakest(*bounds)
    return [
        _Finding(
            f"none of {len(failures)} alternatives holds: {reasons}",
            request=requests.pop() if len(requests) == 1 else None,
            evidence=None if bound == "documented" else bound,
        )
    ]


# ---------------------------------------------------------------- request options


#: A dotted body path or header that a request does not carry.
_ABSENT = object()


def _option(transcript: Transcript, number: int, view: RequestView, item: str) -> Any:
    """A request's value for ``item``: ``header:<name>`` (its value, or absent), else a
    dotted path into the body (absent where any step is missing)."""
    if item.startswith("header:"):
        header = transcript.exchanges[number - 1].request.header(item.removeprefix("header:"))
        return _ABSENT if header is None else header
    value: Any = view.raw
    for step in item.split("."):
        if not isinstance(value, dict) or step not in value:
            return _ABSENT
        value = value[step]
    return value


def _shown(value: Any) -> str:
    return "(absent)" if value is _ABSENT else quote.value(value)


def _sent(expectation: ExpectSent, transcript: Transcript) -> list[_Finding]:
    requests, problems = _requests(expectation.where, transcript)
    pattern = expectation.sent
    for request in requests:
        for name, token in pattern.header.items():
            value = _option(transcript, request.number, request.view, f"header:{name}")
            tokens = [] if value is _ABSENT else [t.strip() for t in str(value).split(",")]
            if token not in tokens:
                problems.append(
                    _Finding(
                        f"request {request.number}: header {name} does not list {token!r} "
                        f"(it is {_shown(value)})",
                        request=request.number,
                    )
                )
        for path, wanted in pattern.body.items():
            value = _option(transcript, request.number, request.view, path)
            if (value is _ABSENT and wanted is not None) or (
                value is not _ABSENT and value != wanted
            ):
                problems.append(
                    _Finding(
                        f"request {request.number}: {path} is {_shown(value)}, expected "
                        f"{quote.value(wanted) if wanted is not None else '(absent)'}",
                        request=request.number,
                        at=path,
                    )
                )
        for path, items in pattern.lists.items():
            value = _option(transcript, request.number, request.view, path)
            missing = [i for i in items if not isinstance(value, list) or i not in value]
            if missing:
                problems.append(
                    _Finding(
                        f"request {request.number}: {path} is {_shown(value)}, which lacks "
                        f"{', '.join(quote.value(i) for i in missing)}",
                        request=request.number,
                        at=path,
                    )
                )
    return problems


def _same(expectation: ExpectSame, transcript: Transcript) -> list[_Finding]:
    requests, problems = _requests(expectation.where, transcript)
    if not requests:
        return problems
    first = requests[0]
    for item in expectation.same:
        was = _option(transcript, first.number, first.view, item)
        for request in requests[1:]:
            now = _option(transcript, request.number, request.view, item)
            if (now is _ABSENT) != (was is _ABSENT) or (now is not _ABSENT and now != was):
                problems.append(
                    _Finding(
                        f"request {request.number}: {item} is {_shown(now)}, request "
                        f"{first.number} sent {_shown(was)}",
                        request=request.number,
                    )
                )
                break
    return problems
