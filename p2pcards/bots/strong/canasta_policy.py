"""The strong bot's own heuristic for the canastas: the greedy bot's scores
(``p2pcards.bots.greedy.canasta``) with what it overlooks about the pile.

The greedy bot discards by the cards in its own hand and hardly looks at
what the discard gives the next player, an opponent: the whole pile, when
the card fits a meld that player may add to. This heuristic charges a
discard by the pile it may hand over (its size), so it sheds safe cards
first. (Freezing a big pile in kanaszta rather than giving it away was
tried too: it lost more deals against the greedy bot than it won.)

It serves the search (``ismcts``) as its first guess at the root and as the
searching seat's own play in the simulations; the other seats are still
played by the greedy bot. It decides from the seat's own view only.
"""

from __future__ import annotations

from functools import cached_property

from p2pcards.bots.greedy.canasta import _Context, _is_wild, _rank, _score, best_scored

# Weights (in the greedy scores' units: a meld is ~20-60, a discard ~-10..5).
DANGER = 3.0  # per card of the pile a discard may hand to the next player


def choose(game, state, rng) -> dict:
    return best_scored(game, state, scorer)


def scored(game, state, actions=None) -> list[tuple[float, dict]]:
    """(score, action) for every legal action, in the engine's order."""
    if actions is None:
        actions = game.legal_actions(state)
    score_of = scorer(game, state)
    return [(score_of(a), a) for a in actions]


def scorer(game, state):
    """The score of one action of this decision: the greedy one and the threat."""
    ctx = _Context(game, state)  # what the greedy bot reads of the decision
    threat = _Threat(ctx)
    return lambda a: _score(ctx, a) + threat.adjust(a)


class _Threat:
    """What a discard may give the next player (worked out at the first discard scored)."""

    def __init__(self, ctx: _Context):
        self.ctx = ctx

    @cached_property
    def ranks(self) -> set | None:
        """The ranks the next player may take the pile onto with the discard
        on top; None when no discard is riskier than another."""
        ctx = self.ctx
        game, n = ctx.game, ctx.players
        nxt = (ctx.seat + 1) % n
        if game.side_melds:
            their = game.side_of(nxt, n, ctx.options)
            if not ctx.opened[their] or ctx.frozen:
                # A frozen pile is taken only with two naturals from hand: no card is safer than another.
                return None
            # Kanaszta: an opened side takes the pile onto one of its own melds with the top card alone.
            return {m.rank for m in ctx.melds if m.owner == their}
        if not ctx.opened[nxt]:
            return None
        # Kanasta: an opened player adds the top card to anybody's meld.
        return {m.rank for m in ctx.melds if m.rank not in ("W", "3")}

    def adjust(self, action) -> float:
        if action["type"] != "discard" or action.get("freeze"):
            return 0.0
        ranks = self.ranks
        if ranks is None:
            return 0.0
        card = action["cards"][0]
        if _is_wild(card):
            # A wild fits any meld; in kanaszta a joker discarded plainly stops the pile instead.
            risky = not (self.ctx.game.side_melds and card == "JK")
        else:
            risky = _rank(card) in ranks  # never a 3: no meld of 3s takes a pile
        return -DANGER * (self.ctx.pile + 1) if risky else 0.0  # the pile with the discard on top
