"""Generate the shipped synthetic recordings (``recordings/<column>/<case>.json``).

Each recording is one bundled case played on the reference adapter: the requests are
the reference's, the responses are the scripted provider's renderings of the documented
event shapes, chunk for chunk, so a recording is byte-consistent with the wire's
renderer.  The metadata says ``synthetic: true`` and names the case it came from.

    python -m harness.make_recordings [OUT_DIR]     # default: recordings/
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance._cases.library import load_library
from conformance._recording.file_format import Metadata, build_recording, record_exchange
from conformance._recording.sanitize import SANITIZER_VERSION
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.resolve import resolve_target
from conformance.version import __version__
from conformance.wires._registry import split_column

ROOT = Path(__file__).resolve().parent.parent
#: A fixed date, so regenerating changes nothing unless the bytes do.
RECORDED_AT = "2026-01-01T00:00:00Z"

#: (case id, column): interleaved episodes with tool calls, back-to-back reasoning,
#: a max-tokens stop, a dropped stream and a transient fault on every wire and dialect;
#: pings and unknown events where the wire has them.
SHIPPED: tuple[tuple[str, str], ...] = (
    ("interleaved-episodes-across-tool-loop", "anthropic-messages"),
    ("back-to-back-thinking-then-redacted", "anthropic-messages"),
    ("signature-only-episodes-across-tool-loop", "anthropic-messages"),
    ("truncation-max-tokens-dangling-episode-after-tool-call", "anthropic-messages"),
    ("truncation-no-finish-mid-thinking-after-tool-result", "anthropic-messages"),
    ("anthropic-overloaded-after-tool-round-retried-unchanged", "anthropic-messages"),
    ("responses-reasoning-items-across-tool-loop-all-kept", "openai-responses"),
    ("responses-two-reasoning-items-before-one-function-call", "openai-responses"),
    ("responses-incomplete-mid-function-call-not-run", "openai-responses"),
    ("responses-server-error-after-tool-round-retried-unchanged", "openai-responses"),
    ("gemini-thought-runs-between-parallel-calls", "gemini"),
    ("gemini-back-to-back-signed-thoughts-split", "gemini"),
    ("gemini-max-tokens-partial-thought-after-call-not-merged", "gemini"),
    ("gemini-unavailable-after-tool-round-retried-unchanged", "gemini"),
    ("deepseek-reasoning-content-replayed-on-every-tool-turn", "openai-chat:deepseek"),
    ("deepseek-length-cut-call-after-tool-round", "openai-chat:deepseek"),
    ("openrouter-two-signed-episodes-around-calls-kept-apart", "openai-chat:openrouter"),
    ("openrouter-gemini-reasoning-details-replayed-with-each-call", "openai-chat:openrouter"),
    ("chat-rate-limited-after-tool-round-retried-unchanged", "openai-chat"),
    ("chat-length-cut-turn-runs-none-of-its-calls", "openai-chat"),
    ("stream-events-pings-and-unknown-events", "anthropic-messages"),
    ("stream-events-pings-and-unknown-events", "openai-chat:openrouter"),
    ("responses-unknown-stream-events-ignored", "openai-responses"),
    # shapes the later broken adapters break: XML tool-call recovery dialects, Anthropic
    # server tools, an OpenRouter redacted detail after a call, a Gemini signed text part
    # after a call
    ("xml-tool-call-function-dialect-recovered", "anthropic-messages"),
    ("xml-hermes-json-tool-call-recovered", "openai-chat"),
    ("anthropic-web-search-blocks-passed-through", "anthropic-messages"),
    ("openrouter-redacted-detail-after-a-call-kept-in-place", "openai-chat:openrouter"),
    ("gemini-signed-text-after-call-stays-after-it", "gemini"),
)


def generate(out: Path) -> list[Path]:
    """Write every shipped recording under ``out``; the paths written."""
    library = {loaded.case.id: loaded.case for loaded in load_library().cases}
    target = resolve_target("reference", None)
    written: list[Path] = []
    for case_id, column in SHIPPED:
        case = library[case_id]
        job = next(j for j in plan([case], target) if j.column == column)
        result, transcript = run_job(target, job, RunOptions())
        if transcript is None or result.verdict != "pass":
            raise SystemExit(f"{case_id} [{column}]: the reference got {result.verdict}")
        wire, dialect = split_column(column)
        exchanges = [
            record_exchange(n, e.request, e.response) for n, e in enumerate(transcript.exchanges, 1)
        ]
        first = transcript.exchanges[0].view
        metadata = Metadata(
            format_version=1,
            wire=wire,
            dialect=dialect,
            model=first.model if first is not None else None,
            recorded_at=RECORDED_AT,
            suite_version=__version__,
            sanitizer_version=SANITIZER_VERSION,
            synthetic=True,
            source=f"harness/make_recordings.py: case {case_id} on the reference adapter",
        )
        path = out / column.replace(":", "-") / f"{case_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(build_recording(metadata, exchanges).to_json(), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "recordings"
    for written in generate(target_dir):
        print(written.relative_to(target_dir))
