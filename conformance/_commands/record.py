"""``wire-conformance record``: real exchanges recorded through a loopback reverse proxy
(``conformance._recording.command`` holds the arguments and the body)."""

from __future__ import annotations

import argparse


class RecordCommand:
    name = "record"
    help = "record real exchanges through a loopback reverse proxy"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from conformance._recording.command import add_record_arguments

        add_record_arguments(parser)

    def execute(self, args: argparse.Namespace) -> int:
        from conformance._recording.command import run_record

        return run_record(args)
