"""Issue 23, the partition campaign: whole matches between real peers over an
in-process mesh whose links are cut (``p2pcards.testing.linknet``), under
trio's mock clock (a cut of minutes costs no wall time; trio still shuffles
the order tasks run in, so each run is one of many interleavings).

Faults: one link cut (host-seat, seat-seat), one seat cut off from everybody
(a seat, the host), for 10, 30, 60 and 150 s, at 3 and 4 players, with the
default timeouts (120 s / 120 s) and short ones (20 s / 30 s). Whatever the
fault:
- a cut link changes nothing a player can see but latency: every match
  finishes, every log byte-identical, the audit clean;
- a seat cut off shorter than the table waits for it (the rejoin timeout)
  is not blamed either; one cut off past that may be blamed for its silence
  (that is what the protocol says), nobody else, and its own log is a prefix
  of the others' whose audit blames nobody;
- every log's audit agrees with the rest.
"""

from __future__ import annotations

import math

import pytest

from p2pcards.audit import UNFINISHED
from p2pcards.protocol import silence
from p2pcards.protocol.log import Entry
from tests.helpers import MeshWrapper
from tests.partitions import DEFAULT, SHORT, Fault, Outcome, run

CUTS = {"host-seat": ("link", 0, 1), "seat-seat": ("link", 1, 2), "seat-alone": ("isolate", 1, None),
        "host-alone": ("isolate", 0, None)}
TIMEOUTS = {"default": DEFAULT, "short": SHORT}
SECONDS = (10, 30, 60, 150)


def campaign(places):
    """Every fault, length, table size and timeouts; the place in the match
    where the cut comes varies from case to case (dealing, play, the end)."""
    i = 0
    for players in (3, 4):
        for timeouts in TIMEOUTS:
            for cut in CUTS:
                for seconds in SECONDS:
                    for at in places(i):
                        yield pytest.param(players, timeouts, cut, seconds, at,
                                           id=f"{players}p-{timeouts}-{cut}-{seconds}s-at{at}")
                    i += 1


def check(outcome: Outcome, fault: Fault, timeouts: tuple[float, float]) -> None:
    turn, rejoin = timeouts
    n = outcome.players
    alone = fault.a if fault.kind == "isolate" else None
    others = [s for s in range(n) if s != alone]
    reference = outcome.logs[others[0]]
    for s in others:
        assert outcome.finished[s], f"seat {s} did not finish: {outcome.reports[s].as_json()}"
        assert outcome.logs[s] == reference, f"seat {s}'s log differs"
    report = outcome.reports[others[0]]
    blamed = {(v["seat"], v["kind"]) for v in report.violations}
    if alone is None or fault.seconds < rejoin:
        assert report.exit_code == 0 and not blamed, report.as_json()
        assert not any(Entry.from_wire(raw).kind == "abort" for raw in reference)
    else:
        # Cut off past the rejoin timeout: blamed for its silence, or not at all.
        assert all(seat == alone and kind in silence.SILENCE_KINDS for seat, kind in blamed), report.as_json()
    if alone is not None:
        mine = outcome.logs[alone]
        assert mine == reference[:len(mine)], "the cut-off seat's log is no prefix of the others'"
        own = outcome.reports[alone]
        assert own.exit_code == report.exit_code if mine == reference else own.exit_code == 3, own.as_json()
        assert not own.violations or own.violations == report.violations, own.as_json()


@pytest.mark.parametrize("players,timeouts,cut,seconds,at", list(campaign(lambda i: [4 + (i * 7) % 22])))
def test_a_partition_convicts_no_honest_seat(players, timeouts, cut, seconds, at):
    fault = Fault(*CUTS[cut], at, seconds)
    check(run(players, TIMEOUTS[timeouts], fault, seed=at), fault, TIMEOUTS[timeouts])


@pytest.mark.slow
@pytest.mark.parametrize("players,timeouts,cut,seconds,at", list(campaign(lambda i: range(2, 28, 3))))
@pytest.mark.parametrize("seed", range(3))
def test_a_partition_convicts_no_honest_seat_sweep(players, timeouts, cut, seconds, at, seed):
    fault = Fault(*CUTS[cut], at, seconds)
    check(run(players, TIMEOUTS[timeouts], fault, seed=seed), fault, TIMEOUTS[timeouts])


@pytest.mark.parametrize("players,cut_at", [(3, 9), (3, 18), (4, 14)])
@pytest.mark.parametrize("timeouts", TIMEOUTS)
def test_a_seat_cut_off_for_good_gives_up_while_it_runs(players, cut_at, timeouts):
    """Item 6: seat 1 is cut off and never comes back. The others blame it
    (a majority attests its silence) and finish; seat 1, running all along,
    gives up the rejoin timeout after its last connection went, with one
    line for its player, and keeps its log: a prefix of theirs, which audits
    as unfinished (exit 3) blaming nobody."""
    turn, rejoin = TIMEOUTS[timeouts]
    fault = Fault("isolate", 1, None, cut_at, math.inf)
    outcome = run(players, TIMEOUTS[timeouts], fault, seed=0)  # a match of 29 entries (3 players), 46 (4)
    check(outcome, fault, TIMEOUTS[timeouts])
    assert outcome.gave_up[1] and not outcome.finished[1]
    assert outcome.ended_at[1] == pytest.approx(outcome.cut_at + rejoin, abs=1.0)
    assert "every other player has left or cannot be reached" in outcome.stop_reasons[1]
    assert outcome.reports[1].exit_code == UNFINISHED and not outcome.reports[1].violations
    others = [s for s in range(players) if s != 1]
    assert all(outcome.finished[s] and outcome.stop_reasons[s] is None for s in others)


