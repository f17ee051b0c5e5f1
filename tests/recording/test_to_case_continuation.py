"""A recorded turn the client ended on a response it could have gone on from (a cut, an
empty answer) gets, in the case file, the continuation the lint asks for; replay keeps
the recorded turns, since it serves the recorded bytes by index."""

from __future__ import annotations

import yaml

from conformance._cases.schema import Case
from conformance._recording.load import bundled_recordings_dir, load_recording, recording_files
from conformance._recording.to_case import case_yaml, recording_case


def test_a_turn_ended_on_a_cut_gets_its_continuation_in_the_file_only() -> None:
    found = 0
    for path in recording_files(bundled_recordings_dir()):
        recording = load_recording(path)
        replayed = recording_case(recording, path)
        written = Case.model_validate(yaml.safe_load(case_yaml(recording, path)))
        added = len(written.given.responses) - len(replayed.given.responses)
        ended = [t.responses[-1].if_continued for t in written.given.turns]
        assert sum(ended) - sum(t.responses[-1].if_continued for t in replayed.given.turns) == (
            added
        )
        if added:
            found += 1
            assert "which the recording does not hold" in (written.notes or "")
    assert found  # the shipped recordings hold cut turns
