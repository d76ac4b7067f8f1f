"""Warkocz properties over random legal play: every card in exactly one place,
deals end, the legal actions are exactly the applicable ones, refusals change
nothing, chips are conserved, matches run to the end, and no input of any
shape gets anything but IllegalAction."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from p2pcards.cards import warkocz_deck
from p2pcards.games import IllegalAction, get_game
from p2pcards.bots.greedy import warkocz as greedy

G = get_game("warkocz")
DECK = Counter(warkocz_deck())

option_sets = st.fixed_dictionaries(
    {},
    optional={
        "two_of_a_kind": st.booleans(),
        "must_play": st.booleans(),
        "debt": st.booleans(),
        "chips": st.integers(0, 30),
        "warkocz_fee": st.integers(0, 5),
        "deal_fee": st.integers(0, 3),
        "target": st.integers(1, 40),
    },
)


def all_cards(state) -> Counter:
    where = Counter()
    for hand in state.hands:
        where.update(hand)
    where.update(state.aside)
    for row in state.done + [state.row]:
        for step in row:
            where.update(step["cards"])
    return where


def wrong_actions(state, rng) -> list:
    """Actions that cannot be legal now (shapes the legal list never holds)."""
    seat = G.to_act(state)
    hand = G.hand(state, seat)
    missing = [c for c in DECK if c not in hand]
    out = [
        {"type": "play", "cards": [rng.choice(missing)]} if missing else {"type": "draw"},
        {"type": "pass", "seat": (seat + 1) % state.players},
        {"type": "play", "cards": hand[:1], "seat": (seat + 1) % state.players},
        {"type": "play", "cards": [c for c in hand[:2]] * 3},
    ]
    if state.need < 0:
        out.append({"type": "pass"})
    return out


def check_deal(players, seed, options, policy="random", check_every_action=True):
    rng = random.Random(seed)
    match = G.new_match(players, options, seed)
    state = G.start_deal(match)
    total_chips = sum(state.chips) + state.bank
    for _ in range(2000):
        assert all_cards(state) == DECK
        assert sum(state.chips) + state.bank == total_chips
        if G.deal_over(state):
            break
        legal = G.legal_actions(state)
        assert legal, "no legal action while the deal goes on"
        keys = [repr(sorted(a.items())) for a in legal]
        assert len(set(keys)) == len(keys), "duplicate actions listed"
        if check_every_action:
            for action in legal:
                G.apply(state, action)
        before = copy.deepcopy(state)
        for action in wrong_actions(state, rng):
            if action in legal:
                continue
            with pytest.raises(IllegalAction):
                G.apply(state, action)
            assert state == before
        action = greedy.choose(G, state, rng) if policy == "greedy" and G.to_act(state) == 0 else rng.choice(legal)
        new = G.apply(state, action)
        assert state == before, "apply changed the state it was given"
        state = new
    else:
        pytest.fail("the deal did not end")
    assert G.to_act(state) == -1 and G.legal_actions(state) == []
    sc = G.deal_scores(state)
    assert sum(1 for p in sc["seats"] if p) <= 1
    assert sum(sc["chips"]) + sc["bank"] == 0
    return state


@settings(max_examples=80, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**9), options=option_sets)
def test_random_deals_keep_every_invariant(players, seed, options):
    check_deal(players, seed, options)


@settings(max_examples=15, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**9), options=option_sets)
def test_greedy_deals_keep_every_invariant(players, seed, options):
    check_deal(players, seed, options, policy="greedy", check_every_action=False)


def test_applying_never_changes_the_given_state():
    rng = random.Random(3)
    for players in (2, 3, 4):
        state = G.start(players, seed=players)
        while not G.deal_over(state):
            snapshot = copy.deepcopy(state)
            nxt = G.apply(state, rng.choice(G.legal_actions(state)))
            assert state == snapshot and nxt is not state
            state = nxt


def run_match(players, seed, options, strategies):
    rng = random.Random(seed)
    match = G.new_match(players, options, seed)
    total = sum(match.chips) + match.bank
    for deal_no in range(500):
        if match.over:
            break
        assert match.dealer == deal_no % players
        state = G.start_deal(match)
        while not G.deal_over(state):
            seat = G.to_act(state)
            if strategies[seat] == "greedy":
                state = G.apply(state, greedy.choose(G, state, rng))
            else:
                state = G.apply(state, rng.choice(G.legal_actions(state)))
        before = list(match.scores)
        match = G.end_deal(match, state)
        assert all(a >= b for a, b in zip(match.scores, before))
        assert sum(match.chips) + match.bank == total
    else:
        pytest.fail("the match did not end")
    result = G.match_result(match)
    winner = result["winner"]
    assert match.scores[winner] >= match.options["target"]
    assert sorted(match.scores)[-2] < match.options["target"]  # only the winner reached it
    assert match.bank == 0 and result["bank"] == 0
    return match


@settings(max_examples=40, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 10**9),
    options=option_sets,
    strategies=st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4),
)
def test_whole_matches_run_to_the_end_with_chips_conserved(players, seed, options, strategies):
    run_match(players, seed, options, strategies)


def test_the_same_seed_replays_the_same_match():
    a = run_match(3, 11, {}, ["random"] * 4)
    b = run_match(3, 11, {}, ["random"] * 4)
    assert a == b


json_like = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=4)
    | st.sampled_from(["play", "pass", "9C", "5D", "KH", "?1", "as", "cards", "seat", "type", "7", "K"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["type", "cards", "as", "seat", "x"]) | st.text(max_size=3), inner, max_size=5
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 50), steps=st.integers(0, 30), action=json_like)
def test_any_input_is_either_legal_or_refused_cleanly(seed, steps, action):
    rng = random.Random(seed)
    state = G.start(2 + seed % 3, seed=seed)
    for _ in range(steps):
        if G.deal_over(state):
            break
        state = G.apply(state, rng.choice(G.legal_actions(state)))
    before = copy.deepcopy(state)
    try:
        G.apply(state, action)
    except IllegalAction as refusal:
        assert str(refusal)
        assert state == before
        return
    def canonical(a):
        return {k: sorted(v) if k == "cards" else v for k, v in a.items() if k != "seat"}

    assert canonical(action) in [canonical(a) for a in G.legal_actions(state)]


@pytest.mark.slow
def test_many_matches_run_to_the_end():
    for seed in range(200):
        run_match(2 + seed % 3, seed, {}, ["greedy", "random", "random", "greedy"])


@pytest.mark.slow
def test_greedy_beats_random_in_most_two_player_matches():
    wins = 0
    for seed in range(100):
        strategies = ["greedy", "random"] if seed % 2 == 0 else ["random", "greedy"]
        match = run_match(2, seed, {}, strategies)
        wins += strategies[G.match_result(match)["winner"]] == "greedy"
    assert wins >= 70
