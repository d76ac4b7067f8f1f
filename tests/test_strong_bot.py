"""The strong bot: it decides from its own seat's information only, plays
only legal moves, is repeatable for a seed, and beats the greedy bot."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from p2pcards.bots import Bot
from p2pcards.cards import deck_for, is_unknown, unknown
from p2pcards.games import GAME_IDS, get_game
from p2pcards.games.base import shuffled_deck
from p2pcards.games.warkocz import NATURAL_RANK
from p2pcards.bots.strong.arena import play_deal
from p2pcards.bots.strong.determinize import Determinizer, card_places, warkocz_void_ranks
from p2pcards.bots.strong.evaluate import outcome
from tests.helpers import opening_state

ITERATIONS = 12  # enough to make the search matter, small enough to be quick


def greedy_deal_states(game, players, seed):
    """Every full state of a deal between greedy bots."""
    state = game.start(players=players, seed=seed)
    bot = Bot("greedy", seed)
    states = [state]
    while not game.deal_over(state):
        state = game.apply(state, bot.choose(game, state))
        states.append(state)
    return states


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_card_lies_in_exactly_one_place(game_id):
    game = get_game(game_id)
    for players in (2, 4):
        for state in greedy_deal_states(game, players, seed=3):
            held = Counter(c for _, cards in card_places(game_id, state) for c in cards)
            assert held == Counter(deck_for(game_id))



@pytest.mark.parametrize("game_id", GAME_IDS)
def test_same_information_same_choice_whatever_the_hidden_cards(game_id):
    game = get_game(game_id)
    players = 2
    deck_a = shuffled_deck(game_id, 11)
    seat, table, mine_a = opening_state(game, players, deck_a)
    # Deal B: every card this seat has not seen moved elsewhere among the hidden places.
    known = set(table.private[seat]) | {p for p in range(len(deck_a)) if table.book.is_public(p)}
    hidden = [p for p in range(len(deck_a)) if p not in known]
    deck_b = list(deck_a)
    moved = [deck_a[p] for p in hidden]
    random.Random(5).shuffle(moved)
    for p, card in zip(hidden, moved):
        deck_b[p] = card
    assert deck_b != deck_a
    seat_b, _, mine_b = opening_state(game, players, deck_b)
    assert seat_b == seat and mine_b == mine_a  # the same information set...
    other = 1 - seat
    hand_a = sorted(deck_a[p] for p in hidden if unknown(p) in game.hand(mine_a, other))
    hand_b = sorted(deck_b[p] for p in hidden if unknown(p) in game.hand(mine_a, other))
    assert hand_a != hand_b  # ...over different deals
    choice_a = Bot("strong", seed=7, iterations=ITERATIONS).choose(game, mine_a)
    choice_b = Bot("strong", seed=7, iterations=ITERATIONS).choose(game, mine_b)
    assert choice_a == choice_b


CHOOSE_IN_CHILD = """
import json, sys
from p2pcards.bots import Bot
from p2pcards.games import get_game
from tests.helpers import opening_state
from p2pcards.games.base import shuffled_deck
game = get_game(sys.argv[1])
_, _, mine = opening_state(game, 2, shuffled_deck(sys.argv[1], 4))
print(json.dumps(Bot("strong", seed=3, iterations=20).choose(game, mine)))
"""


def test_choice_does_not_depend_on_the_process_hash_seed():
    """Sets of strings iterate in a per-process order: the search must not."""
    answers = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", CHOOSE_IN_CHILD, "bura"], env=env, capture_output=True,
                             text=True, check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
        answers.add(out.stdout.strip())
    assert len(answers) == 1 and json.loads(answers.pop())["type"]


class Checked:
    """A strong bot for the first ``searches`` decisions, then greedy; checks
    every choice is legal in the state it was given."""

    def __init__(self, seed, searches=10**9):
        self.strong = Bot("strong", seed=seed, iterations=4)
        self.greedy = Bot("greedy", seed=seed)
        self.left = searches
        self.searched = 0

    def choose(self, game, state):
        bot = self.strong if self.left > 0 else self.greedy
        self.left -= 1
        action = bot.choose(game, state)
        assert action in game.legal_actions(state)
        self.searched += bot is self.strong
        return action


@pytest.mark.parametrize("game_id,players,searches", [
    ("warkocz", 3, 10**9), ("bura", 3, 10**9), ("kanasta", 2, 25), ("kanaszta", 4, 25)])
def test_only_legal_actions(game_id, players, searches):
    game = get_game(game_id)
    bots = [Checked(seed=s, searches=searches) for s in range(players)]
    play_deal(game, game.new_match(players, None, 2), bots)
    assert all(b.searched for b in bots)


def test_same_seed_same_game():
    game = get_game("bura")

    def moves(seed):
        seen = []

        class Recording:
            def __init__(self, bot):
                self.bot = bot

            def choose(self, g, s):
                seen.append(self.bot.choose(g, s))
                return seen[-1]

        bots = [Recording(Bot("strong", seed=f"{seed}:{s}", iterations=8)) for s in range(2)]
        play_deal(game, game.new_match(2, None, 9), bots)
        return seen

    assert moves(1) == moves(1)


def test_warkocz_passes_mark_void_ranks_and_samples_respect_them():
    """A pass shows the passer holds no natural card of the needed rank:
    what the seat infers is true of the real hands, and every sampled deal
    keeps to it (and to the hand sizes)."""
    game = get_game("warkocz")
    voids_found = 0

    class Inspecting:
        def __init__(self, seat):
            self.bot = Bot("greedy", seat)

        def choose(self, g, state):
            seat = g.to_act(state)
            void = warkocz_void_ranks(state)
            full = full_states[-1]
            nonlocal voids_found
            for other in range(state.players):
                if other == seat:
                    continue
                held = {NATURAL_RANK[c] for c in full.hands[other] if c in NATURAL_RANK}
                assert not (held & void[other]), "inferred a void the hand does not have"
                voids_found += len(void[other])
            sampler = Determinizer("warkocz", state)
            rng = random.Random(0)
            for _ in range(10):
                sample = sampler.sample(rng)
                for other in range(state.players):
                    assert len(sample.hands[other]) == len(state.hands[other])
                    assert not any(is_unknown(c) for c in sample.hands[other])
                    assert not {NATURAL_RANK.get(c) for c in sample.hands[other]} & void[other]
            return self.bot.choose(g, state)

    full_states = []

    for seed in range(4):
        match = game.new_match(3, None, seed)
        deck = shuffled_deck("warkocz", seed)
        full_states[:] = [game.start_deal(match, deck=list(deck))]
        bots = [Inspecting(s) for s in range(3)]

        class Oracle:
            def __init__(self, bot):
                self.bot = bot

            def choose(self, g, state):
                action = self.bot.choose(g, state)
                full_states.append(g.apply(full_states[-1], action))
                return action

        play_deal(game, match, [Oracle(b) for b in bots], deck=deck)
    assert voids_found > 0


def test_strong_beats_greedy_at_warkocz():
    """Fixed seeds (no chance in the outcome), each deck played with the
    strong bot at either seat: it wins most deals. Measured 15 of 20 when
    written; the bar is 12 (a majority with room for harmless changes)."""
    game = get_game("warkocz")
    wins = 0.0
    deals = 20
    for i in range(deals):
        strong_seat = i % 2
        bots = [Bot("strong", seed=i, iterations=150) if s == strong_seat else Bot("greedy", seed=i)
                for s in range(2)]
        result = play_deal(game, game.new_match(2, None, 500 + i // 2), bots)
        wins += outcome(game, result.state, strong_seat)[0]
    assert wins >= 12


def test_the_hint_reason_is_for_players():
    from p2pcards.bots.strong import reason, search

    game = get_game("bura")
    _, _, mine = opening_state(game, 2, shuffled_deck("bura", 4))
    decision = search(game, mine, random.Random(1), iterations=30)
    words = reason(game, mine, decision)
    assert words and "_" not in words and "{" not in words  # no internal names, every field filled


def _seat_states(game_id: str, players: int, deals: int):
    """(game, the acting seat's own state) at every decision of greedy deals."""
    from p2pcards.bots.strong.arena import play_deal

    game = get_game(game_id)
    for d in range(deals):
        seen = []

        class Noting:  # the greedy bot, noting each state it is handed
            def __init__(self):
                self.bot = Bot("greedy", seed=d)

            def choose(self, game, state):
                seen.append(state)
                return self.bot.choose(game, state)

        noting = Noting()
        play_deal(game, game.new_match(players, None, 700 + d), [noting] * players)
        for state in seen:
            yield game, state


@pytest.mark.parametrize("game_id,players", [("kanasta", 2), ("kanaszta", 4), ("warkocz", 3), ("bura", 2)])
def test_the_hint_says_what_each_move_does_in_words_of_the_players_language(game_id, players):
    """Every legal move of real deals, seen from the seat's own state (unknown
    tokens for the cards it cannot see), gets a reason or none, never an
    error; each reason is a whole sentence of the catalog, in Polish too."""
    from p2pcards.bots.strong.ismcts import Decision, own_policy
    from p2pcards.bots.strong import reason
    from p2pcards.i18n import set_language

    why = own_policy(game_id).why
    said: set[str] = set()
    for game, mine in _seat_states(game_id, players, 3):
        for action in game.legal_actions(mine):
            words = why(game, mine, action)
            if words is not None:
                assert words and "{" not in words and "_" not in words
                said.add(words)
            if action["type"] == "take_pile":
                assert words.startswith("takes the pile: ") and str(len(mine.pile)) in words
            if game_id != "bura" and action.get("cards") and len(action["cards"]) == len(mine.hands[game.to_act(mine)]):
                assert words == "goes out"
    assert len(said) >= 3  # the moves of a deal are told apart
    game, mine = next(_seat_states(game_id, players, 1))
    english = reason(game, mine, Decision(game.legal_actions(mine)[0], 10, 10, 0.5))
    try:
        set_language("pl")
        polish = reason(game, mine, Decision(game.legal_actions(mine)[0], 10, 10, 0.5))
    finally:
        set_language("en")
    assert polish and polish != english


def test_the_hint_keeps_the_joker_for_the_canasta():
    """A discard of a natural card while the seat could add its joker to its
    side's meld near a canasta says so."""
    from p2pcards.bots.strong.canasta_policy import why

    seen = 0
    for game, mine in _seat_states("kanaszta", 2, 6):
        seat = game.to_act(mine)
        hand = mine.hands[seat]
        side = game.side_of(seat, mine.players, mine.options)
        near = {i for i, m in enumerate(mine.melds) if m.owner == side and 4 <= len(m.cards) < 7}
        legal = game.legal_actions(mine)
        could = any(a["type"] == "add" and a["meld"] in near and a["cards"] == ["JK"] for a in legal)
        if "JK" not in hand or not could or len(hand) < 2:
            continue
        for action in legal:
            card = action.get("cards", ["JK"])[0]
            if action["type"] == "discard" and not action.get("freeze") and card[0] != "2" and card != "JK" \
                    and not game.stops_pile(mine, card):
                assert why(game, mine, action) == "keeps the joker for the canasta"
                seen += 1
    assert seen


def test_command_line_picks_bots_per_seat_and_by_level():
    from p2pcards.cli import build_parser
    from p2pcards.cli.subcommands import LEVELS

    parser = build_parser()
    args = parser.parse_args(["selfplay", "bura", "--players", "3", "--seed", "1", "--out", "x",
                              "--strategy", "greedy", "--strategy", "2=strong", "--think", "0.5"])
    assert args.strategy == [(None, "greedy"), (2, "strong")] and args.think == 0.5
    for bad in (["--strategy", "2=clever"], ["--strategy", "x=strong"], ["--think", "0"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["selfplay", "bura", "--players", "3", "--seed", "1", "--out", "x", *bad])
    args = parser.parse_args(["play", "warkocz", "--level", "hard"])
    assert LEVELS[args.level] == "strong" and args.strategy is None
    assert parser.parse_args(["bot", "127.0.0.1:7531", "--strategy", "strong"]).strategy == "strong"


def test_a_false_pass_that_leaves_no_possible_deal_does_not_stop_the_bot():
    """Two opponents pass on 3s they hold (a cheat only the audit can see):
    seat 0 then infers that neither holds a 3, and its four unseen 3s fit
    nowhere (one card is set aside). The bot must still play a legal move."""
    import dataclasses

    from p2pcards.bots.strong.determinize import Determinizer

    game = get_game("warkocz")
    state = game.start(players=3, seed=1)
    threes = ["3D", "3D", "3H", "3H"]
    rest = sorted((Counter(deck_for("warkocz")) - Counter(["2D", *threes])).elements())
    hands = [["2D"] + rest[:15], threes[:2] + rest[15:29], threes[2:] + rest[29:43]]
    aside = rest[43:]
    assert sorted(sum(hands, []) + aside) == sorted(deck_for("warkocz"))
    full = dataclasses.replace(state, hands=hands, aside=aside, to_act=0, need=-1)
    # Seat 0's own state: every other card an unknown token.
    names = iter(range(100))
    mine = dataclasses.replace(full, hands=[hands[0]] + [[unknown(next(names)) for _ in h] for h in hands[1:]],
                               aside=[unknown(next(names)) for _ in aside])
    mine = game.apply(mine, {"type": "play", "cards": ["2D"]})
    for _ in range(3):  # seat 0 has no 3; seats 1 and 2 pass falsely (the engine cannot see their 3s)
        mine = game.apply(mine, {"type": "pass"})
    with pytest.raises(ValueError):
        Determinizer("warkocz", mine)
    action = Bot("strong", seed=1, iterations=20).choose(game, mine)
    assert action in game.legal_actions(mine)


def test_the_network_hint_is_the_strong_bots_move_with_its_reason():
    from p2pcards.ui.network_session import NetworkSession

    game = get_game("warkocz")
    _, _, mine = opening_state(game, 2, shuffled_deck("warkocz", 8))

    class Driver:
        class log:
            next_seq = 5

        def my_state(self):
            return mine

    class Peer:
        driver = Driver()

    session = NetworkSession("warkocz")
    session.peer = Peer()
    session._waiting = True  # this seat must act
    action = session.hint()
    assert action in game.legal_actions(mine)
    assert session.hint_why == "the only move" or "% of " in session.hint_why


def test_canasta_candidates_weigh_each_kind_of_move_and_the_budget_is_spent_exactly():
    """With a long move list the search keeps the heuristic's best move of
    every kind (its own choice among them) and spends exactly the simulations
    it is given, however the halving drops moves."""
    from p2pcards.bots.strong import canasta_policy
    from p2pcards.bots.strong.ismcts import ROOT_WIDTH, _candidates, search

    game = get_game("kanaszta")
    checked = 0
    for state in greedy_deal_states(game, 2, seed=4):
        legal = game.legal_actions(state)
        if len(legal) <= ROOT_WIDTH["kanaszta"] or game.deal_over(state):
            continue
        picked = _candidates(game, state, legal, canasta_policy)
        assert len(picked) == ROOT_WIDTH["kanaszta"] and all(a in legal for a in picked)
        kinds = {a["type"] for a in legal}
        assert kinds <= {a["type"] for a in picked} or len(kinds) > len(picked)
        assert canasta_policy.choose(game, state, None) in picked
        if checked < 3:
            decision = search(game, state, random.Random(1), iterations=37)
            assert decision.iterations == 37 and decision.action in picked
        checked += 1
    assert checked >= 3


TRACE = Path(__file__).resolve().parent / "strong_trace.jsonl"
# Recorded with: PYTHONPATH=. python benchmarks/bot_trace.py --iterations 12 --deals 1 --decisions 8 > tests/strong_trace.jsonl
TRACE_ARGS = dict(configs="kanasta:2,kanaszta:2,kanasta:4,kanaszta:4", iterations=12, deals=1, limit=8)


def test_canasta_search_plays_as_recorded():
    """The strong bot's canasta decisions, and every root move's reward on
    every deal it sampled, are those recorded: a speed-up must not change
    the play. (Rules or heuristics changed on purpose: record anew.)"""
    from benchmarks.bot_trace import lines

    recorded = [json.loads(line) for line in TRACE.read_text().splitlines()]
    for want, (got, _) in zip(recorded, lines(**TRACE_ARGS), strict=True):
        assert json.loads(json.dumps(got)) == want, f"decision {want['decision']} of {want['game']} at {want['players']} players differs"


def test_the_hint_says_the_warkocz_is_kept_only_when_the_move_keeps_it():
    """"keeps the warkocz for later" is said of a step only when the rest of
    the move, as the heuristic plays it, does not lay the warkocz."""
    from p2pcards.bots.greedy import warkocz as heuristic
    from p2pcards.games.warkocz import WARKOCZ

    said = 0
    for game, mine in _seat_states("warkocz", 2, 12):
        seat = game.to_act(mine)
        for action in game.legal_actions(mine):
            if heuristic.why(game, mine, action) != "keeps the warkocz for later":
                continue
            said += 1
            state, rng = game.apply(mine, action), random.Random(0)
            while not game.deal_over(state) and game.to_act(state) == seat:
                step = heuristic.choose(game, state, rng)
                if step["type"] == "pass":
                    break
                assert WARKOCZ not in step["cards"], (action, step)
                state = game.apply(state, step)
    assert said
