"""The network seat's session read from a real table's entries (seat drivers
in one process, tests/helpers.py): chat in order, score sheets with every hand,
numbers that agree with the end entry, no "reconnecting" once it is over."""

from types import SimpleNamespace

import pytest

from p2pcards.bots import Bot
from p2pcards.cards import is_code, unknown_position
from p2pcards.protocol.machine import ACTION, END
from p2pcards.ui.network_session import NetworkSession
from p2pcards.protocol.driver import SeatDriver
from p2pcards.ui.commands import describe
from p2pcards.ui.scoresheet import deal_sheet, match_sheet
from tests.helpers import make_genesis, sign_the_end


def watched_match(game_id, players, options=None, chat_at=(), batch=7, seed=1, on_change=lambda session: None):
    """Play a match; seat ``players - 1``'s session follows it (the other
    seats chat with their ``chat_at``-th moves), told of
    changes only every ``batch`` entries (as a spectator catching up is)."""
    genesis, signers = make_genesis(game_id, players, options)
    drivers = [SeatDriver(genesis, i, signers[i]) for i in range(players)]
    bots = [Bot("greedy", seed * 10 + i) for i in range(players)]
    me = drivers[-1]
    peer = SimpleNamespace(driver=me, machine=me.machine, seat=me.seat, chat_seen=[], table_news=[], mesh=None)
    session = NetworkSession(game_id)
    session.attach(peer)
    game, actions, said, drawn = me.game, 0, [], []
    session.drawn = drawn  # (deal, the token of the card I drew), for the tests to check
    for step in range(100000):
        machine = drivers[0].machine
        if machine.finished:
            break
        want = machine.expect()
        if want.kind == END:
            sign_the_end(drivers)
            continue
        author = drivers[want.author]
        chat = None
        if want.kind == ACTION and want.author != me.seat:
            actions += 1  # the other seats' moves: ``chat_at`` counts those
            if actions in chat_at:
                chat = [f"move {actions} coming"]
        action = bots[want.author].choose(game, author.my_state()) if want.kind == ACTION else None
        if chat:
            said.append((chat[0], describe(game, None, want.author, action, session.names)))
        held = len(me.machine.state.hands[me.seat]) if me.machine.state is not None else 0
        entry = author.write(action, chat=chat)
        for d in drivers:
            if d is not author:
                d.receive(entry)
        if author is me and action and action.get("type") == "draw":
            hand = me.machine.state.hands[me.seat] if me.machine.state is not None else []
            # (deal, token of the card drawn), or None when the stock was empty
            drawn.append((me.machine.deal.index, hand[-1]) if len(hand) > held else None)
        if chat and author is not me:
            peer.chat_seen.extend((entry.author, text) for text in chat)  # as the table hands it over
        if step % batch == 0:
            session.changed()
            on_change(session)
    session.changed()
    return session, said


def test_a_chat_line_comes_before_the_move_it_was_logged_with():
    session, said = watched_match("bura", 2, chat_at=(2, 7), batch=13)
    lines = session.last_moves()
    assert said
    for text, move in said:
        i = next(i for i, line in enumerate(lines) if line.endswith(text))
        assert lines[i + 1] == move, lines[i - 2:i + 3]
    assert len([line for line in lines if "coming" in line]) == len(said)  # each chat once


def test_the_score_sheets_show_every_hand_and_agree_with_the_end_entry():
    session, _ = watched_match("kanasta", 2, {"target": 1500}, batch=1)
    machine = session.peer.machine
    assert machine.finished
    deals = session.finished_deals()
    assert len(deals) == len([d for d in machine.deals if d.scores is not None]) >= 1
    end = machine.end_payload()
    assert deals[-1].match_scores == end["scores"]
    for deal in deals:
        assert deal.hands is not None and len(deal.hands) == 2
        # the cards left in hand are what the engine counted against them
        lines = deal_sheet(session.game, session.names, session.options, deal)
        assert any(line.startswith("Cards in hand") for line in lines)
        assert any(line.startswith("Match total") for line in lines)
    info = session.match_info()
    assert info["phase"] == "over" and info["deal_index"] == deals[-1].number - 1
    sheet = match_sheet(session.game, session.names, session.options, info["result"], "x", "/tmp/log")
    standings = [line for line in sheet if line.startswith("  1. ") or line.startswith("  2. ")]
    # the standings group digits as English does (1,860)
    assert sorted(int(line.split(": ")[1].split()[0].replace(",", "")) for line in standings) == sorted(end["scores"])


