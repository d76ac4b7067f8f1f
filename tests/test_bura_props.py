"""Bura: properties over random legal play, 2-6 players, and the
partial-knowledge run (every seat's own engine on a deck of unknown tokens)
kept in step with the full one."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.cards import unknown
from p2pcards.games import IllegalAction, NeedReveal, get_game, substitute
from p2pcards.games.base import shuffled_deck

G = get_game("bura")
MAX_STEPS = 2000  # far above any real deal: 36 cards, one trick at least one card each


def all_cards(state) -> Counter:
    """Every card of the deal, wherever it lies."""
    out = Counter()
    for h in state.hands:
        out.update(h)
    out.update(state.stock[state.stock_pos:])
    for _, _, cards in state.trick:
        out.update(cards)
    for ts in state.tricks:
        for trick in ts:
            for _, _, cards in trick:
                out.update(cards)
    return out


def pick(acts, rng, declare_rate):
    """A random legal action; declarations (which end the deal) only at
    ``declare_rate``, so that long deals, refills and exhaustion are reached."""
    if rng.random() >= declare_rate:
        others = [a for a in acts if a["type"] != "declare"]
        if others:
            return rng.choice(others)
    return rng.choice(acts)


DECLARE_RATES = st.sampled_from([0.0, 0.05, 0.5, 1.0])


def snapshot(state):
    return (G.view(state, None), [G.hand(state, s) for s in range(state.players)], state.stock_pos)


def bad_actions(state, rng):
    """Actions that must be refused now."""
    seat = G.to_act(state)
    wrong = (seat + 1) % state.players
    not_held = next(c for c in shuffled_deck("bura", 0) if c not in G.hand(state, seat))
    return [
        {"type": "lead", "cards": [not_held]},
        {"type": "beat", "cards": [not_held]},
        {"type": "throw", "cards": [not_held]},
        {"type": "bessa", "cards": [not_held]},
        {"type": "pass", "seat": wrong},
        {"type": "declare", "seat": wrong},
        {"type": rng.choice(["lead", "beat", "throw"]), "cards": "AS"},
        {"type": "nope"},
        None,
    ]


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), dealer=st.integers(0, 5),
       rng=st.randoms(use_true_random=False), declare_rate=DECLARE_RATES)
def test_random_play_invariants(players, seed, dealer, rng, declare_rate):
    dealer %= players
    deck = shuffled_deck("bura", seed)
    state = G.start(players, deck=deck, dealer=dealer)
    total = sum(state.chips) + state.bank
    steps = 0
    while not G.deal_over(state):
        assert all_cards(state) == Counter(deck)
        assert sum(state.chips) + state.bank == total
        acts = G.legal_actions(state)
        assert acts, "no legal action while the deal is not over"
        assert len({repr(a) for a in acts}) == len(acts)
        before = snapshot(state)
        for a in acts:
            G.apply(state, a)  # every listed action applies
        for a in bad_actions(state, rng):
            with pytest.raises(IllegalAction):
                G.apply(state, a)
        assert snapshot(state) == before  # refused or not, the given state is unchanged
        state = G.apply(state, pick(acts, rng, declare_rate))
        steps += 1
        assert steps < MAX_STEPS, "the deal does not end"
    assert G.to_act(state) == -1 and G.legal_actions(state) == []
    assert all_cards(state) == Counter(deck)
    scores = G.deal_scores(state)
    assert sum(scores["seats"]) + scores["bank_change"] == 0
    assert scores["end"] in ("declared", "failed_declaration", "bessa", "exhausted", "unpayable")


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), rng=st.randoms(use_true_random=False),
       rounds=st.integers(1, 3), chips=st.sampled_from([30, 100, 500]))
def test_whole_matches_end_and_conserve_chips(players, seed, rng, rounds, chips):
    match = G.new_match(players, options={"rounds": rounds, "chips": chips}, seed=seed)
    total = chips * players
    deals = 0
    while not match.over:
        state = G.start_deal(match)
        while not G.deal_over(state):
            state = G.apply(state, rng.choice(G.legal_actions(state)))
        match = G.end_deal(match, state)
        deals += 1
        assert sum(match.chips) + match.bank == total
        assert min(match.chips) >= 0
        assert match.scores == [c - chips for c in match.chips]
        assert deals < 500
    result = G.match_result(match)
    assert match.extra["rounds_played"] <= rounds
    if result["winner"] is not None:
        assert result["chips"][result["winner"]] == max(result["chips"])


# ----- partial knowledge ----------------------------------------------------------
class Seat:
    """One seat's engine on a deck where what it cannot see is a token."""

    def __init__(self, seat, deck, players, dealer):
        self.seat = seat
        self.deck = deck
        self.known = {i for i in range(3 * players) if (dealer + 1 + i) % players == seat} | {3 * players}
        partial = [c if i in self.known else unknown(i) for i, c in enumerate(deck)]
        self.state = G.start(players, deck=partial, dealer=dealer)

    def learn(self, cards):
        mapping = {}
        for c in cards:
            pos = self.deck.index(c)
            if pos not in self.known:
                self.known.add(pos)
                mapping[unknown(pos)] = c
        if mapping:
            self.state = substitute(self.state, mapping)

    def name(self, card):
        pos = self.deck.index(card)
        return card if pos in self.known else unknown(pos)

    def apply(self, action, everyone):
        if action["type"] == "throw":
            action = {**action, "cards": [self.name(c) for c in action["cards"]]}
        while True:
            try:
                self.state = G.apply(self.state, action)
                return
            except NeedReveal as e:
                shown = [self.deck[int(t[1:])] for t in e.tokens]
                for s in everyone:  # a public reveal
                    s.learn(shown)


