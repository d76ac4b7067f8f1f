"""Warkocz engine figures: random-play throughput and greedy-vs-random win rate.

    PYTHONPATH=. python benchmarks/engine_warkocz.py [--matches 200] [--seconds 3]

Throughput counts every applied action, with ``legal_actions`` called at
every step (as a bot or the table does). Targets: >= 20,000 actions/s and a
greedy win rate >= 70 % against random over 200 two-player matches.
"""

from __future__ import annotations

import argparse
import random
import time

from p2pcards.games import get_game
from p2pcards.bots.greedy import warkocz as greedy

G = get_game("warkocz")


def throughput(players: int, seconds: float) -> tuple[float, int]:
    rng = random.Random(players)
    actions = deals = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = G.start(players, seed=deals)
        while not G.deal_over(state):
            state = G.apply(state, rng.choice(G.legal_actions(state)))
            actions += 1
        deals += 1
    return actions / (time.perf_counter() - began), deals


def match(players: int, greedy_seat: int, seed: int) -> tuple[bool, int, int]:
    """Play one match; returns (greedy won, deals, greedy decisions)."""
    rng = random.Random(seed)
    m = G.new_match(players, None, seed)
    decisions = 0
    while not m.over:
        state = G.start_deal(m)
        while not G.deal_over(state):
            if G.to_act(state) == greedy_seat:
                action = greedy.choose(G, state, rng)
                decisions += 1
            else:
                action = rng.choice(G.legal_actions(state))
            state = G.apply(state, action)
        m = G.end_deal(m, state)
    return G.match_result(m)["winner"] == greedy_seat, m.deal_index, decisions


def win_rate(players: int, matches: int) -> None:
    began = time.perf_counter()
    wins = deals = decisions = 0
    for i in range(matches):
        won, d, k = match(players, i % players, 1000 + i)
        wins += won
        deals += d
        decisions += k
    took = time.perf_counter() - began
    print(
        f"  {players} players, 1 greedy vs {players - 1} random: greedy won {wins}/{matches} = "
        f"{100 * wins / matches:.1f} % (chance {100 / players:.0f} %); "
        f"{deals / matches:.1f} deals a match; {1000 * took / max(decisions, 1):.2f} ms per greedy decision"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print("warkocz random play, legal_actions + apply every step:")
    for players in (2, 3, 4):
        rate, deals = throughput(players, args.seconds)
        print(f"  {players} players: {rate:,.0f} actions/s over {deals} deals")
    print(f"greedy vs random, {args.matches} matches each, seats rotating:")
    for players in (2, 3, 4):
        win_rate(players, args.matches)


if __name__ == "__main__":
    main()