def test_nobody_is_shown_reconnecting_once_the_match_is_over():
    session, _ = watched_match("bura", 2, {"rounds": 1})
    assert session.peer.machine.finished
    assert session.peer_status() == {}  # the mesh is not even asked


def test_my_own_draws_name_the_card_once_its_keys_show_it_and_nobody_elses_do():

    session, _ = watched_match("kanasta", 2, {"target": 1500}, batch=3)
    me, other = session.names[session.seat], session.names[1 - session.seat]
    lines = session.last_moves()
    mine = [line for line in lines if line.startswith("You draw")]  # my own moves read in the second person
    assert not any(line.startswith(f"{me} ") for line in lines)
    # the card named is the one drawn
    codes = {d.index: d.codes for d in session.peer.machine.deals}
    truth = [codes[d[0]][unknown_position(d[1])] if d else None for d in session.drawn]
    assert mine and len(mine) <= len(truth)
    for line, card in zip(mine, truth[-len(mine):]):  # the screen keeps the last lines only
        assert line in (f"You draw {card}", "You draw") if card else line == "You draw", (line, card)
    assert all(line == f"{other} draws" for line in lines if line.startswith(f"{other} draw"))
    assert not any("?" in line for line in lines)  # never a token for a card


def test_a_player_told_of_every_entry_sees_every_card_drawn_named():
    session, _ = watched_match("kanasta", 2, {"target": 1500}, batch=1)
    mine = [line for line in session.last_moves() if line.startswith("You draw")]
    codes = {d.index: d.codes for d in session.peer.machine.deals}
    truth = [codes[d[0]][unknown_position(d[1])] if d else None for d in session.drawn]
    assert mine
    for line, card in zip(mine, truth[-len(mine):]):
        assert line == (f"You draw {card}" if card else "You draw"), (line, card)


def test_between_deals_the_header_names_the_deal_just_over_and_next_says_it_comes_by_itself():
    from prompt_toolkit.formatted_text import fragment_list_to_text

    from p2pcards.ui.render import render_header

    seen = []

    def look(session):
        info = session.match_info()
        if info["phase"] == "between":
            seen.append((info["deal_index"], session.finished_deals()[-1].number,
                         fragment_list_to_text(render_header(session))))

    watched_match("bura", 2, {"rounds": 2}, batch=1, on_change=look)
    assert seen
    for index, number, header in seen:
        assert index == number - 1 and f"deal {number} " in header and "the next deal is on its way" in header
        assert "type next" not in header


def test_after_an_abort_only_the_blamed_seat_is_marked_and_nobody_is_reconnecting():
    session = NetworkSession("bura")
    session.peer = SimpleNamespace(machine=SimpleNamespace(finished=False, aborted=True, excluded={1}), mesh=None)
    assert session.peer_status() == {1: "blamed"}  # the mesh (closed by now) is not asked


# ----- several entries taken in between two redraws ---------------------------------------------

