"""Test machinery shipped with the package because selfplay uses it:
deliberate cheats (``cheats``) and fault injection (``faults``).

It reaches a peer only through the peer's hooks (``p2pcards.peer.PeerHooks``):
the command line's bot seats install them, the peer never imports this
package (``tests/test_layering.py`` checks that).
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.peer import PeerHooks
from p2pcards.testing.cheats import CHEATS, Cheater
from p2pcards.testing.faults import Faults

__all__ = ["CHEATS", "Cheater", "Faults", "SeatHooks", "seat_hooks"]


class SeatHooks(PeerHooks):
    """One seat's cheat and faults (either may be None)."""

    def __init__(self, cheater: Cheater | None = None, faults: Faults | None = None):
        self.cheater = cheater
        self.faults = faults

    def acking(self, peer, entry) -> None:
        if self.faults is not None:
            self.faults.acking(peer, entry)

    async def idle(self, peer) -> None:
        if self.cheater is not None:
            await self.cheater.idle(peer)

    async def write(self, peer, due, action) -> bool:
        return self.cheater is not None and await self.cheater.write(peer, due, action)

    async def on_entry(self, peer, entry) -> bool:
        return self.cheater is not None and await self.cheater.on_entry(peer, entry)

    def after_game(self, peer) -> None:
        if self.cheater is not None:
            self.cheater.after_game(peer)


def seat_hooks(cheat: str | None = None, cheat_seat: int | None = None) -> Callable[[int], PeerHooks | None]:
    """What ``SeatConfig.hooks`` takes: given the seat a peer got, its hooks —
    the cheat if it is the cheating seat (``cheat_seat`` None: every seat),
    and the faults selfplay asked for in the environment."""

    def for_seat(seat: int) -> PeerHooks | None:
        cheater = Cheater(cheat) if cheat and cheat_seat in (None, seat) else None
        faults = Faults.from_env(seat)
        return SeatHooks(cheater, faults) if cheater is not None or faults is not None else None

    return for_seat
