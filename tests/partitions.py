"""The partition campaign's machinery (tests/test_partitions.py): a whole
match between real ``TablePeer``s over ``p2pcards.testing.linknet``, one fault
(a link cut, or a seat cut off from everybody) for a while, under trio's mock
clock, then the outcome: every seat's log, its audit, who was blamed."""

from __future__ import annotations

import dataclasses
import random

import trio
import trio.testing

from fuzz.kit import make_genesis
from p2pcards.audit import audit_log
from p2pcards.bots import Bot
from p2pcards.peer import TablePeer
from p2pcards.peer.table_peer import PeerOptions
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.log import GameLog
from p2pcards.testing.linknet import LinkNet

DEFAULT = (120.0, 120.0)  # turn_timeout, rejoin_timeout: the table's defaults
SHORT = (20.0, 30.0)


@dataclasses.dataclass(frozen=True)
class Fault:
    kind: str  # "link": the link a-b is cut; "isolate": every link of seat a; "links": every link of ``pairs``
    a: int | None
    b: int | None
    at: int  # cut once the first log reaches this many entries
    seconds: float
    pairs: tuple[tuple[int, int], ...] = ()

    def links(self, players: int) -> list[tuple[int, int]]:
        if self.kind == "link":
            return [(self.a, self.b)]
        if self.kind == "links":
            return list(self.pairs)
        return [(self.a, other) for other in range(players) if other != self.a]


@dataclasses.dataclass
class Outcome:
    players: int
    logs: list[list[bytes]]  # every seat's final entries (what its log file holds), raw
    finished: list[bool]
    reports: list
    gave_up: list[bool]
    seconds: float  # mock time the match took
    messages: int
    ended_at: list[float]  # mock time each seat stopped, from the start
    cut_at: float | None  # when the fault came
    stop_reasons: list[str | None]

    def blamed(self, seat: int) -> set[int]:
        report = self.reports[seat]
        return {v["seat"] for v in report.violations}


async def play(players: int, timeouts: tuple[float, float], fault: Fault | None, seed: int = 0,
               game: str = "bura", options: dict | None = None, wrap=None, tap=None) -> Outcome:
    """``wrap(seat, mesh)``, if given, may put a cheater's mesh in place of a seat's;
    ``tap(sender, receiver, message)`` sees every message delivered."""
    rng = random.Random(f"partition/{players}/{seed}")
    turn, rejoin = timeouts
    genesis, signers = make_genesis(game, players, options or {"rounds": 1},
                                    {"turn_timeout": turn, "rejoin_timeout": rejoin, "deals": 1}, rng)
    seeds = [{d: rng.randbytes(32) for d in range(64)} for _ in range(players)]
    net = LinkNet(players)
    net.tap = tap
    changed = trio.Event()

    def on_change():
        nonlocal changed
        changed.set()
        changed = trio.Event()

    def bot_decide(seat: int):
        bot = Bot("random", seed * 10 + seat)

        async def decide(peer: TablePeer) -> dict:
            await trio.sleep(0)
            return bot.choose(peer.driver.game, peer.driver.my_state())

        return decide

    meshes = [net.meshes[s] if wrap is None else wrap(s, net.meshes[s]) for s in range(players)]
    honest = {s for s in range(players) if meshes[s] is net.meshes[s]}  # a wrapped seat may misbehave
    peers = [TablePeer(SeatDriver(genesis, s, signers[s], seeds=seeds[s]), meshes[s], bot_decide(s),
                       PeerOptions(turn_timeout=turn, rejoin_timeout=rejoin), on_change=on_change)
             for s in range(players)]
    start = trio.current_time()
    ended_at = [0.0] * players
    cut_at = []

    async def seat(s: int) -> None:
        await peers[s].run()
        ended_at[s] = trio.current_time() - start
        net.leave(s)

    async def inject() -> None:
        while max(len(p.driver.log) for p in peers) < fault.at:
            await changed.wait()
        links = fault.links(players)
        for a, b in links:
            net.cut(a, b)
        cut_at.append(trio.current_time() - start)
        await trio.sleep(fault.seconds)
        for a, b in links:
            net.heal(a, b)

    with trio.fail_after(4 * 3600):  # mock time: a hang fails at once
        async with trio.open_nursery() as nursery:
            if fault is not None:
                nursery.start_soon(inject)
            async with trio.open_nursery() as seats:
                for s in range(players):
                    seats.start_soon(seat, s)
            nursery.cancel_scope.cancel()
    # Nothing one honest peer sends another may fail to be read: such a failure is
    # a bug of ours (it is swallowed at the table as a peer's bad message).
    for p in peers:
        if p.seat in honest:
            assert not (p.bad_from & honest), f"seat {p.seat} read a bad message {p.last_bad_message}"
    logs = [[e.raw for e in p.driver.log.entries[:p.driver.final_len]] for p in peers]
    return Outcome(players, logs, [p.machine.finished for p in peers], [_audit(p) for p in peers],
                   [p.gave_up for p in peers], trio.current_time() - start, net.delivered, ended_at,
                   cut_at[0] if cut_at else None, [p.stop_reason for p in peers])


def _audit(peer: TablePeer):
    """The audit of what the seat holds final (what its log file would hold)."""
    log = GameLog()
    for entry in peer.driver.log.entries[:peer.driver.final_len]:
        log.append(entry)
    return audit_log(log)


def run(players: int, timeouts: tuple[float, float], fault: Fault | None, seed: int = 0, wrap=None,
        tap=None) -> Outcome:
    """One match in mock time: no wall time is spent waiting."""
    return trio.run(lambda: play(players, timeouts, fault, seed, wrap=wrap, tap=tap),
                    clock=trio.testing.MockClock(autojump_threshold=0))