def followed_match(game_id, players, options=None, every=(1, 9), seed=3, entries=200000, log_path=None,
                   stop=None):
    """Play a match (its first ``entries`` entries) between seat drivers in
    one process. The last seat's ``NetworkSession`` and a spectator's session
    follow it, one of each per ``n`` in ``every``, each told of changes only
    every ``n`` entries (as after a bot's quick answer or a reconnect). The
    last seat keeps its log in ``log_path``; ``stop(log)`` true ends the
    match there. Returns ({n: player's session},
    {n: spectator's session}, the drivers)."""
    from p2pcards.ui.spectator import SpectatorSession

    genesis, signers = make_genesis(game_id, players, options)
    drivers = [SeatDriver(genesis, i, signers[i], log_path=log_path if i == players - 1 else None)
               for i in range(players)]
    watcher = SeatDriver(genesis, None)
    bots = [Bot("greedy", seed * 10 + i) for i in range(players)]

    def follow(driver, session):
        session.attach(SimpleNamespace(driver=driver, machine=driver.machine, seat=driver.seat, chat_seen=[],
                                       table_news=[], mesh=None))
        return session

    mine = {n: follow(drivers[-1], NetworkSession(game_id)) for n in every}
    watching = {n: follow(watcher, SpectatorSession()) for n in every}
    game = drivers[0].game
    for taken in range(1, entries + 1):
        machine = drivers[0].machine
        if machine.finished or (stop is not None and stop(drivers[0].log)):
            break
        want = machine.expect()
        if want.kind == END:
            sign_the_end(drivers)
            watcher.receive(drivers[0].log[-1])
        else:
            author = drivers[want.author]
            action = bots[want.author].choose(game, author.my_state()) if want.kind == ACTION else None
            entry = author.write(action)
            for d in drivers + [watcher]:
                if d is not author:
                    d.receive(entry)
        for n in every:
            if taken % n == 0:
                mine[n].changed()
                watching[n].changed()
    for session in [*mine.values(), *watching.values()]:
        session.changed()
    return mine, watching, drivers


def told_at_the_table(frame) -> bool:
    """The entries the table's history has a line for: moves, pauses, an
    abort, the end, and the dealing and the final reveal once per deal."""
    from p2pcards.protocol.machine import ABORT, PAUSE, REVEAL, SHUFFLE

    return frame.kind in (ACTION, PAUSE, ABORT, END) or (frame.kind in (SHUFFLE, REVEAL) and frame.author == 0)


@pytest.mark.parametrize("game_id,players,options", [
    ("kanasta", 2, {"target": 1500}),
    ("bura", 3, {"rounds": 2}),
])
def test_entries_taken_in_together_read_as_they_would_one_at_a_time(game_id, players, options, tmp_path,
                                                                     monkeypatch):
    from p2pcards.audit.replay import load_replay
    from p2pcards.protocol.driver import STEPS_KEPT
    from p2pcards.ui import network_session
    from p2pcards.ui.session import deal_summary

    monkeypatch.setattr(network_session, "HISTORY", 100000)  # every line, not the screen's last ones
    mine, watching, drivers = followed_match(game_id, players, options)
    assert mine[9].last_moves() == mine[1].last_moves()
    assert watching[9].last_moves() == watching[1].last_moves()
    assert all(len(d.steps) <= STEPS_KEPT for d in drivers)  # the table before each entry: the latest ones only
    # ... and as the replay reads the same log, entry by entry (the deals' results aside)
    path = tmp_path / "match.log"
    path.write_bytes(drivers[0].log.to_bytes())
    replay = load_replay(path)
    session = watching[9]
    results = [deal_summary(session.game, session.names, session.options, d.scores)
               for d in session.peer.machine.deals if d.scores is not None]
    lines = session.last_moves()
    assert [line for line in lines if line in results] == results
    assert [line for line in lines if line not in results] == [f.text for f in replay.frames[1:] if told_at_the_table(f)]


def test_a_seat_coming_back_tells_the_deal_so_far_as_it_was_played(tmp_path):
    path = tmp_path / "seat.log"
    # Twelve moves into the first deal (the deals are random: a count of entries may reach the next deal).
    moves = lambda log: sum(1 for e in log if e.kind == ACTION)  # noqa: E731
    mine, watching, drivers = followed_match("kanasta", 2, {"target": 1500}, every=(1,), log_path=path,
                                             stop=lambda log: moves(log) >= 12)
    me = drivers[-1]
    assert me.machine.deal.index == 0 and not me.machine.finished  # mid-deal: every entry is kept for the screen
    me.finalize()
    me.write_final()
    me.close()
    back = SeatDriver.reopen(path, me.seat, me.signer, seeds=me.me.seeds)
    session = NetworkSession(None)
    session.attach(SimpleNamespace(driver=back, machine=back.machine, seat=back.seat, chat_seen=[], table_news=[],
                                   mesh=None))
    assert session.last_moves() == mine[1].last_moves()
    assert any(line.startswith("You draw ") for line in session.last_moves())  # my draws name their cards, as they did



