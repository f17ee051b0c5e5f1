"""``--save-exchanges DIR``: every request and response of every cell, for triage
without a second run.

One JSON file per cell at ``DIR/<target>/<column>/<case>.json`` (the column's ``:``
written ``+``, as snapshots do), deterministic: the same run writes the same bytes.
Each request keeps its method, path, query, the headers that shape the wire (an
allow-list: never credentials, never a client's volatile ones) and its body; each
response its status, content type and body (JSON parsed; a stream as its text); each
exchange the rule violations the provider recorded; the file ends with the cell's
verdict, reason, cause, violations and warnings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance._paths import ArtefactStore
from conformance._transcript import Exchange, Transcript
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Result

#: Request headers that change what a provider does with the body.
KEPT_HEADERS = frozenset(
    {"content-type", "accept", "anthropic-version", "anthropic-beta", "openai-beta"}
)


def exchanges_path(root: Path, target: str, column: str, case_id: str) -> Path:
    """Where one cell's exchanges are written (checked by the one store)."""
    return ArtefactStore(root).cell(target, column, case_id, "json")


def save_exchanges(root: Path, target: str, transcript: Transcript, result: Result) -> Path:
    """Write one cell's exchanges and verdict; returns the file written."""
    store = ArtefactStore(root)
    path = store.cell(target, transcript.wire, transcript.case.id, "json")
    document = {
        "case": transcript.case.id,
        "wire": transcript.wire,
        "dialect": transcript.dialect,
        "exchanges": [_exchange(e) for e in transcript.exchanges],
        "verdict": result.verdict,
        "reason": result.reason,
        "cause": result.cause,
        "violations": [v.model_dump(mode="json") for v in result.violations],
        "warnings": [v.model_dump(mode="json") for v in result.warnings],
    }
    store.write(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


def _exchange(exchange: Exchange) -> dict[str, Any]:
    return {
        "number": exchange.number,
        "request": _request(exchange.request),
        "response": _response(exchange.response),
        "served": exchange.served,
        "violations": [
            {
                "check": v.check,
                "message": v.message,
                "at": v.at,
                "evidence": v.evidence,
                "rejected": v.rejects,
            }
            for v in exchange.violations
        ],
        "problem": exchange.problem,
    }


def _request(request: HttpRequest) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in request.headers.items() if k.lower() in KEPT_HEADERS}
    return {
        "method": request.method,
        "path": request.path,
        "query": request.query,
        "headers": dict(sorted(headers.items())),
        "body": _body(request.body),
    }


def _response(response: HttpResponse) -> dict[str, Any]:
    kept = {k.lower(): v for k, v in response.headers if k.lower() == "content-type"}
    return {"status": response.status, "headers": kept, "body": _body(response.body)}


def _body(raw: bytes) -> Any:
    """JSON as its value; anything else (a stream, a broken body) as its text."""
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text
