"""Every pre-fix behaviour the design record names has its own probe in the reference
catalogue, and that probe is either expected to be killed by named cases or carries
the reason it may survive."""

from __future__ import annotations

from collections.abc import Mapping

from conformance._probe.catalogue import Catalogue, reference_catalogue

#: pre-fix behaviour -> the reference probe that re-creates it.
PRE_FIX_PROBES: Mapping[str, str] = {
    "merge all episodes keeping the first signature and hoisting them (§23, §26)": (
        "seed-merge-all-episodes-first-signature"
    ),
    "drop the episode split on fresh text after a signature (M1, §113)": (
        "guard-flush-on-fresh-signed-text"
    ),
    "keep only the first signature fragment (§28)": "seed-signature-first-fragment-only",
    "keep only the last signature fragment (§28)": "seed-signature-last-fragment-only",
    "hoist all thinking when merging assistant messages (M5, §117)": (
        "seed-hoist-all-thinking-when-merging"
    ),
    "leading-thinking repair scoped to the latest message only (M4, §116)": (
        "guard-leading-thinking-every-tool-turn"
    ),
    "redacted_thinking dropped from the leading-thinking repair (§138)": (
        "guard-leading-thinking-redacted-counts"
    ),
    "the unsigned-trailing drop disabled (M2, §114)": (
        "seed-dangling-unsigned-trailing-episode-sent"
    ),
    "a signed trailing episode over-popped in the stored turn (§126, §137)": (
        "seed-overpop-signed-trailing-episode"
    ),
    "a signed trailing episode over-popped at the XML site (§125)": "seed-xml-site-overpop",
    "the bare has-a-text-field XML removal predicate (M3, §115)": "guard-xml-keep-episodes",
    "the over-strict XML removal predicate (M6, §118)": "seed-xml-predicate-strict",
    "reasoning in user input rejected instead of omitted (§1-§6)": (
        "guard-omit-reasoning-in-user-input"
    ),
    "the last assistant message selected even when empty (§166-§168)": (
        "guard-output-last-nonempty-text"
    ),
    "recovered function calls spliced before their episode (§128)": (
        "guard-xml-calls-after-episodes"
    ),
}


def unmapped(table: Mapping[str, str], catalogue: Catalogue) -> list[str]:
    """The behaviours whose probe is missing, or neither expected to be killed nor
    accepted as a survivor with a reason."""
    probes = {p.id: p for p in catalogue.probes}
    problems = []
    for behaviour, probe_id in table.items():
        probe = probes.get(probe_id)
        if probe is None:
            problems.append(f"{behaviour}: no probe {probe_id!r}")
        elif not probe.expect_killed_by and not probe.accepted:
            problems.append(f"{behaviour}: {probe_id} names no expected killer and no reason")
    return problems


def test_every_pre_fix_behaviour_has_its_probe() -> None:
    assert unmapped(PRE_FIX_PROBES, reference_catalogue()) == []


def test_each_behaviour_has_a_probe_of_its_own() -> None:
    ids = list(PRE_FIX_PROBES.values())
    assert len(ids) == len(set(ids))


def test_a_behaviour_without_its_probe_is_reported() -> None:
    catalogue = reference_catalogue()
    without = catalogue.model_copy(
        update={
            "probes": tuple(
                p
                for p in catalogue.probes
                if p.id != "seed-dangling-unsigned-trailing-episode-sent"
            )
        }
    )
    assert unmapped(PRE_FIX_PROBES, without) == [
        "the unsigned-trailing drop disabled (M2, §114): no probe "
        "'seed-dangling-unsigned-trailing-episode-sent'"
    ]


def test_a_probe_with_no_expectation_and_no_reason_is_reported() -> None:
    catalogue = reference_catalogue()
    bare = tuple(
        p.model_copy(update={"expect_killed_by": ()}) if p.id == "seed-xml-site-overpop" else p
        for p in catalogue.probes
    )
    problems = unmapped(PRE_FIX_PROBES, catalogue.model_copy(update={"probes": bare}))
    assert problems == [
        "a signed trailing episode over-popped at the XML site (§125): seed-xml-site-overpop "
        "names no expected killer and no reason"
    ]
