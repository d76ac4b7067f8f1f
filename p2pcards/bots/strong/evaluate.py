"""How good the end of a simulation is for one seat.

A finished deal is judged by the engine's own ``deal_scores``; a simulation
cut off before the end (the canastas' long deals) by the score the deal would
have if it ended now (the canastas' ``score``: melds, canastas, red 3s, minus
the cards in hand). The reward mixes winning the deal (the side with the
best value) with the margin, squashed into [0, 1] at a per-game scale, so
the search prefers a win and, among wins or losses, the bigger margin.
"""

from __future__ import annotations

import math

# A margin of this much is "clearly ahead": ~ a typical deal's spread (the median
# margin of greedy deals: kanasta 1,100-1,200, kanaszta 500-600).
SCALE = {"kanasta": 1000.0, "kanaszta": 600.0, "warkocz": 8.0, "bura": 15.0}
# The reward's share that is the win itself, the rest the squashed margin. The
# canastas' scores are fine-grained, and a reward that moves with the margin
# tells two moves apart on the same deals with fewer simulations than one
# that flips with who won.
WIN_SHARE = {"kanasta": 0.25, "kanaszta": 0.25, "warkocz": 0.5, "bura": 0.5}


def side_values(game, state) -> list[float]:
    """Each side's value of this (full-knowledge) state."""
    if game.deal_over(state):
        return list(game.deal_scores(state)["sides"])
    if game.id in ("kanasta", "kanaszta"):
        return list(game.score(state)["sides"])
    if game.id == "bura":
        return list(game.deal_scores(state)["sides"])  # the chips moved so far
    # warkocz, cut off: the fewer cards left the better
    return [-len(h) for h in state.hands]


def outcome(game, state, seat: int) -> tuple[float, float]:
    """(win, reward) for ``seat``: win 1, 0.5 for a shared best, else 0;
    reward in [0, 1]."""
    values = side_values(game, state)
    mine = game.side_of(seat, state.players, state.options)
    best_other = max(v for i, v in enumerate(values) if i != mine)
    margin = values[mine] - best_other
    win = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    squashed = 1.0 / (1.0 + math.exp(-margin / SCALE[game.id]))
    share = WIN_SHARE[game.id]
    return win, share * win + (1 - share) * squashed
