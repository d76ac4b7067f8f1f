"""One process per seat: a running seat holds an exclusive lock on its log
file for as long as it plays (the log keeps its inode for the whole game;
the state file does not, it is replaced on every save).

A seat coming back takes the lock before it reads the log or opens its
port, so it waits for an earlier process of the same seat (a window that
was just closed and is still shutting down) to be gone, instead of reading
a log that is still being written and finding its own port taken. The
operating system drops the lock when the holder exits, however it exits.
"""

from __future__ import annotations

import fcntl
import os
import threading

from contextlib import contextmanager
from typing import Iterator

import trio

from p2pcards.i18n import _

# How long a seat coming back waits for an earlier process of the same seat
# to finish closing before saying the game is still open elsewhere.
EARLIER_PROCESS_WAIT = 30.0


class SeatInUse(Exception):
    """Another process still plays this seat (the message says so in players' words)."""


def _open(log_path: str) -> int:
    return os.open(log_path, os.O_RDONLY | os.O_CLOEXEC)


@contextmanager
def hold_new_seat(log_path: str) -> Iterator[None]:
    """The lock of a log this process has just created (nobody else can hold it)."""
    fd = _open(log_path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


async def take_seat(log_path: str, wait: float = EARLIER_PROCESS_WAIT) -> int:
    """The lock of an existing log, once no other process holds it (at most
    ``wait`` seconds, then SeatInUse). Returns the descriptor to close
    (which drops the lock) when the seat is done."""
    fd = _open(log_path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except BlockingIOError:
        pass
    except BaseException:
        os.close(fd)
        raise
    # Held: wait in a thread, blocked in the kernel until the holder is gone.
    guard = threading.Lock()
    state = {"acquired": False, "abandoned": False}

    def wait_for_lock() -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with guard:
            state["acquired"] = True
            if state["abandoned"]:  # nobody waits any more: let the lock go at once
                os.close(fd)

    got = False
    try:
        with trio.move_on_after(wait):
            await trio.to_thread.run_sync(wait_for_lock, abandon_on_cancel=True)
            got = True
    finally:
        if not got:
            with guard:
                state["abandoned"] = True
                if state["acquired"]:  # it came just as the wait ended
                    os.close(fd)
    if not got:
        raise SeatInUse(_("this game is still open in another window or process on this computer; "
                          "close it there first, or come back to the game from there"))
    return fd
