"""LocalSession: the seat session the UI is developed and tested against."""

import random

import pytest
import trio

from p2pcards.games import IllegalAction
from p2pcards.ui.session import PHASE_BETWEEN, PHASE_OVER, PHASE_PLAYING, LocalSession, SeatSession
from tests.helpers import until



def test_local_session_is_a_seat_session():
    assert isinstance(LocalSession("bura", 2, bots="random", seed=1), SeatSession)


@pytest.mark.parametrize("game_id, players", [("kanasta", 4), ("kanaszta", 2), ("warkocz", 3), ("bura", 3)])
async def test_a_table_of_bots_plays_a_deal_to_its_end_for_a_spectator(game_id, players):
    session = LocalSession(game_id, players, seat=None, bots="random", seed=4, bot_delay=0, max_deals=1)
    changes = []
    session.subscribe(lambda: changes.append(1))
    assert session.view() is None
    await session.run()
    info = session.match_info()
    assert info["phase"] in (PHASE_BETWEEN, PHASE_OVER)
    assert info["last_deal"] is not None and "seats" in info["last_deal"]
    assert session.view()["hand"] in (None, [])  # a spectator sees no hand
    assert session.legal_actions() == [] and session.hint() is None
    moves = session.last_moves()
    assert moves[-1].startswith("deal over:")
    assert len(moves) == 200 or moves[0].startswith("deal 1:")
    assert len(changes) > len(moves) // 2


