"""Fault injection for ``p2pcards selfplay --crash / --drop``.

Selfplay sets ``P2PCARDS_CRASH`` / ``P2PCARDS_DROP`` to "SEAT:ENTRY" in every
peer's process (seats go in join order, which the processes cannot be sure
of, so each is told the faulty seat). Once that seat's log reaches the entry
it dies abruptly, or loses every connection for a few seconds.
"""

from __future__ import annotations

import logging
import os
import signal

log = logging.getLogger("p2pcards.peer")

CRASH_ENV, DROP_ENV = "P2PCARDS_CRASH", "P2PCARDS_DROP"


def fault_entry(name: str, seat: int) -> int | None:
    """The entry at which ``seat`` is to fail by the variable ``name``
    ("SEAT:ENTRY", for a drop also "SEAT:ENTRY:SECONDS"), if any."""
    faulty, _, entry = os.environ.get(name, "").partition(":")
    entry = entry.partition(":")[0]
    return int(entry) if faulty.isdigit() and entry.isdigit() and int(faulty) == seat else None


def drop_seconds() -> float:
    """How long a drop lasts: P2PCARDS_DROP's third field (longer than the timeouts: a partition), else 3 s."""
    seconds = os.environ.get(DROP_ENV, "").split(":")[2:3]
    return float(seconds[0]) if seconds and seconds[0].replace(".", "", 1).isdigit() else 3.0


class Faults:
    def __init__(self, crash_at: int | None = None, drop_at: int | None = None, drop_seconds: float = 3.0):
        self.crash_at = crash_at  # die abruptly once the log reaches this entry
        self.drop_at = drop_at  # cut every connection once the log reaches this entry
        self.drop_seconds = drop_seconds

    @classmethod
    def from_env(cls, seat: int) -> Faults | None:
        faults = cls(fault_entry(CRASH_ENV, seat), fault_entry(DROP_ENV, seat), drop_seconds())
        return faults if faults.crash_at is not None or faults.drop_at is not None else None

    def acking(self, peer, entry) -> None:
        length = len(peer.driver.log)
        if self.crash_at is not None and length >= self.crash_at:
            log.warning("seat %s: crashing on purpose at entry %d", peer.seat, length)
            os.kill(os.getpid(), signal.SIGKILL)  # abrupt: no clean-up, like a power cut
        if self.drop_at is not None and length >= self.drop_at:
            self.drop_at = None
            log.warning("seat %s: dropping every connection for %g s at entry %d", peer.seat,
                        self.drop_seconds, length)
            peer.mesh.drop(self.drop_seconds)
