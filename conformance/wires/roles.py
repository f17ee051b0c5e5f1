"""The roles a wire plays, one small interface each, and ``Wire``, which assembles them.

Callers take the role they use, so a test double supplies that role and nothing else:

- ``Server``: what the scripted provider needs to serve a request (route, parse,
  validate, render, answer an error).
- ``Reader``: reading a recorded response back into a scripted one (``decode``, replay).
- ``HistorySource``: a request's raw conversation items (the append-only invariant).
- ``Hinted``: the ledger's per-wire facts, as data (``LedgerHints``).
- ``Realism``: the predicates the case linter's one realism walk calls, as data.
- ``ClientEnvironment``: how the provider's own clients find it (base URL and key
  variables, key headers), what a command target's environment sets.

``conformance.wires._assembly.assemble`` builds one ``Wire`` from a wire package's job
modules, by the contract; the registry (``conformance.wires._registry.get_wire``) hands it
out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Block, Message, Noise, Options, ScriptedResponse, Stop, ToolSpec
from conformance.wires.context import RenderContext, RequestView, ValidationContext
from conformance.wires.hints import LedgerHints

if TYPE_CHECKING:
    from conformance.wires._sse import StreamEvent


class Server(Protocol):
    """What serving a request takes: the scripted provider's view of a wire."""

    @property
    def name(self) -> str: ...

    def serves(self, request: HttpRequest) -> bool:
        """Whether the request is addressed to one of this wire's real endpoints."""
        ...

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        """Whether the client asked for a streamed answer."""
        ...

    def default_model(self, dialect: str | None = None) -> str:
        """The model a session names when the case sets none."""
        ...

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The body in neutral form; raises ``RequestParseError``."""
        ...

    def validate(self, view: RequestView, context: ValidationContext) -> list[Violation]:
        """Every rule the request breaks, in the order the provider checks them."""
        ...

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        """The scripted response exactly as the provider sends it (SSE or JSON)."""
        ...

    def render_error(self, violation: Violation) -> HttpResponse:
        """The provider's error answer to a rule violation (status, body shape, text)."""
        ...