async def test_the_human_plays_in_turn_and_refused_moves_change_nothing():
    session = LocalSession("warkocz", 2, seat=0, bots="random", seed=11, bot_delay=0, max_deals=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        rng = random.Random(3)
        refused = 0
        await until(lambda: session.match_info()["phase"] == PHASE_PLAYING)
        while True:
            await until(lambda: session.to_act() == 0 or session.match_info()["phase"] != PHASE_PLAYING)
            if session.match_info()["phase"] != PHASE_PLAYING:
                break
            before = session.view()
            with pytest.raises(IllegalAction, match="no KS in the warkocz deck"):
                await session.act({"type": "play", "cards": ["KS"]})
            assert session.view() == before
            refused += 1
            await session.act(rng.choice(session.legal_actions()))
    assert refused > 0
    assert any(line.startswith("You ") for line in session.last_moves())


async def test_acting_out_of_turn_names_the_player_to_act():
    session = LocalSession("bura", 2, seat=0, bots="random", seed=2, bot_delay=1000, max_deals=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        await until(lambda: session.to_act() is not None)
        if session.to_act() == 1:
            with pytest.raises(IllegalAction, match="not your turn: Ada is to play"):
                await session.act({"type": "lead", "cards": ["AS"]})
            assert session.legal_actions() == [] and session.hint() is None
        nursery.cancel_scope.cancel()


async def test_chat_is_logged_and_does_not_end_the_turn(autojump_clock):
    session = LocalSession("warkocz", 2, seat=1, bots="random", seed=3, bot_delay=0, max_deals=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        await until(lambda: session.to_act() == 1)
        legal = session.legal_actions()
        await session.chat("szia!")
        await trio.sleep(5)
        assert session.to_act() == 1 and session.legal_actions() == legal
        assert session.last_moves()[-1] == "You: szia!"
        nursery.cancel_scope.cancel()


async def test_when_the_time_runs_out_the_bot_plays_for_the_human(autojump_clock):
    session = LocalSession("bura", 2, seat=0, bots="random", seed=5, bot_delay=0, turn_time=30, max_deals=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        await until(lambda: session.to_act() == 0)
        deadline = session.turn_deadline()
        assert deadline is not None and deadline - trio.current_time() == pytest.approx(30, abs=0.5)
        await until(lambda: any("time ran out" in m for m in session.last_moves()), step=1)
        nursery.cancel_scope.cancel()


async def test_deals_follow_each_other_through_the_match_hooks(autojump_clock):
    session = LocalSession("warkocz", 2, seat=None, bots="random", seed=8, bot_delay=0, pause=None, max_deals=2)
    seen = []
    session.subscribe(lambda: seen.append((session.match_info()["phase"], session.match_info()["deal_index"])))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        await until(lambda: session.match_info()["phase"] == PHASE_BETWEEN)
        assert session.turn_deadline() is None
        await trio.sleep(100)  # with no pause set, the next deal waits for ready()
        assert session.match_info()["phase"] == PHASE_BETWEEN
        assert session.view()["dealer"] == 0
        await session.ready()
    assert (PHASE_PLAYING, 1) in seen
    assert session.view()["dealer"] == 1  # the dealer passed left
    assert sum(1 for line in session.last_moves() if line.startswith("deal over")) == 2


async def test_a_broken_bot_plays_at_random_instead_of_ending_the_game():
    session = LocalSession("warkocz", 2, seat=None, bots="random", seed=8, bot_delay=0, max_deals=1)

    def broken(game, state):
        raise RuntimeError("boom")

    session.bots[0].choose = broken
    await session.run()
    assert any("bot error RuntimeError: played at random" in m for m in session.last_moves())


@pytest.mark.parametrize("game_id, players, options", [("warkocz", 2, {"target": 6}), ("bura", 3, {"rounds": 1}),
                                                     ("kanaszta", 2, {"target": 500})])
async def test_a_whole_match_ends_with_its_verdict_on_the_table(game_id, players, options):
    from prompt_toolkit.formatted_text import fragment_list_to_text

    from p2pcards.ui.render import render_header, render_table

    session = LocalSession(game_id, players, seat=None, bots="greedy", seed=2, bot_delay=0, pause=0, options=options)
    await session.run()
    info = session.match_info()
    assert info["phase"] == PHASE_OVER and info["result"] is not None
    table = fragment_list_to_text(render_table(session))
    assert "The match is over: " in table
    assert "match over" in fragment_list_to_text(render_header(session))
    if info["chips"] is not None:
        assert "Final chips: " in table
    assert session.last_moves()[-1] == "the match is over"
    assert not any("bot error" in line for line in session.last_moves())


async def test_between_deals_the_next_deal_starts_by_itself_after_the_pause(autojump_clock):
    session = LocalSession("warkocz", 2, seat=None, bots="random", seed=8, bot_delay=0, pause=20, max_deals=2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        await until(lambda: session.match_info()["phase"] == PHASE_BETWEEN)
        assert session.turn_deadline() - trio.current_time() == pytest.approx(20, abs=0.5)
    assert sum(1 for line in session.last_moves() if line.startswith("deal over")) == 2


@pytest.mark.parametrize("game_id, players", [("kanaszta", 4), ("warkocz", 3), ("bura", 2)])
async def test_bots_see_only_their_own_seat_and_the_strong_bot_plays(game_id, players):
    """Each bot is handed its seat's state, as at a network table: at its
    first move every other hand is unknown tokens (nothing has been shown
    yet). So the strong bot may sit at this table too."""
    from p2pcards.bots import Bot
    from p2pcards.cards import is_unknown

    session = LocalSession(game_id, players, seat=None, bots="strong", seed=6, bot_delay=0, max_deals=1)
    seen = []

    class Watching:
        def __init__(self, seat):
            self.seat, self.bot = seat, Bot("strong", seed=seat, iterations=3)

        def choose(self, game, state):
            if not any(s == self.seat for s, _ in seen):
                for other in range(players):
                    if other != self.seat:
                        seen.append((self.seat, all(is_unknown(c) for c in game.hand(state, other))))
            return self.bot.choose(game, state)

    session.bots = {s: Watching(s) for s in range(players)}
    await session.run()
    assert session.match_info()["last_deal"] is not None
    assert {s for s, _ in seen} == set(range(players)) and all(hidden for _, hidden in seen)
    assert not any("bot error" in line for line in session.last_moves())
