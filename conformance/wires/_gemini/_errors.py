"""Google's error answers: the body every error has (``{code, message, status}``) and the
texts of the errors that are no rule's (a body that is not JSON, an internal error)."""

from __future__ import annotations

from conformance.http import HttpResponse, json_response

#: google.rpc canonical codes, as the error body's ``status`` names them.
STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
INTERNAL_ERROR = (
    "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting"
)
INVALID_JSON = "Invalid JSON payload received. Unexpected token."
NOT_A_MESSAGE = 'Invalid JSON payload received. Unknown name "": Root element must be a message.'


def error_response(status: int, message: str) -> HttpResponse:
    """The error body the API answers with ``status``."""
    error = {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN")}
    return json_response(status, {"error": error})
