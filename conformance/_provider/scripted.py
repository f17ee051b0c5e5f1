"""The scripted provider: serves a case's responses one per valid request, strictly.

It answers every request the way the real provider would: a request that breaks one of
the wire's rules gets that provider's status and error text (and does not consume a
scripted response, so a target may repair and retry), a request past the end of the
script gets an error instead of a hang, and every request is recorded byte for byte.
A rule violation that rests only on a design document is recorded but served: the real
provider was never seen rejecting it.
It is transport-free: respx routes and the loopback server both call ``handle``.
"""

from __future__ import annotations

import json
import threading

from conformance._cases.continuation import continuation_loops
from conformance._cases.model_name import session_model
from conformance._cases.schema import Case
from conformance._provider.features import FEATURE_RULES, unjudgeable
from conformance._provider.limits import LIMIT_RULES, misframed, overdeep, oversize
from conformance._transcript import Exchange
from conformance.catalogue.book import rule
from conformance.errors import RequestParseError
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Text
from conformance.wires._reframe import reframe
from conformance.wires.context import (
    RenderContext,
    RequestView,
    ValidationContext,
)
from conformance.wires.roles import Server

#: Provider-level rules: they hold on every wire.
UNKNOWN_ENDPOINT = rule("provider/unknown-endpoint", __name__)
MALFORMED_REQUEST = rule("provider/malformed-request", __name__)
BEYOND_SCRIPT = rule("provider/beyond-script", __name__)
PROVIDER_RULES = (UNKNOWN_ENDPOINT, MALFORMED_REQUEST, BEYOND_SCRIPT, *LIMIT_RULES, *FEATURE_RULES)

#: Rejected requests a target may send (repair-and-retry) before the provider gives up.
RETRY_ALLOWANCE = 3


