"""Flooding with de-duplication (protocol/table.md §5): the signed messages
(entries, end signatures, silence attestations, the end's acknowledgements)
a peer sees for the first time are forwarded once to every other player, so
a message crosses any cut link as long as some path of working links joins
its author to the others (other acknowledgements are handed on when asked,
and only remembered here, so that a copy costs no second check). The memory of what was seen is bounded: a message forgotten and seen
again is forwarded again, which costs bandwidth, never correctness (every
receiver takes each message at most once for what it says)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import msgpack

FLOOD_MEMORY = 8192  # digests of messages seen, at most (about 0.5 MB)


class Flood:
    def __init__(self, keep: int = FLOOD_MEMORY) -> None:
        self.keep = keep
        self._seen: OrderedDict[bytes, None] = OrderedDict()

    @staticmethod
    def key(msg: dict) -> bytes:
        return hashlib.sha256(msgpack.packb(msg, use_bin_type=True)).digest()

    def seen(self, msg: dict) -> bool:
        return self.key(msg) in self._seen

    def first(self, msg: dict) -> bool:
        """True the first time ``msg`` is seen (it is remembered from now on)."""
        key = self.key(msg)
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self.keep:
            self._seen.popitem(last=False)
        return True
