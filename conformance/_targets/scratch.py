"""A command's scratch folder and its output tails: bounded, and gone afterwards.

The scratch folder holds the case document; removing it must survive a process that
still writes into it (it is retried after the writers are ended, and what cannot be
removed is left rather than crashing the run).  Output is read from pipes into tails
of a fixed size, so a command printing gigabytes costs the suite nothing.
"""

from __future__ import annotations

import atexit
import os
import secrets
import select
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
#: How long the reading thread waits for data before it checks whether to stop.
POLL_MILLISECONDS = 100


class TailReader:
    """Reads a pipe on its own thread, keeping only the last ``TAIL_BYTES`` bytes.

    The thread never blocks in ``read``: it polls the pipe in short steps and stops when
    told to.  A descendant that left the command's session and environment (``setsid
    env -i``) can hold the pipe's write end for as long as it likes; the suite then
    abandons the pipe after ``DRAIN_SECONDS`` instead of waiting for its end.  (Closing
    a buffered stream that another thread is blocked reading waits for that read, which
    is how such a holder used to keep a cell past its timeout.)
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._fd = stream.fileno()
        #: The pipe's inode: how ``/proc/<pid>/fd`` names it in a process holding it.
        self.inode = os.fstat(self._fd).st_ino
        self._stop = threading.Event()
        self._kept: deque[bytes] = deque()
        self._size = 0
        self._thread = threading.Thread(target=self._read, daemon=True, name="conformance-tail")
        self._thread.start()

    def _read(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while not self._stop.is_set():
            if not poller.poll(POLL_MILLISECONDS):
                continue
            try:
                data = os.read(self._fd, 65536)
            except OSError:
                return
            if not data:
                return
            self._kept.append(data)
            self._size += len(data)
            while self._size - len(self._kept[0]) >= TAIL_BYTES:
                self._size -= len(self._kept.popleft())

    def ended(self, wait: float) -> bool:
        """Whether the stream reached its end (every writer closed it) within ``wait`` s."""
        self._thread.join(wait)
        return not self._thread.is_alive()

    def finish(self) -> str:
        """The tail as text, once the stream ended (or after ``DRAIN_SECONDS``).  The
        pipe is closed either way; nothing waits on whoever still holds it."""
        self._thread.join(DRAIN_SECONDS)
        self._stop.set()
        self._thread.join()  # returns within one poll step: the thread never blocks
        self._stream.close()
        tail = b"".join(self._kept)[-TAIL_BYTES:]
        return tail.decode("utf-8", errors="replace")[-TAIL_CHARS:]


#: The scratch folders not removed yet.  A signal that ends the run while a worker thread
#: still holds a cell leaves that thread no time to reach its ``__exit__``; the
#: interpreter's exit removes what is left (its commands were ended by then).
_LIVE: set[Path] = set()
_LIVE_LOCK = threading.Lock()


def _remove_left_behind() -> None:
    with _LIVE_LOCK:
        left = sorted(_LIVE)
    for path in left:
        remove_tree(path)


atexit.register(_remove_left_behind)


def _new_folder(prefix: str) -> Path:
    """A new private folder under the temporary directory, in ``_LIVE`` before it exists.

    Registered first, then made: a signal that ends the run lands between any two steps,
    and one that landed after ``mkdtemp`` made the folder but before the folder was
    registered left it behind for good (a test that signals as soon as the folder
    appears hits that window on a loaded machine).  Registered but not yet made costs
    nothing: removing a folder that is not there succeeds."""
    parent = Path(tempfile.gettempdir())
    while True:
        path = parent / f"{prefix}{secrets.token_hex(8)}"
        with _LIVE_LOCK:
            _LIVE.add(path)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:  # another's folder: never ours to remove
            with _LIVE_LOCK:
                _LIVE.discard(path)
            continue
        return path


class Scratch:
    """A temporary folder that is removed on exit, however busy it still is (and, if the
    run is ended before that, when the interpreter exits)."""

    def __init__(self, prefix: str = "conformance-cmd-") -> None:
        self.path = _new_folder(prefix)

    def __enter__(self) -> Path:
        return self.path

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        remove_tree(self.path)
        with _LIVE_LOCK:
            _LIVE.discard(self.path)


def remove_tree(path: Path, attempts: int = 5) -> bool:
    """Remove ``path``; a file created meanwhile makes it retry.  Whether it is gone."""
    for _ in range(attempts):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return True
        time.sleep(0.05)
    return False