def test_a_seat_coming_back_after_a_deal_is_over_keeps_that_deals_hands_on_its_score_sheet(tmp_path, monkeypatch):
    """A resumed game's sheets are the sheets it had: the deals over before
    the seat came back show every hand at their end, also when the driver
    kept none of that deal's steps for the screen (a long game)."""
    from p2pcards.protocol import driver
    from p2pcards.protocol.machine import REVEAL

    path = tmp_path / "seat.log"

    def into_the_second_deal(log) -> bool:  # a few moves after the first deal's reveals
        last_reveal = max((i for i, e in enumerate(log) if e.kind == REVEAL), default=None)
        return last_reveal is not None and sum(1 for e in log[last_reveal:] if e.kind == ACTION) >= 3

    mine, _watching, drivers = followed_match("warkocz", 2, {"target": 100}, every=(1,), log_path=path,
                                              stop=into_the_second_deal)
    me = drivers[-1]
    assert me.machine.deal.index == 1 and not me.machine.finished
    before = mine[1].finished_deals()
    assert len(before) == 1 and before[0].hands is not None
    me.finalize()
    me.write_final()
    me.close()
    monkeypatch.setattr(driver, "STEPS_KEPT", 2)  # only the last two entries kept: none of the first deal
    back = SeatDriver.reopen(path, me.seat, me.signer, seeds=me.me.seeds)
    session = NetworkSession(None)
    session.attach(SimpleNamespace(driver=back, machine=back.machine, seat=back.seat, chat_seen=[], table_news=[],
                                   mesh=None))
    [deal] = session.finished_deals()
    assert deal.hands == before[0].hands
    sheet = deal_sheet(session.game, session.names, session.options, deal)
    assert "Hands at the end:" in sheet


def test_an_abort_that_takes_the_place_of_a_move_already_told_is_told():
    from p2pcards.protocol.machine import Violation

    genesis, signers = make_genesis("bura", 3)
    drivers = [SeatDriver(genesis, i, signers[i]) for i in range(3)]
    me = drivers[2]
    session = NetworkSession("bura")
    session.attach(SimpleNamespace(driver=me, machine=me.machine, seat=me.seat, chat_seen=[], table_news=[],
                                   mesh=None))
    bot = Bot("greedy", 1)
    while not (me.machine.expect().kind == ACTION and me.machine.expect().author == 0):
        want = me.machine.expect()
        author = drivers[want.author]
        entry = author.write(bot.choose(me.game, author.my_state()) if want.kind == ACTION else None)
        for d in drivers:
            if d is not author:
                d.receive(entry)
    move = drivers[0].write(bot.choose(me.game, drivers[0].my_state()))
    me.receive(move)  # seat 1 has not seen it yet: it stops the game in its place
    session.changed()
    told = session.last_moves()[-1]
    abort = drivers[1].write_abort(Violation(None, "no-card", "position 3 opens to no card"))
    me.rollback(move.seq)
    me.receive(abort)
    session.changed()
    assert session.last_moves()[-2] == told
    assert session.last_moves()[-1].startswith("GAME STOPPED by player1")


# ----- the turn clock ---------------------------------------------------------------------------

