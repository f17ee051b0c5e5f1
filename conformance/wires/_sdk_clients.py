"""How the providers' own SDKs find a provider, where more than one wire shares it: the
OpenAI SDKs serve both OpenAI wires (and every OpenAI-compatible server), and a bearer
token is how most providers take a key.  A wire's ``CLIENT`` is built from these, so two
wires that one SDK speaks never disagree on its variables."""

from __future__ import annotations

from conformance.wires.roles import ClientEnvironment, EndpointFn

#: What the OpenAI SDKs expect ``OPENAI_BASE_URL`` to end in: the paths they post to are
#: relative to it (``/responses``, ``/chat/completions``).
OPENAI_BASE_SUFFIX = "/v1"


def bearer(key: str) -> dict[str, str]:
    """A key as an ``authorization: Bearer`` header."""
    return {"authorization": f"Bearer {key}"}


def openai_client(endpoint: EndpointFn) -> ClientEnvironment:
    """The OpenAI SDKs' environment for a wire whose paths ``endpoint`` gives (each under
    ``/v1``, which the base URL carries)."""

    def path(model: str, stream: bool) -> str:
        return endpoint(model, stream=stream).removeprefix(OPENAI_BASE_SUFFIX)

    return ClientEnvironment(
        base_variable="OPENAI_BASE_URL",
        key_variable="OPENAI_API_KEY",
        dummy_key="conformance-openai-key",
        path=path,
        key_headers=bearer,
        base_suffix=OPENAI_BASE_SUFFIX,
    )
