"""How much the strong bot loses to what it cannot see: the same search
handed more than its seat knows, one seat against greedy at the others.

    PYTHONPATH=. python benchmarks/bot_bounds.py GAME --players N --shown hands|deal
        [--iterations K] [--deals D] [--seed S]

``--shown hands``: every other hand is put face up in the state the search
gets (the stock and anything else hidden stay unknown tokens, sampled as
usual); ``--shown deal``: the whole deal, the stock's order included, so
each simulation plays the real future. The seats, decks and rotation are
``bots.py``'s (deck ``seed + d // N``, the searching seat ``d % N``), so
the win rate compares with ``bots.py``'s at the same ``--iterations``. An
analysis tool only: no player is ever handed more than its seat.
"""

from __future__ import annotations

import argparse
import json
import random

from p2pcards.bots import Bot
from p2pcards.bots.strong import search
from p2pcards.bots.strong.arena import SeatViews, deal_deck
from p2pcards.bots.strong.determinize import card_places
from p2pcards.bots.strong.evaluate import outcome
from p2pcards.cards import is_unknown
from p2pcards.games import get_game
from p2pcards.games.base import substitute


def hands_shown(game, mine, full):
    """``mine`` (a seat's state) with every hand's tokens replaced by the real cards."""
    places = zip(card_places(game.id, mine)[:mine.players], card_places(game.id, full)[:full.players])
    mapping = {seen: true for (_, seen_cards), (_, true_cards) in places
               for seen, true in zip(seen_cards, true_cards) if is_unknown(seen)}
    return substitute(mine, mapping)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--shown", choices=("hands", "deal"), required=True)
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1000)
    args = p.parse_args(argv)
    game = get_game(args.game)
    wins = 0.0
    for d in range(args.deals):
        seat = d % args.players
        match = game.new_match(args.players, None, args.seed + d // args.players)
        deck = deal_deck(game, match)
        views = SeatViews(game, match, deck)
        full = game.start_deal(match, deck=list(deck))
        greedy = [Bot("greedy", seed=f"{d}:{s}") for s in range(args.players)]
        rng = random.Random(d)
        while not game.deal_over(full):
            actor = game.to_act(full)
            mine = views.seat_state(actor)
            if actor == seat and len(game.legal_actions(mine)) > 1:
                given = full if args.shown == "deal" else hands_shown(game, mine, full)
                action = search(game, given, rng, iterations=args.iterations).action
            else:
                action = greedy[actor].choose(game, mine)
            full = game.apply(full, action)
            views.played(actor, action)
        wins += outcome(game, full, seat)[0]
    print(json.dumps({"game": game.id, "players": args.players, "shown": args.shown,
                      "iterations": args.iterations, "deals": args.deals, "win_rate": round(wins / args.deals, 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
