"""What waits to be sent to one peer: a queue bounded in messages and in
bytes, so a peer that reads slowly or not at all costs the sender a bounded
amount of memory, however large the messages are. ``put`` never blocks: when
the queue is full it says so, and the caller drops that peer's connection
(a lost connection, handled as any other; never a cheat)."""

from __future__ import annotations

from typing import Any

import trio


class Outbox:
    def __init__(self, max_items: int, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0  # of the items waiting (the one being sent no longer counts)
        self.closed = False
        self._send, self._receive = trio.open_memory_channel(max_items)

    @property
    def items(self) -> int:
        return self._send.statistics().current_buffer_used

    def put(self, item: Any, size: int) -> bool:
        """Queue ``item`` of ``size`` bytes; False if it does not fit (in count
        or bytes) or the queue is closed."""
        if self.bytes + size > self.max_bytes:
            return False
        try:
            self._send.send_nowait((item, size))
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        self.bytes += size
        return True

    def close(self) -> None:
        """No more items; the reader gets the ones queued, then the end."""
        self.closed = True
        self._send.close()

    def __aiter__(self):
        return self._items()

    async def _items(self):
        async with self._receive:
            async for item, size in self._receive:
                self.bytes -= size
                yield item
