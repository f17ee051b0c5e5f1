"""The episode tracker on neutral fragments (seed §24–§31, §34–§37).

Fragments with one shared key and no ``BlockEnd`` model a wire that marks no block
boundary (Gemini parts): only the two flush heuristics can split episodes there.  The
same shapes with ``BlockEnd`` model Anthropic, where the boundary guard splits them.
"""

from __future__ import annotations

from typing import Any

from conformance._reference.consolidate import consolidate
from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    Fragment,
    ReasoningPiece,
    RedactedPiece,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance.vocabulary import Reasoning, Text, ToolCall

ON = Guards()


def R(text: str = "", signature: str = "", key: int = 0) -> ReasoningPiece:
    return ReasoningPiece(key, text=text, signature=signature)


def call(id: str, key: int = 9, arguments: dict[str, Any] | None = None) -> list[Fragment]:
    return [CallStart(key, id, "tool", arguments or {}), BlockEnd(key)]


def episode(text: str, signature: str | None) -> Reasoning:
    return Reasoning(text=text, signature=signature)


def tool(id: str, arguments: dict[str, Any] | str | None = None) -> ToolCall:
    return ToolCall(id=id, name="tool", arguments={} if arguments is None else arguments)


# ---------------------------------------------------------------- §24 flush rules


def test_fresh_text_after_a_signed_episode_opens_a_new_one() -> None:
    """§24(b): Θ("A","sA") | Θ("B","sB") -> two episodes."""
    blocks = consolidate([R("A", "sA"), R("B", "sB")], ON)
    assert blocks == (episode("A", "sA"), episode("B", "sB"))


def test_without_the_fresh_text_clause_back_to_back_episodes_merge() -> None:
    """Mutant M1 (§113): the split condition deleted merges A and B."""
    blocks = consolidate([R("A", "sA"), R("B", "sB")], Guards({"flush-on-fresh-signed-text"}))
    assert blocks == (episode("AB", "sAsB"),)


def test_interleaved_episodes_keep_their_own_signature_and_place() -> None:
    """§25, §29: A(sigA) call1 B(sigB) call2, no block boundaries."""
    fragments: list[Fragment] = [
        R("A"),
        R(signature="sigA"),
        *call("c1", 1),
        R("B"),
        R(signature="sigB"),
    ]
    fragments += call("c2", 2)
    assert consolidate(fragments, ON) == (
        episode("A", "sigA"),
        tool("c1"),
        episode("B", "sigB"),
        tool("c2"),
    )


def test_interleaved_episodes_are_protected_by_either_flush_clause() -> None:
    """§121 (layered guards): with one clause gone the other still splits the §25
    shape; only with both gone does B merge into A, re-creating the base merge."""
    fragments: list[Fragment] = [
        R("A"),
        R(signature="sigA"),
        *call("c1", 1),
        R("B"),
        R(signature="sigB"),
    ]
    fragments += call("c2", 2)
    split = (episode("A", "sigA"), tool("c1"), episode("B", "sigB"), tool("c2"))
    assert consolidate(fragments, Guards({"flush-on-visible-block"})) == split
    assert consolidate(fragments, Guards({"flush-on-fresh-signed-text"})) == split
    both = Guards({"flush-on-visible-block", "flush-on-fresh-signed-text"})
    assert consolidate(fragments, both) == (episode("AB", "sigAsigB"), tool("c1"), tool("c2"))


def test_without_the_visible_block_flush_a_signature_only_episode_merges() -> None:
    """§30 shape: no fresh text, so only the flush at call1 keeps sig2 apart."""
    fragments: list[Fragment] = [
        R("visible reasoning", "sig1"),
        *call("call1", 1),
        R(signature="sig2"),
    ]
    fragments += call("call2", 2)
    assert consolidate(fragments, Guards({"flush-on-visible-block"})) == (
        episode("visible reasoning", "sig1sig2"),
        tool("call1"),
        tool("call2"),
    )


def test_without_the_visible_block_flush_unsigned_episodes_merge() -> None:
    """A non-signing provider's interleaved episodes: no signature to test."""
    fragments: list[Fragment] = [R("r1"), *call("c1", 1), R("r2"), *call("c2", 2)]
    assert consolidate(fragments, ON) == (
        episode("r1", None),
        tool("c1"),
        episode("r2", None),
        tool("c2"),
    )
    merged = consolidate(fragments, Guards({"flush-on-visible-block"}))
    assert merged == (episode("r1r2", None), tool("c1"), tool("c2"))


def test_back_to_back_episodes_then_text() -> None:
    """§27 (sandbox S3): [A(sigA), B(sigB), T(final)]."""
    fragments: list[Fragment] = [
        R("A"),
        R(signature="sigA"),
        R("B"),
        R(signature="sigB"),
        TextPiece(5, "fin"),
    ]
    assert consolidate(fragments, ON) == (
        episode("A", "sigA"),
        episode("B", "sigB"),
        Text(text="fin"),
    )


