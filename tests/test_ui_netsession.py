"""The network seat's session read from a real table's entries (seat drivers
in one process, tests/helpers.py): chat in order, score sheets with every hand,
numbers that agree with the end entry, no "reconnecting" once it is over."""

from types import SimpleNamespace

from p2pcards.bots import Bot
from p2pcards.cards import unknown_position
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
    assert sorted(int(line.split(": ")[1].split()[0]) for line in standings) == sorted(end["scores"])


def test_nobody_is_shown_reconnecting_once_the_match_is_over():
    session, _ = watched_match("bura", 2, {"rounds": 1})
    assert session.peer.machine.finished
    assert session.peer_status() == {}  # the mesh is not even asked


def test_my_own_draws_name_the_card_once_its_keys_show_it_and_nobody_elses_do():

    session, _ = watched_match("kanasta", 2, {"target": 1500}, batch=3)
    me, other = session.names[session.seat], session.names[1 - session.seat]
    lines = session.last_moves()
    mine = [line for line in lines if line.startswith(f"{me} draw")]
    # the card named is the one drawn
    codes = {d.index: d.codes for d in session.peer.machine.deals}
    truth = [codes[d[0]][unknown_position(d[1])] if d else None for d in session.drawn]
    assert mine and len(mine) <= len(truth)
    for line, card in zip(mine, truth[-len(mine):]):  # the screen keeps the last lines only
        assert line in (f"{me} draws {card}", f"{me} draws") if card else line == f"{me} draws", (line, card)
    assert all(line == f"{other} draws" for line in lines if line.startswith(f"{other} draw"))
    assert not any("?" in line for line in lines)  # never a token for a card


def test_a_player_told_of_every_entry_sees_every_card_drawn_named():
    session, _ = watched_match("kanasta", 2, {"target": 1500}, batch=1)
    me = session.names[session.seat]
    mine = [line for line in session.last_moves() if line.startswith(f"{me} draw")]
    codes = {d.index: d.codes for d in session.peer.machine.deals}
    truth = [codes[d[0]][unknown_position(d[1])] if d else None for d in session.drawn]
    assert mine
    for line, card in zip(mine, truth[-len(mine):]):
        assert line == (f"{me} draws {card}" if card else f"{me} draws"), (line, card)


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
