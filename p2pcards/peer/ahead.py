"""Entries that came before their place in the log: kept until the place
comes, bounded so no seat can make another hold more than a few of its entries.

Only entries whose signature verifies get here (the caller checks), so a
stranger or a seat cannot fill the buffer in another seat's name; each author
may have at most ``per_author`` entries and ``bytes_per_author`` bytes kept,
the places nearest the log's end first. An entry is counted as what it holds
in memory: its bytes, and a small object for every value of its payload (1 MB
of empty arrays decodes to a million objects).
"""

from __future__ import annotations

from p2pcards import limits
from p2pcards.protocol.log import Entry

# Entries are p2pcards.protocol.log.Entry; not imported, so this sits below the log in the layers.
VALUE_COST = 64  # bytes a decoded value may take beyond its bytes on the wire (a pointer and a small object)


def held_bytes(entry: Entry) -> int:
    """What ``entry`` holds in memory, at most: its bytes and every value of its payload."""
    values, stack = 0, [entry.payload]
    while stack:
        value = stack.pop()
        values += 1
        if isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
    return len(entry.raw) + VALUE_COST * values


class AheadBuffer:
    def __init__(self, per_author: int = limits.AHEAD_PER_AUTHOR,
                 bytes_per_author: int = limits.AHEAD_BYTES_PER_AUTHOR, window: int = limits.MAX_AHEAD):
        self.per_author, self.bytes_per_author, self.window = per_author, bytes_per_author, window
        self._by_author: dict[int, dict[tuple[int, bytes], Entry]] = {}
        self._held: dict[tuple[int, bytes], int] = {}  # key -> held_bytes of that entry

    def __len__(self) -> int:
        return sum(len(kept) for kept in self._by_author.values())

    @property
    def bytes(self) -> int:
        return sum(self._held[key] for kept in self._by_author.values() for key in kept)

    def has_room(self, entry: Entry, next_seq: int) -> bool:
        """Whether ``offer`` could keep ``entry``: checked before its signature,
        so that a flood of entries for places farther than what is kept of
        their author costs no signature check."""
        if not next_seq < entry.seq < next_seq + self.window:
            return False
        kept = self._by_author.get(entry.author, {})
        if (entry.seq, entry.hash) in kept or len(kept) < self.per_author:
            return True
        # ``offer`` pushes out the farthest (the larger of two at one place) first.
        return (entry.seq, len(entry.raw)) <= max((seq, len(e.raw)) for (seq, _), e in kept.items())

    def offer(self, entry: Entry, next_seq: int) -> bool:
        """Keep ``entry`` (verified, for a place past ``next_seq``) if there is
        room for its author; a nearer place may push out that author's farthest."""
        if not next_seq < entry.seq < next_seq + self.window:
            return False
        kept = self._by_author.setdefault(entry.author, {})
        key = (entry.seq, entry.hash)
        if key in kept:
            return True
        kept[key] = entry
        self._held[key] = held_bytes(entry)
        while len(kept) > self.per_author or sum(self._held[k] for k in kept) > self.bytes_per_author:
            farthest = max(kept, key=lambda k: (k[0], self._held[k]))
            del kept[farthest]
            del self._held[farthest]
            if farthest == key:
                return False
        return True

    def take(self, seq: int) -> list[Entry]:
        """The entries kept for place ``seq``; those for places before it are forgotten."""
        found = []
        for kept in self._by_author.values():
            for key in [k for k in kept if k[0] <= seq]:
                entry = kept.pop(key)
                self._held.pop(key, None)
                if key[0] == seq:
                    found.append(entry)
        return found
