"""The opaque-payload ledger: one positive and at least one negative shape per check."""

from __future__ import annotations

from conformance._cases.schema import Case
from conformance._checks.ledger import diagnose, ledger_violations
from conformance._checks.quote import digest
from conformance.verdict import Violation
from conformance.vocabulary import Block, Reasoning, Stop, ToolCall
from conformance.wires._openai_responses._minted import interim_content
from conformance.wires._registry import get_wire
from conformance.wires.context import RequestView
from conformance.wires.hints import LedgerHints
from conformance.wires.roles import Hinted
from tests.checks.kit import (
    SOFT_TEXT,
    HintsOnly,
    call,
    ideal_views,
    ids,
    make_case,
    message,
    replace_message,
    respond,
    text,
    think,
    transcript,
    user,
    view,
)

SIG_A = "U0lHLUVQSVNPREUtT05FLUFBQUE="
SIG_B = "U0lHLUVQSVNPREUtVFdPLUJCQkI="


def interleaved(second: str = "B") -> Case:
    """Seed §25: two signed episodes interleaved with two calls in one response."""
    return make_case(
        [
            respond(
                "tool_calls",
                think("A", SIG_A, chunks=(1,)),
                call("alpha"),
                think(second, SIG_B),
                call("beta"),
            ),
            respond("end", text("Both files read.")),
        ]
    )


def judge(case: Case, *views: RequestView, wire: Hinted | None = None) -> list[Violation]:
    chosen = list(views) if views else ideal_views(case)
    return ledger_violations(transcript(case, chosen), wire or HintsOnly())


def second_request(case: Case, *assistant: Block) -> list[RequestView]:
    """The ideal requests with the assistant message of request 2 replaced."""
    views = ideal_views(case)
    views[1] = replace_message(views[1], 1, *assistant)
    return views


def checks(found: list[Violation]) -> list[str]:
    return [v.check for v in found]


# ---------------------------------------------------------------- holds


def test_ideal_interleaved_replay_holds() -> None:
    assert judge(interleaved()) == []


def test_signature_only_episode_replayed_holds() -> None:
    assert judge(interleaved(second="")) == []


def test_accumulation_over_turns_holds() -> None:
    """Appendix B13: per-request token lists are ordered prefixes of the final list."""
    case = make_case(
        [respond("tool_calls", think("1", "S1"), call("a")), respond("end", text("x"))],
        [respond("tool_calls", think("2", "S2"), call("b")), respond("end", text("y"))],
        [respond("end", think("3", "S3"), text("z"))],
    )
    assert judge(case) == []


# ---------------------------------------------------------------- §26 merged episodes


def test_merged_episodes_keeping_the_first_signature_fail() -> None:
    case = interleaved()
    found = judge(case, *second_request(case, think("AB", SIG_A), call("alpha"), call("beta")))
    assert checks(found) == ["invariant/ledger-paired", "invariant/ledger-current-loop"]
    paired, missing = found
    assert paired.request == 2
    assert paired.at == "messages.1.content.0"
    assert "'AB'" in paired.message
    assert "'A'" in paired.message
    assert f"sha256 {digest(SIG_B)}" in missing.message
    assert "current tool loop" in missing.message
    assert missing.severity == "must"


def test_hoisted_thinking_fails_order() -> None:
    case = interleaved()
    found = judge(
        case,
        *second_request(case, think("A", SIG_A), think("B", SIG_B), call("alpha"), call("beta")),
    )
    assert checks(found) == ["invariant/ledger-order"]
    assert "minted after call alpha" in found[0].message
    assert found[0].at == "messages.1.content.1"


def test_swapped_episodes_fail_order() -> None:
    case = make_case(
        [respond("end", think("A", SIG_A), think("B", SIG_B), text("final"))],
        [respond("end", text("again"))],
    )
    views = ideal_views(case)
    views[1] = replace_message(views[1], 1, think("B", SIG_B), think("A", SIG_A), text("final"))
    found = judge(case, *views)
    assert checks(found) == ["invariant/ledger-order"]
    assert "which was minted later" in found[0].message


