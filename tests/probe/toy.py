"""A user's adapter package, written to a temporary folder: the reference adapter with
its output selection in a module of its own (``toyadapter.pick``), so a probe can
mutate a user's file by path."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PICK = '''\
"""The output rule: the last non-empty text."""


def pick(texts: list[str]) -> str | None:
    return next((t for t in reversed(texts) if t.strip()), None)
'''

ADAPTER = '''\
"""The toy adapter: the reference, with its own output selection."""

from conformance.vocabulary import FinalOutput
from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.output import visible_text
from toyadapter.pick import pick


class ToySession(ReferenceSession):
    def final_output(self) -> FinalOutput:
        turn = self.history.final_turn()
        texts = [visible_text(m) for m in turn if m.role == "assistant"]
        stop = self.history.last_stop
        return FinalOutput(text=pick(texts), complete=stop == "end", stop=stop)


class ToyAdapter(ReferenceAdapter):
    name = "toy"
    session_class = ToySession
'''

CATALOGUE = """\
version: 1
root: .
cases: ["empty-terminal-output-*", "chat-empty-final-message-*"]
probes:
  - id: pick-last-even-if-empty
    path: toyadapter/pick.py
    find: "return next((t for t in reversed(texts) if t.strip()), None)"
    replace: "return texts[-1] if texts else None"
    expect_killed_by: [empty-terminal-output-last-nonempty-text]
    note: the output rule selects the last text even when it is empty
  - id: pick-first
    path: toyadapter/pick.py
    find: "reversed(texts)"
    replace: "iter(texts)"
    note: the output rule selects the first non-empty text
"""

SPEC = "toyadapter.adapter:ToyAdapter"


def hold(marker: str) -> None:
    """A mutant's body: it says it is live by creating ``marker`` and holds its cell until
    the process ends (in short sleeps: an abandoned thread stops at its next bytecode)."""
    Path(marker).touch()
    while True:
        time.sleep(0.05)


def write_toy(root: Path) -> Path:
    """The toy package and its catalogue under ``root``; returns the catalogue."""
    package = root / "toyadapter"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "pick.py").write_text(PICK)
    (package / "adapter.py").write_text(ADAPTER)
    catalogue = root / "probes.yaml"
    catalogue.write_text(CATALOGUE)
    return catalogue


@contextmanager
def importable(root: Path) -> Iterator[None]:
    """``root`` on ``sys.path``, and the toy forgotten afterwards."""
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n.split(".")[0] == "toyadapter"]:
            del sys.modules[name]


def tree(root: Path, caches: bool = False) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes; ``caches``: compiled ``__pycache__``
    files too (an ordinary import of the unmutated package writes them)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and (caches or "__pycache__" not in p.parts)
    }