async def test_everybody_sees_the_clock_the_player_to_act_sees_and_then_the_tables_extra_wait(autojump_clock):
    """Seat 2 waits for seat 1's move: its clock shows seat 1's turn time,
    the time after which seat 1's own client plays for them, not the longer
    wait before the table gives up on a silent client; once that turn time
    is over the extra wait shows, and for a player whose connection broke,
    the table's whole wait, their time to come back included. (A mock
    clock: the times compared are of one instant.)"""
    import trio

    from fuzz import kit
    from p2pcards.peer import TablePeer, auto_play_margin

    m = kit.match("bura3")
    k = next(i for i, e in enumerate(m.entries) if i and e.kind == ACTION and e.author == 1)
    seats = [SeatDriver(m.genesis, s, m.signers[s], seeds=m.seeds[s]) for s in range(m.players)]
    driver = seats[2]
    for e in m.entries[1:k]:
        driver.receive(e)
    driver.finalize()  # every entry taken is final: seat 1's move is what the table waits for
    peer = TablePeer(driver, SimpleNamespace(), None)
    session = NetworkSession("bura")
    session.attach(peer)
    assert session.to_act() == 1
    timeout = peer.options.turn_timeout
    peer._progress_at = trio.current_time()
    assert session.turn_deadline() == pytest.approx(peer._progress_at + timeout)
    assert peer.turn_deadline(1) == pytest.approx(peer._progress_at + timeout + auto_play_margin(timeout))
    peer._progress_at -= timeout + 1  # seat 1's turn time is over: the table still waits the margin
    assert session.turn_deadline() == pytest.approx(peer.turn_deadline(1))
    assert session.turn_deadline() > trio.current_time()
    peer._progress_at = trio.current_time()
    peer.down_since[1] = trio.current_time()  # seat 1's connection broke: its time to come back shows
    assert session.turn_deadline() == pytest.approx(peer.turn_deadline(1))
    assert session.turn_deadline() >= trio.current_time() + peer.options.rejoin_timeout
    assert session.turn_deadline() > peer.auto_play_at()
    # Beside their name, the same clock as the header's (not just the rejoin time).
    from p2pcards.ui.render import fmt_clock

    broken = SimpleNamespace(connected=False, epoch=1, since=trio.current_time())
    peer.mesh = SimpleNamespace(peer_status=lambda: {1: broken})
    shown = session.peer_status()[1]
    assert shown == f"reconnecting ({fmt_clock(session.turn_deadline() - trio.current_time())} left)", shown
    # Seat 1 is back with a fresh clock of its own (a client resumed), after
    # ours ran out and we attested their silence: the clock shows how long
    # the table still waits for the others to attest it, not 0:00.
    del peer.down_since[1]
    peer._progress_at -= timeout + auto_play_margin(timeout) + 1

    async def sent(msg):
        pass

    peer.mesh = SimpleNamespace(broadcast=sent, peer_status=lambda: {})
    await peer._attest_silence(1, "timeout")
    assert session.turn_deadline() == pytest.approx(trio.current_time() + peer.options.rejoin_timeout)


def test_leaving_a_game_unfinished_says_in_the_shell_how_to_come_back():
    """The screen closes on a game still going (the player quit): the shell
    keeps the way back; a spectator's or a finished game's close says
    nothing of it."""
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from p2pcards.ui.app import TableApp

    mine, watching, drivers = followed_match("bura", 2, every=(1,), entries=60)
    with create_pipe_input() as pipe:
        ui = TableApp(input=pipe, output=Vt100_Output(io.StringIO(), lambda: Size(rows=30, columns=80), term="xterm"))
        ui.show(mine[1])
        assert ui.closing_summary() == ("The game is not over. Come back to it with: p2pcards resume (or the same "
                                        "command again)")
        ui.show(watching[1])
        assert ui.closing_summary() is None
    mine, _, drivers = followed_match("bura", 2, {"rounds": 1}, every=(1,))
    assert drivers[0].machine.finished
    with create_pipe_input() as pipe:
        ui = TableApp(input=pipe, output=Vt100_Output(io.StringIO(), lambda: Size(rows=30, columns=80), term="xterm"))
        ui.show(mine[1])
        assert "come back" not in (ui.closing_summary() or "").lower()


