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
played by the greedy bot. It decides from the seat's own view only, and
``why`` puts what a move does into a few words for the hint.
"""

from __future__ import annotations

from p2pcards.bots.greedy.canasta import WILD_CODES, WILD_RANKS, _Context, _is_wild, _rank, _score, best_scored
from p2pcards.i18n import _, ngettext

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


def why(game, state, action) -> str | None:
    """What ``action`` does for the seat to act, in a few words for a player
    (the hint's reason), read from the seat's own view; None where there is
    nothing short to say."""
    ctx = _Context(game, state)
    kind = action["type"]
    cards = action.get("cards", [])
    if kind == "red3":
        return _("a red 3 counts for more on the table than in hand")
    if kind == "take_pile":
        return ngettext("takes the pile: {n} card", "takes the pile: {n} cards", ctx.pile).format(n=ctx.pile)
    if kind in ("meld", "add") and len(cards) == len(ctx.hand):
        return _("goes out")
    if kind == "meld":
        if len(cards) >= 7:
            return _("lays a whole canasta at once")
        if not ctx.opened_mine:
            return _("the first meld: from now on the pile is easier to take")
        return None
    if kind == "add":
        i = action["meld"]
        if ctx.friendly[i] and ctx.sizes[i] < 7 <= ctx.sizes[i] + len(cards):
            return _("completes a canasta")
        return None
    if kind != "discard":
        return None
    return _discard_why(game, state, ctx, action)


def _discard_why(game, state, ctx: _Context, action) -> str | None:
    card = action["cards"][0]
    if len(ctx.hand) == 1:
        return _("goes out")
    if action.get("freeze"):
        return _("freezes the pile")
    if game.stops_pile(state, card):
        return _("a stop card: the next player cannot take the pile")
    held = set(ctx.hand)
    if not _is_wild(card) and held & WILD_CODES:
        kept = _wild_kept_for_canasta(game, state, ctx)
        if kept is not None:
            return _("keeps the joker for the canasta") if kept == "JK" else _("keeps the 2 for the canasta")
    threat = _Threat(ctx)
    if not threat.risky(card) and any(map(threat.risky, held)):
        return _("a safer discard: the next player has no meld to add it to")
    if ctx.counts.get(_rank(card)) == 1 and any(n >= 2 for r, n in ctx.counts.items() if r not in WILD_RANKS):
        return _("sheds a lone card and keeps the pairs")
    return None


def _wild_kept_for_canasta(game, state, ctx: _Context) -> str | None:
    """The wild the seat could add now to one of its side's melds of 4 to 6
    cards (the JK first), or None."""
    near = {i for i, (friendly, size) in enumerate(zip(ctx.friendly, ctx.sizes)) if friendly and 4 <= size < 7}
    if not near:
        return None
    addable = {a["cards"][0] for a in game.legal_actions(state)
               if a["type"] == "add" and a["meld"] in near and len(a["cards"]) == 1 and _is_wild(a["cards"][0])}
    return "JK" if "JK" in addable else min(addable) if addable else None


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
        if action["type"] != "discard" or action.get("freeze"):
            return 0.0
        return -DANGER * self.pile if self.risky(action["cards"][0]) else 0.0

    def risky(self, card: str) -> bool:
        """May ``card``, discarded plainly, hand the next player the pile?"""
        if not self.opened or self.frozen:
            # A frozen pile is taken only with two naturals from hand: no card is safer than another.
            return False
        if _is_wild(card):
            # A wild fits any meld; in kanaszta a joker discarded plainly stops the pile instead.
            return not (self.game.side_melds and card == "JK")
        return _rank(card) in self.ranks  # never a 3: no meld of 3s takes a pile
