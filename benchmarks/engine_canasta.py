"""Canasta engines (kanasta, kanaszta): random-play throughput and greedy-vs-random win rate.

    PYTHONPATH=. python benchmarks/engine_canasta.py [--matches 200] [--seconds 3] [--target N]

Throughput counts every applied action, with ``legal_actions`` called at
every step (as a bot or the table does); the rate per CPU second of this
process is printed too, as other work on the machine slows the wall clock. Targets: >= 5,000 actions/s and a
greedy win rate >= 70 % against random over 200 matches. Matches are played
to each game's own target (10000 / 15000: about 6 minutes in all), or to
``--target N`` points for a quicker run.
"""

from __future__ import annotations

import argparse
import random
import time

from p2pcards.games import get_game
from p2pcards.bots.greedy import canasta as greedy

GAMES = ("kanasta", "kanaszta")
TABLES = ((2, {}), (3, {}), (4, {}), (4, {"pairs": False}))


def label(players: int, options: dict) -> str:
    if players == 4:
        return "4 players in pairs" if options.get("pairs", True) else "4 players alone"
    return f"{players} players"


def throughput(game, players: int, options: dict, seconds: float) -> tuple[float, float, int, float]:
    """(actions per wall second, per CPU second of this process, deals, legal actions a step)."""
    rng = random.Random(players)
    actions = deals = listed = 0
    began = time.perf_counter()
    cpu = time.process_time()
    while time.perf_counter() - began < seconds:
        state = game.start(players, seed=deals, options=options)
        while not game.deal_over(state):
            legal = game.legal_actions(state)
            listed += len(legal)
            state = game.apply(state, rng.choice(legal))
            actions += 1
        deals += 1
    wall = time.perf_counter() - began
    cpu = time.process_time() - cpu
    return actions / wall, actions / max(cpu, 1e-9), deals, listed / max(actions, 1)


def match(game, players: int, options: dict, greedy_side: int, seed: int) -> tuple[bool, int, int]:
    """Play one match, the greedy bot on every seat of ``greedy_side``;
    returns (greedy side won, deals, greedy decisions)."""
    rng = random.Random(seed)
    m = game.new_match(players, options, seed)
    decisions = 0
    while not m.over:
        state = game.start_deal(m)
        while not game.deal_over(state):
            seat = game.to_act(state)
            if game.side_of(seat, players, m.options) == greedy_side:
                action = greedy.choose(game, state, rng)
                decisions += 1
            else:
                action = rng.choice(game.legal_actions(state))
            state = game.apply(state, action)
        m = game.end_deal(m, state)
    return game.match_result(m)["winner"] == greedy_side, m.deal_index, decisions


def win_rate(game, players: int, options: dict, matches: int) -> None:
    began = time.perf_counter()
    sides = game.sides(players, game.options(players, options))
    wins = deals = decisions = 0
    for i in range(matches):
        won, d, k = match(game, players, options, i % sides, 1000 + i)
        wins += won
        deals += d
        decisions += k
    took = time.perf_counter() - began
    who = "1 greedy pair vs 1 random pair" if sides == 2 and players == 4 else f"1 greedy vs {sides - 1} random"
    print(
        f"  {label(players, options)}, {who}: greedy won {wins}/{matches} = {100 * wins / matches:.1f} % "
        f"(chance {100 / sides:.0f} %); {deals / matches:.1f} deals a match; "
        f"{1000 * took / max(decisions, 1):.2f} ms per greedy decision; {took:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="0: throughput only")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--target", type=int, default=0, help="match target; 0: the game's own")
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args()
    for game_id in args.games.split(","):
        game = get_game(game_id)
        print(f"{game_id} random play, legal_actions + apply every step:")
        for players, options in TABLES:
            rate, cpu_rate, deals, listed = throughput(game, players, options, args.seconds)
            print(f"  {label(players, options)}: {rate:,.0f} actions/s ({cpu_rate:,.0f} per CPU second) "
                  f"over {deals} deals ({listed:.1f} legal actions a step on average)")
        if not args.matches:
            continue
        target = {"target": args.target} if args.target else {}
        print(f"{game_id} greedy vs random, {args.matches} matches each to "
              f"{args.target or game.default_options(2)['target']} points, seats rotating:")
        for players, options in ((2, {}), (3, {}), (4, {})):
            win_rate(game, players, {**options, **target}, args.matches)


if __name__ == "__main__":
    main()
