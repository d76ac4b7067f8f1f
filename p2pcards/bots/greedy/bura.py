"""A heuristic bura player.

- Shows a bessa whenever it holds one (and a stronger one in a bessa window).
- Declares only when sure of the target: it counts the face-up cards of its
  tricks (and its own face-down cards, should any lie there); others'
  face-down cards in its tricks count 0, since it never saw them.
- Leads cards nobody can beat any more (judged from the cards it has seen)
  when they carry points; otherwise its cheapest single card.
- Beats when it costs nothing (no trump) or when the points on the table are
  worth the trumps spent, with the cheapest beating cards; else throws its
  lowest cards face down (they go to the taker, so points are kept back).

It looks only at ``view(state, seat)`` and ``legal_actions(state)``, so its
state may hold unknown tokens for every card it cannot see.
"""

from __future__ import annotations

import random

from p2pcards.i18n import _
from p2pcards.games.bura import DECK, INFO, beats

TRUMP_COST = 6  # what spending a trump is worth in points, on top of its rank


def _points(cards) -> int:
    return sum(INFO[c][2] for c in cards if c in INFO)


def _seen_cards(view: dict) -> set[str]:
    """Every card this seat has seen: its hand, face-up plays, shown bessas
    and declarations, its own face-down plays, the trump card."""
    seen = set(c for c in view["hand"] if c in INFO)
    plays = list(view["trick"])
    for tricks in view["tricks"]:
        for trick in tricks:
            plays.extend(trick)
    for play in plays:
        seen.update(play["cards"])
    for b in view["bessas"]:
        seen.update(b["cards"])
    if view["declaration"]:
        seen.update(view["declaration"]["cards"])
    seen.add(view["trump"])
    return seen


def _threats(view: dict) -> set[str]:
    """Cards that may lie in another player's hand."""
    threats = set(DECK) - _seen_cards(view)
    # The trump card is in somebody's hand only once drawn, and not in ours.
    if view["trump_drawn"] and view["trump"] not in view["hand"]:
        threats.add(view["trump"])
    return threats


def _sure_points(view: dict, seat: int) -> int:
    """The points ``seat`` knows lie in its tricks: others' face-down plays
    list no cards, so they count 0."""
    return sum(_points(play["cards"]) for trick in view["tricks"][seat] for play in trick)


def _on_table(view: dict) -> int:
    """The points in the trick being played."""
    return sum(_points(play["cards"]) for play in view["trick"])


def _safe(card: str, threats: set[str], trump: str) -> bool:
    """Nobody can hold a card that beats ``card``."""
    return not any(beats(t, card, trump) for t in threats)


def _spend(card: str, trump: str) -> int:
    """How much a card is worth keeping in hand: trumps most, then by rank."""
    suit, strength, _ = INFO[card]
    return strength + (TRUMP_COST + 9 if suit == trump else 0)


def _cheapest(actions: list[dict], trump: str) -> dict:
    """The action giving away the least: fewest points, then the least worth keeping."""
    return min(
        actions,
        key=lambda a: (_points(a["cards"]), sum(_spend(c, trump) for c in a["cards"] if c in INFO)),
    )


def choose(game, state, rng: random.Random) -> dict:
    seat = game.to_act(state)
    actions = game.legal_actions(state)
    if not actions:
        raise ValueError("no legal action: it is nobody's turn")
    by_type: dict[str, list[dict]] = {}
    for a in actions:
        by_type.setdefault(a["type"], []).append(a)
    if "bessa" in by_type:
        return by_type["bessa"][0]
    view = game.view(state, seat)
    phase = view["phase"]
    if phase == "bessa":
        return by_type["pass"][0]
    if phase == "declare":
        return by_type["declare"][0] if _sure_points(view, seat) >= view["target"] else by_type["pass"][0]
    trump = view["trump_suit"]
    if "lead" in by_type:
        threats = _threats(view)
        safe = [a for a in by_type["lead"] if all(_safe(c, threats, trump) for c in a["cards"])]
        scoring = [a for a in safe if _points(a["cards"]) > 0]
        if scoring:
            return max(scoring, key=lambda a: (_points(a["cards"]), -sum(_spend(c, trump) for c in a["cards"])))
        singles = [a for a in by_type["lead"] if len(a["cards"]) == 1]
        return _cheapest(singles, trump)
    # Answering a lead: beat or throw.
    throws = by_type.get("throw", [])
    beats_ = by_type.get("beat", [])
    if beats_:
        on_table = _on_table(view)
        best = min(
            beats_,
            key=lambda a: (sum(TRUMP_COST + INFO[c][1] for c in a["cards"] if INFO[c][0] == trump),
                           sum(_spend(c, trump) for c in a["cards"])),
        )
        trump_cost = sum(TRUMP_COST + INFO[c][1] for c in best["cards"] if INFO[c][0] == trump)
        if trump_cost == 0 or on_table >= trump_cost:
            return best
    return _cheapest(throws, trump)


def why(game, state, action: dict) -> str | None:
    """What ``action`` does for the seat to act, in a few words for a player
    (the hint's reason), from the seat's own view; None where there is
    nothing short to say."""
    kind = action["type"]
    if kind == "bessa":
        return _("a bessa takes the bank")
    seat = game.to_act(state)
    view = game.view(state, seat)
    if view["phase"] == "declare":
        sure = _sure_points(view, seat)
        if kind == "declare":
            if sure >= view["target"]:
                return _("your tricks surely hold {sure} points: enough").format(sure=sure)
            return _("a risk: the tricks you saw hold {sure} points").format(sure=sure)
        return _("the tricks you saw hold only {sure} points").format(sure=sure) if sure < view["target"] else None
    trump = view["trump_suit"]
    cards = action.get("cards", [])
    if kind == "lead":
        threats = _threats(view)
        if all(_safe(c, threats, trump) for c in cards):
            return _("nobody can beat it any more")
        if _points(cards) == 0:
            return _("a cheap lead: it gives nothing away")
        return None
    if kind == "beat":
        if not any(INFO[c][0] == trump for c in cards):
            return _("takes the trick without spending a trump")
        on_table = _on_table(view)
        if not on_table:
            return _("takes the lead with a trump")
        return _("the trick is worth the trump: {points} points on the table").format(points=on_table)
    if kind == "throw":
        if any(a["type"] == "beat" for a in game.legal_actions(state)):
            return _("beating would cost more than the trick brings")
        return _("nothing here beats it: the cheapest cards go")
    return None
