"""Head-to-head matches between two bot strategies; prints one JSON object.

    PYTHONPATH=. python benchmarks/bots.py GAME --players N [--a strong] [--b greedy]
        [--matches M] [--think S | --iterations K] [--unit deal|match] [--seed S]
        [-o KEY=VALUE]... [--peers]

Strategy A sits at one seat, B at all the others; A's seat rotates, and each
deck is played once with A at every seat (match m uses deck seed
``seed + m // N`` with A at seat ``m % N``), so no seat or deal favours A.
A unit is one deal (``--unit deal``, the default: a canasta match to 5000
takes many deals) or a whole match. A wins a unit when its side has the best
deal score (the match's winner for ``match``); a shared best counts half.

In-process (the default) only the engines run, and each bot is handed its
own seat's state through the same knowledge path a peer uses
(``p2pcards.bots.strong.arena``): public tokens plus the cards that seat was
shown. ``--peers`` plays every unit with ``p2pcards selfplay``: real peer
processes, mental-poker dealing, ``--strategy SEAT=NAME``; the time per
decision is then not measured (the wall time per unit is).

Output: A's win rate with a 95 % Wilson interval, its fair share (1 / sides)
and the ratio, and A's and B's CPU seconds per decision (mean; the strong
bot's budget is wall time, so a loaded machine gives it fewer simulations).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

from p2pcards.bots import STRATEGIES, Bot
from p2pcards.cli import parse_options
from p2pcards.games import get_game
from p2pcards.bots.strong.arena import play_deal, play_match
from p2pcards.bots.strong.evaluate import outcome


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (ties counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _bots(args, a_seat: int, unit: int):
    def make(name, seat):
        return Bot(name, seed=f"{args.seed}:{unit}:{seat}", think=args.think, iterations=args.iterations)

    return [make(args.a if s == a_seat else args.b, s) for s in range(args.players)]


def _share_of_best(values: list, side: int) -> float:
    best = max(values)
    if values[side] != best:
        return 0.0
    return 1.0 / sum(1 for v in values if v == best)


def in_process_unit(args, game, options, m: int) -> tuple[float, list[float], list[int]]:
    a_seat = m % args.players
    seed = args.seed + m // args.players
    bots = _bots(args, a_seat, m)
    if args.unit == "deal":
        match = game.new_match(args.players, options, seed)
        result = play_deal(game, match, bots)
        return outcome(game, result.state, a_seat)[0], result.think, result.decisions
    match, think, decisions = play_match(game, args.players, bots, seed, options)
    side = game.side_of(a_seat, args.players, match.options)
    return _share_of_best(list(match.scores), side), think, decisions


def peers_unit(args, game, options, m: int, work: Path) -> float:
    from p2pcards.cli.selfplay import selfplay

    a_seat = m % args.players
    seed = args.seed + m // args.players
    per_seat = {s: (args.a if s == a_seat else args.b) for s in range(args.players)}
    opts = dict(options)
    if args.unit == "deal":
        opts["table.deals"] = 1
    summary = selfplay(game.id, args.players, seed, str(work / f"unit{m}.p2plog"), options=opts,
                       seat_strategies=per_seat, think=args.think, workdir=str(work / f"unit{m}"))
    result = summary["result"]
    if result.get("aborted"):
        raise SystemExit(f"unit {m} aborted: {result}")
    full = game.options(args.players, {k: v for k, v in opts.items() if not k.startswith("table.")})
    side = game.side_of(a_seat, args.players, full)
    return _share_of_best(list(result["scores"]), side)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--a", default="strong", choices=STRATEGIES)
    p.add_argument("--b", default="greedy", choices=STRATEGIES)
    p.add_argument("--matches", type=int, default=20, help="units to play (a multiple of --players is fair)")
    p.add_argument("--think", type=float, help="strong bot's seconds per decision (default 1)")
    p.add_argument("--iterations", type=int, help="strong bot's simulations per decision instead of a time")
    p.add_argument("--unit", choices=("deal", "match"), default="deal")
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("-o", dest="option", action="append", metavar="KEY=VALUE")
    p.add_argument("--peers", action="store_true", help="real peer processes (selfplay) instead of in-process")
    args = p.parse_args(argv)
    game = get_game(args.game)
    options = parse_options(args.option)
    sides = game.sides(args.players, game.options(args.players,
                                                  {k: v for k, v in options.items() if not k.startswith("table.")}))
    wins = 0.0
    a_time = b_time = 0.0
    a_dec = b_dec = 0
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="p2pcards-botbench-")) if args.peers else None
    for m in range(args.matches):
        a_seat = m % args.players
        if args.peers:
            wins += peers_unit(args, game, options, m, work)
            continue
        won, think, decisions = in_process_unit(args, game, options, m)
        wins += won
        for s in range(args.players):
            if s == a_seat:
                a_time, a_dec = a_time + think[s], a_dec + decisions[s]
            else:
                b_time, b_dec = b_time + think[s], b_dec + decisions[s]
        print(f"{m + 1}/{args.matches}: A {wins:g} wins", file=sys.stderr, flush=True)
    low, high = wilson(wins, args.matches)
    rate = wins / args.matches if args.matches else 0.0
    report = {
        "game": args.game, "players": args.players, "a": args.a, "b": args.b, "unit": args.unit,
        "units": args.matches, "mode": "peers" if args.peers else "in-process",
        "think": args.think, "iterations": args.iterations,
        "a_wins": wins, "a_win_rate": round(rate, 3), "wilson95": [round(low, 3), round(high, 3)],
        "fair_share": round(1 / sides, 3), "share_ratio": round(rate * sides, 2),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if not args.peers:
        report["a_cpu_s_per_decision"] = round(a_time / a_dec, 4) if a_dec else None
        report["b_cpu_s_per_decision"] = round(b_time / b_dec, 4) if b_dec else None
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
