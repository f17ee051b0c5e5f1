"""Final-output selection: what a subagent reports (rule 49, seed §165–§186).

One rule: the last non-empty visible assistant text of the final user turn.  An empty
terminal message (a truncated tool-call-only step, §165) and reasoning-only messages
carry no text and are skipped (§167, §168); tool-result content is never output (§176).
``complete`` says whether the final response ended normally, so a partial answer is
never mistaken for success.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance._reference.guards import Guards
from conformance.vocabulary import FinalOutput, Message, Stop, Text


def visible_text(message: Message) -> str:
    """The message's visible text, its text blocks joined as the wire concatenates them."""
    return "".join(b.text for b in message.blocks if isinstance(b, Text))


def select_output(turn: Sequence[Message], stop: Stop | None, guards: Guards) -> FinalOutput:
    """The output of a conversation whose final user turn is ``turn``."""
    texts = [visible_text(m) for m in turn if m.role == "assistant"]
    if guards.on("output-last-nonempty-text"):
        text = next((t for t in reversed(texts) if t.strip()), None)
    else:
        text = texts[-1] if texts else None
    return FinalOutput(text=text, complete=stop == "end", stop=stop)