def test_my_own_face_down_throws_are_named_even_when_not_typed_here():
    """A throw of mine this client did not send (made before a restart, or
    played for me) still names its cards in my lines: my hand says which
    left it. Nobody else's throw is named."""
    mine, theirs = [], []
    for seed in range(1, 6):  # the deals are dealt at random: some have no throw by one side
        session, _said = watched_match("bura", 2, {"rounds": 2}, batch=1, seed=seed)
        mine += [line for line in session.last_moves() if line.startswith("You throw")]
        theirs += [line for line in session.last_moves() if " throws " in line and not line.startswith("You")]
    assert mine and theirs
    for line in mine:
        assert line.split(": ", 1)[-1] != line and all(is_code(c) for c in line.split(": ", 1)[1].split()), line
    assert not any(": " in line for line in theirs), theirs


SHEET_CLOCK = {  # (mine, another's) turn line on the sheet, for deal 2 with 1:35 left
    "en": ("Deal 2: your move, 1:35 left. Enter takes you back to the table.", "Deal 2: player0 to play, 1:35 left."),
    "pl": ("Rozdanie 2: twój ruch, zostało 1:35. Enter wraca do stołu.", "Rozdanie 2: ruch: player0, zostało 1:35."),
    "hu": ("2. osztás: te jössz, 1:35 van hátra. Az Enter visszavisz az asztalhoz.", "2. osztás: player0 jön, 1:35 van hátra."),
}


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
@pytest.mark.parametrize("columns", [80, 120])
def test_the_open_score_sheet_shows_the_next_deals_turn_and_its_clock(lang, columns):
    """The table deals on while the last deal's score sheet is open: the
    sheet shows whose move it is in the new deal and the countdown every
    player sees, so that nobody's time runs out unseen behind it (the
    client then played for the player)."""
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from p2pcards import i18n
    from p2pcards.ui.app import TableApp

    def first_move_of_deal_2_made(log):
        return any(e.kind == ACTION and e.payload.get("deal") == 1 for e in log.entries)

    i18n.set_language(lang)
    try:
        mine, watching, drivers = followed_match("bura", 2, every=(1,), stop=first_move_of_deal_2_made)
        for session, me in ((mine[1], True), (watching[1], False)):
            with create_pipe_input() as pipe:
                output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=columns), term="xterm")
                ui = TableApp(input=pipe, output=output)
                ui.show(session)
                ui.show_score_sheet()
                ui.remaining = 94.2
                shown = fragment_list_to_text(ui._pager_text()).replace("\n", " ")
                shown = " ".join(shown.split())  # as read, whatever the width wrapped
            assert ui.pager_is_sheet and session.match_info()["deal_index"] == 1
            line = SHEET_CLOCK[lang][0] if me and session.to_act() == session.seat else SHEET_CLOCK[lang][1]
            if session.to_act() != 0:
                line = line.replace("player0", session.names[session.to_act()])
            assert line in shown, shown
    finally:
        i18n.set_language("en")


def _waiting_for(due, me=2):
    """Seat ``me``'s peer and session of a bura table of three, every entry
    final, seat ``due``'s move due; its mesh delivers what ``peer.mesh.events``
    is sent (PeerUp, PeerDown) and says nothing."""
    import trio

    from fuzz import kit
    from p2pcards.peer import TablePeer

    m = kit.match("bura3")
    k = next(i for i, e in enumerate(m.entries) if i and e.kind == ACTION and e.author == due)
    driver = SeatDriver(m.genesis, me, m.signers[me], seeds=m.seeds[me])
    for e in m.entries[1:k]:
        driver.receive(e)
    driver.finalize()

    class QuietMesh:
        def __init__(self):
            self.events, self._events = trio.open_memory_channel(16)

        def __aiter__(self):
            return self

        async def __anext__(self):
            return await self._events.receive()

        async def send(self, seat, msg):
            pass

        async def broadcast(self, msg):
            pass

        def peer_status(self):
            return {}

    peer = TablePeer(driver, QuietMesh(), None)
    session = NetworkSession("bura")
    session.attach(peer)
    assert session.to_act() == due
    return peer, session


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
async def test_the_news_of_a_player_gone_gives_the_same_time_to_come_back_as_beside_their_name(
        autojump_clock, lang):
    """Seat 1 left while its move was due: the table waits for it its turn's
    time as well, so the news line says the same time as the clock beside
    its name (the news said 2:00 while the clock showed 2:55)."""
    import re

    import trio

    from p2pcards import i18n

    peer, session = _waiting_for(1)
    await trio.sleep(5)
    peer.down_since[1] = trio.current_time()
    peer.left_on_purpose.add(1)
    peer.table_news.append((1, "left"))
    peer.mesh.peer_status = lambda: {1: SimpleNamespace(connected=False, epoch=1, since=trio.current_time())}
    i18n.set_language(lang)
    try:
        session.changed()
        news, status = session.last_moves()[-1], session.peer_status()[1]
    finally:
        i18n.set_language("en")
    clocks = [re.findall(r"\d+:\d\d", text) for text in (news, status)]
    assert clocks[0] == clocks[1] == ["2:55"], (news, status)


