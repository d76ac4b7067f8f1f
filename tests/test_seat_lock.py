"""One process per seat: a seat coming back waits for an earlier process of
the same seat (a window still closing) to be gone, and says so clearly if it
never goes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import trio
import trio.testing

from p2pcards.peer.seatlock import SeatInUse, hold_new_seat, take_seat

HOLDER = ("import fcntl, os, sys\n"
          "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
          "fcntl.flock(fd, fcntl.LOCK_EX)\n"
          "print('held', flush=True)\n"
          "sys.stdin.read()\n")  # holds the lock until its input closes


def _holder(path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


async def test_a_seat_coming_back_waits_for_the_earlier_process_to_be_gone(tmp_path):
    log = tmp_path / "game.p2plog"
    log.write_bytes(b"")
    earlier = _holder(log)
    taken = trio.Event()
    fds = []

    async def come_back() -> None:
        fds.append(await take_seat(str(log), wait=120))
        taken.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(come_back)
        await trio.testing.wait_all_tasks_blocked()
        assert not taken.is_set()  # the earlier process still plays the seat
        earlier.stdin.close()  # it exits: the system drops its lock
        await trio.to_thread.run_sync(earlier.wait)
        await taken.wait()
    os.close(fds[0])


async def test_a_seat_still_played_elsewhere_is_refused_in_words(tmp_path):
    log = tmp_path / "game.p2plog"
    log.write_bytes(b"")
    other = _holder(log)
    try:
        with pytest.raises(SeatInUse, match="still open in another window"):
            await take_seat(str(log), wait=0.2)
    finally:
        other.stdin.close()
        other.wait()
    # Once it is gone, the seat is free at once.
    os.close(await take_seat(str(log), wait=0))


async def test_a_running_seat_holds_its_lock(tmp_path):
    log = tmp_path / "game.p2plog"
    log.write_bytes(b"")
    with hold_new_seat(str(log)):
        with pytest.raises(SeatInUse):
            await take_seat(str(log), wait=0.2)
    # Free again once the holder is gone; the waiter that gave up may still take
    # and drop the lock for an instant as it ends, so this waits for it.
    os.close(await take_seat(str(log), wait=10))
