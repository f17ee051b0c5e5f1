"""The sanitizer applied to recorded exchanges, and the scan that refuses a recording
still holding a secret."""

from __future__ import annotations

from conformance._recording.blob import from_blob, to_blob
from conformance._recording.file_format import RecordedExchange, RecordedRequest, RecordedResponse
from conformance._recording.sanitize import (
    body_secrets,
    header_secrets,
    path_secrets,
    query_secrets,
    scrub_body,
    scrub_headers,
    scrub_path,
    scrub_query,
    scrub_response_chunks,
)


def clean_exchange(exchange: RecordedExchange, redact_text: bool = False) -> RecordedExchange:
    """The exchange with its credentials (and, with ``redact_text``, its visible text)
    replaced; chunk boundaries, payloads and ids untouched."""
    request, response = exchange.request, exchange.response
    headers = dict(scrub_headers(tuple(request.headers.items())))
    chunks = scrub_response_chunks(
        tuple(from_blob(c) for c in response.chunks), response.headers, redact_text
    )
    return exchange.model_copy(
        update={
            "request": RecordedRequest(
                method=request.method,
                path=scrub_path(request.path),
                query=scrub_query(request.query),
                headers=headers,
                body=to_blob(scrub_body(from_blob(request.body), request.headers, redact_text)),
            ),
            "response": RecordedResponse(
                status=response.status,
                headers=scrub_headers(response.headers),
                chunks=tuple(to_blob(c) for c in chunks),
                ended=response.ended,
                reason=response.reason,
            ),
        }
    )


def secrets_in(exchanges: tuple[RecordedExchange, ...]) -> list[str]:
    """Where a credential survives, as ``exchanges.N.request.headers.x-api-key``."""
    found: list[str] = []
    for index, exchange in enumerate(exchanges):
        at = f"exchanges.{index}"
        request, response = exchange.request, exchange.response
        found += path_secrets(request.path, f"{at}.request.path")
        found += header_secrets(tuple(request.headers.items()), f"{at}.request.headers")
        found += query_secrets(request.query, f"{at}.request.query")
        found += body_secrets(from_blob(request.body), f"{at}.request.body", request.headers)
        found += header_secrets(response.headers, f"{at}.response.headers")
        found += body_secrets(response.body, f"{at}.response.chunks", response.headers)
    return found
