"""A Responses reasoning item's summary is what the user was shown; its encrypted content
is what the model reads back. OpenAI requires the ``summary`` field but accepts any parts
in it, so a client that joins the parts (qwen-code 0.24.4) breaks a ``should``, not a
``must``; one that loses the encrypted content still fails."""

from __future__ import annotations

from collections.abc import Callable

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import Reasoning
from tests.support import library_case, run_cell

CASE = "responses-reasoning-summary-parts-replayed-whole"
COLUMN = "openai-responses"


def _adapter(change: Callable[[Reasoning], Reasoning]) -> ReferenceAdapter:
    class _Session(ReferenceSession):
        def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
            blocks = super().consolidate(decoded)
            return tuple(change(b) if isinstance(b, Reasoning) else b for b in blocks)

    class _Adapter(ReferenceAdapter):
        session_class = _Session

    return _Adapter()


def _joined(block: Reasoning) -> Reasoning:
    return block.model_copy(update={"summary": ("".join(block.summary or ()),)})


def test_summary_parts_joined_is_a_should() -> None:
    result, _ = run_cell(_adapter(_joined), library_case(CASE), COLUMN)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert [w.severity for w in result.warnings if w.check == "expect"] == ["should"]
    strict, _ = run_cell(_adapter(_joined), library_case(CASE), COLUMN, strict=True)
    assert strict.verdict == "fail"


def test_encrypted_content_lost_fails() -> None:
    result, _ = run_cell(
        _adapter(lambda b: b.model_copy(update={"signature": None})), library_case(CASE), COLUMN
    )
    assert result.verdict == "fail"
    assert any(v.check == "expect" and v.severity == "must" for v in result.violations)
