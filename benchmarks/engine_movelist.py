"""Canasta move lists: the longest ``legal_actions`` and its slowest call, per game.

    PYTHONPATH=. python benchmarks/engine_movelist.py [--games N] [--seconds S] [--seed K]

Hands grow large only when players hoard the pile, so the policy here takes
the pile whenever it may (with the fewest hand cards), otherwise melds or
adds rarely (``--meld-rate``) and mostly discards; any other step is random.
For each deal it prints the largest number of listed actions, the slowest
single ``legal_actions`` call and the largest hand seen; then the worst over
all deals. Targets: at most 2,000 actions and 5 ms a call.
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
        began = time.perf_counter()
        actions = game.legal_actions(state)
        took = time.perf_counter() - began
        most = max(most, len(actions))
        slowest = max(slowest, took)
        hand = max(hand, max(len(h) for h in state.hands))
        state = game.apply(state, hoarding_choice(actions, rng, meld_rate))
        steps += 1
    return most, slowest, hand, steps


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


if __name__ == "__main__":
    main()
