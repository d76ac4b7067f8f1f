"""Spectators (``p2pcards join ADDR:PORT --watch``): a real table of bot peers
over loopback, followed by spectators that verify every entry and see only
what lies open on the table."""

import re
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.cards import is_code
from p2pcards.protocol.log import Entry, make_entry
from p2pcards.net import open_endpoint
from p2pcards.net.spectate import SpectatorHub
from p2pcards.net.agreement import compute_session_id, final_msg
from p2pcards.peer.seating import SeatConfig, run_seat
from p2pcards.testing import seat_hooks
from p2pcards.ui.spectator import Spectator, SpectatorSession, WatchError
from p2pcards.protocol.driver import SeatDriver
from tests.helpers import REPO, Terminal, until

LOCAL = "127.0.0.1"
OPTIONS = {"table.turn_timeout": 5}


def codes_in(value) -> set[str]:
    """Every card code anywhere in a view (nested maps and lists)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, str) and is_code(v):
            found.add(v)
    return found


def hidden_codes_shown(view, machine) -> set[str]:
    """Codes in ``view`` that no card opened to everybody has (a view may
    name one open card in several places: the trick and the last trick)."""
    return codes_in(view) - set(machine.public_codes.values())


class Table:
    """A table of bot peers over loopback (seat 0 hosts through run_seat, as
    ``p2pcards host`` does) that spectators can watch."""

    def __init__(self, tmp_path, game, players, options, cheat=None, cheater=None):
        self.cheat, self.cheater = cheat, cheater
        self.tmp_path, self.game, self.players = tmp_path, game, players
        self.options = {**OPTIONS, **options}
        self.keys = [Ed25519PrivateKey.generate() for _ in range(players)]
        self.port_ready = trio.Event()
        self.port = None
        self.host_peer = None
        self.results = {}
        self.spectators = []  # Spectator objects watching (the drain workaround waits for them)

    def _on_port(self, port):
        self.port = port
        self.port_ready.set()

    def _on_host_driver(self, peer):
        self.host_peer = peer

    async def seat(self, i):
        config = SeatConfig(name=f"p{i}", private_key=self.keys[i], bind=LOCAL, port=0,
                            log_dir=str(self.tmp_path / f"logs{i}"), strategy="random", bot_seed=f"s:{i}",
                            hooks=seat_hooks(self.cheat, self.cheater))
        on_driver = None
        if i == 0:
            config.game, config.players, config.options = self.game, self.players, self.options
            config.on_port = self._on_port
            on_driver = self._on_host_driver
        else:
            await self.port_ready.wait()
            await trio.sleep(0.05 * i)
            config.join = (LOCAL, self.port)
        self.results[i] = await run_seat(config, on_driver=on_driver)

    async def final_entries(self, n):
        """Until the host has made ``n`` entries final."""
        while self.host_peer is None or self.host_peer.driver.final_len < n:
            await trio.sleep(0.02)


class Recorder:
    """A spectator with its session, as the terminal shows it, recording each view."""

    def __init__(self, port):
        self.spectator = Spectator((LOCAL, port), name="watcher")
        self.session = SpectatorSession()
        self.views = []  # (log length, view, hidden codes shown)
        self.first_index = None
        self.lobby_lines = []  # the waiting screen, each time it changed

    def on_change(self):
        spectator, session = self.spectator, self.session
        if spectator.driver is None:
            self.lobby_lines.append(spectator.status_lines())
            return
        if session.peer is None:
            session.attach(spectator)
        session.changed()
        machine = spectator.machine
        if self.first_index is None:
            self.first_index = len(spectator.log)
        if machine.state is not None:
            view = session.view()
            self.views.append((len(spectator.log), view, hidden_codes_shown(view, machine)))

    async def run(self):
        await self.spectator.run(self.on_change)


async def watched_game(tmp_path, game, players, options, late_after=10, **table_args):
    """Play a match with one spectator from the start and one joining after
    ``late_after`` final entries; returns (table, early recorder, late recorder)."""
    table = Table(tmp_path, game, players, options, **table_args)
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(table.seat, i)
            await table.port_ready.wait()
            early = Recorder(table.port)
            table.spectators.append(early.spectator)
            nursery.start_soon(early.run)
            await table.final_entries(late_after)
            late = Recorder(table.port)
            table.spectators.append(late.spectator)
            nursery.start_soon(late.run)
    return table, early, late


@pytest.fixture(scope="module")
def bura_game(tmp_path_factory):
    """One bura match (2 players, one deal), watched by an early and a late spectator."""
    return trio.run(watched_game, tmp_path_factory.mktemp("bura"), "bura", 2, {"table.deals": 1})


def test_the_spectators_log_is_the_players_byte_for_byte(bura_game, tmp_path):
    table, early, late = bura_game
    player_log = open(table.results[0].log_path, "rb").read()
    assert open(table.results[1].log_path, "rb").read() == player_log
    for recorder in (early, late):
        spectator = recorder.spectator
        assert spectator.finished and spectator.error is None
        out = tmp_path / f"watched-{id(recorder)}.p2plog"
        spectator.write(out)
        assert out.read_bytes() == player_log
    from p2pcards.audit import audit_file

    assert audit_file(str(out)).exit_code == 0


def test_a_late_spectator_gets_the_backlog_then_follows_live(bura_game):
    table, early, late = bura_game
    assert early.first_index == 1  # it saw the table made, then every entry
    assert any("bura, 1 of 2 seated" in lines[0] for lines in early.lobby_lines)  # and the lobby fill
    assert any("bura, 2 of 2 seated" in lines[0] and "  seat 1: p1" in lines[2] for lines in early.lobby_lines)
    # The late one joined after 10 final entries: all of them came at once, first.
    assert late.first_index == 1 and len(late.spectator.log) == len(table.results[0].driver.log)
    lengths = [n for n, _, _ in late.views]
    assert lengths[0] < lengths[-1]  # ... and it kept following afterwards


def test_a_spectators_views_show_only_open_cards(bura_game):
    table, early, late = bura_game
    for recorder in (early, late):
        assert recorder.views, "the spectator never saw a deal"
        for length, view, hidden in recorder.views:
            assert not hidden, f"after entry {length - 1} the spectator saw {sorted(hidden)}"
            assert view.get("hand") in (None, [])
        assert recorder.session.legal_actions() == [] and recorder.session.hint() is None
    # The check can fail: a player's own view, replayed over the same log, shows its hand.
    host = table.results[0].driver
    replay = SeatDriver(host.log[0], 0, seeds=host.me.seeds)
    leaks = 0
    for entry in host.log.entries[1:]:
        replay.receive(entry)
        if replay.machine.state is not None:
            leaks += bool(hidden_codes_shown(replay.me.view(replay.machine), replay.machine))
    assert leaks > 0


def test_the_spectators_history_reads_like_a_players(bura_game):
    table, early, late = bura_game
    lines = early.session.last_moves()
    assert any("shuffling" in line for line in lines)
    assert any(line.startswith("deal over") for line in lines)
    assert lines[-1].startswith("the match is over")
    assert early.session.match_info()["phase"] == "over"
    assert early.session.match_info()["result"] is not None


async def test_a_spectator_cannot_play_or_chat(bura_game):
    from p2pcards.games import IllegalAction

    from p2pcards.ui.session import SeatSession

    session = bura_game[1].session
    assert isinstance(session, SeatSession) and session.seat is None
    with pytest.raises(IllegalAction, match="spectators do not play"):
        await session.act({"type": "lead", "cards": ["AS"]})
    with pytest.raises(IllegalAction, match="spectators do not chat"):
        await session.chat("hello")
    with pytest.raises(IllegalAction, match="a spectator waits"):
        await session.ready()


@pytest.mark.parametrize("game,players,options", [("warkocz", 3, {"target": 4}), ("kanasta", 4, {"table.deals": 1})])
async def test_other_games_are_watched_to_the_end_seeing_only_open_cards(game, players, options, tmp_path):
    table, early, late = await watched_game(tmp_path, game, players, options, late_after=20)
    player_log = table.results[0].driver.log.to_bytes()
    for recorder in (early, late):
        assert recorder.spectator.finished and recorder.spectator.log.to_bytes() == player_log
        assert recorder.views and not [(n, hidden) for n, _, hidden in recorder.views if hidden]
        assert all(not view.get("hand") for _, view, _ in recorder.views)


async def test_a_spectator_follows_a_game_stopped_by_a_cheat_to_its_end(tmp_path):
    # The late spectator joins after the dealing (4 entries), well before the
    # cheat: after 8 the game could be over before it connects.
    table, early, late = await watched_game(tmp_path, "bura", 2, {"table.deals": 1}, late_after=4,
                                            cheat="phantom-card", cheater=1)
    machine = table.results[0].driver.machine
    assert machine.aborted and machine.aborts[0][1].seat == 1
    for recorder in (early, late):
        assert recorder.spectator.finished and recorder.spectator.error is None
        assert recorder.spectator.log.to_bytes() == table.results[0].driver.log.to_bytes()
        info = recorder.session.match_info()
        assert info["phase"] == "aborted" and info["reason"].startswith("phantom-card")
        assert any(line.startswith("GAME STOPPED by p0: phantom-card by p1") for line in recorder.session.last_moves())


# ----- a host that lies: a fake host serving a real log, tampered


@asynccontextmanager
async def fake_host(table_description, entries, end: bool = True):
    """A host on loopback whose spectator feed is ``entries`` (raw bytes),
    then (``end``) "end" once a spectator is there to hear it."""
    async with open_endpoint(Ed25519PrivateKey.generate(), "liar", bind=LOCAL) as endpoint:
        hub = SpectatorHub(table_description.table_id)
        endpoint.register("watch", hub)
        hub.set_final(final_msg(1, table_description))
        for raw in entries:
            hub.publish(raw)

        async def end_when_watched():
            while not hub.watchers:
                await trio.sleep(0.01)
            hub.end("the game is over")  # queued behind the backlog

        async with trio.open_nursery() as nursery:
            if end:
                nursery.start_soon(end_when_watched)
            yield endpoint.port
            nursery.cancel_scope.cancel()  # the spectator may have quit before "end"


async def watch_fake(bura_game, entries):
    table, early, _ = bura_game
    with trio.fail_after(30):
        async with fake_host(early.spectator.table, entries) as port:
            spectator = Spectator((LOCAL, port))
            with pytest.raises(WatchError) as caught:
                await spectator.run()
    assert spectator.error == str(caught.value)
    return spectator, str(caught.value)


async def test_an_entry_with_a_flipped_byte_stops_the_watch(bura_game):
    log = bura_game[0].results[0].driver.log
    raws = [e.raw for e in log.entries]
    k = 7
    body = bytearray(log[k].body)
    body[-3] ^= 0x01
    raws[k] = Entry.from_wire(make_entry_raw(log[k], bytes(body))).raw
    spectator, error = await watch_fake(bura_game, raws)
    assert f"entry {k} fails verification" in error and "signature" in error
    assert len(spectator.log) == k  # everything before it was taken, nothing after


def make_entry_raw(entry, body):
    import msgpack

    return msgpack.packb([body, entry.signature], use_bin_type=True)


async def test_a_properly_signed_illegal_move_stops_the_watch(bura_game):
    """The author's own key re-signs a move it never could make: signatures
    and chain hold, the rules do not."""
    table = bura_game[0]
    log = table.results[0].driver.log
    k = next(i for i, e in enumerate(log.entries) if e.kind == "action")
    bad = log[k]
    payload = dict(bad.payload, action=dict(bad.payload["action"], type="beat"))  # nothing to beat yet
    forged = make_entry(bad.seq, bad.prev_hash, bad.author, bad.kind, payload, table.keys[bad.author])
    raws = [e.raw for e in log.entries[:k]] + [forged.raw]
    spectator, error = await watch_fake(bura_game, raws)
    assert f"entry {k} (seat {bad.author}'s action) breaks the rules: illegal-move" in error


async def test_a_host_that_stops_early_is_reported(bura_game):
    log = bura_game[0].results[0].driver.log
    spectator, error = await watch_fake(bura_game, [e.raw for e in log.entries[:12]])
    assert "the host stopped after entry 11, before the game ended" in error


async def test_a_feed_without_the_table_entry_is_refused(bura_game):
    log = bura_game[0].results[0].driver.log
    _, error = await watch_fake(bura_game, [e.raw for e in log.entries[1:5]])
    assert "the host's feed does not begin with the table entry (entry 0)" in error


async def test_nobody_at_the_address(bura_game):
    async with open_endpoint(Ed25519PrivateKey.generate(), "gone", bind=LOCAL) as endpoint:
        port = endpoint.port
    spectator = Spectator((LOCAL, port))
    with trio.fail_after(30), pytest.raises(WatchError, match=f"cannot watch the table at {LOCAL}:{port}"):
        await spectator.run()


async def test_the_host_feeds_spectators_the_whole_log_itself(tmp_path):
    """What ``p2pcards host`` really sends spectators, one from the start and
    one joining late: the whole log, entry 0 and the end included."""
    table = Table(tmp_path, "bura", 2, {"table.deals": 1})
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(2):
                nursery.start_soon(table.seat, i)
            await table.port_ready.wait()
            watcher = Recorder(table.port)
            nursery.start_soon(watcher.run)
            await table.final_entries(8)
            late = Recorder(table.port)
            await late.run()
    for recorder in (watcher, late):
        assert recorder.spectator.log.to_bytes() == table.results[0].driver.log.to_bytes()


# ----- the terminal



def test_the_terminal_follows_the_table_refuses_moves_and_writes_the_log(bura_game, tmp_path):
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2pcards.ui.spectator import watch_on
    from p2pcards.ui.app import run_app
    from p2pcards.ui.render import render_header

    table, early, _ = bura_game
    log = table.results[0].driver.log
    out = tmp_path / "sub" / "watched.p2plog"
    said = {}

    with create_pipe_input() as pipe:

        async def type_(ui, line):
            handled = ui.lines_handled
            pipe.send_text(line + "\r")
            await until(lambda: ui.lines_handled > handled and ui.jobs_done == ui.jobs_submitted)
            return "".join(text for _, text in ui.message)

        async def main(ui):
            async with fake_host(early.spectator.table, [e.raw for e in log.entries]) as port:
                code = await watch_on(ui, Spectator((LOCAL, port)), str(out))
            said["end"] = "".join(text for _, text in ui.message)
            said["header"] = fragment_list_to_text(render_header(ui.session))
            said["play"] = await type_(ui, "lead AS")
            said["chat"] = await type_(ui, "chat well played")
            said["moves"] = ui.session.last_moves()
            pipe.send_text("quit\r")  # the match is over: quit leaves at once
            return code

        code = run_app(main, input=pipe, output=DummyOutput())
    assert code == 0
    assert out.read_bytes() == open(table.results[0].log_path, "rb").read()
    assert f"The log is in {out}" in said["end"]
    assert " watching" in said["header"] and "match over" in said["header"]
    assert "spectators do not play" in said["play"]
    assert "spectators do not chat" in said["chat"]
    assert said["moves"][-1].startswith("the match is over")


WATCHING = {"en": "You are watching: only the players pause, answer or play.",
            "pl": "Oglądasz: tylko gracze robią pauzę, odpowiadają i grają.",
            "hu": "Nézőként figyelsz: csak a játékosok tartanak szünetet, válaszolnak és játszanak."}


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
def test_a_spectator_typing_a_players_command_is_told_it_watches(bura_game, lang):
    """pause, continue, away, back, yes and no are the players': a spectator
    typing them is told so in its language (they answered with Python's
    "'Spectator' object has no attribute 'ask_for_pause'")."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2pcards import i18n
    from p2pcards.ui.spectator import watch_on
    from p2pcards.ui.app import run_app

    table, early, _ = bura_game
    log = table.results[0].driver.log
    said = {}
    i18n.set_language(lang)
    try:
        with create_pipe_input() as pipe:

            async def main(ui):
                # A table still going (no "end"): the watch's end must not overwrite the answers.
                async with fake_host(early.spectator.table, [e.raw for e in log.entries[:12]], end=False) as port:
                    spectator = Spectator((LOCAL, port))
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(watch_on, ui, spectator, None)
                        await until(lambda: ui.session is not None and len(spectator.log or ()) == 12)
                        for word in ("pause", "continue", "away", "back", "yes", "no"):
                            handled = ui.lines_handled
                            pipe.send_text(word + "\r")
                            await until(lambda: ui.lines_handled > handled and ui.jobs_done == ui.jobs_submitted)
                            said[word] = "".join(text for _, text in ui.message)
                        nursery.cancel_scope.cancel()
                ui.app.exit()

            run_app(main, input=pipe, output=DummyOutput())
    finally:
        i18n.set_language("en")
    for word, text in said.items():
        assert WATCHING[lang] in text, (word, text)
        assert "attribute" not in text