def test_split_signature_is_reassembled() -> None:
    """§28 (S2): a signature in two chunks is concatenated, not truncated."""
    blocks = consolidate([R("x"), R(signature="sigFrag1"), R(signature="sigFrag2")], ON)
    assert blocks == (episode("x", "sigFrag1sigFrag2"),)


def test_signature_only_mid_turn_episode_is_kept() -> None:
    """§30: [Θ("visible reasoning","sig1"), call1, Θ("","sig2"), call2]."""
    fragments: list[Fragment] = [
        R("visible reasoning", "sig1"),
        *call("call1", 1),
        R(signature="sig2"),
    ]
    fragments += call("call2", 2)
    assert consolidate(fragments, ON) == (
        episode("visible reasoning", "sig1"),
        tool("call1"),
        episode("", "sig2"),
        tool("call2"),
    )


def test_single_stream_stays_in_stream_order() -> None:
    """§31: T("text A") | FC(t1) | Θ("episode","sE") is not hoisted."""
    fragments: list[Fragment] = [TextPiece(0, "text A"), *call("t1", 1), R("episode", "sE", key=2)]
    assert consolidate(fragments, ON) == (
        Text(text="text A"),
        tool("t1"),
        episode("episode", "sE"),
    )


def test_episode_text_is_not_trimmed() -> None:
    """§36: the signature covers the exact text, so whitespace stays."""
    blocks = consolidate([R("A\n\n", "s1"), R(" B", "s2")], ON)
    assert blocks == (episode("A\n\n", "s1"), episode(" B", "s2"))


def test_redacted_block_is_an_episode_of_its_own() -> None:
    fragments: list[Fragment] = [R("A", key=0), RedactedPiece(1, "D"), R(signature="sA", key=0)]
    assert consolidate(fragments, ON) == (
        episode("A", None),
        Reasoning(redacted=True, data="D"),
        episode("", "sA"),
    )


# ---------------------------------------------------------------- §34–§37 limitations


def test_unsigned_back_to_back_merge_without_boundaries() -> None:
    """§34 (pinned limitation): no signature, no boundary -> one episode."""
    assert consolidate([R("A"), R("B")], ON) == (episode("AB", None),)


def test_unsigned_back_to_back_split_at_boundaries() -> None:
    """§34 does not reach Anthropic: content_block_stop splits the blocks."""
    fragments: list[Fragment] = [R("A", key=0), BlockEnd(0), R("B", key=1), BlockEnd(1)]
    assert consolidate(fragments, ON) == (episode("A", None), episode("B", None))


def test_textless_signed_parts_concatenate_without_boundaries() -> None:
    """§35 (pinned limitation): Θ("","A") | Θ("","B") -> one block signed "AB"."""
    assert consolidate([R(signature="A"), R(signature="B")], ON) == (episode("", "AB"),)


def test_textless_signed_blocks_split_at_boundaries() -> None:
    fragments: list[Fragment] = [
        R(signature="A", key=0),
        BlockEnd(0),
        R(signature="B", key=1),
        BlockEnd(1),
    ]
    assert consolidate(fragments, ON) == (episode("", "A"), episode("", "B"))


def test_without_the_boundary_guard_textless_blocks_concatenate() -> None:
    fragments: list[Fragment] = [
        R(signature="A", key=0),
        BlockEnd(0),
        R(signature="B", key=1),
        BlockEnd(1),
    ]
    blocks = consolidate(fragments, Guards({"flush-on-episode-boundary"}))
    assert blocks == (episode("", "AB"),)


def test_sig_text_sig_concatenates_without_boundaries() -> None:
    """§37: Θ("","s1") | Θ("x") | Θ("","s2") -> Θ("x","s1s2"), unusable."""
    fragments: list[Fragment] = [R(signature="s1"), R("x"), R(signature="s2")]
    assert consolidate(fragments, ON) == (episode("x", "s1s2"),)


def test_sig_text_sig_splits_at_boundaries() -> None:
    fragments: list[Fragment] = [
        R(signature="s1", key=0),
        BlockEnd(0),
        R("x", key=1),
        R(signature="s2", key=1),
    ]
    assert consolidate(fragments, ON) == (episode("", "s1"), episode("x", "s2"))


# ---------------------------------------------------------------- blocks


def test_text_pieces_of_one_block_concatenate_and_empty_blocks_vanish() -> None:
    fragments: list[Fragment] = [TextPiece(0, ""), TextPiece(0, "Hel"), TextPiece(0, "lo")]
    fragments += [BlockEnd(0), TextPiece(1, ""), BlockEnd(1), R(key=2), BlockEnd(2)]
    assert consolidate(fragments, ON) == (Text(text="Hello"),)


