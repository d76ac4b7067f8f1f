"""A fingerprint of the two canasta engines' behaviour, to compare before and after a refactoring.

    .venv/bin/python tools/canasta_fingerprint.py [--deals N] [--verbose]

Plays deals of kanasta and kanaszta at every player count and under each
house rule, with three policies (random, the greedy bot, an eager one that
takes and melds whenever it can), and hashes every step: the legal actions,
the action chosen, its wording, the state after it, both views, and the
answer (refusal text with its msgid and fields, or the state it leads to) to
a handful of probe actions, most of them illegal; at the end the deal's
scores. Some deals are also played as the network plays them (unknown
tokens for the cards a seat has not seen), hashing each seat's legal
actions and the public state. Same digest = same legal actions, states,
scores, refusals and wordings.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pcards.bots.greedy import canasta as greedy  # noqa: E402
from p2pcards.cards import unknown  # noqa: E402
from p2pcards.games import NeedReveal, get_game, substitute  # noqa: E402
from p2pcards.games.base import IllegalAction, shuffled_deck  # noqa: E402

TABLES = {
    "kanasta": [
        (2, {}), (3, {}), (4, {}), (4, {"pairs": False}),
        (2, {"play_before_first_meld": True}), (3, {"swap_twos": False}),
        (4, {"go_out_canasta": True}), (2, {"one_meld_per_rank": True}),
        (4, {"cards_score_to_layer": False}), (3, {"first_meld": 0}),
    ],
    "kanaszta": [
        (2, {}), (3, {}), (4, {}), (4, {"pairs": False}),
        (2, {"red3_replacement": False}), (4, {"red3_replacement": False}),
        (3, {"go_out_canasta": False}), (2, {"one_meld_per_rank": False}),
        (2, {"empty_stock_ends": False}), (4, {"partner_hand_counts": False}),
        (3, {"plain_two_stops": True}), (4, {"freeze_binds_own_side": True}),
    ],
}
EAGER = ("take_pile", "red3", "swap", "meld", "add", "discard", "draw")


def text_of(value) -> str:
    """A message with what it is made of: its English, msgid, plural and fields."""
    return repr((str(value), getattr(value, "message", None), getattr(value, "plural", None),
                 sorted((k, text_of(v)) for k, v in (getattr(value, "fields", None) or {}).items())))


def answer(game, state, action) -> str:
    try:
        return "ok " + repr(game.apply(state, action))
    except IllegalAction as refused:
        return "refused " + text_of(refused.args[0] if refused.args else "")
    except NeedReveal as need:
        return "reveal " + repr(need.tokens)


def probes(state, rng) -> list[dict]:
    """Actions of every type around the acting seat's hand and the table, most of them illegal."""
    seat = state.turn
    hand = sorted(set(state.hands[seat]))
    reds = [c for c in hand if c in ("3D", "3H")]
    pick = rng.sample(hand, min(3, len(hand)))
    same = [c for c in hand if pick and c[:-1] == pick[0][:-1]]
    melds = len(state.melds)
    top = state.pile[-1] if state.pile else "?"
    with_top = [c for c in state.hands[seat] if c[:-1] == top[:-1]][:2]
    out = [
        {"type": "draw"}, {"type": "red3", "cards": []}, {"type": "red3", "cards": reds},
        {"type": "red3", "cards": reds[:1]}, {"type": "red3", "cards": pick[:1]},
        {"type": "take_pile", "cards": []}, {"type": "take_pile", "cards": pick[:2]},
        {"type": "take_pile", "cards": same[:2]}, {"type": "meld", "cards": pick},
        {"type": "discard", "cards": pick[:1], "freeze": True}, {"type": "discard", "cards": pick[:1]},
        {"type": "swap", "meld": 0, "wild": "JK", "cards": pick[:1]}, {"type": "pass"},
        {"type": "draw", "seat": (seat + 1) % state.players}, {"type": "take_pile", "cards": with_top},
    ]
    if melds:
        i = rng.randrange(melds)
        out += [{"type": "take_pile", "cards": [], "meld": i}, {"type": "take_pile", "cards": same[:2], "meld": i},
                {"type": "take_pile", "cards": with_top, "meld": i},
                {"type": "add", "meld": i, "cards": pick[:1]}, {"type": "add", "meld": melds, "cards": pick[:1]},
                {"type": "swap", "meld": i, "wild": next((c for c in state.melds[i].cards if c[0] in "2J"), "2C"),
                 "cards": [c for c in hand if c[:-1] == state.melds[i].rank][:1]}]
    return out


