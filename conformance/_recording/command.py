"""The arguments and bodies of ``record``, ``replay``, ``recording`` and ``report diff``
(their command objects in ``conformance._commands`` name them and call these)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conformance._recording.import_command import add_import_parser, dialect_choices, run_import
from conformance._settings import add_arguments

if TYPE_CHECKING:
    from conformance._recording.replay import ReplayReport

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_record_arguments(record: argparse.ArgumentParser) -> None:
    """The arguments of ``record``."""
    record.add_argument("--upstream", required=True, metavar="URL", help="the provider's base URL")
    record.add_argument(
        "--listen",
        default="127.0.0.1:8719",
        metavar="HOST:PORT",
        help="where to listen (default 127.0.0.1:8719; loopback unless --allow-remote)",
    )
    record.add_argument(
        "--allow-remote", action="store_true", help="allow a --listen address off loopback"
    )
    record.add_argument("--out", required=True, type=Path, metavar="DIR", help="recordings go here")
    record.add_argument(
        "--dialect",
        choices=dialect_choices(),
        help="the dialect of the upstream's conversations (default: told from its host)",
    )
    record.add_argument(
        "--redact-text",
        action="store_true",
        help="also replace visible text with same-length placeholders",
    )


def add_replay_arguments(replay: argparse.ArgumentParser) -> None:
    """The arguments of ``replay``."""
    replay.add_argument(
        "dirs",
        nargs="*",
        type=Path,
        metavar="DIR",
        help="recording directories or files (default: the shipped synthetic recordings)",
    )
    add_arguments(replay, ("target", "json", "strict", "evidence", "timeout"), "replay")


def add_recording_arguments(recording: argparse.ArgumentParser) -> None:
    """The arguments of ``recording`` and its actions (to-case, audit, import)."""
    recording.description = (
        "The recording format (--schema), a recording as a case file (to-case), "
        "and other people's vcrpy / pytest-recording cassettes and HAR files as recordings "
        "(import)."
    )
    recording.add_argument("--schema", action="store_true", help="print the recording JSON Schema")
    actions = recording.add_subparsers(dest="recording_command")
    to_case = actions.add_parser("to-case", help="write a case file made from a recording")
    to_case.add_argument("file", type=Path, metavar="FILE")
    to_case.add_argument(
        "--out",
        type=Path,
        metavar="PATH",
        help="write here: into a directory as <case-id>.yaml, or to a file of that name "
        "(default: stdout)",
    )
    audit = actions.add_parser(
        "audit",
        help="judge every recorded request as the suite's provider would, beside the real "
        "answer; exits 1 on any false refusal",
    )
    audit.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="recordings or folders")
    audit.add_argument("--json", type=Path, metavar="PATH", help="write the audit report")
    audit.add_argument(
        "--exclude",
        type=Path,
        metavar="FILE",
        help="a TOML file whose [excluded] table maps recording file names to the reason "
        "they are not evidence (hand-edited upstream, say); they are listed, not judged",
    )
    add_import_parser(actions)


def add_report_diff_arguments(diff: argparse.ArgumentParser) -> None:
    """The arguments of ``report diff``."""
    diff.add_argument("old", type=Path, metavar="OLD.json")
    diff.add_argument("new", type=Path, metavar="NEW.json")
    diff.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a cell in both reports went from pass (or pinned, or a replay's "
        "drift) to fail or error",
    )


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")


def run_recording(args: argparse.Namespace) -> int:
    from conformance._recording.file_format import Recording
    from conformance._recording.load import load_recording
    from conformance._recording.to_case import case_id, case_yaml
    from conformance.errors import RecordingError, ToCaseError

    if args.schema:
        schema = Recording.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = "wire-conformance recording"
        _say(json.dumps(schema, indent=2, sort_keys=True))
        return EXIT_OK
    if args.recording_command == "audit":
        return _audit(args)
    if args.recording_command == "import":
        return run_import(args)
    if args.recording_command != "to-case":
        _say(
            "wire-conformance recording: give --schema, to-case FILE, audit DIR... or "
            "import SRC... --out DIR"
        )
        return EXIT_USAGE
    try:
        recording = load_recording(args.file)
        text = case_yaml(recording, args.file)
    except RecordingError as error:
        _say(str(error))
        return EXIT_FAILED
    except ToCaseError as error:
        _say(f"{args.file}: {error}")
        return EXIT_FAILED
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_OK
    out = _case_file(args.out, case_id(args.file, recording.metadata.column))
    if out is None:
        return EXIT_USAGE
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    _say(f"wrote {out}")
    return EXIT_OK


def _audit(args: argparse.Namespace) -> int:
    from conformance._recording.audit import audit_json, audit_paths, exclusions
    from conformance._recording.audit_report import audit_lines
    from conformance._recording.load import recording_files
    from conformance.errors import ExclusionError

    missing = [str(d) for d in args.dirs if not d.exists()]
    if missing:
        _say(f"wire-conformance: no such recording directory: {', '.join(missing)}")
        return EXIT_USAGE
    files = [(p, _shown(p, d)) for d in args.dirs for p in recording_files(d)]
    if not files:
        _say(f"wire-conformance: no recording (*.json) in {', '.join(map(str, args.dirs))}")
        return EXIT_USAGE
    try:
        excluded = exclusions(args.exclude) if args.exclude else {}
    except ExclusionError as error:
        _say(f"wire-conformance: {error}")
        return EXIT_USAGE
    report = audit_paths(files, excluded)
    for line in audit_lines(report):
        _say(line)
    if args.json and not _written(args.json, audit_json(report)):
        return EXIT_FAILED
    return EXIT_OK if report.ok else EXIT_FAILED


def _case_file(out: Path, case_id: str) -> Path | None:
    """Where ``to-case --out`` writes: ``<case-id>.yaml`` in a directory (one that exists,
    or a path not ending in ``.yaml``); a file only when it is named that, since the case
    loader refuses a case whose file name is not its id."""
    if out.is_dir() or out.suffix.lower() not in (".yaml", ".yml"):
        return out / f"{case_id}.yaml"
    if out.name == f"{case_id}.yaml":
        return out
    _say(
        f"wire-conformance: --out {out}: the case id is {case_id!r}, and a case file must be "
        f"named after its id ({case_id}.yaml) to load; give that name, or a directory"
    )
    return None


def _listen(text: str, allow_remote: bool) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen {text!r}: give HOST:PORT")
    if not allow_remote and host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"--listen {text!r}: not loopback (add --allow-remote to mean it)")
    return host, int(port)


def run_record(args: argparse.Namespace) -> int:
    import signal

    import httpx

    from conformance._interrupt import Interrupted, ending_signals_raise
    from conformance._recording.file_format import answer_cap_mib
    from conformance._recording.proxy import start_proxy

    try:
        listen = _listen(args.listen, args.allow_remote)
        if httpx.URL(args.upstream).scheme not in ("http", "https"):
            raise ValueError(f"--upstream {args.upstream!r}: give an http(s) URL")
        max_answer_mib = answer_cap_mib()
    except (ValueError, httpx.InvalidURL) as error:
        _say(f"wire-conformance: {error}")
        return EXIT_USAGE
    try:
        server, thread = start_proxy(
            args.upstream, args.out, listen, args.redact_text, args.dialect, max_answer_mib
        )
    except OSError as error:
        _say(f"wire-conformance: cannot listen on {args.listen}: {error.strerror}")
        return EXIT_USAGE
    _say(f"recording {args.upstream} at {server.base_url} into {args.out} (Ctrl-C ends)")
    sys.stdout.flush()
    # A recording session only ends on a signal: Ctrl-C (SIGINT) is how it is meant to
    # end and exits 0; SIGTERM or SIGHUP (a CI step's timeout, a closed terminal) is an
    # interruption and exits 128 + N, so a script can tell the two apart.
    status = EXIT_OK
    try:
        with ending_signals_raise():
            thread.join()
    except Interrupted as interruption:
        if interruption.signum != signal.SIGINT:
            _say(f"wire-conformance: {interruption}")
            status = interruption.exit_status
    finally:
        server.shutdown()
        server.server_close()
    for path in server.recorder.files:
        _say(f"wrote {path}")
    for line in server.recorder.refused:  # said as it happened too; here, at the end
        _say(line)
    if status != EXIT_OK:
        return status
    return EXIT_FAILED if server.recorder.refused else EXIT_OK


def _shown(path: Path, root: Path) -> str:
    """A recording as reports name it: from the directory given on (so two directories'
    files stay apart), or the file as given."""
    from conformance._paths import printable

    if not root.is_dir():
        return printable(str(root))
    return printable((Path(root.resolve().name) / path.relative_to(root)).as_posix())


def run_replay(args: argparse.Namespace) -> int:
    import os

    from conformance._interrupt import Interrupted, ending_signals_raise
    from conformance._recording.load import bundled_recordings_dir, recording_files
    from conformance._recording.replay import RecordingResult, ReplayReport, replay_paths
    from conformance._recording.report import replay_lines
    from conformance._runner import RunOptions
    from conformance._targets.resolve import resolve_target
    from conformance.errors import TargetError

    args.dirs = args.dirs or [bundled_recordings_dir()]
    missing = [str(d) for d in args.dirs if not d.exists()]
    if missing:
        _say(f"wire-conformance: no such recording directory: {', '.join(missing)}")
        return EXIT_USAGE
    files = [(p, _shown(p, d)) for d in args.dirs for p in recording_files(d)]
    if not files:
        _say(f"wire-conformance: no recording (*.json) in {', '.join(map(str, args.dirs))}")
        return EXIT_USAGE
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target = resolve_target(args.target, None)
    except TargetError as error:
        _say(f"wire-conformance: {error}")
        return EXIT_USAGE
    options = RunOptions(timeout=args.timeout, strict=args.strict, evidence=args.evidence)
    done: list[RecordingResult] = []
    try:
        with ending_signals_raise():
            report = replay_paths(files, target, options, done)
    except Interrupted as interruption:
        # As `run` does: the recordings that finished are reported, the report says why
        # it is incomplete, and the exit status is 128 + N.
        incomplete = (
            f"{interruption}; the report holds the {len(done)} of {len(files)} recordings "
            "that finished"
        )
        report = ReplayReport(target=target.name, recordings=tuple(done), incomplete=incomplete)
        for line in replay_lines(report):
            _say(line)
        print(f"wire-conformance: {incomplete}", file=sys.stderr)
        if args.json:
            _written(args.json, _replay_json(report))
        return interruption.exit_status
    for line in replay_lines(report):
        _say(line)
    if args.json and not _written(args.json, _replay_json(report)):
        return EXIT_FAILED
    return EXIT_OK if report.ok else EXIT_FAILED


def _replay_json(report: ReplayReport) -> str:
    """The replay report as JSON: ``incomplete`` only when the replay was cut short."""
    exclude = {"incomplete"} if report.incomplete is None else set()
    return report.model_dump_json(indent=2, exclude=exclude) + "\n"


def _written(path: Path, text: str) -> bool:
    """Write a JSON report whole or not at all; a failure is one line naming it."""
    from conformance._paths import write_report

    failure = write_report(path, text)
    if failure is not None:
        _say(f"wire-conformance: {failure}")
    return failure is None