def test_a_spectator_is_not_told_to_type_continue_during_a_pause():
    from types import SimpleNamespace

    from p2pcards.protocol.narration import pause_status

    machine = SimpleNamespace(pause=SimpleNamespace(held=True, asker=1), finished=False, aborted=False)
    assert pause_status(machine, ["Ala", "Bolek"], None) == "paused by Bolek"
    assert "continue" in pause_status(machine, ["Ala", "Bolek"], 0)


def test_the_terminal_says_why_a_watch_cannot_start():
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2pcards.ui.spectator import watch_on
    from p2pcards.ui.app import run_app

    status = []
    with create_pipe_input() as pipe:

        async def main(ui):
            async with open_endpoint(Ed25519PrivateKey.generate(), "gone", bind=LOCAL) as endpoint:
                port = endpoint.port
            code = await watch_on(ui, Spectator((LOCAL, port)), None)
            status.extend(ui.status)
            pipe.send_text("quit\r")
            return code

        code = run_app(main, input=pipe, output=DummyOutput())
    assert code == 1
    assert status[0].startswith(f"Cannot watch the table at {LOCAL}:")


def test_the_command_says_why_it_cannot_watch_and_exits_1(tmp_path):
    """``p2pcards join ADDR:PORT --watch`` in a terminal, nobody at the address.
    The screen is read as the terminal shows it (tmux), not from the byte
    stream: prompt-toolkit redraws only the cells that changed, so once the
    "connecting" line has been drawn (a busy machine) the message never
    appears in the stream in one piece."""
    import os
    import shutil
    import socket
    import sys

    if shutil.which("tmux") is None:
        pytest.skip("needs tmux")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind((LOCAL, 0))
        port = probe.getsockname()[1]
    command = (f"cd {tmp_path} && TERM=xterm PYTHONPATH={REPO} {sys.executable} -m p2pcards join {LOCAL}:{port} "
               f"--watch --ascii; echo EXITED $?; sleep 30")
    terminal = Terminal(f"p2pcards-watch-test-{os.getpid()}", command, columns=100, rows=30)
    try:
        terminal.wait_for(lambda s: "Cannot watch the table at" in s, "why it cannot watch")
        terminal.wait_for(lambda s: "Type quit to leave" in s, "how to leave")
        terminal.keys("quit", "Enter")
        screen = terminal.wait_for(lambda s: "EXITED" in s, "the command's end")
    finally:
        terminal.close()
    assert "EXITED 1" in screen


