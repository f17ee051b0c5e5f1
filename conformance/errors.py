"""Every exception the suite raises on purpose, under one root.

``except ConformanceError`` catches what the suite reports about its inputs — a case
file that does not load, a target spec that names nothing runnable, a request or a
recorded response a wire cannot read, a report or recording that cannot be read — and
nothing else: a bug in the suite still surfaces as the exception it is.

They live in this one module (as in hypothesis.errors) so a caller finds them all in one
place and a second class with one meaning shows at once.  The only exceptions defined
elsewhere are signals that end or redirect a run rather than report a bad input (an
interrupt, an abandoned cell, a stopped conversation, a generated counterexample) and the
reference adapter's own, which is a target like any user's; ``tests/test_errors.py``
lists them and fails on any other.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path


class ConformanceError(Exception):
    """Something the suite was given (a file, a spec, a body) is not usable."""


def close_to(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known names close to a mistyped one, else ``""``:
    an unknown wire, capability, case id or attribute is nearly always a typo."""
    matches = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.6)
    if not matches:
        return ""
    return " (did you mean " + " or ".join(repr(m) for m in matches) + "?)"


def unknown_names(kind: str, names: Iterable[str], known: Iterable[str]) -> str | None:
    """``unknown wire anthropic (did you mean 'anthropic-messages'?); known: …`` for
    the names not in ``known``, or ``None`` when every name is known."""
    vocabulary = sorted(set(known))
    unknown = sorted(set(names) - set(vocabulary))
    if not unknown:
        return None
    each = ", ".join(f"{name}{close_to(name, vocabulary)}" for name in unknown)
    return f"unknown {kind} {each}; known: {', '.join(vocabulary)}"


class UnsafePath(ConformanceError, ValueError):
    """A name or a path that would leave its root."""


class FramingError(ConformanceError):
    """The body's framing is malformed: the message says how."""


class YamlError(ConformanceError, ValueError):
    """The file is not the YAML a case needs; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field


class ProbeInvalid(ConformanceError):
    """The probe cannot be applied, or its mutant cannot be built: the reason."""


class ProbeUsageError(ConformanceError, ValueError):
    """The target cannot be probed this way (the reason says what can)."""


class ProbeCatalogueError(ConformanceError, ValueError):
    """A catalogue that cannot be read: the file, where, and what is wrong."""


class OutputPathError(ConformanceError, ValueError):
    """A report or snapshot path the suite could not write."""


class ReportFileError(ConformanceError):
    """A JSON report (or A/B table) that cannot be read: ``path: problem``."""


class TargetError(ConformanceError, ValueError):
    """The target spec names nothing the suite can run."""


class ManifestError(ConformanceError, ValueError):
    """A manifest that cannot be read or does not follow the schema."""


class CassetteError(ConformanceError):
    """A cassette that cannot be read: ``path: where: problem``."""

    def __init__(self, path: Path, at: str, message: str) -> None:
        super().__init__(f"{path}: {at}: {message}")
        self.path, self.at, self.message = path, at, message


class ToCaseError(ConformanceError):
    """A recording whose conversation cannot be read back: ``where: problem``."""

    def __init__(self, at: str, message: str) -> None:
        super().__init__(f"{at}: {message}")
        self.at = at
        self.message = message


class Unscriptable(ToCaseError):
    """A real conversation the case language cannot script, though nothing in it is
    broken: the client ended its run where a case's target must go on (on an output
    tool's call, after a transient error), the provider answered no turn, or the first
    request ends on no user prompt.  Replay reports it ``n/a`` with this reason."""


class RecordingError(ConformanceError):
    """A recording that cannot be used: ``path: where: problem``."""

    def __init__(self, path: Path, at: str, message: str) -> None:
        super().__init__(f"{path}: {at}: {message}")
        self.path = path
        self.at = at
        self.message = message


class ExclusionError(ConformanceError):
    """An exclusion file that cannot be read: ``path: where: problem``."""


class RequestParseError(ConformanceError, ValueError):
    """The body is not a request this wire understands (not JSON, wrong shape)."""

    def __init__(self, message: str, at: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.at = at


class ResponseReadError(ConformanceError, ValueError):
    """A recorded provider response that cannot be read back: not JSON, a known event
    without a field it needs, a delta for a block never started, or the provider's own
    error (an ``error`` event mid-stream, an error body).  ``at`` says where, the way a
    person finds it in the file: ``event 7 (content_block_delta)``, ``byte 1234``."""

    def __init__(self, message: str, at: str) -> None:
        super().__init__(f"{at}: {message}")
        self.message = message
        self.at = at


class Unmodelled(ResponseReadError):
    """A real response in a form the suite does not model (the legacy functions API's
    ``function_call``, a custom tool's call): nothing in it is broken, and no case can
    script it."""


class RuleBookError(ConformanceError, ValueError):
    """A predicate that names no check, or one that reports a check it did not register:
    the book and its predicates disagree."""


class UnknownCheckId(RuleBookError):
    """A module registers a check id the catalogue has no entry for (``hint``: the close
    ids, as ``close_to`` writes them)."""

    def __init__(self, check_id: str, module: str, hint: str = "") -> None:
        super().__init__(
            f"{module}: check id {check_id!r} has no catalogue entry{hint} "
            "(conformance/catalogue/checks.yaml, or a contributed fragment)"
        )
        self.check_id = check_id
        self.module = module


class HistoryLoadError(ConformanceError, ValueError):
    """Saved wire JSON that does not load: not the wire's form, or an origin for a
    location that holds no block."""


class MergeError(ConformanceError):
    """The reports are not the shards of one run: one line saying why."""


class UnjudgedEntries(ConformanceError, ValueError):
    """Catalogue entries no predicate judges and that do not say they are
    documentation only: a check every report could cite but nothing can find."""


class CatalogueFragmentError(ConformanceError, ValueError):
    """A contributed fragment that cannot join the catalogue: unreadable, not of the
    schema, or holding an id outside its namespace or in one already taken."""
