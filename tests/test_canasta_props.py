"""Properties of both canastas over random legal play, and the deck builder
the rule tests use to set up situations."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from p2pcards.cards import canasta_deck
from p2pcards.games import IllegalAction, get_game
from p2pcards.games.canasta import card_key
from tests.helpers import action_class, card_class, MELDING, places

GAMES = ("kanasta", "kanaszta")
TABLES = [(2, {}), (3, {}), (4, {}), (4, {"pairs": False})]



def check_scores(game, state):
    scores = game.deal_scores(state)
    n = state.players
    sides = game.sides(n, state.options)
    total = [0] * sides
    for s in range(n):
        total[game.side_of(s, n, state.options)] += scores["seats"][s]
    assert total == scores["sides"]
    return scores


def bad_actions(game, state):
    seat = game.to_act(state)
    hand = game.hand(state, seat)
    missing = next(c for c in sorted(set(canasta_deck())) if c not in hand)
    return [
        None, "draw", 7, [], {}, {"type": "fly"}, {"type": "discard"},
        {"type": "discard", "cards": "KH"}, {"type": "discard", "cards": [missing]},
        {"type": "discard", "cards": ["XX"]}, {"type": "meld", "cards": [missing, missing, missing]},
        {"type": "add", "meld": 999, "cards": hand[:1]}, {"type": "add", "meld": "0", "cards": hand[:1]},
        {"type": "draw", "seat": (seat + 1) % state.players}, {"type": "draw", "seat": "0"},
        {"type": "draw", "colour": "red"},
    ]


def play_random(game_id, players, options, seed, check_every_action=False):
    game = get_game(game_id)
    state = game.start(players, seed=seed, options=options, dealer=seed % players)
    deck = Counter(canasta_deck())
    rng = random.Random(seed)
    steps = 0
    while not game.deal_over(state):
        assert places(game, state) == deck
        legal = game.legal_actions(state)
        assert legal, f"no legal action in phase {state.phase}"
        assert len({action_class(a) for a in legal}) == len(legal), "a class listed twice"
        sample = legal if check_every_action else rng.sample(legal, min(4, len(legal)))
        for action in sample:
            game.apply(state, action)  # every listed action applies
        before = state.evolve()
        for bad in bad_actions(game, state):
            if bad in legal:
                continue
            with pytest.raises(IllegalAction):
                game.apply(state, bad)
        assert state == before  # a refused action changes nothing
        state = game.apply(state, rng.choice(legal))
        steps += 1
        assert steps < 3000, "the deal does not end"
    assert places(game, state) == deck
    assert game.legal_actions(state) == [] and game.to_act(state) == -1
    check_scores(game, state)
    return state


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players,options", TABLES)
def test_random_deals(game_id, players, options):
    for seed in range(2):
        play_random(game_id, players, options, seed, check_every_action=seed == 0)


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), table=st.sampled_from(TABLES), data=st.data())
def test_random_deals_hypothesis(game_id, seed, table, data):
    players, options = table
    options = dict(options)
    if game_id == "kanasta":
        options.update(data.draw(st.fixed_dictionaries({
            "play_before_first_meld": st.booleans(), "swap_twos": st.booleans(),
            "go_out_canasta": st.booleans(), "one_meld_per_rank": st.booleans()})))
    else:
        options.update(data.draw(st.fixed_dictionaries({
            "red3_replacement": st.booleans(), "go_out_canasta": st.booleans(),
            "one_meld_per_rank": st.booleans(), "empty_stock_ends": st.booleans()})))
    play_random(game_id, players, options, seed)


@pytest.mark.parametrize("game_id", GAMES)
def test_whole_match_runs_to_the_end(game_id):
    game = get_game(game_id)
    match = game.new_match(4, {"target": 1500}, seed=11)
    rng = random.Random(3)
    for _ in range(60):
        if match.over:
            break
        state = game.start_deal(match)
        while not game.deal_over(state):
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        dealer = match.dealer
        new = game.end_deal(match, state)
        assert new.dealer == (dealer + 1) % 4 and new.deal_index == match.deal_index + 1
        assert new.scores == [a + b for a, b in zip(match.scores, new.history[-1]["sides"])]
        match = new
    assert match.over
    result = game.match_result(match)
    assert max(result["scores"]) >= 1500
    assert result["winner"] == result["scores"].index(max(result["scores"]))


@pytest.mark.parametrize("game_id", GAMES)
def test_the_same_seed_plays_the_same_deal(game_id):
    game = get_game(game_id)
    a = play_random(game_id, 3, {}, 5)
    b = play_random(game_id, 3, {}, 5)
    assert game.deal_scores(a) == game.deal_scores(b)
    assert game.view(a, None) == game.view(b, None)


@pytest.mark.parametrize("game_id", GAMES)
def test_views_show_only_what_a_seat_may_see(game_id):
    game = get_game(game_id)
    state = game.start(4, seed=2)
    rng = random.Random(1)
    for _ in range(60):
        if game.deal_over(state):
            break
        for seat in [0, 1, 2, 3, None]:
            # Hiding every card the seat can't see changes nothing in its view.
            hidden = state.evolve()
            n = 0
            for other in range(4):
                if other != seat:
                    hidden.hands[other] = [f"?{n + k}" for k in range(len(hidden.hands[other]))]
                    n += len(hidden.hands[other])
            hidden.stock = [f"?{500 + k}" for k in range(len(hidden.stock))]
            v = game.view(state, seat)
            assert game.view(hidden, seat) == v
            if seat is None:
                assert v["hand"] is None and v["seat"] is None
            else:
                assert v["hand"] == sorted(v["hand"], key=card_key)
                assert Counter(v["hand"]) == Counter(state.hands[seat])
                assert v["hand_counts"] == [len(h) for h in state.hands]
        state = game.apply(state, rng.choice(game.legal_actions(state)))


@pytest.mark.parametrize("game_id", GAMES)
def test_start_refuses_bad_setups(game_id):
    game = get_game(game_id)
    with pytest.raises(IllegalAction):
        game.start(5, seed=1)
    with pytest.raises(IllegalAction):
        game.start(4, deck=["KH"] * 108)
    with pytest.raises(IllegalAction):
        game.start(4, deck=canasta_deck()[:-1])
    with pytest.raises(IllegalAction):
        game.start(4, seed=1, dealer=4)
    with pytest.raises(IllegalAction):
        game.start(4, seed=1, options={"nonsense": 1})
    with pytest.raises(IllegalAction):
        game.start(3, seed=1, options={"pairs": True})
    with pytest.raises(IllegalAction):
        game.start(4, seed=1, scores=[0])
    with pytest.raises(IllegalAction):
        game.view(game.start(4, seed=1), 7)
    with pytest.raises(IllegalAction):
        game.deal_scores(game.start(4, seed=1))


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players", (2, 3, 4))
def test_greedy_always_picks_a_legal_action(game_id, players):
    from p2pcards.bots.greedy import canasta as greedy
    game = get_game(game_id)
    for seed in range(2):
        state = game.start(players, seed=seed)
        rng = random.Random(seed)
        while not game.deal_over(state):
            action = greedy.choose(game, state, rng)
            assert action in game.legal_actions(state)
            state = game.apply(state, action)
        check_scores(game, state)


CODES = sorted(set(canasta_deck()))
junk = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.text(max_size=4), st.sampled_from(CODES),
                 st.lists(st.sampled_from(CODES), max_size=3))
fuzz_action = st.one_of(
    junk,
    st.dictionaries(st.sampled_from(["type", "cards", "meld", "seat", "wild", "freeze", "x"]), junk, max_size=5),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["draw", "take_pile", "meld", "add", "swap", "red3", "discard", "pass"])},
        optional={"cards": st.one_of(st.lists(st.sampled_from(CODES), max_size=8), junk),
                  "meld": junk, "wild": junk, "freeze": junk, "seat": junk}),
)


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 50), steps=st.integers(0, 120), action=fuzz_action)
def test_any_input_is_applied_or_refused_cleanly(game_id, seed, steps, action):
    game = get_game(game_id)
    state = game.start(3, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.deal_over(state):
            break
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    before = state.evolve()
    try:
        game.apply(state, action)
    except IllegalAction as refusal:
        assert str(refusal)
    assert state == before


def _normal(action):
    out = dict(action)
    if "cards" in out:
        out["cards"] = sorted(out["cards"])
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in out.items()))


def _candidates(game, state):
    """Many actions, legal or not: every meld of 3-4 hand cards, every add of
    1-2, every take of 0-3, every swap and discard."""
    from itertools import combinations
    seat = game.to_act(state)
    hand = sorted(game.hand(state, seat))
    subsets = {k: {tuple(c) for c in combinations(hand, k)} for k in range(5)}
    melds = range(len(state.melds))
    yield {"type": "draw"}
    for k in (3, 4):
        for cards in subsets[k]:
            yield {"type": "meld", "cards": list(cards)}
    for k in (1, 2):
        for cards in subsets[k]:
            for i in melds:
                yield {"type": "add", "meld": i, "cards": list(cards)}
    for k in range(4):
        for cards in subsets[k]:
            yield {"type": "take_pile", "cards": list(cards)}
            for i in melds:
                yield {"type": "take_pile", "cards": list(cards), "meld": i}
    for card in set(hand):
        yield {"type": "discard", "cards": [card]}
        yield {"type": "discard", "cards": [card], "freeze": True}
        yield {"type": "red3", "cards": [card]}
        for i in melds:
            for w in set(state.melds[i].cards):
                yield {"type": "swap", "meld": i, "wild": w, "cards": [card]}
    for k in range(3):
        for cards in subsets[k]:
            if all(c in ("3H", "3D") for c in cards):
                yield {"type": "red3", "cards": list(cards)}


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("players", (2, 4))
def test_legal_actions_lists_every_action_that_applies(game_id, players):
    game = get_game(game_id)
    rng = random.Random(players)
    checked = 0
    for seed in range(3):
        state = game.start(players, seed=seed)
        step = 0
        while not game.deal_over(state):
            legal = game.legal_actions(state)
            if step % 7 == 0 and len(game.hand(state, game.to_act(state))) <= 16:
                # Everything legal is reachable: every concrete action that
                # applies is listed up to suit equivalence, and every concrete
                # action of a class not listed is refused.
                classes = {action_class(a) for a in legal}
                for action in _candidates(game, state):
                    try:
                        game.apply(state, action)
                    except IllegalAction:
                        assert action_class(action) not in classes, action
                        continue
                    assert action_class(action) in classes, action
                checked += 1
            state = game.apply(state, rng.choice(legal))
            step += 1
    assert checked > 20


def _variant(action: dict, hand: list, melds: list, rng: random.Random) -> dict:
    """``action`` with its cards replaced by other concrete cards of the same
    classes: naturals of the same rank in other suits, another 2 for a 2."""
    pools: dict[str, list] = {}
    for c in hand:
        pools.setdefault(card_class(c), []).append(c)
    need = Counter(card_class(c) for c in action.get("cards", []))
    cards = [c for cls, k in need.items() for c in rng.sample(pools[cls], k)]
    rng.shuffle(cards)
    out = dict(action, cards=cards)
    if "wild" in action:
        same = [c for c in melds[action["meld"]].cards if card_class(c) == card_class(action["wild"])]
        out["wild"] = rng.choice(same)
    return out


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 200), table=st.sampled_from(TABLES),
       data=st.data())
def test_any_concrete_member_of_a_listed_class_applies(game_id, seed, steps, table, data):
    """Listed melds are representatives: swapping suits of equal-rank
    naturals, or one 2 for another, gives an action ``apply`` accepts; an
    action of a class that is not listed is refused."""
    players, options = table
    game = get_game(game_id)
    state = game.start(players, seed=seed, options=options)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.deal_over(state):
            return
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    if game.deal_over(state):
        return
    legal = game.legal_actions(state)
    hand = game.hand(state, game.to_act(state))
    classes = {action_class(a) for a in legal}
    for action in legal:
        if action["type"] in MELDING:
            variant = _variant(action, hand, state.melds, rng)
            assert action_class(variant) == action_class(action)
            game.apply(state, variant)
    # random concrete melds from the hand: applied exactly when their class is listed
    for _ in range(20):
        size = data.draw(st.integers(1, min(6, len(hand))))
        cards = data.draw(st.permutations(hand)).copy()[:size]
        kind = data.draw(st.sampled_from(["meld", "add", "take_pile"]))
        action = {"type": kind, "cards": cards}
        if kind == "add" or (kind == "take_pile" and data.draw(st.booleans())):
            if not state.melds:
                continue
            action["meld"] = data.draw(st.integers(0, len(state.melds) - 1))
        try:
            game.apply(state, action)
        except IllegalAction:
            assert action_class(action) not in classes, action
            continue
        assert action_class(action) in classes, action
