"""A table agrees on a pause (table.md §3a), with real peers on loopback:
asked in place of one's move, agreed by every other player (bots at once),
ended by anybody's ``continue`` or by its time; and the attacks on it —
pausing in the dealing, more pauses than allowed, answering in another's
name, answering one's own pause, refusing to end it — each refused and
blamed on the cheater only, by the peers and by the audit."""

from __future__ import annotations

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.audit import audit_file
from p2pcards.audit.replay import load_replay
from p2pcards.peer import PeerHooks
from p2pcards.peer.seating import RunError, SeatConfig, run_seat
from p2pcards.protocol.log import read_log
from p2pcards.protocol.machine import ACTION, PAUSE, REVEAL, SHUFFLE
from tests.helpers import SeatOrder

LOCAL = "127.0.0.1"


async def _table(tmp_path, hooks: dict, options: dict | None = None, players: int = 3, pause_at: int | None = None):
    """Bots at a bura table, seat by seat; ``hooks``: seat -> PeerHooks;
    ``pause_at``: the seat whose player asks for a pause (at its first move)."""
    order, results = SeatOrder(players), {}

    async def seat(i):
        config = SeatConfig(name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind=LOCAL,
                            log_dir=str(tmp_path / f"l{i}"), strategy="greedy", bot_seed=i,
                            hooks=lambda s: hooks.get(s))
        await order.place(config, i, "bura", players,
                          {"table.deals": 1, "table.turn_timeout": 3, "table.rejoin_timeout": 10, **(options or {})})

        def on_driver(peer):
            if peer.seat == pause_at:
                peer.ask_for_pause()  # as its person typing pause

        try:
            results[i] = await run_seat(config, on_driver=on_driver)
        except RunError as exc:
            results[i] = exc

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    return results


def _pause_entries(log_path) -> list[tuple[int, str, bool]]:
    return [(e.author, e.payload["pause"], e.payload.get("auto") is True)
            for e in read_log(log_path).entries if e.kind == PAUSE]


def _clean_and_alike(results, players: int = 3) -> None:
    logs = [open(results[i].log_path, "rb").read() for i in range(players)]
    assert logs[0] == logs[1] == logs[2]
    report = audit_file(results[0].log_path)
    assert report.ok and report.violations == [] and report.complete, report.violations


def _blamed(results, cheater: int, kind: str, players: int = 3) -> None:
    """Every honest seat ends the match with the cheater blamed; the audit agrees, and blames nobody else."""
    honest = [i for i in range(players) if i != cheater]
    for i in honest:
        machine = results[i].driver.machine
        assert machine.finished and [(v.seat, v.kind) for _, v in machine.aborts] == [(cheater, kind)], machine.aborts
    report = audit_file(results[honest[0]].log_path)
    assert {v["seat"] for v in report.violations} == {cheater}, report.violations
    assert kind in {v["kind"] for v in report.violations}


class _AsksToContinue(PeerHooks):
    """A player who types continue once the table is paused."""

    def __init__(self):
        self.sent = False

    async def idle(self, peer) -> None:
        pause = peer.machine.pause
        if pause is not None and pause.held and not self.sent:
            self.sent = True
            await peer.ask_to_continue()


async def test_a_table_agrees_on_a_pause_and_anybody_ends_it(tmp_path):
    # pause_time is long: only seat 2's continue can end the pause before the test's limit.
    results = await _table(tmp_path, {2: _AsksToContinue()}, {"table.pause_time": 3600}, pause_at=0)
    _clean_and_alike(results)
    assert _pause_entries(results[0].log_path) == [(0, "ask", False), (1, "yes", False), (2, "yes", False),
                                          (0, "continue", False)]
    replay = load_replay(results[0].log_path)
    text = "\n".join(frame.text for frame in replay.frames)
    assert "p0 asks the table for a pause" in text and "the pause is over: p0 plays on" in text


async def test_a_pause_ends_by_itself_when_its_time_is_up(tmp_path):
    results = await _table(tmp_path, {}, {"table.pause_time": 1}, pause_at=1)
    _clean_and_alike(results)
    assert _pause_entries(results[0].log_path)[-1] == (1, "continue", True)


class _Refuses(PeerHooks):
    """A player who answers no."""

    async def write(self, peer, due, action) -> bool:
        if due.kind == PAUSE and peer.machine.pause is not None and not peer.machine.pause.held:
            await peer._send_entry(peer.driver.write_pause("no"))
            return True
        return False


async def test_one_refusal_is_enough_and_play_goes_on(tmp_path):
    results = await _table(tmp_path, {1: _Refuses()}, pause_at=2)
    _clean_and_alike(results)
    assert _pause_entries(results[0].log_path) == [(2, "ask", False), (0, "yes", False), (1, "no", False)]