async def test_a_table_entry_for_another_table_than_announced_is_refused(bura_game):
    import dataclasses

    table, early, _ = bura_game
    log = table.results[0].driver.log
    announced = early.spectator.table
    # The same people in other seats: a table the lobby could have made, but not this log's.
    seats = tuple(dataclasses.replace(s, seat=i) for i, s in enumerate(reversed(announced.seats)))
    session = compute_session_id(announced.table_id, announced.version, announced.game, announced.options,
                                 seats, announced.contributions)
    other = dataclasses.replace(announced, seats=seats, session_id=session)
    async with fake_host(other, [e.raw for e in log.entries]) as port:
        spectator = Spectator((LOCAL, port))
        with trio.fail_after(30), pytest.raises(WatchError, match="the table entry is for another table than"):
            await spectator.run()
    assert spectator.driver is None


# ----- the host goes and comes back


class FakeWatch:
    """One connection's feed as ``watch_table`` gives it: ``items``, then an
    end (``reason``) or a broken connection (``lost``)."""

    def __init__(self, items, reason="the game is over", lost=False):
        self.items, self.ended, self.lost = list(items), None, lost
        self.reason = reason

    def __aiter__(self):
        return self._feed()

    async def _feed(self):
        for item in self.items:
            if isinstance(item, Later):
                await trio.sleep(item.seconds)
                continue
            await trio.sleep(0)
            yield item
        self.ended = self.reason