def choose(policy, game, state, legal, rng) -> dict:
    if policy == "greedy":
        return greedy.choose(game, state, rng)
    if policy == "eager":
        for kind in EAGER:
            some = [a for a in legal if a["type"] == kind]
            if some:
                return rng.choice(some)
    return rng.choice(legal)


def play(game, players, options, seed, policy, h, verbose=False) -> int:
    rng = random.Random(f"{game.id} {players} {options} {seed} {policy}")
    match = game.new_match(players, options, seed)
    # A later deal of the match: other minimums (kanaszta), another dealer.
    scores = [rng.choice((-100, 0, 1600, 3100)) for _ in match.scores]
    state = game.start(players, seed=seed, dealer=seed % players, options=match.options, scores=scores)
    steps = 0
    while not game.deal_over(state):
        legal = game.legal_actions(state)
        action = choose(policy, game, state, legal, rng)
        h.update(repr(legal).encode())
        h.update(repr(action).encode())
        h.update(text_of(game.describe_action(state, state.turn, action, None)).encode())
        h.update(text_of(game.describe_action(state, state.turn, action, "Ann")).encode())
        for probe in probes(state, rng):
            h.update(answer(game, state, probe).encode())
        state = game.apply(state, action)
        h.update(repr(state).encode())
        h.update(repr(game.view(state, None)).encode())
        h.update(repr(game.view(state, steps % players)).encode())
        steps += 1
    h.update(repr(game.deal_scores(state)).encode())
    h.update(repr(game.end_deal(match, state)).encode())
    if verbose:
        print(f"  {game.id} {players} {options} seed {seed} {policy}: {steps} steps, {h.hexdigest()[:12]}")
    return steps


def play_hidden(game, players, options, seed, h) -> int:
    """A deal as the network plays it: each seat's legal actions from what it
    knows and the public state, through the knowledge model the in-process
    table uses (SeatViews)."""
    from p2pcards.bots.strong.arena import SeatViews
    match = game.new_match(players, options, seed)
    deck = shuffled_deck(game.id, seed, 0)
    full = game.start(players, deck=deck, dealer=match.dealer, options=match.options, scores=match.scores,
                      **game.deal_context(match))
    views = SeatViews(game, match, deck)
    rng = random.Random(seed)
    steps = 0
    while not game.deal_over(full):
        actor = game.to_act(full)
        legal = game.legal_actions(views.seat_state(actor))
        h.update(repr(legal).encode())
        action = rng.choice(legal)
        full = game.apply(full, action)
        views.played(actor, action)
        h.update(repr(views.public).encode())
        steps += 1
    everything = {unknown(p): c for p, c in enumerate(deck)}
    h.update(repr(game.deal_scores(substitute(views.public, everything))).encode())
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4, help="deals per table and policy")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    total = hashlib.sha256()
    for game_id, tables in TABLES.items():
        game = get_game(game_id)
        h = hashlib.sha256()
        steps = 0
        for players, options in tables:
            for seed in range(args.deals):
                for policy in ("random", "greedy", "eager"):
                    steps += play(game, players, options, seed, policy, h, args.verbose)
            steps += play_hidden(game, players, options, 100 + len(options), h)
        print(f"{game_id}: {steps} steps, {h.hexdigest()}")
        total.update(h.digest())
    print(f"both: {total.hexdigest()}")


if __name__ == "__main__":
    main()