def step(full, seats, action):
    """Apply ``action`` to the full state and to every seat's own state, with
    the reveals the table would make; returns the new full state."""
    if action["type"] in ("lead", "beat", "bessa"):
        for s in seats:  # cards shown face up: everybody sees them
            s.learn(action["cards"])
    hands_before = [set(G.hand(full, q)) for q in range(full.players)]
    full = G.apply(full, action)
    for s in seats:
        s.apply(action, seats)
    for q in range(full.players):  # drawn cards are shown to their drawer
        seats[q].learn(set(G.hand(full, q)) - hands_before[q])
    return full


@settings(max_examples=120, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), dealer=st.integers(0, 5),
       rng=st.randoms(use_true_random=False), declare_rate=DECLARE_RATES)
def test_partial_knowledge_stays_in_step(players, seed, dealer, rng, declare_rate):
    dealer %= players
    deck = shuffled_deck("bura", seed)
    full = G.start(players, deck=deck, dealer=dealer)
    seats = [Seat(s, deck, players, dealer) for s in range(players)]
    while True:
        for s in seats:
            assert G.view(s.state, s.seat) == G.view(full, s.seat)
            assert G.view(s.state, None) == G.view(full, None)
        if G.deal_over(full):
            break
        actor = G.to_act(full)
        assert G.legal_actions(seats[actor].state) == G.legal_actions(full)
        full = step(full, seats, pick(G.legal_actions(full), rng, declare_rate))
    assert [G.deal_scores(s.state) for s in seats] == [G.deal_scores(full)] * players


def test_many_seeded_deals_every_player_count():
    """A broader deterministic sweep than hypothesis runs: every deal ends."""
    ends = Counter()
    for seed in range(300):
        players = 2 + seed % 5
        rng = random.Random(seed)
        state = G.start(players, seed=seed, dealer=seed % players)
        while not G.deal_over(state):
            state = G.apply(state, pick(G.legal_actions(state), rng, (0.0, 0.05, 0.5)[seed % 3]))
        ends[G.deal_scores(state)["end"]] += 1
    assert ends["declared"] and ends["failed_declaration"] and ends["exhausted"] and ends["bessa"]


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), rng=st.randoms(use_true_random=False))
def test_greedy_on_its_own_partial_state_plays_legally(players, seed, rng):
    """The greedy player decides from its seat's own state (tokens for what it
    cannot see); its action is legal in the full state."""
    from p2pcards.bots.greedy import bura as greedy

    deck = shuffled_deck("bura", seed)
    full = G.start(players, deck=deck, dealer=0)
    seats = [Seat(s, deck, players, 0) for s in range(players)]
    while not G.deal_over(full):
        actor = G.to_act(full)
        if actor % 2 == 0:
            action = greedy.choose(G, seats[actor].state, rng)
        else:
            action = pick(G.legal_actions(full), rng, 0.1)
        assert action in G.legal_actions(full)
        full = step(full, seats, action)


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | st.text(max_size=4) | st.sampled_from(["?3", "?99", "AS", "6C"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
CARDISH = st.sampled_from(list(shuffled_deck("bura", 0)) + ["?1", "?40", "2C", "JK", "", "10"]) | JUNK


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 12), rng=st.randoms(use_true_random=False),
       kind=st.sampled_from(["lead", "beat", "throw", "declare", "pass", "bessa", "", None, 3]),
       cards=st.lists(CARDISH, max_size=4) | JUNK,
       seat=st.none() | JUNK, extra=st.dictionaries(st.sampled_from(["x", "cards", "seat", "as"]), JUNK, max_size=2))
def test_fuzzed_actions_are_refused_cleanly(seed, moves, rng, kind, cards, seat, extra):
    """Any input is either a legal action or an IllegalAction: never another
    exception, and the given state is unchanged."""
    players = 2 + seed % 5
    state = G.start(players, seed=seed)
    for _ in range(moves):
        if G.deal_over(state):
            break
        state = G.apply(state, pick(G.legal_actions(state), rng, 0.0))
    action = {**extra, "type": kind, "cards": cards}
    if seat is not None:
        action["seat"] = seat
    before = snapshot(state)
    try:
        G.apply(state, action)
    except IllegalAction:
        pass
    assert snapshot(state) == before