def test_dropped_signature_only_episode_fails_current_loop() -> None:
    case = interleaved(second="")
    found = judge(case, *second_request(case, think("A", SIG_A), call("alpha"), call("beta")))
    assert checks(found) == ["invariant/ledger-current-loop"]
    assert found[0].request == 2


# ---------------------------------------------------------------- known


def test_truncated_signature_fails_known() -> None:
    case = interleaved()
    found = judge(
        case,
        *second_request(
            case, think("A", SIG_A[:-4]), call("alpha"), think("B", SIG_B), call("beta")
        ),
    )
    assert checks(found) == ["invariant/ledger-known", "invariant/ledger-current-loop"]
    assert "truncated copy" in found[0].message
    assert found[0].at == "messages.1.content.0"


def test_concatenated_signatures_fail_known() -> None:
    """Seed §35: text-less signed parts whose signatures were concatenated."""
    case = make_case(
        [
            respond("tool_calls", think("", "sigX"), think("", "sigY"), call("alpha")),
            respond("end", text("done")),
        ]
    )
    found = judge(case, *second_request(case, think("", "sigXsigY"), call("alpha")))
    assert checks(found)[0] == "invariant/ledger-known"
    assert "concatenation" in found[0].message
    assert checks(found)[1:] == ["invariant/ledger-current-loop"] * 2


def test_fabricated_signature_fails_known() -> None:
    case = interleaved()
    views = second_request(
        case,
        think("A", SIG_A),
        call("alpha"),
        think("B", SIG_B),
        call("beta"),
        think("made up", "Zm9yZ2Vk"),
    )
    found = judge(case, *views)
    assert checks(found) == ["invariant/ledger-known"]
    assert "matches no minted payload" in found[0].message


def test_payload_sent_before_the_response_that_mints_it_fails_known() -> None:
    case = interleaved()
    views = ideal_views(case)
    views[0] = view(user("prompt 1"), message("assistant", think("A", SIG_A)))
    assert checks(judge(case, *views)) == ["invariant/ledger-known"]


def test_messages_never_quote_a_whole_payload() -> None:
    long = "x" * 3000
    case = make_case(
        [respond("tool_calls", think("A", long), call("alpha")), respond("end", text("ok"))]
    )
    found = judge(case, *second_request(case, think("A", long[:-1]), call("alpha")))
    assert found
    assert all("x" * 100 not in v.message for v in found)


def test_diagnosis_names_each_kind_of_damage() -> None:
    minted = ["abcdef", "ghij"]
    assert "truncated copy" in diagnose("abc", minted)
    assert "concatenation" in diagnose("abcdefghij", minted)
    assert "chars appended" in diagnose("abcdefZZ", minted)
    assert "fragment" in diagnose("cde", minted)
    assert "matches no minted payload" in diagnose("zzz", minted)


# ---------------------------------------------------------------- foreign


def foreign_case() -> Case:
    saved = message(
        "assistant",
        Reasoning(text="elsewhere", signature="R0VNSU5J", origin="gemini:gemini-3-pro"),
        text("an old answer"),
    )
    return make_case([respond("end", text("ok"))], history=[user("old"), saved])


def test_foreign_token_dropped_holds() -> None:
    assert judge(foreign_case()) == []


def test_foreign_token_sent_fails() -> None:
    case = foreign_case()
    sent = view(*case.given.history, user("prompt 1"))
    found = judge(case, sent)
    assert checks(found) == ["invariant/ledger-foreign"]
    assert "gemini:gemini-3-pro" in found[0].message
    assert found[0].at == "messages.1.content.0"


# ---------------------------------------------------------------- paired


def test_redacted_data_sent_as_a_signature_fails_paired() -> None:
    blob = "RU5DUllQVEVE"
    case = make_case(
        [
            respond("tool_calls", Reasoning(redacted=True, data=blob), call("alpha")),
            respond("end", text("ok")),
        ]
    )
    assert judge(case) == []
    found = judge(case, *second_request(case, think("", blob), call("alpha")))
    assert checks(found) == ["invariant/ledger-paired"]
    assert "as the signature of a reasoning block" in found[0].message