def fake_connections(*feeds):
    """A ``connect`` for Spectator: each call the next of ``feeds``: a
    FakeWatch, or None for a host not there (the connection refused)."""
    from p2pcards.net import NetError

    feeds = list(feeds)

    @asynccontextmanager
    async def connect():
        feed = feeds.pop(0) if feeds else None
        await trio.sleep(1)
        if feed is None:
            raise NetError("cannot connect: Connection refused")
        yield feed

    return connect


async def test_the_watch_waits_for_the_host_and_goes_on_when_it_is_back(bura_game, autojump_clock):
    """The host's connection breaks mid-game (it quit and resumes): the
    table waits for it, and so does the spectator, which picks the feed up
    again from where it was (the host sends it from entry 0 again)."""
    from p2pcards.net import LogEntry

    table, early, _ = bura_game
    entries = [LogEntry(i, e.raw) for i, e in enumerate(table.results[0].driver.log.entries)]
    described = early.spectator.table
    first = FakeWatch([described, *entries[:12]], reason="closed the connection", lost=True)
    again = FakeWatch([described, *entries])
    spectator = Spectator((LOCAL, 1), connect=fake_connections(first, None, None, None, again))
    seen = []
    await spectator.run(lambda: seen.append((spectator.host_back_by is not None, spectator.host_returned)))
    assert spectator.finished and spectator.error is None
    assert spectator.log.to_bytes() == table.results[0].driver.log.to_bytes()
    assert (True, False) in seen and seen[-1] == (False, True)


