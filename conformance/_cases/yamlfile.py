"""YAML with positions: parse a case file into plain data and keep where each value was.

PyYAML's libyaml composer builds the node tree; a small walk turns it into JSON-shaped
data, rejects duplicate keys, and remembers the line of every mapping key and sequence
item, so a schema error can name the line of the field it is about.
"""

from __future__ import annotations

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


class _Unusual(Exception):
    """The quick walk met what only the located walk may judge (a limit, a duplicate or
    merge key, a key that is not a word): the document is walked again, with positions."""


class _QuickWalk:
    """The located walk's data without its positions: what a file that validates needs
    (most do), at a fraction of the cost.  Anything the located walk would refuse is
    ``_Unusual``, so the refusal, with its line and field, comes from one place."""

    def __init__(self) -> None:
        self.constructor = yaml.constructor.SafeConstructor()
        self.nodes = 0

    def value(self, node: yaml.Node, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > NODE_BUDGET or depth > MAX_DEPTH:
            raise _Unusual
        kind: str = getattr(node, "id", "")
        if kind == "scalar":
            return node.value if node.tag == _STR_TAG else _scalar(node, self.constructor)  # type: ignore[arg-type]
        if kind == "sequence":
            return [self.value(item, depth + 1) for item in node.value]
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if getattr(key_node, "id", "") != "scalar" or key_node.tag == "tag:yaml.org,2002:merge":
                raise _Unusual
            key = (
                key_node.value
                if key_node.tag == _STR_TAG
                else str(_scalar(key_node, self.constructor))
            )
            if key in result:
                raise _Unusual
            result[key] = self.value(value_node, depth + 1)
        return result


def parse(text: str, located: bool = True) -> tuple[Any, Positions]:
    """Parse one YAML document into JSON-shaped data and the positions of its values.

    ``located=False`` skips recording the positions (they are empty) when the document
    is sound: a loader asks for them again only when validation fails.  The data, and
    any error, are the same either way."""
    node = _compose(text)
    positions = Positions()
    if node is None:
        return None, positions
    if not located:
        try:
            return _QuickWalk().value(node, 0), positions
        except _Unusual:
            pass
        except yaml.MarkedYAMLError:
            pass  # the located walk raises it again, with its line
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
