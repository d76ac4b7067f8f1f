"""Answers to another seat's ``have`` ("send me what you have from here":
the entries, then the acknowledgements and end signatures held), limited in
rate and in bytes per asking seat, so that a seat asking again and again (and
not reading the answers) costs the asked one a bounded amount of memory and
work. An honest seat that is behind loses nothing: what is not sent now it
asks for again once it has taken what came (table.md §5)."""

from __future__ import annotations

import msgpack
import trio

from p2pcards import limits


class HaveAnswers:
    def __init__(self, mesh, *, burst: int = limits.HAVE_BURST, rate: float = limits.HAVE_RATE,
                 queue_bytes: int = limits.HAVE_QUEUE_BYTES, window: int = limits.MAX_AHEAD) -> None:
        self.mesh = mesh
        self.burst, self.rate, self.queue_bytes, self.window = burst, rate, queue_bytes, window
        self._buckets: dict[int, tuple[float, float]] = {}  # seat -> (answers allowed now, at time)
        self.refused = 0  # answers not given (over the rate), for tests and benchmarks
        self.sent_bytes = 0  # what the answers queued (msgpack), for benchmarks/table.py

    def _allowed(self, seat: int) -> bool:
        now = trio.current_time()
        tokens, then = self._buckets.get(seat, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens < 1:
            self._buckets[seat] = (tokens, now)
            return False
        self._buckets[seat] = (tokens - 1, now)
        return True

    async def answer(self, seat: int, log, start: int, also=()) -> int:
        """Send ``seat`` the entries of ``log`` from ``start`` on, then the
        messages ``also`` (acknowledgements, end signatures), as many as the
        limits allow (the same bucket and bytes for all of them); returns how
        many entries were queued."""
        if not self._allowed(seat):
            self.refused += 1
            return 0
        entries = log[start:start + self.window]
        sent = 0
        for i, msg in enumerate((*({"t": "entry", "raw": entry.raw} for entry in entries), *also)):
            if self.mesh.queued_bytes(seat) >= self.queue_bytes:
                break  # the asker has plenty to read: the rest when it asks again
            if not await self.mesh.send(seat, msg):
                break
            self.sent_bytes += len(msgpack.packb(msg, use_bin_type=True))
            sent = min(i + 1, len(entries))
        return sent