async def test_the_watch_stops_once_the_table_stops_waiting_for_the_host(bura_game, autojump_clock):
    from p2pcards.net import LogEntry

    table, early, _ = bura_game
    entries = [LogEntry(i, e.raw) for i, e in enumerate(table.results[0].driver.log.entries)]
    first = FakeWatch([early.spectator.table, *entries[:12]], reason="closed the connection", lost=True)
    spectator = Spectator((LOCAL, 1), connect=fake_connections(first))
    start = trio.current_time()
    with pytest.raises(WatchError, match="the host stopped after entry 11, before the game ended"):
        await spectator.run()
    waited = trio.current_time() - start
    assert 120 <= waited < 125  # the table's time to come back (entry 0's default), no more


async def test_a_host_back_with_another_entry_than_before_stops_the_watch(bura_game, autojump_clock):
    import dataclasses

    from p2pcards.net import LogEntry

    table, early, _ = bura_game
    entries = [LogEntry(i, e.raw) for i, e in enumerate(table.results[0].driver.log.entries)]
    first = FakeWatch([early.spectator.table, *entries[:12]], reason="closed the connection", lost=True)
    forged = entries[:5] + [dataclasses.replace(entries[5], data=entries[6].data)] + entries[6:]
    spectator = Spectator((LOCAL, 1), connect=fake_connections(first, FakeWatch([early.spectator.table, *forged])))
    with pytest.raises(WatchError, match="another entry 5 than it sent before"):
        await spectator.run()