class Reader(Protocol):
    """Reading a provider's recorded answer back into neutral form."""

    def read(self, body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
        """The response body (``streaming``: the SSE stream, else the JSON answer) as a
        scripted response; raises ``ResponseReadError``."""
        ...


class HistorySource(Protocol):
    """The raw conversation items of a request, what append-only compares."""

    def history_items(self, view: RequestView) -> list[Any]: ...


class Hinted(Protocol):
    """A wire as the opaque-payload ledger sees it: its hints and nothing else."""

    @property
    def hints(self) -> LedgerHints: ...


@dataclass(frozen=True)
class BlockSpot:
    """Where a block sits when the realism lint asks about it.

    ``scripted``: in a served response that stopped with ``stop`` (else in the saved
    history, where there is no stop and no neighbour counts).  ``index`` is the block's
    position among ``blocks``, its response's or message's blocks.
    """

    scripted: bool
    index: int
    blocks: tuple[Block, ...]
    stop: Stop | None = None
    dialect: str | None = None
    model: str = ""

    @property
    def last(self) -> bool:
        """The last block of a served response (a response is cut inside its last one)."""
        return self.scripted and self.index == len(self.blocks) - 1

    @property
    def after(self) -> Block | None:
        """The block a served response sends next, if any."""
        if not self.scripted or self.index + 1 >= len(self.blocks):
            return None
        return self.blocks[self.index + 1]

    @property
    def before(self) -> tuple[Block, ...]:
        """The blocks a served response sent earlier."""
        return self.blocks[: self.index] if self.scripted else ()


#: A realism predicate over a whole response (in a dialect), and one over a block where
#: it sits: each yields its findings, ``Violation``s of realism checks whose ids
#: (``<wire>/realism/<slug>``, ``realism/<slug>`` when shared) the lint prints.
ResponsePredicate = Callable[[ScriptedResponse, str | None], Iterable[Violation]]
BlockPredicate = Callable[[Block, BlockSpot], Iterable[Violation]]


@dataclass(frozen=True)
class Realism:
    """A wire's realism predicates: why it never sends a response (its stop, its noise)
    or a block where it sits.  Each returns its findings, empty when realistic;
    ``rules`` lists the realism checks they report (``wire-conformance checks --kind
    realism``)."""

    response: Callable[[ScriptedResponse, str | None], list[Violation]]
    block: Callable[[Block, BlockSpot], list[Violation]]
    #: The realism checks those predicates report (``wire-conformance checks --kind realism``).
    rules: tuple[Rule, ...] = ()
    #: Why the provider refuses a case's options before any turn (Anthropic: a thinking
    #: budget not below ``max_tokens``), given the tools the case offers: an authoring
    #: mistake, not the client's.
    options: Callable[[Options, tuple[ToolSpec, ...]], list[Violation]] = field(
        default=lambda options, tools: []
    )


@dataclass(frozen=True)
class ClientEnvironment:
    """How the provider's own clients find it, so a program under test reaches the
    scripted provider unchanged: the variable its SDKs read the base URL from (``aliases``:
    others some SDKs read instead), what that URL carries after the server's address
    (``base_suffix``: ``/v1`` for OpenAI's SDKs), the API key variable with the dummy key
    a command target gets (SDKs refuse to start without one; the scripted provider
    ignores it), the headers that carry a key, and ``path``: where a request for
    ``model`` goes under that base URL."""

    base_variable: str
    key_variable: str
    dummy_key: str
    path: Callable[[str, bool], str]
    key_headers: Callable[[str], dict[str, str]]
    base_suffix: str = ""
    aliases: tuple[str, ...] = ()

    def variables(self, base_url: str) -> dict[str, str]:
        """The variables that point this provider's clients at ``base_url``."""
        url = base_url + self.base_suffix
        named = dict.fromkeys((self.base_variable, *self.aliases), url)
        return {**named, self.key_variable: self.dummy_key}


@dataclass(frozen=True)
class ProviderHost:
    """A provider's own upstream that speaks this wire, for the recording tools: an
    imported exchange to it is one of the suite's conversations on the wire, and a
    recording proxy in front of it files its exchanges under ``dialect``.  A ``port``
    names an upstream by its port on any host (Ollama's 11434); ``regional``: the host's
    regional ``<region>-<host>`` names serve it too (Vertex AI)."""

    host: str = ""
    #: The dialect an upstream there speaks (``None``: the wire's plain one).
    dialect: str | None = None
    port: int | None = None
    regional: bool = False

    def by_port(self, port: int | None) -> bool:
        return self.port is not None and port == self.port

    def by_name(self, host: str) -> bool:
        host = host.lower()
        if self.port is not None:
            return False
        return host == self.host or (self.regional and host.endswith("-" + self.host))


class ParseFn(Protocol):
    """``parse.parse``: the context is optional (a stateless read of a body)."""

    def __call__(
        self, request: HttpRequest, context: ValidationContext | None = None
    ) -> RequestView: ...


class EndpointFn(Protocol):
    """``route.endpoint``, callable with keywords (``endpoint(model, stream=True)``)."""

    def __call__(self, model: str, stream: bool) -> str: ...


class ReadFn(Protocol):
    """``read.read``: the dialect is optional (only Chat has dialects)."""

    def __call__(
        self, body: bytes, streaming: bool, dialect: str | None = None
    ) -> ScriptedResponse: ...


@dataclass(frozen=True, eq=False)
class Wire:
    """One provider wire, assembled from its package's job modules by
    ``_assembly.assemble`` (one object per wire: it compares and hashes by identity).
    Each field is the contract name of the same name, lower-cased (``RULES``: ``rules``);
    a field with a default is one a package may leave out.

    It plays every role above; ``rules`` is the wire's rule book in check order (what
    ``wire-conformance checks`` lists), ``endpoint`` the path a request for ``model``
    goes to when a target names none.
    """

    name: str
    rules: tuple[Rule, ...]
    serves: Callable[[HttpRequest], bool]
    endpoint: EndpointFn
    wants_stream: Callable[[HttpRequest, RequestView], bool]
    parse: ParseFn
    validate: Callable[[RequestView, ValidationContext], list[Violation]]
    render: Callable[[ScriptedResponse, RenderContext], HttpResponse]
    render_error: Callable[[Violation], HttpResponse]
    #: A saved conversation as the request body fields that hold it (``render_history``).
    render_history: Callable[[Sequence[Message], str | None], dict[str, Any]]
    read: ReadFn
    history_items: Callable[[RequestView], list[Any]]
    hints: LedgerHints
    realism: Realism
    dialects: tuple[str, ...] = ()
    #: What a target may call the column without a dialect when it declares that column
    #: alone (``openai-chat:openai``: OpenAI's own API, none of the compatible servers);
    #: ``None``: a wire without dialects, whose bare name is that column already.
    plain_dialect: str | None = None
    #: Why a request rests on server-side state that the earlier answers (their bodies)
    #: do not show, or ``None``: a wire with no server-side state says ``None`` always.
    #: The audit leaves such a request unjudged rather than refuse what it cannot see.
    unseen_state: Callable[[RequestView, Sequence[bytes]], str | None] = field(
        default=lambda view, bodies: None
    )
    #: Where the outcome of a turn is when its answer does not hold it: ``None`` when
    #: the answer body holds it, else the index among the later exchanges (request,
    #: answer body) of the one that does, or ``-1`` when none does (a Responses
    #: background response, polled until it ends; the recording ended while it ran).
    settle: Callable[[bytes, Sequence[tuple[HttpRequest, bytes]]], int | None] = field(
        default=lambda body, later: None
    )
    #: Whether a request asks to be answered later, by polls (Responses ``background``).
    defers: Callable[[RequestView], bool] = field(default=lambda view: False)
    #: The id of the pending answer a request polls (``GET /v1/responses/{id}``), or
    #: ``None``: a request that is no poll, on every wire without one.
    poll_of: Callable[[HttpRequest], str | None] = field(default=lambda request: None)
    #: A realistic model name per dialect (``""``: the wire itself), used when a case
    #: sets none: libraries key behaviour on the model name.  Chosen so no verdict
    #: depends on it (a DeepSeek model that is not a ``reasoner``; an ``anthropic/``
    #: OpenRouter route).
    models: Mapping[str, str] = field(default_factory=dict)
    #: How the provider's clients find it (``None``: a wire no command target or
    #: adapter-as-command run can reach).
    client: ClientEnvironment | None = None
    #: The noise a recorded stream carried (the events a client must skip), from its
    #: events and raw body; a wire whose streams carry none says ``[]``.
    noise: Callable[[list[StreamEvent], bytes], list[Noise]] = field(
        default=lambda events, body: []
    )
    #: The case options a conversation's first request says beyond the neutral ones
    #: (model, ``max_tokens``, thinking): Responses' ``store`` and ``include``.
    case_options: Callable[[RequestView], dict[str, Any]] = field(default=lambda view: {})
    #: The provider's own upstreams that speak this wire (none known: an imported
    #: cassette's exchange is never placed on it; the recording proxy still records what
    #: ``serves`` says is its).
    hosts: tuple[ProviderHost, ...] = ()
    #: A provider's real request paths as the suite serves them, ``(pattern,
    #: replacement)`` for ``re.sub`` (OpenRouter's ``/api/v1/...``): an imported
    #: exchange is filed under the path the suite answers.
    path_rewrites: tuple[tuple[str, str], ...] = ()
    #: The keys a tool declaration holds its JSON schema under, tried in order, for a
    #: case made from a recording; the default is where most function-calling wires keep
    #: it.
    tool_schema_keys: tuple[str, ...] = ("parameters",)

    def default_model(self, dialect: str | None = None) -> str:
        """The model a session on this wire (and dialect) names when the case sets none."""
        return self.models.get(dialect or "", self.models.get("", "model-under-test"))
