"""YAML with positions: parse a case file into plain data and keep where each value was.

PyYAML's libyaml composer builds the node tree; a small walk turns it into JSON-shaped
data, rejects duplicate keys, and remembers the line of every mapping key and sequence
item, so a schema error can name the line of the field it is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import yaml

from conformance.errors import ConformanceError

try:  # libyaml is bundled with PyYAML's wheels; the pure-Python loader is the fallback
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - only without libyaml
    _Loader = yaml.SafeLoader

#: Where a value sits in a parsed document: its mapping keys and sequence indexes.
KeyPath = tuple[str | int, ...]


class YamlError(ConformanceError, ValueError):
    """The file is not the YAML a case needs; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field


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


def _walk(
    node: yaml.Node,
    path: KeyPath,
    positions: Positions,
    constructor: yaml.constructor.SafeConstructor,
) -> Any:
    positions.lines[path] = node.start_mark.line + 1
    # Dispatch on the node's kind name, not its class: libyaml builds nodes from the
    # classes it saw at import, which a re-imported `yaml` (pytester) no longer shares.
    kind: str = getattr(node, "id", "")
    if kind == "mapping":
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if getattr(key_node, "id", "") != "scalar":
                raise YamlError("mapping keys must be plain words", key_node.start_mark.line + 1)
            key = str(_scalar(key_node, constructor))
            if key in result:
                raise YamlError(
                    f"duplicate key {key!r}",
                    key_node.start_mark.line + 1,
                    ".".join(map(str, (*path, key))),
                )
            result[key] = _walk(value_node, (*path, key), positions, constructor)
            positions.lines[(*path, key)] = key_node.start_mark.line + 1
        return result
    if kind == "sequence":
        return [
            _walk(item, (*path, i), positions, constructor) for i, item in enumerate(node.value)
        ]
    return _scalar(cast(yaml.ScalarNode, node), constructor)


def parse(text: str) -> tuple[Any, Positions]:
    """Parse one YAML document into JSON-shaped data and the positions of its values."""
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
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
    positions = Positions()
    if node is None:
        return None, positions
    return _walk(node, (), positions, yaml.constructor.SafeConstructor()), positions