async def test_the_host_that_crashed_and_resumed_is_watched_to_the_end(tmp_path):
    """Real peers on loopback: the host (seat 0) crashes mid-game and comes
    back (``p2pcards resume``) on its port; the spectator watching there
    waits for it and follows the game to its end, every entry checked."""
    from p2pcards import identity
    from p2pcards.peer.seating import resume_seat

    key0 = identity.load_or_create(tmp_path / "host.pem")
    state_files, port, results, peers = [], [], {}, []
    ready = trio.Event()
    spectator_box = []

    async def host():
        config = SeatConfig(name="Hana", private_key=key0.private_key, key_path=str(key0.path), bind=LOCAL, port=0,
                            log_dir=str(tmp_path / "l0"), strategy="random", bot_seed="h",
                            on_state=state_files.append, on_port=lambda p: (port.append(p), ready.set()))
        config.game, config.players = "bura", 2
        config.options = {"table.deals": 1, "table.turn_timeout": 20, "table.rejoin_timeout": 60}

        def crash_after_some_entries():
            if peers and peers[0].driver.written_len >= 14:
                peers[0].mesh.vanish()  # a crash: no goodbye
                crashed.cancel()

        with trio.CancelScope() as crashed:
            await run_seat(config, on_driver=peers.append, on_change=crash_after_some_entries)
        assert crashed.cancelled_caught
        results[0] = await resume_seat(state_files[0])

    async def joiner():
        await ready.wait()
        config = SeatConfig(name="Jo", private_key=Ed25519PrivateKey.generate(), bind=LOCAL, port=0,
                            log_dir=str(tmp_path / "l1"), strategy="random", bot_seed="j", join=(LOCAL, port[0]))
        results[1] = await run_seat(config)

    async def watcher():
        await ready.wait()
        spectator = Spectator((LOCAL, port[0]), name="watcher")
        spectator_box.append(spectator)
        await spectator.run()

    with trio.fail_after(180):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(joiner)
            nursery.start_soon(watcher)
    spectator = spectator_box[0]
    assert spectator.finished and spectator.error is None and spectator.host_returned
    assert spectator.log.to_bytes() == open(results[0].log_path, "rb").read()


