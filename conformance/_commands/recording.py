"""``wire-conformance recording``: the recording format, a recording as a case file, the
audit and the import of cassettes (``conformance._recording.command`` holds the arguments
and the bodies)."""

from __future__ import annotations

import argparse


class RecordingCommand:
    name = "recording"
    help = "the recording format; recording -> case; import cassettes"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from conformance._recording.command import add_recording_arguments

        add_recording_arguments(parser)

    def execute(self, args: argparse.Namespace) -> int:
        from conformance._recording.command import run_recording

        return run_recording(args)
