"""Head-to-head matches between two bot strategies; prints one JSON object.

    PYTHONPATH=. python benchmarks/bots.py GAME --players N [--a strong] [--b greedy]
        [--matches M] [--think S | --iterations K] [--unit deal|match] [--seed S]
        [-o KEY=VALUE]... [--peers] [--log FILE [--first M0]]
    PYTHONPATH=. python benchmarks/bots.py --summary FILE...
    PYTHONPATH=. python benchmarks/bots.py GAME --players N --calibrate [--think S] [--matches D]

Strategy A sits at one seat, B at all the others; A's seat rotates, and each
deck is played once with A at every seat (match m uses deck seed
``seed + m // N`` with A at seat ``m % N``), so no seat or deal favours A.
With ``--a-pair`` A plays both seats of its side (pairs), B the other side,
and each deck is played twice, once with A on each side.
A unit is one deal (``--unit deal``, the default: a canasta match to 5000
takes many deals) or a whole match. A wins a unit when its side has the best
deal score (the match's winner for ``match``); a shared best counts half.

In-process (the default) only the engines run, and each bot is handed its
own seat's state through the same knowledge path a peer uses
(``p2pcards.bots.strong.arena``): public tokens plus the cards that seat was
shown. ``--peers`` plays every unit with ``p2pcards selfplay``: real peer
processes, mental-poker dealing, ``--strategy SEAT=NAME``; the time per
decision is then not measured (the wall time per unit is).

The strong bot's budget: ``--think`` is wall time (a loaded machine gives it
fewer simulations, so results vary with the load); ``--iterations`` fixes the
simulations per decision, which makes a run repeatable. With neither, the
strong bot gets ``one_second(game, players)`` simulations: what the median
decision of a one-second search (the default ``--think``) ran on the machine
the README's figures come from (2-core x86-64 at load 4, ``--calibrate``), so
the figures measure the default budget reproducibly.

``--calibrate`` measures what ``--think`` (default 1 s) buys here and now:
the strong bot searches every decision of greedy deals for that long, and
the simulations it managed are printed (median, tenth percentile, mean) with
the CPU seconds they took and the simulations per CPU second: the way to
check ``ONE_SECOND`` on a machine.

Output: A's win rate with a 95 % Wilson interval, its fair share (1 / sides)
and the ratio, and A's and B's CPU seconds per decision (the mean over the
decisions that had a choice, and the slowest one). ``--log FILE`` appends
one JSON line per unit as it ends, so a long run can be cut short, carried
on later (``--first M0`` starts at unit M0) and summed with ``--summary``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from p2pcards.bots import STRATEGIES, Bot
from p2pcards.cli.args import parse_options
from p2pcards.games import get_game
from p2pcards.peer.seating import split_options
from p2pcards.bots.strong.arena import play_deal, play_match
from p2pcards.bots.strong.evaluate import outcome

# The simulations of the median decision of a one-second search on the reference
# machine (``--calibrate``, 2026-12-01, load 4), at 2 players and at 4; early
# canasta decisions run fewer, late ones more.
ONE_SECOND = {"kanasta": (150, 180), "kanaszta": (200, 200), "warkocz": (1750, 1100), "bura": (900, 500)}


def one_second(game_id: str, players: int) -> int:
    """``ONE_SECOND`` at this many players: 3 between 2 and 4, 5-6 as 4."""
    two, four = ONE_SECOND[game_id]
    return two if players <= 2 else four if players >= 4 else (two + four) // 2


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (ties counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class Timed:
    """A bot that notes the CPU time of each decision that had a choice."""

    def __init__(self, bot):
        self.bot = bot
        self.times: list[float] = []

    def choose(self, game, state):
        choice = len(game.legal_actions(state)) > 1
        t0 = time.process_time()
        action = self.bot.choose(game, state)
        if choice:
            self.times.append(time.process_time() - t0)
        return action


def unit_seat_and_deck(args, m: int) -> tuple[int, int]:
    """Unit ``m``'s seat for A and its deck seed: each deck once with A at
    every seat (with ``--a-pair``, once with A on each side: seats 0 and 1)."""
    turns = 2 if args.a_pair else args.players
    return m % turns, args.seed + m // turns


def a_seats(args, game, options, a_seat: int) -> set[int]:
    """The seats A plays: ``a_seat``, and with ``--a-pair`` its partner too."""
    if not args.a_pair:
        return {a_seat}
    full = game.options(args.players, split_options(options)[0])
    side = game.side_of(a_seat, args.players, full)
    return {s for s in range(args.players) if game.side_of(s, args.players, full) == side}


def _bots(args, seats: set[int], unit: int):
    def make(name, seat):
        return Timed(Bot(name, seed=f"{args.seed}:{unit}:{seat}", think=args.think, iterations=args.iterations))

    return [make(args.a if s in seats else args.b, s) for s in range(args.players)]


def _share_of_best(values: list, side: int) -> float:
    best = max(values)
    if values[side] != best:
        return 0.0
    return 1.0 / sum(1 for v in values if v == best)


def in_process_unit(args, game, options, m: int) -> dict:
    """Unit ``m`` in one process: A's result and every seat's decision times."""
    a_seat, seed = unit_seat_and_deck(args, m)
    mine = a_seats(args, game, options, a_seat)
    bots = _bots(args, mine, m)
    if args.unit == "deal":
        match = game.new_match(args.players, options, seed)
        won = outcome(game, play_deal(game, match, bots).state, a_seat)[0]
    else:
        match, _, _ = play_match(game, args.players, bots, seed, options)
        won = _share_of_best(list(match.scores), game.side_of(a_seat, args.players, match.options))
    return {"unit": m, "a_seat": a_seat, "deck_seed": seed, "a_won": won,
            "a_times": [round(t, 4) for s in sorted(mine) for t in bots[s].times],
            "b_times": [round(t, 4) for s, b in enumerate(bots) if s not in mine for t in b.times]}


def peers_unit(args, game, options, m: int, work: Path) -> float:
    from p2pcards.cli.selfplay import selfplay

    a_seat, seed = unit_seat_and_deck(args, m)
    mine = a_seats(args, game, options, a_seat)
    per_seat = {s: (args.a if s in mine else args.b) for s in range(args.players)}
    opts = dict(options)
    if args.unit == "deal":
        opts["table.deals"] = 1
    summary = selfplay(game.id, args.players, seed, str(work / f"unit{m}.p2plog"), options=opts,
                       seat_strategies=per_seat, think=args.think, workdir=str(work / f"unit{m}"))
    result = summary["result"]
    if result.get("aborted"):
        raise SystemExit(f"unit {m} aborted: {result}")
    full = game.options(args.players, split_options(opts)[0])
    side = game.side_of(a_seat, args.players, full)
    return _share_of_best(list(result["scores"]), side)


def calibrate(args, game, options) -> dict:
    """The simulations a ``--think`` second search runs at every decision with
    a choice of ``--matches`` greedy deals (the strong bot at seat 0, its
    moves the greedy ones, so every deal is the same whatever the load)."""
    from p2pcards.bots.strong import search

    seconds = args.think if args.think is not None else 1.0
    sims, cpu = [], []

    class Probe:
        def __init__(self, seed):
            self.greedy, self.rng = Bot("greedy", seed=seed), random.Random(seed)

        def choose(self, game, state):
            if len(game.legal_actions(state)) > 1:
                t0 = time.process_time()
                sims.append(search(game, state, self.rng, seconds=seconds).iterations)
                cpu.append(time.process_time() - t0)
            return self.greedy.choose(game, state)

    for m in range(args.first, args.first + args.matches):
        bots = [Probe(f"{args.seed}:{m}:0")] + [Bot("greedy", seed=f"{args.seed}:{m}:{s}") for s in range(1, args.players)]
        play_deal(game, game.new_match(args.players, options, args.seed + m), bots)
    ordered = sorted(sims)
    return {"game": game.id, "players": args.players, "think_s": seconds, "decisions": len(sims),
            "simulations_median": ordered[len(ordered) // 2], "simulations_p10": ordered[len(ordered) // 10],
            "simulations_mean": round(sum(sims) / len(sims)), "cpu_s_per_decision": round(sum(cpu) / len(cpu), 3),
            "simulations_per_cpu_s": round(sum(sims) / sum(cpu)), "one_second_now": one_second(game.id, args.players)}


def summary(units: list[dict], sides: int) -> dict:
    """A's win rate with its Wilson interval and the decision times of ``units``."""
    n = len(units)
    wins = sum(u["a_won"] for u in units)
    low, high = wilson(wins, n)
    rate = wins / n if n else 0.0
    out = {"units": n, "a_wins": wins, "a_win_rate": round(rate, 3), "wilson95": [round(low, 3), round(high, 3)],
           "fair_share": round(1 / sides, 3), "share_ratio": round(rate * sides, 2),
           "share_ratio_wilson95": [round(low * sides, 2), round(high * sides, 2)]}
    for who in ("a", "b"):
        times = [t for u in units for t in u.get(f"{who}_times", [])]
        if times:
            out[f"{who}_cpu_s_per_decision"] = round(sum(times) / len(times), 4)
            out[f"{who}_cpu_s_slowest"] = round(max(times), 3)
            out[f"{who}_decisions"] = len(times)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game", nargs="?")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--a", default="strong", choices=STRATEGIES)
    p.add_argument("--b", default="greedy", choices=STRATEGIES)
    p.add_argument("--matches", type=int, default=20, help="units to play (a multiple of --players is fair)")
    p.add_argument("--first", type=int, default=0, help="the first unit's number (to carry on a cut-short run)")
    p.add_argument("--think", type=float, help="strong bot's wall seconds per decision")
    p.add_argument("--iterations", type=int, help="strong bot's simulations per decision (default: one_second)")
    p.add_argument("--unit", choices=("deal", "match"), default="deal")
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("-o", dest="option", action="append", metavar="KEY=VALUE")
    p.add_argument("--a-pair", action="store_true",
                   help="A plays its partner's seat too (pairs): the A side against B's")
    p.add_argument("--peers", action="store_true", help="real peer processes (selfplay) instead of in-process")
    p.add_argument("--log", help="append one JSON line per unit to this file")
    p.add_argument("--summary", nargs="+", metavar="FILE", help="sum up the units logged in these files")
    p.add_argument("--calibrate", action="store_true", help="print the simulations --think seconds buy here (deals: --matches)")
    args = p.parse_args(argv)
    if args.summary:
        units = [json.loads(line) for f in args.summary for line in Path(f).read_text().splitlines() if line]
        heads = {(u["game"], u["players"], u["options"], u["budget"], u.get("a_pair", False)) for u in units}
        if len(heads) != 1:
            raise SystemExit(f"these logs mix runs: {sorted(heads)}")
        game_id, players, opts, budget, _pair = heads.pop()
        if len({u["unit"] for u in units}) != len(units):
            raise SystemExit("a unit is logged twice")
        game = get_game(game_id)
        sides = game.sides(players, game.options(players, json.loads(opts)))
        print(json.dumps({"game": game_id, "players": players, "budget": budget, **summary(units, sides)}))
        return 0
    if args.game is None:
        p.error("give a GAME (or --summary FILE...)")
    game = get_game(args.game)
    options = parse_options(args.option)
    if args.calibrate:
        print(json.dumps(calibrate(args, game, options)))
        return 0
    if args.think is None and args.iterations is None:
        args.iterations = one_second(game.id, args.players)
    rules = split_options(options)[0]
    sides = game.sides(args.players, game.options(args.players, rules))
    budget = f"{args.think} s" if args.think is not None else f"{args.iterations} simulations"
    head = {"game": game.id, "players": args.players, "options": json.dumps(rules, sort_keys=True),
            "budget": budget, "a": args.a, "b": args.b, "unit_kind": args.unit}
    if args.a_pair:
        head["a_pair"] = True
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="p2pcards-botbench-")) if args.peers else None
    units = []
    wins = 0.0
    for m in range(args.first, args.first + args.matches):
        if args.peers:
            unit = {"unit": m, "a_seat": unit_seat_and_deck(args, m)[0],
                    "a_won": peers_unit(args, game, options, m, work)}
        else:
            unit = in_process_unit(args, game, options, m)
        units.append(unit)
        wins += unit["a_won"]
        if args.log:
            with open(args.log, "a") as f:
                f.write(json.dumps({**head, **unit}) + "\n")
        print(f"{m + 1 - args.first}/{args.matches}: A {wins:g} wins", file=sys.stderr, flush=True)
    report = {"game": args.game, "players": args.players, "a": args.a, "b": args.b, "a_pair": args.a_pair, "unit": args.unit,
              "mode": "peers" if args.peers else "in-process", "budget": budget, **summary(units, sides),
              "wall_s": round(time.perf_counter() - started, 1)}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
