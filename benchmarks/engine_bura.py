"""Bura engine benchmark: random-play throughput and greedy-vs-random win rate.

    PYTHONPATH=. python benchmarks/engine_bura.py [--deals N] [--matches M]

Throughput counts one action as legal_actions + a random choice + apply, over
whole deals of 2 to 6 players (target: 20,000 actions/s). The win rate plays
whole matches (default options): heads-up greedy against random, seats
alternating (target: 70 %), and one greedy against three random players.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pcards.games import get_game  # noqa: E402
from p2pcards.bots.greedy import bura as greedy  # noqa: E402

G = get_game("bura")


def throughput(deals: int, declare: bool = True) -> tuple[int, float]:
    """Random play; with ``declare`` False nobody declares, so every deal
    runs through refills to the exhaustion of the cards (or a bessa)."""
    actions = 0
    t0 = time.perf_counter()
    for seed in range(deals):
        rng = random.Random(seed)
        players = 2 + seed % 5
        state = G.start(players, seed=seed, dealer=seed % players)
        while not G.deal_over(state):
            legal = G.legal_actions(state)
            if not declare and legal[0]["type"] == "declare":
                legal = legal[1:]
            state = G.apply(state, rng.choice(legal))
            actions += 1
    return actions, time.perf_counter() - t0


def play_match(players: int, greedy_seats: set[int], seed: int) -> list[int]:
    rng = random.Random(seed)
    match = G.new_match(players, seed=seed)
    while not match.over:
        state = G.start_deal(match)
        while not G.deal_over(state):
            if G.to_act(state) in greedy_seats:
                action = greedy.choose(G, state, rng)
            else:
                action = rng.choice(G.legal_actions(state))
            state = G.apply(state, action)
        match = G.end_deal(match, state)
    return match.chips


def win_rate(players: int, matches: int) -> tuple[float, float, float]:
    """(share of matches the greedy seat ends strictly on top, ties, its mean chips change)."""
    wins = ties = 0
    gained = 0
    start = G.default_options(players)["chips"]
    for m in range(matches):
        seat = m % players
        chips = play_match(players, {seat}, seed=10_000 + m)
        top = max(chips)
        if chips[seat] == top:
            if chips.count(top) == 1:
                wins += 1
            else:
                ties += 1
        gained += chips[seat] - start
    return wins / matches, ties / matches, gained / matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--matches", type=int, default=200)
    args = parser.parse_args()

    actions, seconds = throughput(args.deals)
    print(f"random play: {actions} actions in {args.deals} deals, {seconds:.2f} s: "
          f"{actions / seconds:,.0f} actions/s (legal_actions + apply each)")
    actions, seconds = throughput(args.deals, declare=False)
    print(f"random play, never declaring (long deals): {actions} actions in {args.deals} deals, "
          f"{seconds:.2f} s: {actions / seconds:,.0f} actions/s")

    t0 = time.perf_counter()
    for players in (2, 4):
        wins, ties, gained = win_rate(players, args.matches)
        print(f"greedy vs random, {players} players, {args.matches} matches: greedy on top in {wins:.1%} "
              f"(ties {ties:.1%}; chance {1 / players:.0%}), mean chips {gained:+.0f} per match")
    print(f"matches took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
