"""Read the HTTP exchanges of a cassette someone else recorded: vcrpy / pytest-recording
cassettes (YAML, gzip-compressed YAML, or vcrpy's JSON serializer) and HAR files.

What comes out is each interaction's request and response as plain bytes, the response
body with its content-encoding undone (vcrpy keeps a gzip body as the wire carried it,
as ``!!binary``), and, where the file says it, when the exchange happened.  Every
problem is one ``CassetteError`` that names the file, the line (YAML) and the field.
The recording format, routing and the sanitizer are not this module's business
(``conformance._recording.importing``).
"""

from __future__ import annotations

import base64
import binascii
import datetime
import email.utils
import gzip
import json
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.errors import CassetteError
from conformance.wires._nesting import too_deep

#: The file names the importer reads (a ``.gz`` of any of them too).
SUFFIXES = (".yaml", ".yml", ".json", ".har")
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Interaction:
    """One recorded exchange, as plain HTTP."""

    #: Where it sits in the file, for messages: ``interactions.3`` or ``log.entries.3``.
    at: str
    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...]
    request_body: bytes
    status: int
    response_headers: tuple[tuple[str, str], ...]
    #: The body with its content-encoding undone.
    response_body: bytes
    #: When it happened (ISO 8601, UTC), if the file says: a HAR entry's
    #: ``startedDateTime``, else the response's ``Date`` header.
    when: str | None
    #: What reading changed, for the recording's ``edits``: ``"gzip"``, ``"deflate"``,
    #: ``"parsed_body"`` (a body the cassette kept as parsed JSON, written out again).
    changed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Cassette:
    kind: str  # "vcrpy" or "har"
    interactions: tuple[Interaction, ...]


