"""The ``toy-echo`` wire: ``POST /toy/v1/turns`` with ``{"model", "messages"}``, answered
with one JSON object ``{"text", "token"}``.  The token is opaque: a client sends it back on
the assistant message it came with, unchanged (``rules.TOKEN_MINTED``)."""