def test_call_signature_moved_to_another_call_fails_paired() -> None:
    case = make_case(
        [
            respond(
                "tool_calls",
                ToolCall(id="a", name="read_file", signature="R1NJRw=="),
                call("b"),
            ),
            respond("end", text("ok")),
        ]
    )
    assert judge(case) == []
    moved = ToolCall(id="b", name="read_file", arguments={"path": "b.txt"}, signature="R1NJRw==")
    found = judge(case, *second_request(case, call("a", {}), moved))
    assert checks(found) == ["invariant/ledger-paired"]
    assert "'a'" in found[0].message
    assert "'b'" in found[0].message


# ---------------------------------------------------------------- once


def test_duplicated_block_fails_once() -> None:
    case = interleaved()
    found = judge(
        case,
        *second_request(
            case,
            think("A", SIG_A),
            call("alpha"),
            think("B", SIG_B),
            think("B", SIG_B),
            call("beta"),
        ),
    )
    assert checks(found) == ["invariant/ledger-once"]
    assert found[0].at == "messages.1.content.3"


# ---------------------------------------------------------------- current loop vs complete


def two_turns() -> Case:
    return make_case(
        [respond("end", think("first", "UzE="), text("one"))],
        [
            respond("tool_calls", think("second", "UzI="), call("a")),
            respond("end", text("two")),
        ],
    )


def test_earlier_turn_token_dropped_is_only_a_should() -> None:
    case = two_turns()
    views = ideal_views(case)
    views[2] = replace_message(views[2], 1, text("one"))
    found = judge(case, *views)
    assert checks(found) == ["invariant/ledger-complete"]
    assert found[0].severity == "should"
    assert "earlier turn" in found[0].message


def test_current_loop_token_dropped_is_a_must() -> None:
    case = two_turns()
    views = ideal_views(case)
    views[2] = replace_message(views[2], 3, call("a"))
    found = judge(case, *views)
    assert checks(found) == ["invariant/ledger-current-loop"]
    assert found[0].severity == "must"


def test_payload_severity_comes_from_the_wire_hints() -> None:
    case = make_case(
        [
            respond("tool_calls", text("Looking", signature="VFhU"), call("a")),
            respond("end", text("done")),
        ]
    )
    views = second_request(case, text("Looking"), call("a"))
    assert [v.severity for v in judge(case, *views)] == ["must"]
    soft = judge(case, *views, wire=SOFT_TEXT)
    assert checks(soft) == ["invariant/ledger-current-loop"]
    assert soft[0].severity == "should"


def test_truncated_response_owes_nothing() -> None:
    case = make_case(
        [respond("max_tokens", think("half a thought", "SEFMRg=="))],
        [respond("end", text("ok"))],
    )
    assert judge(case) == []
    dropped = view(user("prompt 1"), user("prompt 2"))
    assert judge(case, ideal_views(case)[0], dropped) == []


def test_history_assistant_tokens_are_owed_and_child_tokens_are_not() -> None:
    saved = [
        message("user", text("notice"), think("child reasoning", "Q0hJTEQ=")),
        message("assistant", think("old", "T0xE"), text("old answer")),
    ]
    case = make_case([respond("end", text("ok"))], history=saved)
    assert judge(case) == []
    found = judge(case, view(message("user", text("notice")), user("prompt 1")))
    assert checks(found) == ["invariant/ledger-complete"]
    assert "history message 1, block 0" in found[0].message


def test_rejected_request_mints_nothing() -> None:
    case = interleaved()
    first, second = ideal_views(case)
    found = ledger_violations(transcript(case, [first, first, second], [None, 0, 1]), HintsOnly())
    assert found == []
    early = ledger_violations(transcript(case, [first, second], [None, 0]), HintsOnly())
    assert set(checks(early)) == {"invariant/ledger-known"}
    assert {v.request for v in early} == {2}


def test_a_wire_without_reasoning_between_calls_is_not_asked_where_it_sat() -> None:
    """Chat Completions carries reasoning beside `tool_calls`: [A, alpha, B, beta] can
    only come back as [A, B, alpha, beta]; the payloads' own order still counts."""

    field_wire = HintsOnly(LedgerHints(reasoning_between_calls=False))
    case = interleaved()
    fielded = second_request(
        case, think("A", SIG_A), think("B", SIG_B), call("alpha"), call("beta")
    )
    assert checks(judge(case, *fielded)) == ["invariant/ledger-order"]
    assert checks(judge(case, *fielded, wire=field_wire)) == []
    swapped = second_request(
        case, think("B", SIG_B), think("A", SIG_A), call("alpha"), call("beta")
    )
    assert checks(judge(case, *swapped, wire=field_wire)) == ["invariant/ledger-order"]