def is_cassette_name(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(SUFFIXES)


def stem(path: Path) -> str:
    """The file's name without its cassette suffixes (``x.yaml.gz`` -> ``x``)."""
    name = path.name.removesuffix(".gz").removesuffix(".GZ")
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def read_cassette(path: Path) -> Cassette | None:
    """The cassette's interactions, ``None`` for a file that is no cassette (no
    ``interactions``, no HAR ``log.entries``), or a ``CassetteError``."""
    data, lines = _document(path)
    if isinstance(data, Mapping) and isinstance(data.get("log"), Mapping):
        entries = data["log"].get("entries")
        if isinstance(entries, list):
            return Cassette("har", tuple(_har(path, entries)))
    if isinstance(data, Mapping) and "interactions" in data:
        items = data["interactions"]
        if not isinstance(items, list):
            raise CassetteError(path, _where(lines, ("interactions",)), "is not a list")
        return Cassette("vcrpy", tuple(_vcr(path, items, lines)))
    return None


# ---------------------------------------------------------------- the document


def _document(path: Path) -> tuple[Any, dict[tuple[str | int, ...], int]]:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise CassetteError(path, "file", error.strerror or str(error)) from None
    if path.name.lower().endswith(".gz") or raw.startswith(_GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise CassetteError(path, "file", f"not gzip data: {error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CassetteError(path, f"byte {error.start}", "not UTF-8 text") from None
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".json", ".har")):
        deep = too_deep(text)
        if deep is not None:  # the parser would end in a RecursionError
            raise CassetteError(path, "top level", deep)
        try:
            return json.loads(text), {}
        except json.JSONDecodeError as error:
            at = f"line {error.lineno} column {error.colno}"
            raise CassetteError(path, at, f"not JSON ({error.msg})") from None
    return _yaml(path, text)


try:  # libyaml is bundled with PyYAML's wheels; the pure-Python loader is the fallback
    _Base: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - only without libyaml
    _Base = yaml.SafeLoader


class _Loader(_Base):  # type: ignore[valid-type,misc]
    """Safe YAML, plus the plain-data tags PyYAML's full dumper writes into cassettes
    made by older vcrpy (``!!python/unicode``, ``!!python/str``, ``!!python/tuple``) and
    by vcrpy's aiohttp stub (a header name as ``multidict.istr``, a case-insensitive
    string): each read as the plain value it holds, nothing constructed or imported."""


def _scalar_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


def _sequence(loader: yaml.SafeLoader, node: yaml.Node) -> list[Any]:
    return loader.construct_sequence(node)  # type: ignore[arg-type]


_Loader.add_constructor("tag:yaml.org,2002:python/unicode", _scalar_text)
_Loader.add_constructor("tag:yaml.org,2002:python/str", _scalar_text)
_Loader.add_constructor("tag:yaml.org,2002:python/tuple", _sequence)


def _istr(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    """``!!python/object/apply:multidict._multidict.istr [Name]``: the name."""
    values = loader.construct_sequence(node)  # type: ignore[arg-type]
    if len(values) != 1 or not isinstance(values[0], str):
        raise yaml.constructor.ConstructorError(
            None, None, "a multidict.istr holds one string", node.start_mark
        )
    return values[0]


for _how in ("apply", "new"):
    _Loader.add_constructor(
        f"tag:yaml.org,2002:python/object/{_how}:multidict._multidict.istr", _istr
    )

#: How deep the line index goes: ``interactions.N.response.body.string``.
_INDEX_DEPTH = 5
_INDEX_BUDGET = 200_000


def _yaml(path: Path, text: str) -> tuple[Any, dict[tuple[str | int, ...], int]]:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        lines: dict[tuple[str | int, ...], int] = {}
        if node is not None:
            _index(node, (), lines)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        at = f"line {mark.line + 1}" if mark else "file"
        raise CassetteError(path, at, f"not YAML ({error.problem or error})") from None
    except yaml.YAMLError as error:
        raise CassetteError(path, "file", f"not YAML ({error})") from None
    finally:
        loader.dispose()
    return data, lines


def _index(node: yaml.Node, at: tuple[str | int, ...], lines: dict[Any, int]) -> None:
    """The line of every value down to ``_INDEX_DEPTH`` (aliases bounded by the budget)."""
    if len(lines) > _INDEX_BUDGET:
        return
    lines[at] = node.start_mark.line + 1
    if len(at) >= _INDEX_DEPTH:
        return
    kind = getattr(node, "id", "")
    if kind == "mapping":
        for key, value in node.value:
            if getattr(key, "id", "") == "scalar":
                _index(value, (*at, str(key.value)), lines)
    elif kind == "sequence":
        for number, item in enumerate(node.value):
            _index(item, (*at, number), lines)


def _where(lines: Mapping[tuple[str | int, ...], int], at: tuple[str | int, ...]) -> str:
    """``line L: a.b.c`` (the line of the deepest part that exists), or ``a.b.c``."""
    field = ".".join(map(str, at))
    probe = at
    while probe:
        if probe in lines:
            return f"line {lines[probe]}: {field}"
        probe = probe[:-1]
    return field


# ---------------------------------------------------------------- vcrpy


class _Bad(Exception):
    """A field that does not hold what a cassette holds there (located by the caller)."""

    def __init__(self, at: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.at, self.message = at, message


def _vcr(path: Path, items: list[Any], lines: Mapping[Any, int]) -> Iterator[Interaction]:
    for number, item in enumerate(items):
        at: tuple[str | int, ...] = ("interactions", number)
        try:
            yield _vcr_interaction(item, at)
        except _Bad as bad:
            raise CassetteError(path, _where(lines, bad.at), bad.message) from None


def _field(data: Any, at: tuple[str | int, ...], key: str) -> Any:
    if not isinstance(data, Mapping):
        raise _Bad(at, "is not a mapping")
    if key not in data:
        raise _Bad((*at, key), "is missing")
    return data[key]


def _vcr_interaction(item: Any, at: tuple[str | int, ...]) -> Interaction:
    request = _field(item, at, "request")
    response = _field(item, at, "response")
    rq, rs = (*at, "request"), (*at, "response")
    method, uri = _field(request, rq, "method"), _field(request, rq, "uri")
    if not isinstance(method, str) or not method:
        raise _Bad((*rq, "method"), "is not an HTTP method")
    if not isinstance(uri, str) or "://" not in uri:
        raise _Bad((*rq, "uri"), "is not an absolute URL")
    changed: set[str] = set()
    request_body = _vcr_body(request, rq, changed)
    # vcrpy's httpx stub before 5.0 wrote ``status_code`` (and the body as ``content``)
    key = "status_code" if isinstance(response, Mapping) and "status_code" in response else "status"
    status = _field(response, rs, key)
    code = status.get("code") if isinstance(status, Mapping) else status
    if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code <= 599:
        raise _Bad((*rs, key), f"is not an HTTP status: {status!r}")
    response_headers = _vcr_headers(response, rs)
    body = _vcr_body(response, rs, changed, "content")
    body = _decoded(body, response_headers, (*rs, "body"), changed)
    return Interaction(
        at=".".join(map(str, at)),
        method=method.upper(),
        url=uri,
        request_headers=_vcr_headers(request, rq),
        request_body=request_body,
        status=code,
        response_headers=response_headers,
        response_body=body,
        when=_date(response_headers),
        changed=frozenset(changed),
    )


def _vcr_headers(data: Mapping[str, Any], at: tuple[str | int, ...]) -> tuple[tuple[str, str], ...]:
    headers = data.get("headers") or {}
    if not isinstance(headers, Mapping):
        raise _Bad((*at, "headers"), "is not a mapping of names to values")
    pairs: list[tuple[str, str]] = []
    for name, values in headers.items():
        for value in values if isinstance(values, list) else [values]:
            if not isinstance(value, str | int | float):
                raise _Bad((*at, "headers", str(name)), f"is not a header value: {value!r}")
            pairs.append((str(name), str(value)))
    return tuple(pairs)


def _vcr_body(
    data: Mapping[str, Any], at: tuple[str | int, ...], changed: set[str], alt: str = ""
) -> bytes:
    """A body in any of vcrpy's forms: a string, ``!!binary`` bytes, ``{string: ...}``,
    null; httpx's older ``content``; pydantic-ai's ``parsed_body`` (parsed JSON)."""
    if "body" in data:
        body, where = data["body"], (*at, "body")
    elif alt and alt in data:
        body, where = data[alt], (*at, alt)
    elif "parsed_body" in data:
        changed.add("parsed_body")
        text = json.dumps(data["parsed_body"], ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8")
    else:
        return b""
    if isinstance(body, Mapping):
        if "string" not in body:
            raise _Bad(where, "holds no `string`")
        body, where = body["string"], (*where, "string")
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    raise _Bad(where, f"is not a body (a string or bytes): {type(body).__name__}")


def _header(headers: tuple[tuple[str, str], ...], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


def _decoded(
    body: bytes, headers: tuple[tuple[str, str], ...], at: tuple[str | int, ...], changed: set[str]
) -> bytes:
    """The body with its content-encoding undone.  A body that is already plain (vcrpy's
    ``decode_compressed_response``, a HAR's decoded ``content.text``) is kept."""
    encoding = (_header(headers, "content-encoding") or "").strip().lower()
    if not body or encoding in ("", "identity"):
        return body
    try:
        if encoding in ("gzip", "x-gzip"):
            if not body.startswith(_GZIP_MAGIC):
                return body
            changed.add("gzip")
            return gzip.decompress(body)
        if encoding == "deflate":
            try:
                plain = zlib.decompress(body)
            except zlib.error:
                plain = zlib.decompress(body, -zlib.MAX_WBITS)
            changed.add("deflate")
            return plain
    except (OSError, EOFError, zlib.error) as error:
        raise _Bad(at, f"content-encoding {encoding}: does not decode ({error})") from None
    if _looks_plain(body):
        return body
    raise _Bad(at, f"content-encoding {encoding}: cannot be decoded here (gzip and deflate can)")


def _looks_plain(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _date(headers: tuple[tuple[str, str], ...]) -> str | None:
    value = _header(headers, "date")
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.astimezone(datetime.UTC).isoformat(timespec="seconds")


# ---------------------------------------------------------------- HAR


def _har(path: Path, entries: list[Any]) -> Iterator[Interaction]:
    for number, entry in enumerate(entries):
        at: tuple[str | int, ...] = ("log", "entries", number)
        try:
            yield _har_entry(entry, at)
        except _Bad as bad:
            raise CassetteError(path, ".".join(map(str, bad.at)), bad.message) from None


def _har_headers(data: Any, at: tuple[str | int, ...]) -> tuple[tuple[str, str], ...]:
    headers = data.get("headers") or [] if isinstance(data, Mapping) else None
    if not isinstance(headers, list):
        raise _Bad((*at, "headers"), "is not a list of {name, value}")
    pairs: list[tuple[str, str]] = []
    for number, header in enumerate(headers):
        if not isinstance(header, Mapping) or not isinstance(header.get("name"), str):
            raise _Bad((*at, "headers", number), "is not a {name, value} header")
        pairs.append((header["name"], str(header.get("value", ""))))
    return tuple(pairs)


def _har_text(data: Any, at: tuple[str | int, ...]) -> bytes:
    """``postData`` or ``content``: its ``text``, base64-decoded when ``encoding`` says."""
    if data is None:
        return b""
    if not isinstance(data, Mapping):
        raise _Bad(at, "is not a mapping")
    text = data.get("text")
    if text is None:
        return b""
    if not isinstance(text, str):
        raise _Bad((*at, "text"), "is not a string")
    if data.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error as error:
            raise _Bad((*at, "text"), f"is not base64: {error}") from None
    return text.encode("utf-8")


def _har_entry(entry: Any, at: tuple[str | int, ...]) -> Interaction:
    request = _field(entry, at, "request")
    response = _field(entry, at, "response")
    rq, rs = (*at, "request"), (*at, "response")
    method, url = _field(request, rq, "method"), _field(request, rq, "url")
    if not isinstance(method, str) or not method:
        raise _Bad((*rq, "method"), "is not an HTTP method")
    if not isinstance(url, str) or "://" not in url:
        raise _Bad((*rq, "url"), "is not an absolute URL")
    status = _field(response, rs, "status")
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        raise _Bad((*rs, "status"), f"is not an HTTP status: {status!r}")
    changed: set[str] = set()
    headers = _har_headers(response, rs)
    body = _har_text(response.get("content"), (*rs, "content"))
    body = _decoded(body, headers, (*rs, "content", "text"), changed)
    return Interaction(
        at=".".join(map(str, at)),
        method=method.upper(),
        url=url,
        request_headers=_har_headers(request, rq),
        request_body=_har_text(request.get("postData"), (*rq, "postData")),
        status=status,
        response_headers=headers,
        response_body=body,
        when=_started(entry.get("startedDateTime")) or _date(headers),
        changed=frozenset(changed),
    )


def _started(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.astimezone(datetime.UTC).isoformat(timespec="seconds")