def spectator_due(table, length):
    """Who is due after the first ``length`` entries of the table's log (None: nobody or a non-action)."""
    from p2pcards.protocol.machine import ACTION

    driver = SeatDriver(table.results[0].driver.log[0], None)
    for e in table.results[0].driver.log.entries[1:length]:
        driver.receive(e)
    want = driver.machine.expect()
    return want.author if want.kind == ACTION else None


@dataclass(frozen=True)
class Later:
    """In a FakeWatch's feed: this many seconds pass."""

    seconds: float


TOLD = {"en": ("p1 left the table; the game waits", "p1 is back"),
        "pl": ("p1 odchodzi od stołu; gra czeka", "p1 wraca do gry"),
        "hu": ("p1 kilépett; a játék", "p1 visszatért")}


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
async def test_the_spectator_is_told_when_a_player_leaves_and_comes_back(bura_game, autojump_clock, lang):
    """The host tells its spectators who went and came back (they were told
    nothing): the watch says it in its language and shows the time the
    table waits beside the player's name."""
    from p2pcards import i18n
    from p2pcards.net import LogEntry, TableNews

    table, early, _ = bura_game
    entries = [LogEntry(i, e.raw) for i, e in enumerate(table.results[0].driver.log.entries)]
    session = SpectatorSession()
    seen = {}

    def on_change():
        if spectator.driver is None:
            return
        if session.peer is None:
            session.attach(spectator)
        session.changed()
        if spectator.down_since and "status" not in seen:
            seen["status"] = session.peer_status().get(1)
            seen["left"] = session.last_moves()[-1]
        if "status" in seen and not spectator.down_since and "clock_back" not in seen:
            seen["clock_back"] = session.turn_deadline() - trio.current_time()

    due_1 = next(i for i in range(12, len(entries)) if spectator_due(table, i) == 1)
    feed = FakeWatch([early.spectator.table, *entries[:due_1], TableNews(1, "left"), Later(30), TableNews(1, "back"),
                      *entries[due_1:]])
    spectator = Spectator((LOCAL, 1), connect=fake_connections(feed))
    i18n.set_language(lang)
    try:
        await spectator.run(on_change)
        said = session.last_moves()
    finally:
        i18n.set_language("en")
    assert TOLD[lang][0] in seen["left"] and re.search(r"\d:\d\d", seen["left"])
    assert TOLD[lang][1] in said
    assert seen["clock_back"] == pytest.approx(OPTIONS["table.turn_timeout"])  # seat 1 due, back: a fresh turn
    assert re.search(r"\d:\d\d", seen["status"]) and seen["status"] != "blamed"
    assert spectator.finished and not spectator.down_since


