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

from p2pcards.bots.greedy.canasta import _is_wild, _rank, scored as greedy_scored

# Weights (in the greedy scores' units: a meld is ~20-60, a discard ~-10..5).
DANGER = 3.0  # per card of the pile a discard may hand to the next player


def choose(game, state, rng) -> dict:
    actions = game.legal_actions(state)
    if not actions:
        raise ValueError("no legal action: it is nobody's turn")
    if len(actions) == 1:
        return actions[0]
    best, best_score = None, None
    for score, action in scored(game, state, actions):
        if best_score is None or score > best_score:
            best, best_score = action, score
    return best


def scored(game, state, actions=None) -> list[tuple[float, dict]]:
    """(score, action) for every legal action, in the engine's order."""
    out = greedy_scored(game, state, actions)
    if not any(a["type"] == "discard" for _, a in out):
        return out
    seat = game.to_act(state)
    view = game.view(state, seat)
    threat = _Threat(game, view, seat)
    return [(s + threat.adjust(a), a) for s, a in out]


class _Threat:
    """What a discard may give the next player."""

    def __init__(self, game, view, seat):
        self.game = game
        self.view = view
        n = view["players"]
        self.next = (seat + 1) % n
        self.pile = len(view["pile"]) + 1  # with the discard on top
        opts = view["options"]
        if game.side_melds:
            their = game.side_of(self.next, n, opts)
            self.opened = view["opened"][their]
            # Kanaszta: an opened side takes the pile onto one of its own melds with the top card alone.
            self.ranks = {m["rank"] for m in view["melds"] if m["owner"] == their}
            self.frozen = view["frozen"]
        else:
            self.opened = view["opened"][self.next]
            # Kanasta: an opened player adds the top card to anybody's meld.
            self.ranks = {m["rank"] for m in view["melds"] if m["rank"] not in ("W", "3")}
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
