"""Every engine must play the same game when it cannot see the hidden cards.

A deal is played twice side by side: once with every card known (what the
audit does), once as the network does it: a public state of unknown tokens,
cards shown to a seat or to all exactly when ``view`` says so, each seat's own
state being the public one plus what it has seen. At every step each seat's
view, the seat to act and its legal actions must be the same in both.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from p2pcards.bots.strong.arena import KnowledgeTable  # the network's knowledge model, the full deck as oracle
from p2pcards.cards import unknown
from p2pcards.games import GAME_IDS, get_game, substitute
from p2pcards.games.base import shuffled_deck
from p2pcards.protocol.knowledge import (
    public_form,
    seat_state,
    shown_by,
    token_deck,
)

PLAYER_COUNTS = {"kanasta": (2, 3, 4), "kanaszta": (2, 3, 4), "warkocz": (2, 3, 4), "bura": (2, 3, 4, 6)}


def engine(game_id):
    try:
        return get_game(game_id)
    except ModuleNotFoundError:
        pytest.skip(f"{game_id} engine not written yet")


def play_deal(game_id, players, seed, options=None, max_steps=5000):
    game = engine(game_id)
    match = game.new_match(players, options, seed)
    ctx = game.deal_context(match)
    deck = shuffled_deck(game_id, seed, 0)
    table = KnowledgeTable(game, players, deck)
    full = game.start(players, deck=deck, dealer=match.dealer, options=match.options, scores=match.scores, **ctx)

    def start(public_deck, _):
        return game.start(players, deck=public_deck, dealer=match.dealer, options=match.options, scores=match.scores, **ctx)

    public, _, _ = table.retrying(start, token_deck(len(deck)))
    rng = random.Random(seed)
    for _ in range(max_steps):
        public = table.settle(public)
        for seat in range(players):
            mine = seat_state(public, table.private[seat])
            assert game.view(mine, seat) == game.view(full, seat), f"seat {seat}'s view differs"
        assert game.view(public, None) == game.view(full, None)
        if game.deal_over(full):
            assert game.deal_over(public)
            break
        actor = game.to_act(full)
        assert game.to_act(public) == actor
        mine = seat_state(public, table.private[actor])
        legal = game.legal_actions(full)
        assert game.legal_actions(mine) == legal
        action = rng.choice(legal)
        full = game.apply(full, action)
        public_action, positions = public_form(game, public, action, actor, table.private[actor])
        shown = shown_by(public_action, positions)
        for p in shown:
            table.book.publish(actor, p)
        public = substitute(public, {unknown(p): c for p, c in shown.items()})
        public, _, _ = table.retrying(game.apply, public, public_action)
    else:
        pytest.fail("the deal did not end")
    everything = {unknown(p): c for p, c in enumerate(deck)}
    assert game.deal_scores(substitute(public, everything)) == game.deal_scores(full)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_partial_knowledge_matches_full_knowledge(game_id):
    for players in PLAYER_COUNTS[game_id]:
        for seed in range(3):
            play_deal(game_id, players, seed)


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**9), data=st.data())
def test_partial_knowledge_random_deals(game_id, seed, data):
    players = data.draw(st.sampled_from(PLAYER_COUNTS[game_id]))
    play_deal(game_id, players, seed)


@pytest.mark.parametrize("game_id,players,options", [
    ("kanasta", 4, {"pairs": False, "play_before_first_meld": True, "go_out_canasta": True}),
    ("kanasta", 3, {"swap_twos": False, "one_meld_per_rank": True}),
    ("kanaszta", 4, {"pairs": False, "red3_replacement": False}),
    ("kanaszta", 2, {"go_out_canasta": False, "one_meld_per_rank": False, "empty_stock_ends": False}),
])
def test_hidden_cards_with_house_rules(game_id, players, options):
    """The network's partial knowledge stays in step with full knowledge
    under non-default options too (the generic test plays the defaults)."""
    for seed in range(2):
        play_deal(game_id, players, seed, options)
