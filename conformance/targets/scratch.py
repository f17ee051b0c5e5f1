"""A command's scratch folder and its output tails: bounded, and gone afterwards.

The scratch folder holds the case document; removing it must survive a process that
still writes into it (it is retried after the writers are ended, and what cannot be
removed is left rather than crashing the run).  Output is read from pipes into tails
of a fixed size, so a command printing gigabytes costs the suite nothing.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import IO

#: The characters of each stream a report keeps.
TAIL_CHARS = 2000
#: Bytes kept per stream: room for ``TAIL_CHARS`` characters of UTF-8.
TAIL_BYTES = 4 * TAIL_CHARS
#: Seconds to wait for a stream's last bytes once the command's processes are ended.
DRAIN_SECONDS = 2.0


class TailReader:
    """Reads a pipe on its own thread, keeping only the last ``TAIL_BYTES`` bytes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._kept: deque[bytes] = deque()
        self._size = 0
        self._thread = threading.Thread(target=self._read, daemon=True, name="conformance-tail")
        self._thread.start()

    def _read(self) -> None:
        read = getattr(self._stream, "read1", self._stream.read)
        while data := read(65536):
            self._kept.append(data)
            self._size += len(data)
            while self._size - len(self._kept[0]) >= TAIL_BYTES:
                self._size -= len(self._kept.popleft())

    def finish(self) -> str:
        """The tail as text, once the stream ended (or after ``DRAIN_SECONDS``)."""
        self._thread.join(DRAIN_SECONDS)
        if self._thread.is_alive():  # a writer outside the suite's reach holds it open
            self._stream.close()
        tail = b"".join(self._kept)[-TAIL_BYTES:]
        return tail.decode("utf-8", errors="replace")[-TAIL_CHARS:]


class Scratch:
    """A temporary folder that is removed on exit, however busy it still is."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="conformance-cmd-"))

    def __enter__(self) -> Path:
        return self.path

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        remove_tree(self.path)


def remove_tree(path: Path, attempts: int = 5) -> bool:
    """Remove ``path``; a file created meanwhile makes it retry.  Whether it is gone."""
    for _ in range(attempts):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return True
        time.sleep(0.05)
    return False
