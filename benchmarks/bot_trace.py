"""Every decision the strong bot makes in seeded canasta deals, as JSON lines:
the proof that a speed change left its play alone.

    PYTHONPATH=. python benchmarks/bot_trace.py [--iterations K] [--deals D]
        [--decisions N] [--games kanasta:2,kanaszta:4,...] > FILE

For each configuration and deal the strong bot sits at seat ``deal % players``
(greedy at the others) and plays a fixed number of simulations; each line
holds the decision's action and a digest of every root move's reward on
every determinization, so any change in the simulations shows even where
the chosen move stays the same. Two runs of the same code print the same
lines; ``diff`` two files to compare two versions of the code.
``tests/strong_trace.jsonl`` is a short one that the tests replay (record it
anew, with the command in ``tests/test_strong_bot.py``, only when the play
is meant to change: new rules, a new heuristic).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

from p2pcards.bots import Bot
from p2pcards.bots.strong import ismcts
from p2pcards.bots.strong.arena import play_deal
from p2pcards.games import get_game

CONFIGS = "kanasta:2,kanaszta:2,kanasta:4,kanaszta:4"


class Traced:
    """The strong bot, noting each decision's action and its root's rewards."""

    def __init__(self, bot, out: list, limit: int | None):
        self.bot, self.out, self.limit = bot, out, limit

    def choose(self, game, state):
        if self.limit is not None and len(self.out) >= self.limit:
            return Bot("greedy").choose(game, state)
        seen = []
        original = ismcts._choose

        def spy(children, favourite):
            seen.extend((ismcts.action_key(c.action), c.samples) for c in children)
            return original(children, favourite)

        ismcts._choose = spy
        try:
            t0 = time.process_time()
            action = self.bot.choose(game, state)
            cpu = time.process_time() - t0
        finally:
            ismcts._choose = original
        digest = hashlib.sha256(repr(seen).encode()).hexdigest()[:16]
        self.out.append({"action": ismcts.action_key(action), "roots": digest, "cpu": cpu})
        return action


def trace(game_id: str, players: int, deal: int, iterations: int, limit: int | None) -> list[dict]:
    game = get_game(game_id)
    match = game.new_match(players, {}, 500 + deal)
    seat = deal % players
    out: list[dict] = []
    bots = [Traced(Bot("strong", seed=f"trace:{deal}", iterations=iterations), out, limit) if s == seat
            else Bot("greedy", seed=f"trace:{deal}:{s}") for s in range(players)]
    play_deal(game, match, bots)
    return out


def lines(configs: str, iterations: int, deals: int, limit: int | None):
    """(line, cpu seconds) for every strong decision of every configuration's deals."""
    for config in configs.split(","):
        game_id, players = config.split(":")
        for deal in range(deals):
            for i, d in enumerate(trace(game_id, int(players), deal, iterations, limit)):
                cpu = d.pop("cpu")
                yield {"game": game_id, "players": int(players), "deal": deal, "decision": i, **d}, cpu


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--decisions", type=int, help="strong decisions traced per deal (then greedy)")
    p.add_argument("--games", default=CONFIGS)
    args = p.parse_args(argv)
    total = 0.0
    moves = 0
    for line, cpu in lines(args.games, args.iterations, args.deals, args.decisions):
        total += cpu
        moves += 1
        print(json.dumps(line))
    print(f"{moves} decisions, {total:.1f} s CPU, {total / max(moves, 1):.3f} s a decision", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