async def _comes_and_goes(peer, *events):
    import trio

    for event in events:
        await peer.mesh.events.send(event)
        await trio.sleep(17)


async def test_a_player_back_while_its_move_is_due_gets_a_fresh_turn_on_every_clock(autojump_clock):
    """Seat 1 comes back (a resumed client, whose clock starts then): seat 2's
    clock for its move starts afresh too, so the two agree (they differed by
    the time it was away); once per entry, so coming and going cannot stall."""
    import trio

    from p2pcards.net import PeerDown, PeerUp

    peer, session = _waiting_for(1)
    timeout = peer.options.turn_timeout
    async with trio.open_nursery() as nursery:
        nursery.start_soon(peer._reader)
        await trio.sleep(10)
        await _comes_and_goes(peer, PeerDown(1, 1, "gone", False))
        back = trio.current_time()
        await _comes_and_goes(peer, PeerUp(1, 2))
        assert session.turn_deadline() == pytest.approx(back + timeout)
        await _comes_and_goes(peer, PeerDown(1, 2, "gone", False), PeerUp(1, 3))  # again: no second fresh turn
        assert session.turn_deadline() == pytest.approx(back + timeout)
        nursery.cancel_scope.cancel()


async def test_the_player_due_never_restarts_its_own_clock_when_others_come_back(autojump_clock):
    """Seat 2, whose move is due, sees the others go and come back: its own
    clock (when its client plays for it) stays as it was. A client must
    never wait past the others' limit, and one whose link mended may not
    know whether the others saw it gone."""
    import trio

    from p2pcards.net import PeerDown, PeerUp

    peer, _ = _waiting_for(2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(peer._reader)
        await trio.sleep(10)
        start = peer.auto_play_at()
        await _comes_and_goes(peer, PeerDown(0, 1, "gone", False), PeerDown(1, 1, "gone", False),
                              PeerUp(1, 2), PeerUp(0, 2))
        assert peer.auto_play_at() == start
        nursery.cancel_scope.cancel()


def test_the_score_sheet_shown_again_when_the_log_is_kept_stays_where_the_player_scrolled():
    """The match's end opens its sheet; a moment later the log is written and
    the sheet shown again with its path. A player who had already paged down
    to the final standings stays there (they jumped back to the top)."""
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from p2pcards.ui.app import TableApp

    mine, _, drivers = followed_match("bura", 2, {"rounds": 1}, every=(1,))
    assert drivers[0].machine.finished
    with create_pipe_input() as pipe:
        ui = TableApp(input=pipe, output=Vt100_Output(io.StringIO(), lambda: Size(rows=12, columns=80), term="xterm"))
        ui.show(mine[1])
        ui.show_score_sheet()
        rows = ui.pager_rows
        ui.pager_offset = rows - 3  # paged down to the end
        ui.match_logged("/somewhere/bura-seat1.p2plog")
        assert ui.pager_is_sheet and ui.pager_rows > rows  # the log's place was added
        assert ui.pager_offset == rows - 3
        ui.pager = None  # closed, then opened again: from the top
        ui.show_score_sheet()
        assert ui.pager_offset == 0
