"""The reference adapter's named guards: every decision point that exists to prevent a
known bug, with the entry it comes from.

Each guard is checked at exactly one decision point as ``if guards.on("<id>"):``.
Disabling it (``ReferenceAdapter(disabled=frozenset({"<id>"}))``) re-creates the bug the
entry describes, which is how the suite proves the guard is load-bearing: some case
must fail without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Guard:
    """One guard: a stable id, what it keeps true, and where that requirement comes from."""

    id: str
    statement: str
    source: str


_ALL = (
    # ---------------------------------------------------------------- consolidation
    Guard(
        "flush-on-visible-block",
        "An open reasoning episode is closed, in place, when a text or tool-call block arrives.",
        "seed §24(a), §25, §29 (the interleaved shape; layered under the boundary guard)",
    ),
    Guard(
        "flush-on-fresh-signed-text",
        "Reasoning with fresh text closes an open episode that already has text and a signature.",
        "seed §24(b), §27, mutant M1 §113 (layered under the boundary guard)",
    ),
    Guard(
        "flush-on-episode-boundary",
        "An explicit end of a reasoning block on the wire (Anthropic content_block_stop) "
        "closes its episode.",
        "seed §38 (removes the §34, §35 and §37 limitations of the heuristic)",
    ),
    # ---------------------------------------------------------------- truncation
    Guard(
        "drop-dangling-unsigned-episode",
        "A truncated turn that carries a tool call loses an unsigned trailing reasoning "
        "episode (trailing-only, unsigned-only).",
        "seed §41–§45, §50, mutant M2 §114",
    ),
    Guard(
        "truncated-calls-not-run",
        "Calls of a truncated turn are never executed; the complete ones are answered with "
        "an error result.",
        "wire-rules 16, 33",
    ),
    # ---------------------------------------------------------------- XML recovery
    Guard(
        "xml-keep-episodes",
        "XML recovery consumes visible text only, never a reasoning episode.",
        "seed §54, §55, mutant M3 §115",
    ),
    Guard(
        "xml-calls-after-episodes",
        "Recovered calls are appended after every surviving reasoning episode.",
        "seed §58, §59, §128",
    ),
    Guard(
        "xml-keep-remaining-text",
        "The prose around recovered markup stays in the turn.",
        "seed §53, §60, §130",
    ),
    Guard(
        "xml-offered-tools-only",
        "Only markup that names an offered tool is recovered.",
        "wire-rules 50",
    ),
    # ---------------------------------------------------------------- request
    Guard(
        "skip-empty-assistant",
        "An assistant message with nothing left to send is not replayed.",
        "seed §165, wire-rules 15",
    ),
    Guard(
        "omit-blank-text",
        "Empty and whitespace-only text blocks are not sent.",
        "wire-rules 15",
    ),
    Guard(
        "omit-unsigned-thinking",
        "Reasoning without its replay token is left out of an Anthropic request (kept in "
        "the history).",
        "seed §100(a), wire-rules 3, 8",
    ),
    Guard(
        "omit-foreign-reasoning",
        "Reasoning minted by another wire or model is left out of the request.",
        "wire-rules 8, 51",
    ),
    Guard(
        "omit-trailing-reasoning",
        "No assistant message of a request ends with a reasoning block.",
        "wire-rules 9",
    ),
    Guard(
        "omit-reasoning-in-user-input",
        "Reasoning and tool-call blocks inside user or tool-result input are omitted "
        "from the request, not rejected.",
        "seed §1–§6, §8",
    ),
    Guard(
        "leading-thinking-first-run",
        "Manual mode moves only the first contiguous run of thinking blocks to the front.",
        "seed §86, §88, §89, mutant M5 §117",
    ),
    Guard(
        "leading-thinking-every-tool-turn",
        "Manual mode repairs every assistant message with a tool_use, not only the latest.",
        "seed §90, §91, mutant M4 §116",
    ),
    Guard(
        "leading-thinking-redacted-counts",
        "A redacted_thinking block counts as thinking for the leading-thinking repair.",
        "seed §96, §138",
    ),
    Guard(
        "reset-after-refusal",
        "A user turn that ended in a refusal is not replayed.",
        "wire-rules 17",
    ),
    # ---------------------------------------------------------------- output
    Guard(
        "output-last-nonempty-text",
        "The output is the last non-empty assistant text of the final user turn.",
        "seed §166–§168, §175, wire-rules 49",
    ),
)

GUARDS: Mapping[str, Guard] = MappingProxyType({guard.id: guard for guard in _ALL})


class UnknownGuard(KeyError):
    """A guard id nobody declared (a typo in a probe or in the code)."""


class Guards:
    """Which guards are on for one adapter.  Unknown ids fail loudly, so a mistyped
    guard can never silently be 'disabled'."""

    def __init__(self, disabled: Iterable[str] = ()) -> None:
        self.disabled = frozenset(disabled)
        unknown = sorted(self.disabled - GUARDS.keys())
        if unknown:
            raise UnknownGuard(f"unknown guard(s): {', '.join(unknown)}")

    def on(self, guard_id: str) -> bool:
        if guard_id not in GUARDS:
            raise UnknownGuard(f"unknown guard: {guard_id}")
        return guard_id not in self.disabled
