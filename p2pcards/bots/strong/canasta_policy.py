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
    """What a discard may give the next player."""

    def __init__(self, ctx: _Context):
        game, n = ctx.game, ctx.players
        self.game = game
        self.next = (ctx.seat + 1) % n
        self.pile = ctx.pile + 1  # with the discard on top
        if game.side_melds:
            their = game.side_of(self.next, n, ctx.options)
            self.opened = ctx.opened[their]
            # Kanaszta: an opened side takes the pile onto one of its own melds with the top card alone.
            self.ranks = {m.rank for m in ctx.melds if m.owner == their}
            self.frozen = ctx.frozen
        else:
            self.opened = ctx.opened[self.next]
            # Kanasta: an opened player adds the top card to anybody's meld.
            self.ranks = {m.rank for m in ctx.melds if m.rank not in ("W", "3")}
            self.frozen = False

    def adjust(self, action) -> float:
        if action["type"] != "discard" or action.get("freeze") or not self.opened or self.frozen:
            # A frozen pile is taken only with two naturals from hand: no card is safer than another.
            return 0.0
        card = action["cards"][0]
        if _is_wild(card):
            # A wild fits any meld; in kanaszta a joker discarded plainly stops the pile instead.
            risky = not (self.game.side_melds and card == "JK")
        else:
            risky = _rank(card) in self.ranks  # never a 3: no meld of 3s takes a pile
        return -DANGER * self.pile if risky else 0.0