def test_a_seat_whose_peers_all_ended_gives_up():
    """Item 6, the case of the red team: seat 2 loses the link to every
    other seat as the match ends; the others finish and leave. Seat 2 stops
    the rejoin timeout later instead of asking for entries for ever."""
    turn, rejoin = DEFAULT
    fault = Fault("isolate", 2, None, 28, math.inf)  # the match's 29th entry is its end
    outcome = run(3, DEFAULT, fault, seed=0)
    check(outcome, fault, DEFAULT)
    assert outcome.ended_at[2] <= outcome.cut_at + rejoin + 1.0
    assert outcome.reports[2].exit_code in (0, UNFINISHED) and not outcome.reports[2].violations


# Several links cut at once at 4 players, the seats still joined through the others.
MANY_CUTS = {"two-apart": ((0, 1), (2, 3)), "two-at-a-seat": ((0, 1), (0, 2)),
             "three-path": ((0, 1), (1, 2), (2, 3)), "three-mixed": ((0, 1), (0, 2), (1, 3))}


def _joined(players: int, cut) -> bool:
    """The links left join every seat."""
    left = {frozenset((a, b)) for a in range(players) for b in range(a + 1, players)} - {frozenset(p) for p in cut}
    reached, todo = {0}, [0]
    while todo:
        a = todo.pop()
        for link in left:
            if a in link:
                (b,) = link - {a}
                if b not in reached:
                    reached.add(b)
                    todo.append(b)
    return len(reached) == players


@pytest.mark.parametrize("seconds", (30, 150))
@pytest.mark.parametrize("timeouts", TIMEOUTS)
@pytest.mark.parametrize("cut", MANY_CUTS)
def test_several_links_cut_at_once_change_nothing(cut, timeouts, seconds):
    """Two or three of the six links of a 4-player table cut at once, for
    longer than the turn time: every message finds another path, so the match
    finishes, every log is the same, the audit is clean and nobody is blamed
    (nor does any honest peer read a message it cannot take: the harness fails
    on that)."""
    assert _joined(4, MANY_CUTS[cut])
    for at in (9, 30):
        fault = Fault("links", None, None, at, seconds, MANY_CUTS[cut])
        outcome = run(4, TIMEOUTS[timeouts], fault, seed=at)
        check(outcome, fault, TIMEOUTS[timeouts])
        assert all(outcome.finished), outcome.stop_reasons


class DeafReferee(MeshWrapper):
    """Seat 0's incoming traffic (it referees every seat but itself), with
    one entry never heard: the first action of seat ``accused`` at a place of
    ``after`` or later, however it comes (sent, relayed, or answering a
    `have`). Deafness, or a referee feigning it: the others cannot tell."""

    def __init__(self, mesh, accused: int, after: int):
        super().__init__(mesh)
        self.accused, self.after = accused, after
        self.place: int | None = None
        self.dropped = 0

    async def __anext__(self):
        from p2pcards.net import Message

        while True:
            event = await self._mesh.__anext__()
            if not (isinstance(event, Message) and isinstance(event.msg, dict) and event.msg.get("t") == "entry"):
                return event
            try:
                entry = Entry.from_wire(event.msg["raw"])
            except Exception:
                return event
            if (self.place is None and entry.author == self.accused and entry.kind == "action"
                    and entry.seq >= self.after):
                self.place = entry.seq
            if (entry.seq, entry.author) != (self.place, self.accused):
                return event
            self.dropped += 1


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("timeouts", TIMEOUTS)
def test_a_deaf_referee_convicts_nobody_but_itself(players, timeouts):
    """table.md §6: a referee that never hears the accused's entry (every
    link up, every other seat holding it, relaying it and answering its
    `have`s) cannot convict the accused: no majority attests a silence, since
    the others hold the entry. Never acknowledging that entry, it is the one
    the others find silent, and a majority of them convicts it (``silent``):
    they cannot tell deafness from feigning it. (An honest seat cannot be deaf
    to one entry: TCP and the sealed relay streams lose no message without
    breaking the connection, and a seat that hears nothing for ``dead_after``
    drops its links, after which the rejoin timeout applies.)"""
    deaf: list[DeafReferee] = []
    accused = players - 1

    def wrap(seat, mesh):
        if seat != 0:
            return mesh
        deaf.append(DeafReferee(mesh, accused=accused, after=12))
        return deaf[0]

    outcome = run(players, TIMEOUTS[timeouts], None, seed=1, wrap=wrap)
    place = deaf[0].place
    assert place is not None and deaf[0].dropped >= players - 1
    honest = range(1, players)
    assert len({tuple(outcome.logs[s]) for s in honest}) == 1
    assert all(outcome.finished[s] and not outcome.gave_up[s] for s in honest)
    assert outcome.logs[0] == outcome.logs[1][:place]  # the referee's log stops where it stopped hearing
    for s in honest:
        report = outcome.reports[s]
        assert [(v["seat"], v["kind"]) for v in report.violations] == [(0, "silent")], report.as_json()
    assert outcome.reports[0].exit_code == UNFINISHED and not outcome.reports[0].violations
