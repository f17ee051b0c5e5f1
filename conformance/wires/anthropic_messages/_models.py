"""Which Claude models take only adaptive thinking, read from the model name, and the
beta that changes what manual thinking may do."""

from __future__ import annotations

import re

#: ``claude-<family>-<major>[-<minor>][-<date>]``: the names of the 4.x and later models.
_NAME = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?(?:\W.*)?")
#: The first version that refuses ``thinking.type: "enabled"`` (rule 12b).
ADAPTIVE_ONLY_FROM = (4, 7)
#: The beta under which Claude 4 manual thinking interleaves with tool calls and a manual
#: budget may exceed ``max_tokens`` when tools are offered (rule 12c, 12d).
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"


def version(model: str | None) -> tuple[int, int] | None:
    """The (major, minor) version in a Claude 4.x-or-later model name (None: not one)."""
    match = _NAME.fullmatch(model or "")
    if match is None:
        return None
    return int(match[1]), int(match[2] or 0)


def adaptive_only(model: str | None) -> bool:
    """Whether the model takes only adaptive thinking (4.7 and later); an unknown name is
    not assumed to (no false positive)."""
    found = version(model)
    return found is not None and found >= ADAPTIVE_ONLY_FROM