class _Cheat(PeerHooks):
    """Signs and sends a pause entry the rules refuse, once, then says nothing more."""

    def __init__(self, when, payload, author=None):
        self.when, self.payload, self.author, self.done = when, payload, author, False

    async def write(self, peer, due, action) -> bool:
        if self.done or not self.when(peer, due):
            return False
        self.done = True
        author = peer.seat if self.author is None else self.author
        entry = peer.driver.log.make_next(author, PAUSE, {"deal": peer.machine.deal.index, **self.payload},
                                          peer.driver.signer)
        await peer.mesh.broadcast({"t": "entry", "raw": entry.raw})
        seq = peer.driver.log.next_seq
        while peer.driver.log.next_seq == seq:  # silent until the others go on without it
            await peer._changed.wait()
        return True


async def test_a_pause_in_the_middle_of_the_dealing_is_refused_and_blamed(tmp_path):
    cheat = _Cheat(lambda peer, due: due.kind == SHUFFLE, {"pause": "ask"})
    results = await _table(tmp_path, {1: cheat})
    assert cheat.done
    _blamed(results, 1, "out-of-turn")


async def test_a_pause_when_it_is_not_your_move_is_refused_and_blamed(tmp_path):
    class NotMyTurn(PeerHooks):
        done = False

        async def idle(self, peer) -> None:
            want = peer.machine.expect()
            if not self.done and want.kind == ACTION and want.author != peer.seat and peer.head_final():
                self.done = True
                entry = peer.driver.log.make_next(peer.seat, PAUSE, {"deal": peer.machine.deal.index,
                                                                      "pause": "ask"}, peer.driver.signer)
                await peer.mesh.broadcast({"t": "entry", "raw": entry.raw})

    hook = NotMyTurn()
    results = await _table(tmp_path, {2: hook})
    assert hook.done
    machine = results[0].driver.machine
    assert machine.finished
    if machine.aborts:  # refused: blamed if its entry came before the one due there
        _blamed(results, 2, "out-of-turn")
    else:  # or the move due there came first and its entry lost the place: nothing happened
        _clean_and_alike(results)
        assert _pause_entries(results[0].log_path) == []


async def test_more_pauses_than_allowed_are_refused_and_blamed(tmp_path):
    # One pause each: seat 0 asks for its first (ended by time), then a second.
    cheat = _Cheat(lambda peer, due: due.kind == ACTION and peer.machine.pauses_asked.get(peer.seat) == 1,
                   {"pause": "ask"})
    results = await _table(tmp_path, {0: cheat}, {"table.pauses": 1, "table.pause_time": 1}, pause_at=0)
    assert cheat.done
    _blamed(results, 0, "bad-pause")


async def test_an_answer_signed_in_another_players_name_counts_for_nothing(tmp_path):
    """The asker sends a "yes" in seat 1's name, signed with its own key: no
    peer takes it (the signature is not seat 1's); seat 1's own "no" stands."""
    forged = _Cheat(lambda peer, due: due.kind == PAUSE and peer.machine.pause is not None
                    and peer.machine.pause.asker == peer.seat, {"pause": "yes"}, author=1)

    class AsksThenForges(_Refuses):
        pass

    class Forger(PeerHooks):
        async def idle(self, peer) -> None:
            pause = peer.machine.pause
            if pause is not None and not pause.held and not forged.done and peer.head_final():
                await forged.write(peer, peer.machine.expect(), None)

    results = await _table(tmp_path, {0: Forger(), 1: AsksThenForges()}, pause_at=0)
    assert forged.done
    _clean_and_alike(results)
    assert _pause_entries(results[0].log_path) == [(0, "ask", False), (1, "no", False)]


async def test_answering_ones_own_pause_is_refused_and_blamed(tmp_path):
    class AnswersItself(PeerHooks):
        done = False

        async def idle(self, peer) -> None:
            pause = peer.machine.pause
            if pause is not None and pause.asker == peer.seat and not pause.held and not self.done \
                    and peer.head_final():
                self.done = True
                entry = peer.driver.log.make_next(peer.seat, PAUSE, {"deal": peer.machine.deal.index,
                                                                      "pause": "yes"}, peer.driver.signer)
                await peer.mesh.broadcast({"t": "entry", "raw": entry.raw})

    hook = AnswersItself()
    # Seat 1 answers first and is slow about it (a person): the cheater's "yes" races nobody's.
    results = await _table(tmp_path, {0: hook, 1: _SlowAnswer()}, pause_at=0)
    assert hook.done
    _blamed(results, 0, "out-of-turn")


class _SlowAnswer(PeerHooks):
    """Answers a pause only once the asker has cheated (the test's cheat runs first)."""

    async def write(self, peer, due, action) -> bool:
        if due.kind == PAUSE and not peer.machine.aborted:
            seq = peer.driver.log.next_seq
            while peer.driver.log.next_seq == seq and not peer.accusation:
                await peer._changed.wait()
            return True
        return False