async def test_a_spectator_who_comes_later_hears_who_is_away(bura_game):
    """The host's hub keeps who is away: a watcher connecting later is told
    after the log so far."""
    from p2pcards.net import TableNews

    table, early, _ = bura_game
    log = table.results[0].driver.log
    got = []
    async with open_endpoint(Ed25519PrivateKey.generate(), "host", bind=LOCAL) as endpoint:
        hub = SpectatorHub(early.spectator.table.table_id)
        endpoint.register("watch", hub)
        hub.set_final(final_msg(1, early.spectator.table))
        for e in log.entries[:5]:
            hub.publish(e.raw)
        hub.news(1, "lost")
        hub.news(0, "left")
        hub.news(0, "back")
        from p2pcards.net import watch_table

        with trio.fail_after(30):
            async with watch_table(LOCAL, endpoint.port) as watch:
                async for item in watch:
                    got.append(item)
                    if len(got) == 7:
                        break
    assert got[-1] == TableNews(1, "lost") and not any(isinstance(g, TableNews) for g in got[:-1])


async def test_the_spectator_sees_the_turn_clock_the_players_see(bura_game, autojump_clock):
    """The header's countdown (and the open score sheet's) for a spectator:
    the turn time of the player to act from the last entry (it showed none)."""
    from p2pcards.net import LogEntry
    from p2pcards.protocol.machine import ACTION

    table, early, _ = bura_game
    entries = [LogEntry(i, e.raw) for i, e in enumerate(table.results[0].driver.log.entries)]
    session = SpectatorSession()
    clocks = []

    def on_change():
        if spectator.driver is None or spectator.finished:
            return
        if session.peer is None:
            session.attach(spectator)
        if spectator.machine.expect().kind == ACTION:
            clocks.append(session.turn_deadline() - trio.current_time())

    spectator = Spectator((LOCAL, 1), connect=fake_connections(FakeWatch([early.spectator.table, *entries])))
    await spectator.run(on_change)
    assert clocks and all(c == pytest.approx(OPTIONS["table.turn_timeout"]) for c in clocks)
