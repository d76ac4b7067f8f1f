"""The canasta listings' shortcuts agree with the checks ``apply`` makes."""

from __future__ import annotations

import random

import pytest

from p2pcards.games import get_game

TABLES = [
    ("kanasta", 2, {}), ("kanasta", 4, {}), ("kanasta", 4, {"pairs": False}),
    ("kanasta", 3, {"play_before_first_meld": True}),
    ("kanaszta", 2, {}), ("kanaszta", 4, {}), ("kanaszta", 4, {"pairs": False}),
]


def states(game, players, options, deals=6):
    """Every state of a few deals of random play, preferring melds and adds so that tables fill up."""
    rng = random.Random(players)
    for deal in range(deals):
        state = game.start(players, seed=deal, options=options)
        while not game.deal_over(state):
            yield state
            legal = game.legal_actions(state)
            eager = [a for a in legal if a["type"] in ("take_pile", "meld", "add", "swap")]
            state = game.apply(state, rng.choice(eager if eager and rng.random() < 0.7 else legal))


@pytest.mark.parametrize("game_id,players,options", TABLES)
def test_addable_melds_follow_the_add_rule(game_id, players, options):
    """``_addable_melds`` (asked once per listing) names exactly the melds
    ``_add_context_error`` (apply's check, with its messages) lets the seat add to."""
    game = get_game(game_id)
    seen_refused = seen_allowed = 0
    for state in states(game, players, game.options(players, options)):
        for seat in range(players):
            expected = [i for i in range(len(state.melds)) if game._add_context_error(state, seat, i) is None]
            assert game._addable_melds(state, seat) == expected
            seen_allowed += len(expected)
            seen_refused += len(state.melds) - len(expected)
    assert seen_allowed
    if not options.get("play_before_first_meld"):  # with it every meld is open to adds (no black 3 melds here)
        assert seen_refused