class ScriptedProvider:
    """Serves one case on one wire.  Thread-safe: the loopback server is threaded."""

    def __init__(self, case: Case, wire: Server, dialect: str | None = None) -> None:
        self.case = case
        self.wire = wire
        self.dialect = dialect
        self.script = case.given.responses
        #: The scripted responses of each continuation's own tool loop (fixed per case).
        self.loops = continuation_loops(case)
        self.exchanges: list[Exchange] = []
        self._served = 0
        #: ``if_continued`` responses passed over: the target ended the turn instead.
        self.skipped: set[int] = set()
        self.lock = threading.Lock()

    @property
    def finished(self) -> bool:
        """Whether every scripted response has been served."""
        return self._served == len(self.script)

    @property
    def exhausted(self) -> bool:
        """Whether the provider stopped answering: script done, or too many rejections."""
        rejected = sum(1 for e in self.exchanges if e.served is None)
        return rejected > RETRY_ALLOWANCE + len(self.script)

    def handle(self, request: HttpRequest) -> HttpResponse:
        with self.lock:
            number = len(self.exchanges) + 1
            refused = self._refused(request)
            if refused is not None:
                request, violation = refused
                response = self.wire.render_error(violation)
                self.exchanges.append(
                    Exchange(number, request, None, response, None, (violation,), violation.message)
                )
                return response
            response, view, served, violations, problem = self._answer(request, number)
            self.exchanges.append(
                Exchange(number, request, view, response, served, tuple(violations), problem)
            )
            return response

    @staticmethod
    def _refused(request: HttpRequest) -> tuple[HttpRequest, Violation] | None:
        """A request refused before it is read (``limits``): the request as recorded
        (an over-size body by size and hash only) and why."""
        dropped = oversize(request)
        if dropped is not None:
            return dropped
        deep = misframed(request) or overdeep(request)
        return None if deep is None else (request, deep)

    def _context(self, number: int) -> ValidationContext:
        return ValidationContext(
            number=number,
            options=self.case.given.options,
            served=tuple(
                r for i, r in enumerate(self.script[: self._served]) if i not in self.skipped
            ),
            served_at=tuple(i for i in range(self._served) if i not in self.skipped),
            history=self.case.given.history,
            dialect=self.dialect,
            answered=tuple(
                (e.view, e.served)
                for e in self.exchanges
                if e.view is not None and e.served is not None
            ),
            answered_bodies=tuple(
                e.response.body
                for e in self.exchanges
                if e.view is not None and e.served is not None
            ),
        )

    def _count(self) -> str:
        """What was served, for the beyond-the-script message: rejected requests consume
        no scripted response, so the count is of served responses, not of requests."""
        scripted = len(self.script)
        if self._served >= scripted:
            return f"{scripted} scripted responses, all served"
        rejected = sum(1 for e in self.exchanges if e.served is None)
        return (
            f"{self._served} of {scripted} scripted responses served; {rejected} rejected "
            f"requests used up the retry allowance"
        )

    def _starts_turn(self, view: RequestView) -> bool:
        """Whether the request starts the next user turn: its last message is the user's
        and holds the next turn's prompt, alone or beside text the target adds (a
        reminder block of its own, or the earlier prompt when it merged two user messages
        after dropping an empty turn).  A user message the target wrote itself (a nudge
        such as "please return text or call a tool", or the same prompt sent again) goes
        on with the current turn."""
        if not view.messages or view.messages[-1].role != "user":
            return False
        turns = self.case.given.turns
        following = self._turn_of(self._served) + 1
        if following >= len(turns):
            return False
        said = "\n".join(b.text for b in view.messages[-1].blocks if isinstance(b, Text))
        return turns[following].user.strip() in said

    def _turn_of(self, index: int) -> int:
        """The turn whose responses hold scripted response ``index``."""
        end = 0
        for number, turn in enumerate(self.case.given.turns):
            end += len(turn.responses)
            if index < end:
                return number
        return len(self.case.given.turns)

    def _skip_continuation(self, view: RequestView) -> None:
        """Pass over an ``if_continued`` response (and the continuation's own tool loop)
        when the request starts a new user turn: the target ended the cut (or empty) turn,
        which is accepted as well as going on with the loop (rule 33)."""
        while (
            self._served < len(self.script)
            and (self.script[self._served].if_continued or self._served in self.loops)
            and self._starts_turn(view)
        ):
            self.skipped.add(self._served)
            self._served += 1

    def _skip_retry_answer(self, request: HttpRequest) -> None:
        """Pass over an ``if_retried`` response unless ``request`` sends again the JSON
        of the request that got the dropped stream before it: a target that goes on or
        ends there is accepted as well as one that retries."""
        while self._served < len(self.script) and self.script[self._served].if_retried:
            dropped = next(
                (e for e in reversed(self.exchanges) if e.served == self._served - 1), None
            )
            if dropped is not None and same_json(dropped.request.body, request.body):
                return
            self.skipped.add(self._served)
            self._served += 1

    def respond(self, index: int, context: RenderContext) -> HttpResponse:
        """The answer to a valid request: scripted response ``index`` rendered by the
        wire.  A replay overrides it to serve the recorded bytes instead."""
        return self.wire.render(self.script[index], context)

    def _error(self, rule: Rule, **fields: object) -> tuple[HttpResponse, Violation]:
        violation = rule.violation(rule.error.format(**fields))
        return self.wire.render_error(violation), violation

    def _answer(
        self, request: HttpRequest, number: int
    ) -> tuple[HttpResponse, RequestView | None, int | None, list[Violation], str | None]:
        if not self.wire.serves(request):
            response, violation = self._error(
                UNKNOWN_ENDPOINT, method=request.method, path=request.path, wire=self.wire.name
            )
            return response, None, None, [violation], violation.message
        try:
            view = self.wire.parse(request, self._context(number))
        except RequestParseError as error:
            violation = MALFORMED_REQUEST.violation(error.message, at=error.at)
            return self.wire.render_error(violation), None, None, [violation], error.message
        unjudged = unjudgeable(self.wire.name, self.dialect, request, view.raw)
        if unjudged is not None:  # a field or beta the provider cannot judge: say so
            return self.wire.render_error(unjudged), view, None, [unjudged], unjudged.message
        self._skip_retry_answer(request)
        self._skip_continuation(view)
        if self._served >= len(self.script) or self.exhausted:
            response, violation = self._error(BEYOND_SCRIPT, number=number, count=self._count())
            return response, view, None, [violation], violation.message
        violations = self.wire.validate(view, self._context(number))
        rejecting = [v for v in violations if v.rejects]
        if rejecting:
            return self.wire.render_error(rejecting[0]), view, None, violations, None
        index = self._served
        context = RenderContext(
            index=index,
            case_id=self.case.id,
            model=view.model or session_model(self.case, self.wire, self.dialect),
            stream=self.wire.wants_stream(request, view),
            dialect=self.dialect,
            request=view,
        )
        response = reframe(self.respond(index, context), self.script[index].framing)
        self._served += 1
        # A violation too weakly evidenced to reject (``Violation.rejects``) is
        # recorded beside the response the real provider would most likely have sent.
        return response, view, index, violations, None


def same_json(one: bytes, other: bytes) -> bool:
    """Whether two request bodies hold the same JSON (a retry may re-serialize it)."""
    try:
        return bool(json.loads(one) == json.loads(other))
    except ValueError:
        return one == other