# ---------------------------------------------------------------- placeholders and order


#: A wire with a documented placeholder in its payload fields, like Gemini's.
SENTINEL_WIRE = HintsOnly(LedgerHints(sentinels=frozenset({"PLACEHOLDER"})))


def test_a_wire_placeholder_is_not_a_payload() -> None:
    case = interleaved()
    views = ideal_views(case)
    assistant = views[1].messages[1]
    views[1] = replace_message(views[1], 1, *assistant.blocks, text("ok", signature="PLACEHOLDER"))
    assert judge(case, *views, wire=SENTINEL_WIRE) == []
    assert checks(judge(case, *views)) == ["invariant/ledger-known"]


def test_ledger_violations_come_grouped_in_check_order() -> None:
    """A repeated payload (ledger-once) sent before a fabricated one (ledger-known) is
    still reported after it: violations are grouped by check, in the checks' order."""
    case = interleaved()
    views = second_request(
        case,
        think("A", SIG_A),
        call("alpha"),
        think("B", SIG_B),
        call("beta"),
        text("again", signature=SIG_A),
        text("made up", signature="FABRICATED"),
    )
    found = checks(judge(case, *views))
    assert found == ["invariant/ledger-known", "invariant/ledger-once"]


# ------------------------------------------------- a value the stream announced first

#: Final encrypted contents, as OpenAI mints them (Fernet tokens).
ENC_A = "gAAAAABpCCSFF5vVKe0PoQPUex0BF00cZ8KfLx2XfTrMwRDthEXa-nkWw219CNALhyLaR5GQ"
ENC_B = "gAAAAABpCCSIP_BA7ytInc9YPCtg9lRfZTxWV4_g_2BefICvMPxe33bYGGA8ME_mRlLKoXL2"
RESPONSES = HintsOnly(get_wire("openai-responses").hints)


def responses_turn(stop: Stop = "tool_calls") -> Case:
    return make_case(
        [
            respond(stop, Reasoning(id="rs_1", signature=ENC_A), call("alpha")),
            respond("end", Reasoning(id="rs_2", signature=ENC_B), text("Done.")),
        ]
    )


def test_the_final_encrypted_content_passes() -> None:
    assert judge(responses_turn(), wire=RESPONSES) == []


def test_the_interim_encrypted_content_of_output_item_added_fails_named_as_such() -> None:
    # Real streams announce a different whole token at output_item.added (pydantic/
    # pydantic-ai tests/models/cassettes/test_openai_responses/
    # test_openai_responses_streaming_usage.yaml): a client that keeps it loses the item.
    case = responses_turn()
    kept = Reasoning(id="rs_1", signature=interim_content(ENC_A))
    found = judge(case, *second_request(case, kept, call("alpha")), wire=RESPONSES)
    assert ids(found) == ["invariant/ledger-known", "invariant/ledger-current-loop"]
    assert "the value its stream announced first" in found[0].message
    assert "scripted response 1, block 0" in found[0].message


def test_the_interim_value_is_unknown_to_a_wire_without_the_hint() -> None:
    case = responses_turn()
    kept = Reasoning(id="rs_1", signature=interim_content(ENC_A))
    found = judge(case, *second_request(case, kept, call("alpha")))
    assert "announced first" not in found[0].message


def test_after_a_cut_stream_the_interim_value_is_all_the_client_had() -> None:
    # A stream cut before output_item.done never sent the final value: the early one is
    # known, and neither is owed (the response may be dropped).
    case = make_case(
        [respond("no_finish", Reasoning(id="rs_1", signature=ENC_A))],
        [respond("end", text("Done."))],
    )
    kept = Reasoning(id="rs_1", signature=interim_content(ENC_A))
    views = ideal_views(case)
    views[1] = replace_message(views[1], 1, kept)
    assert judge(case, *views, wire=RESPONSES) == []
