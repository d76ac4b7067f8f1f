"""Canasta move lists: the longest ``legal_actions`` and its slowest call, per game.

    PYTHONPATH=. python benchmarks/engine_movelist.py [--games N] [--seconds S] [--seed K]

Hands grow large only when players hoard the pile, so the policy here takes
the pile whenever it may (with the fewest hand cards), otherwise melds or
adds rarely (``--meld-rate``) and mostly discards; any other step is random.
For each deal it prints the largest number of listed actions, the slowest
single ``legal_actions`` call in CPU time of this process (a call over 1 ms
is timed three times and its fastest run kept: the machine is shared) and the largest hand seen; then the worst over
all deals; and a constructed extreme kanasta hand. Targets: at most 2,000
actions and 5 ms a call.
"""

from __future__ import annotations

import argparse
import random
import time

from p2pcards.games import get_game

TABLES = ((2, {}), (4, {}))


def hoarding_choice(actions: list[dict], rng: random.Random, meld_rate: float) -> dict:
    takes = [a for a in actions if a["type"] == "take_pile"]
    if takes:
        return min(takes, key=lambda a: len(a.get("cards", [])))
    melds = [a for a in actions if a["type"] in ("meld", "add", "swap")]
    discards = [a for a in actions if a["type"] == "discard"]
    if melds and (not discards or rng.random() < meld_rate):
        return rng.choice(melds)
    if discards:
        return rng.choice(discards)
    return rng.choice(actions)


def play_deal(game, players: int, options: dict, seed: int, meld_rate: float) -> tuple[int, float, int, int]:
    """(most actions listed, slowest call in seconds, largest hand, steps) of one deal."""
    rng = random.Random(seed)
    state = game.start(players, seed=seed, options=options)
    most = hand = steps = 0
    slowest = 0.0
    while not game.deal_over(state):
        began = time.process_time()
        actions = game.legal_actions(state)
        took = time.process_time() - began
        if took > 0.001:
            # The machine is shared: a slow call is timed twice more and its
            # fastest run kept, so the figure is the call's cost, not a pause.
            for _ in range(2):
                began = time.process_time()
                game.legal_actions(state)
                took = min(took, time.process_time() - began)
        most = max(most, len(actions))
        slowest = max(slowest, took)
        hand = max(hand, max(len(h) for h in state.hands))
        state = game.apply(state, hoarding_choice(actions, rng, meld_rate))
        steps += 1
    return most, slowest, hand, steps


def extreme_hand(melds_on_table: int) -> tuple[int, float]:
    """(actions, fastest of 3 calls in seconds) for a constructed kanasta turn:
    a 44-card hand holding all twelve wilds and four of each of eight ranks,
    opened, with ``melds_on_table`` three-card melds of those ranks to add to."""
    from p2pcards.games.canasta import Meld
    game = get_game("kanasta")
    state = game.start(2, seed=1).evolve()
    ranks = ("5", "6", "7", "8", "9", "10", "J", "Q")
    state.hands[1] = ["JK"] * 4 + [f"2{s}" for s in "CDHS"] * 2 + [r + s for r in ranks for s in "CDHS"]
    state.turn, state.phase, state.can_take = 1, "meld", True
    state.opened, state.turns_done = [True, True], [3, 3]
    state.melds = [Meld(k % 2, k % 2, r, [r + "C", r + "D", r + "S"], 3, 0) for k, r in enumerate(ranks[:melds_on_table])]
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        actions = game.legal_actions(state)
        best = min(best, time.process_time() - began)
    return len(actions), best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="deals per table")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop a table after this long")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--meld-rate", type=float, default=0.05, help="chance to meld when not forced")
    args = parser.parse_args()
    for game_id in ("kanasta", "kanaszta"):
        game = get_game(game_id)
        for players, options in TABLES:
            worst = (0, 0.0, 0)
            began = time.perf_counter()
            played = 0
            for k in range(args.games):
                if time.perf_counter() - began > args.seconds:
                    break
                most, slowest, hand, steps = play_deal(game, players, options, args.seed + k, args.meld_rate)
                played += 1
                print(f"{game_id} {players}p deal {k}: {most} actions at most, slowest call "
                      f"{1000 * slowest:.2f} ms, largest hand {hand}, {steps} steps")
                worst = (max(worst[0], most), max(worst[1], slowest), max(worst[2], hand))
            print(f"== {game_id} {players} players, {played} deals: worst {worst[0]} actions, "
                  f"slowest call {1000 * worst[1]:.2f} ms, largest hand {worst[2]}")
    for melds in (0, 4):
        count, took = extreme_hand(melds)
        print(f"== kanasta, constructed 44-card hand with all 12 wilds, {melds} melds of its ranks on the "
              f"table: {count} actions, {1000 * took:.2f} ms a call")


if __name__ == "__main__":
    main()
