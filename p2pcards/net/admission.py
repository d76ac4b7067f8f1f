"""Room for connections that have not authenticated yet.

Anybody can open a TCP connection, so those that have not finished the
handshake get a bounded room: at most ``per_address`` from one address and
``total`` in all. A newcomer is always let in; when the room is full the
oldest waiting connection (of its address first) is pushed out, so a flood
of silent connections cannot keep an honest peer (which answers at once)
from getting in. A table's own players leave the room as soon as their
hello names them, so strangers can never take their place.
"""

from __future__ import annotations

import collections

import trio

from .. import limits


class WaitingRoom:
    def __init__(self, total: int = limits.MAX_PRE_AUTH, per_address: int = limits.MAX_PRE_AUTH_PER_ADDRESS):
        self.total, self.per_address = total, per_address
        self._waiting: collections.OrderedDict[object, tuple[str, trio.CancelScope]] = collections.OrderedDict()
        self.pushed_out = 0

    def __len__(self) -> int:
        return len(self._waiting)

    def enter(self, token: object, address: str, scope: trio.CancelScope) -> None:
        """Let a new connection in (``scope`` is cancelled if it is pushed out later)."""
        same = [t for t, (a, _) in self._waiting.items() if a == address]
        if len(same) >= self.per_address:
            self._push_out(same[0])
        elif len(self._waiting) >= self.total:
            self._push_out(next(iter(self._waiting)))
        self._waiting[token] = (address, scope)

    def leave(self, token: object) -> None:
        self._waiting.pop(token, None)

    def _push_out(self, token: object) -> None:
        _, scope = self._waiting.pop(token)
        scope.cancel()
        self.pushed_out += 1
