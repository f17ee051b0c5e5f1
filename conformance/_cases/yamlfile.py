"""YAML with positions: parse a case file into plain data and keep where each value was.

PyYAML's libyaml composer builds the node tree; a small walk turns it into JSON-shaped
data, rejects duplicate keys, and remembers the line of every mapping key and sequence
item, so a schema error can name the line of the field it is about.  A loader that needs
no positions (most files validate) takes the data straight from libyaml's events instead:
building the nodes and their marks was most of a cold load.  Those events are read
through light stand-ins for PyYAML's event classes (``_quick``): building each as an
object with its attributes was half of what was left.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import yaml

from conformance.errors import YamlError

try:  # libyaml is bundled with PyYAML's wheels; the pure-Python loader is the fallback
    _Base: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - only without libyaml
    _Base = yaml.SafeLoader

#: The tag of each (node kind, scalar text, implicit flags) resolved so far, for short
#: scalars: a case repeats the same keys and words, and resolving each (regular
#: expressions, in Python) was a sixth of composing a document.
_RESOLVED: dict[tuple[type[yaml.Node], str | None, tuple[bool, bool]], str] = {}
_RESOLVED_LONGEST, _RESOLVED_MOST = 64, 50_000


class _Loader(_Base):  # type: ignore[valid-type,misc]
    """The safe loader, with the tags of short scalars remembered.  A tag depends only
    on the kind, text and implicit flags when no path resolvers are set (safe loading
    sets none) and on the implicit resolvers, of which this class keeps its own copy, so
    one added later to PyYAML's loaders cannot make a remembered tag stale."""

    yaml_path_resolvers: ClassVar[dict[Any, Any]] = {}
    yaml_implicit_resolvers: ClassVar[dict[Any, list[Any]]] = {
        first: list(resolvers) for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        """Nothing to track: there are no path resolvers."""

    def ascend_resolver(self) -> None:
        """Nothing to track: there are no path resolvers."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if isinstance(value, str) and len(value) <= _RESOLVED_LONGEST:
            key = (kind, value, implicit)
            tag = _RESOLVED.get(key)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(_RESOLVED) < _RESOLVED_MOST:
                    _RESOLVED[key] = tag
            return tag
        return super().resolve(kind, value, implicit)


#: Where a value sits in a parsed document: its mapping keys and sequence indexes.
KeyPath = tuple[str | int, ...]


@dataclass
class Positions:
    """Line numbers (1-based) of the values in a parsed document, by data path."""

    lines: dict[KeyPath, int] = field(default_factory=dict)

    def line_of(self, path: Sequence[str | int]) -> int | None:
        """The line of the deepest prefix of ``path`` that exists in the document."""
        probe = tuple(path)
        while probe:
            if probe in self.lines:
                return self.lines[probe]
            probe = probe[:-1]
        return self.lines.get((), None)


def _scalar(node: yaml.ScalarNode, constructor: yaml.constructor.SafeConstructor) -> Any:
    value = constructor.construct_object(node)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return node.value  # dates, binary: keep the text the author wrote


#: The most nodes a document may expand to, aliases counted each time they are used: a
#: case has a few hundred; an alias bomb ("billion laughs") has billions.  Counted while
#: walking the composed graph, whose aliases are still shared, so nothing is built first.
NODE_BUDGET = 100_000
#: The largest case file read (bytes), checked before it is read: the biggest bundled
#: case is under 10 KB, a 100 000-value stream about 300 KB.
MAX_CASE_BYTES = 16 * 1024 * 1024
#: The deepest a value may nest: a case nests a dozen levels; the walk is recursive.
MAX_DEPTH = 100


class _Walk:
    """Turns the composed node graph into plain data within the node and depth budgets."""

    def __init__(self, positions: Positions) -> None:
        self.positions = positions
        self.constructor = yaml.constructor.SafeConstructor()
        self.nodes = 0

    def value(self, node: yaml.Node, path: KeyPath) -> Any:
        line = node.start_mark.line + 1
        self.nodes += 1
        if self.nodes > NODE_BUDGET:
            raise YamlError(
                f"the document expands to more than {NODE_BUDGET} values (an alias bomb?)",
                line,
                ".".join(map(str, path)) or None,
            )
        if len(path) > MAX_DEPTH:
            field = ".".join(map(str, path[:6])) + ".…"
            raise YamlError(f"values nest deeper than {MAX_DEPTH} levels", line, field)
        self.positions.lines[path] = line
        # Dispatch on the node's kind name, not its class: libyaml builds nodes from the
        # classes it saw at import, which a re-imported `yaml` (pytester) no longer shares.
        kind: str = getattr(node, "id", "")
        if kind == "mapping":
            return self.mapping(node, path)
        if kind == "sequence":
            return [self.value(item, (*path, i)) for i, item in enumerate(node.value)]
        return _scalar(cast(yaml.ScalarNode, node), self.constructor)

    def mapping(self, node: yaml.Node, path: KeyPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if getattr(key_node, "id", "") != "scalar":
                raise YamlError("mapping keys must be plain words", key_node.start_mark.line + 1)
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlError(
                    "a YAML merge key (`<<`) is not supported: write the keys out",
                    key_node.start_mark.line + 1,
                    ".".join(map(str, path)) or None,
                )
            key = str(_scalar(key_node, self.constructor))
            if key in result:
                raise YamlError(
                    f"duplicate key {key!r}",
                    key_node.start_mark.line + 1,
                    ".".join(map(str, (*path, key))),
                )
            result[key] = self.value(value_node, (*path, key))
            self.positions.lines[(*path, key)] = key_node.start_mark.line + 1
        return result


#: The tag of a plain string scalar, whose value is the text as written: most of a case.
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"

_libyaml: Any
try:  # libyaml's parser, and the event classes it builds (those it saw at import)
    from yaml import _yaml as _libyaml
except ImportError:  # pragma: no cover - only without libyaml
    _libyaml = None

#: The loader's tag resolution, for the scalars read without composing.
_TAGS: Any = _Loader("")
#: The value of each short plain scalar read so far, by its text: a case repeats the
#: same keys and words (bounded like ``_RESOLVED``).
_PLAIN: dict[str, Any] = {}
_UNKNOWN = object()


class _Unusual(Exception):
    """The quick parse met what only the located walk may judge (an alias, anchor or
    tag, a limit, a duplicate or merge key, a key that is not a word, a value no safe
    constructor builds, a syntax error): the document is composed and walked, with
    positions, so the data or the refusal, with its line and field, comes from one place."""


def _plain_scalar(text: str) -> Any:
    """The value of a plain (unquoted, untagged) scalar, as the located walk gives it."""
    tag = _TAGS.resolve(yaml.ScalarNode, text, (True, False))
    if tag == _STR_TAG:
        value: Any = text
    elif tag == _MERGE_TAG:
        raise _Unusual
    else:
        try:
            value = _scalar(yaml.ScalarNode(tag, text), yaml.constructor.SafeConstructor())
        except Exception:  # the located walk says why, with the line
            raise _Unusual from None
    if len(text) <= _RESOLVED_LONGEST and len(_PLAIN) < _RESOLVED_MOST:
        _PLAIN[text] = value
    return value


class _Event:
    """What a light stand-in returns for an event that is not a scalar's value."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_MAPPING, _SEQUENCE, _END = _Event("mapping"), _Event("sequence"), _Event("end")
_DOCUMENT_END, _STREAM_END, _OTHER = _Event("document end"), _Event("stream end"), _Event("other")
#: An anchor, a tag or an alias: what only the located walk may judge.
_MARKED = _Event("marked")


def _scalar_event(
    anchor: Any, tag: Any, implicit: tuple[bool, bool], value: str, start: Any, end: Any, style: Any
) -> Any:
    """A scalar's value, as the located walk gives it: a plain one's from its text.  (The
    arguments are named as libyaml passes them, so no tuple is built for the rest.)"""
    if anchor is not None or tag is not None:
        return _MARKED
    if implicit[0]:  # plain: its tag is implied by its text
        found = _PLAIN.get(value, _UNKNOWN)
        return _plain_scalar(value) if found is _UNKNOWN else found
    return value


def _collection_event(marker: _Event) -> Any:
    def started(anchor: Any, tag: Any, implicit: Any, start: Any, end: Any, style: Any) -> _Event:
        return marker if anchor is None and tag is None else _MARKED

    return started


def _ended_event(start: Any, end: Any) -> _Event:
    return _END


def _constant_event(marker: _Event) -> Any:
    return lambda *_: marker


#: Light stand-ins for the event classes libyaml's ``get_event`` builds (it looks them up
#: in its module by name on every event): building each event as a Python object with
#: its attributes was half of a quick parse.  The stand-ins return a scalar's value
#: itself, or a marker, and are what ``_quick`` reads.
_LIGHT_EVENTS: dict[str, Any] = {
    "ScalarEvent": _scalar_event,
    "MappingStartEvent": _collection_event(_MAPPING),
    "SequenceStartEvent": _collection_event(_SEQUENCE),
    "MappingEndEvent": _ended_event,
    "SequenceEndEvent": _ended_event,
    "AliasEvent": _constant_event(_MARKED),
    "StreamStartEvent": _constant_event(_OTHER),
    "DocumentStartEvent": _constant_event(_OTHER),
    "DocumentEndEvent": _constant_event(_DOCUMENT_END),
    "StreamEndEvent": _constant_event(_STREAM_END),
}
_LIGHT_LOCK = threading.Lock()


def _quick(text: str) -> Any:
    """The located walk's data without its positions, built straight from libyaml's
    events: no nodes, no marks kept, no walk.  What a file that validates needs (most
    do), at a fraction of the cost; anything the located walk might judge otherwise is
    ``_Unusual``.

    libyaml's events are read through light stand-ins (``_LIGHT_EVENTS``), put in
    libyaml's module for this parse only and under a lock, so another thread's quick
    parse waits; the module's own classes are back before the lock is released, even
    when the parse fails.  Nothing else in the suite reads libyaml's events (the
    located walk's composer builds nodes in C, without them)."""
    namespace = vars(_libyaml)
    with _LIGHT_LOCK:
        own = {name: namespace[name] for name in _LIGHT_EVENTS}
        namespace.update(_LIGHT_EVENTS)
        try:
            return _read_events(_libyaml.CParser(text).get_event)
        finally:
            namespace.update(own)


def _read_events(get: Any) -> Any:
    """The document the light events of ``get`` make (see ``_quick``)."""
    get()  # the stream's start
    if get() is _STREAM_END:
        return None  # no document
    parents: list[Any] = []  # the collections enclosing ``parent``
    parent: Any = None  # the innermost open collection
    key: str | None = None  # in a mapping: the key awaiting its value
    count = 0  # events so far: at least the values, which the located walk budgets
    while True:
        event = get()
        count += 1
        if event.__class__ is not _Event:  # a scalar's value
            if key is not None:
                parent[key] = event
                key = None
            elif parent.__class__ is dict:
                key = event if event.__class__ is str else str(event)
                if key in parent:
                    raise _Unusual
            elif parent is None:
                return _ended(get, event)  # a lone scalar
            else:
                parent.append(event)
        elif event is _MAPPING or event is _SEQUENCE:
            value: Any = {} if event is _MAPPING else []
            if parent is not None:
                if key is not None:
                    parent[key] = value
                    key = None
                elif parent.__class__ is list:
                    parent.append(value)
                else:
                    raise _Unusual  # a collection as a key
                parents.append(parent)
                if len(parents) >= MAX_DEPTH:
                    raise _Unusual
            parent = value
        elif event is _END:
            if parents:
                parent = parents.pop()
            elif count > NODE_BUDGET:
                raise _Unusual
            else:
                return _ended(get, parent)
        else:
            raise _Unusual  # an alias, an anchor or a tag


def _ended(get: Any, document: Any) -> Any:
    """``document`` if the stream ends after it (one document, as the composer wants)."""
    if get() is not _DOCUMENT_END or get() is not _STREAM_END:
        raise _Unusual
    return document


def parse(text: str, located: bool = True) -> tuple[Any, Positions]:
    """Parse one YAML document into JSON-shaped data and the positions of its values.

    ``located=False`` skips recording the positions (they are empty) when the document
    is sound: a loader asks for them again only when validation fails.  The data, and
    any error, are the same either way."""
    positions = Positions()
    if not located and _libyaml is not None:
        try:
            return _quick(text), positions
        except Exception:  # _Unusual, or libyaml's own error: judged below
            pass
    node = _compose(text)
    if node is None:
        return None, positions
    try:
        return _Walk(positions).value(node, ()), positions
    except yaml.MarkedYAMLError as error:  # a value no safe constructor builds
        mark = error.problem_mark or error.context_mark
        raise YamlError(error.problem or "invalid YAML", mark.line + 1 if mark else None) from None


def _compose(text: str) -> yaml.Node | None:
    """The document's node graph, composed by libyaml (``CSafeLoader``) when PyYAML has
    it, else by the pure-Python loader."""
    try:
        loader = _Loader(text)
        try:
            node: yaml.Node | None = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        message = error.problem or error.context or "invalid YAML"
        if error.context and error.context_mark and error.problem:
            message += f" ({error.context} that starts at line {error.context_mark.line + 1})"
        raise YamlError(message, mark.line + 1 if mark else None) from None
    except yaml.YAMLError as error:
        raise YamlError(str(error)) from None
    return node