async def test_refusing_to_end_a_pause_is_blamed_once_its_time_is_up(tmp_path):
    stalls = _Cheat(lambda peer, due: due.kind == PAUSE and peer.machine.pause.held, {"pause": "no"})
    results = await _table(tmp_path, {0: stalls, 2: _AsksToContinue()}, {"table.pause_time": 2}, pause_at=0)
    assert stalls.done
    # Its "no" where its pause's end was due is refused at once; silence would have come after pause_time.
    _blamed(results, 0, "bad-pause")


class _NeverEnds(PeerHooks):
    """Holds its pause: writes nothing, whoever asks it to continue."""

    async def write(self, peer, due, action) -> bool:
        if due.kind == PAUSE and peer.machine.pause is not None and peer.machine.pause.held:
            seq = peer.driver.log.next_seq
            while peer.driver.log.next_seq == seq:
                await peer._changed.wait()
            return True
        return False


async def test_a_pause_that_is_never_ended_is_blamed_as_silence_after_its_time(tmp_path):
    results = await _table(tmp_path, {0: _NeverEnds(), 2: _AsksToContinue()}, {"table.pause_time": 2}, pause_at=0)
    _blamed(results, 0, "timeout")


@pytest.mark.skipif(__import__("shutil").which("tmux") is None, reason="needs tmux")
def test_a_person_pauses_the_table_and_plays_on(tmp_path):
    """At a real terminal: pause, the bot agrees, the top line says so, the
    clock stops; continue ends it, and the log's audit is clean."""
    import os
    import sys

    from tests.helpers import REPO, Terminal

    command = (f"cd {tmp_path} && P2PCARDS_HOME={tmp_path} HOME={tmp_path} PYTHONPATH={REPO} {sys.executable} "
               f"-m p2pcards play bura --bots 1 --seed 5 --name Zoe -o table.deals=1; echo EXITED $?; sleep 30")
    term = Terminal(f"p2pcards-pause-{os.getpid()}", command)
    try:
        term.wait_for(lambda s: "your move>" in s and "Trump:" in s, "the table")
        term.keys("pause", "Enter")
        screen = term.wait_for(lambda s: "paused by you" in s.splitlines()[0], "the table paused")
        assert "Ada agrees to the pause" in screen
        term.keys("continue", "Enter")
        term.wait_for(lambda s: "the pause is over: Zoe plays on" in s, "the pause's end")
        term.keys("away", "Enter")
        term.wait_for(lambda s: "match over" in s.splitlines()[0], "the end of the deal", timeout=240)
        term.keys("Escape")
        term.keys("quit", "Enter")
        assert "EXITED 0" in term.wait_for(lambda s: "EXITED" in s, "the program to end")
    finally:
        term.close()
    logs = sorted((tmp_path / "games").glob("*.p2plog"))
    report = audit_file(logs[0])
    assert report.ok and report.violations == [] and report.complete
    assert [op for _, op, _ in _pause_entries(logs[0])] == ["ask", "yes", "continue"]


def test_the_top_line_says_who_paused_and_what_to_type():
    from p2pcards.protocol.driver import SeatDriver
    from p2pcards.protocol.narration import pause_status
    from tests.test_checkpoint import _genesis

    signers = [Ed25519PrivateKey.generate() for _ in range(3)]
    genesis = _genesis("bura", 3, signers)
    drivers = [SeatDriver(genesis, i, signers[i]) for i in range(3)]
    names = ["Ada", "Bolek", "Zoe"]

    def everybody_takes(entry, author):
        for d in drivers:
            if d.seat != author:
                d.receive(entry)

    machine = drivers[0].machine
    while machine.expect().kind != ACTION:  # dealt
        want = machine.expect()
        everybody_takes(drivers[want.author].write(), want.author)
    asker = machine.expect().author
    assert pause_status(machine, names, 0) is None
    everybody_takes(drivers[asker].write_pause("ask"), asker)
    first = machine.expect().author
    assert pause_status(drivers[first].machine, names, first) == f"{names[asker]} asks for a pause \u2014 type yes or no"
    while not machine.pause.held:
        want = machine.expect()
        everybody_takes(drivers[want.author].write_pause("yes"), want.author)
    other = (asker + 1) % 3
    assert pause_status(drivers[other].machine, names, other) == f"paused by {names[asker]} \u2014 type continue to play on"
    assert pause_status(drivers[asker].machine, names, asker).startswith("paused by you")
    everybody_takes(drivers[asker].write_pause("continue"), asker)
    assert pause_status(machine, names, 0) is None and machine.expect() == drivers[asker].due()