def test_argument_fragments_are_joined_per_call_and_parsed_at_the_end_of_the_block() -> None:
    """Wire-rules 2: two calls whose fragments interleave by key."""
    fragments: list[Fragment] = [CallStart(1, "a", "tool"), CallStart(2, "b", "tool")]
    fragments += [CallArguments(1, '{"a":'), CallArguments(2, '{"b":'), CallArguments(1, "1}")]
    fragments += [CallArguments(2, "2}"), BlockEnd(1), BlockEnd(2)]
    assert consolidate(fragments, ON) == (tool("a", {"a": 1}), tool("b", {"b": 2}))


def test_announced_arguments_stand_when_no_fragment_follows() -> None:
    fragments: list[Fragment] = [CallStart(1, "a", "tool", {"k": "v"}), BlockEnd(1)]
    assert consolidate(fragments, ON) == (tool("a", {"k": "v"}),)


def test_unparseable_arguments_stay_raw() -> None:
    """Rule 16: a call cut by the output limit keeps its raw text."""
    fragments: list[Fragment] = [CallStart(1, "a", "tool"), CallArguments(1, '{"path": "al')]
    fragments.append(BlockEnd(1))
    (block,) = consolidate(fragments, ON)
    assert block == tool("a", '{"path": "al')
    assert isinstance(block, ToolCall)
    assert not block.complete


def test_a_call_cut_before_its_end_is_incomplete_even_when_its_json_parses() -> None:
    fragments: list[Fragment] = [CallStart(1, "a", "tool"), CallArguments(1, "{}")]
    assert consolidate(fragments, ON, ended=False) == (tool("a", "{}"),)
    assert consolidate(fragments, ON, ended=True) == (tool("a", {}),)


def test_a_json_array_is_not_an_argument_object() -> None:
    fragments: list[Fragment] = [CallStart(1, "a", "tool"), CallArguments(1, "[1]"), BlockEnd(1)]
    assert consolidate(fragments, ON) == (tool("a", "[1]"),)


# ---------------------------------------------------------------- items, summaries, signed text


def test_an_item_id_and_its_summary_belong_to_the_episode() -> None:
    """Responses: id and summary parts ride on the reasoning fragments; merged
    episodes (boundary guard off) keep the first id, as the base merge did."""
    first = ReasoningPiece(0, id="rs_A", summary=("a",), signature="EA")
    second = ReasoningPiece(1, id="rs_B", summary=(), signature="EB")
    fragments: list[Fragment] = [first, BlockEnd(0), second, BlockEnd(1)]
    assert consolidate(fragments, ON) == (
        Reasoning(id="rs_A", summary=("a",), signature="EA"),
        Reasoning(id="rs_B", summary=(), signature="EB"),
    )
    merged = consolidate(fragments, Guards({"flush-on-episode-boundary"}))
    assert merged == (Reasoning(id="rs_A", summary=("a",), signature="EAEB"),)


def test_a_fresh_summary_counts_as_fresh_text_for_the_heuristic() -> None:
    """§24(b) on Responses: an episode with a summary and a token is closed by a new
    summary even without a boundary."""
    fragments: list[Fragment] = [
        ReasoningPiece(0, summary=("a",), signature="EA"),
        ReasoningPiece(1, summary=("b",), signature="EB"),
    ]
    assert len(consolidate(fragments, ON)) == 2
    assert len(consolidate(fragments, Guards({"flush-on-fresh-signed-text"}))) == 1


def test_an_episode_with_only_an_id_is_kept() -> None:
    """Store true without include: the item is its id, and it must come back."""
    assert consolidate([ReasoningPiece(0, id="rs_1"), BlockEnd(0)], ON) == (Reasoning(id="rs_1"),)


def test_a_signed_text_piece_ends_its_block_and_a_lone_signature_is_its_own() -> None:
    """Rules 43, 44: [Hel, lo+S1, more, ""+S2] -> "Hello"(S1), "more", ""(S2)."""
    fragments: list[Fragment] = [
        TextPiece(0, "Hel"),
        TextPiece(0, "lo", "S1"),
        TextPiece(0, "more"),
        TextPiece(0, "", "S2"),
    ]
    assert consolidate(fragments, ON) == (
        Text(text="Hello", signature="S1"),
        Text(text="more"),
        Text(text="", signature="S2"),
    )
    without = consolidate(fragments, Guards({"keep-signature-only-text"}))
    assert without == (Text(text="Hello", signature="S1"), Text(text="more"))


def test_a_call_keeps_the_signature_beside_it() -> None:
    fragments: list[Fragment] = [CallStart("c", "call_1", "tool", {}, "SIG"), BlockEnd("c")]
    assert consolidate(fragments, ON) == (ToolCall(id="call_1", name="tool", signature="SIG"),)


def test_a_redacted_block_keeps_its_id() -> None:
    assert consolidate([RedactedPiece(0, "BLOB", "rd_1")], ON) == (
        Reasoning(redacted=True, data="BLOB", id="rd_1"),
    )
