"""The linter's authoring checks, each shown on a bundled case broken one way: the
broken copy is linted, the original is clean (so each test fails on the old linter)."""

from __future__ import annotations

from pathlib import Path

import yaml

from conformance._cases.library import bundled_cases_dir
from conformance._cases.lint import lint_case
from conformance._cases.schema import Case

FILE = bundled_cases_dir() / "leading-thinking" / "leading-thinking-manual-first-run-only.yaml"
SIGNATURE = "EmRgGJwd3cZVpLMcxaMMKI5f8+fzKTPVni5tLo5Y4I+vT9cfHAofAZlljrsDpcbrpISnDGd0Y3Yv6G0o/Qak74+u6ipjEm4idp13UsjdiAsxfTQFDHJV5EYYGvW2s+qQG4wYDYnG"  # noqa: E501
CALL = "toolu_01ZZ4ZAFmWEnTs9UdzXwuxir"


def problems(text: str) -> list[str]:
    case = Case.model_validate(yaml.safe_load(text))
    return lint_case(case, str(FILE))


def original() -> str:
    return Path(FILE).read_text(encoding="utf-8")


def test_the_original_is_clean() -> None:
    assert problems(original()) == []


def test_a_thinking_budget_not_below_max_tokens() -> None:
    text = original().replace("budget_tokens: 2048}", "budget_tokens: 2048}\n    max_tokens: 2048")
    assert [p for p in problems(text) if "budget_tokens" in p] == [
        "anthropic-messages: given.options: thinking budget_tokens 2048 is not below max_tokens "
        "2048: Anthropic answers 400 (rule 12) unless the request sends the "
        "`interleaved-thinking-2025-05-14` beta with tools; lower the budget, or offer tools "
        "and configure the beta in `options.betas` "
        "(anthropic-messages/realism/budget-not-below-max-tokens)"
    ]


def test_the_budget_finding_is_a_listed_realism_check() -> None:
    """Cited by id like every other realism finding, so ``checks --kind realism`` lists it."""
    from conformance._checks.registry import realism_checks

    ids = [rule.id for rule in realism_checks()]
    assert "anthropic-messages/realism/budget-not-below-max-tokens" in ids


def test_a_budget_above_max_tokens_is_accepted_with_the_interleaved_beta_configured() -> None:
    over = "budget_tokens: 2048}\n    max_tokens: 2048"
    text = original().replace("budget_tokens: 2048}", over)
    named = text.replace("notes: >-\n", "notes: >-\n  Sends interleaved-thinking-2025-05-14.\n", 1)
    assert [p for p in problems(named) if "budget_tokens" in p]  # naming it sends nothing
    configured = text.replace(over, over + "\n    betas: [interleaved-thinking-2025-05-14]")
    assert not [p for p in problems(configured) if "budget_tokens" in p]


def test_a_signature_that_is_not_base64() -> None:
    text = original().replace(SIGNATURE, "sig-B!")
    assert any("thinking signature that is not standard base64" in p for p in problems(text))


def test_an_anthropic_tool_use_id_with_the_wrong_prefix() -> None:
    text = original().replace(CALL, "call_01ZZ4ZAFmWEnTs9UdzXwuxir")
    assert any(
        "a tool_use id 'call_01ZZ4ZAFmWEnTs9UdzXwuxir'; Anthropic's tool_use ids begin `toolu_`"
        in p
        for p in problems(text)
    )


def test_an_expectation_naming_a_call_id_the_script_never_produces() -> None:
    head, _, tail = original().partition("expect:")
    text = head + "expect:" + tail.replace(CALL, "toolu_01NeverScripted0000000")
    found = problems(text)
    assert any(
        "names id 'toolu_01NeverScripted0000000', which the script never" in p for p in found
    )


def test_an_expectation_naming_a_payload_the_script_never_produces() -> None:
    head, _, tail = original().partition("expect:")
    text = head + "expect:" + tail.replace(SIGNATURE, "RW1SZ0dKd2QzY1pWcExNY3hhTU1L")
    assert any("names a signature (RW1SZ0dKd2QzY1pWcExNY3hh…)" in p for p in problems(text))


def test_exact_blocks_on_a_user_message_but_not_contains() -> None:
    """A client may add blocks of its own to a user message (qwen-code prepends
    ``<system-reminder>`` text; providers accept it): only ``contains`` may be demanded
    there, in ``any_of`` too.  Exact ``blocks`` elsewhere stay allowed."""
    pause = bundled_cases_dir() / "pause-turn" / "pause-turn-content-resent-unchanged.yaml"
    text = pause.read_text(encoding="utf-8")
    assert lint_case(Case.model_validate(yaml.safe_load(text)), str(pause)) == []
    exact = yaml.safe_load(text)
    (user,) = [e for e in exact["expect"] if e.get("in", {}).get("role") == "user"]
    user["blocks"] = user.pop("contains")
    found = lint_case(Case.model_validate(exact), str(pause))
    assert len(found) == 1
    assert found[0].startswith("expect[2]: exact `blocks` on a user message")
    nested = yaml.safe_load(text)
    nested["expect"] = [{"any_of": [user, {"requests": 2}]}]
    assert lint_case(Case.model_validate(nested), str(pause))[0].startswith(
        "expect[0].any_of[0]: exact `blocks` on a user message"
    )
