"""Which Claude models take only adaptive thinking and which bind thinking to its
prefix, read from the model name, and the beta that changes what manual thinking may do."""

from __future__ import annotations

import re

#: ``claude-<family>-<major>[-<minor>][-<date>]``: the names of the 4.x and later models.
_NAME = re.compile(
    r"claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?(?:\W.*)?"
)
#: The first version that refuses ``thinking.type: "enabled"`` (rule 12b).
ADAPTIVE_ONLY_FROM = (4, 7)
#: The beta under which Claude 4 manual thinking interleaves with tool calls and a manual
#: budget may exceed ``max_tokens`` when tools are offered (rule 12c, 12d).
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"


#: The first version of each family whose thinking blocks are bound to their prefix
#: ("preserved thinking": Claude Fable 5.1, Mythos 5.1, Opus, Sonnet and Haiku 5.5).
PREFIX_BOUND_FROM = {
    "fable": (5, 1),
    "mythos": (5, 1),
    "opus": (5, 5),
    "sonnet": (5, 5),
    "haiku": (5, 5),
}


def version(model: str | None) -> tuple[int, int] | None:
    """The (major, minor) version in a Claude 4.x-or-later model name (None: not one)."""
    match = _NAME.fullmatch(model or "")
    if match is None:
        return None
    return int(match[2]), int(match[3] or 0)


def binds_thinking_prefix(model: str | None) -> bool:
    """Whether the model checks that nothing before a returned thinking block changed
    (rule 55); an unknown name is not assumed to (no false positive)."""
    match = _NAME.fullmatch(model or "")
    if match is None:
        return False
    return (int(match[2]), int(match[3] or 0)) >= PREFIX_BOUND_FROM[match[1]]


def adaptive_only(model: str | None) -> bool:
    """Whether the model takes only adaptive thinking (4.7 and later); an unknown name is
    not assumed to (no false positive)."""
    found = version(model)
    return found is not None and found >= ADAPTIVE_ONLY_FROM
