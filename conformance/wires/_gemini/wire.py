"""The Gemini wire's own data (``_assembly.assemble`` builds its ``Wire`` from this and the
job modules), with the ledger hints that say how strongly each signature must come back:
signatures on functionCall parts are enforced (rules 40, 41), on text and thought parts
they only keep reasoning continuity (rule 44, F7).  A call's signature stays with its call
id; a text or thought signature may come back on the text it concluded, merged or not
(rule 43), so it has no companion.  The field is protobuf ``bytes``, so the ledger
compares decoded bytes.  Google's SDKs read ``GEMINI_BASE_URL`` (the Gen AI SDK also
``GOOGLE_GEMINI_BASE_URL``) and take the key in ``x-goog-api-key``."""

from __future__ import annotations

from conformance.wires._gemini import _view, route
from conformance.wires._thought_signatures import SENTINELS
from conformance.wires.hints import LedgerHints
from conformance.wires.roles import ClientEnvironment, ProviderHost


def _key_headers(key: str) -> dict[str, str]:
    return {"x-goog-api-key": key}


NAME = _view.NAME
CLIENT = ClientEnvironment(
    base_variable="GEMINI_BASE_URL",
    key_variable="GEMINI_API_KEY",
    dummy_key="conformance-gemini-key",
    path=route.endpoint,
    key_headers=_key_headers,
    aliases=("GOOGLE_GEMINI_BASE_URL",),
)
HINTS = LedgerHints(
    sentinels=SENTINELS,
    strength="should",
    strengths={"tool_call": "must"},
    companions={"tool_call": "id"},
)
MODELS = {"": "gemini-2.5-flash"}
_VERTEX = "aiplatform.googleapis.com"  # and its regional ``L-aiplatform`` hosts
HOSTS = (
    ProviderHost("generativelanguage.googleapis.com"),
    ProviderHost(_VERTEX, regional=True),
)
#: Vertex AI's path of a publisher model, as the suite serves it.
PATH_REWRITES = (
    (
        r"^/v1(?:beta1)?/projects/[^/]+/locations/[^/]+/publishers/google/models/"
        r"(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$",
        r"/v1beta/models/\g<model>:\g<method>",
    ),
)
TOOL_SCHEMA_KEYS = ("parameters", "parametersJsonSchema")
