"""Bots playing each other in one process, each seeing only its own seat.

The network's knowledge model without the network or the cryptography: a
public state of unknown tokens, a card shown to a seat or to everybody exactly
when the engine's ``view`` says so (``p2pcards.protocol.knowledge``), and each bot
handed its seat's own state, the public one plus what that seat has seen:
the same state a peer's bot gets from ``SeatDriver.my_state``. The full deck
is the oracle that answers the reveals.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from p2pcards.cards import unknown, unknown_position
from p2pcards.games import NeedReveal, substitute
from p2pcards.games.base import shuffled_deck
from p2pcards.protocol.knowledge import KeyBook, public_form, reveal_audiences, seat_state, shown_by, token_deck


class KnowledgeTable:
    """Who has been shown which position of one deal's deck."""

    def __init__(self, game, players: int, deck: list[str]):
        self.game, self.players, self.deck = game, players, deck
        self.book = KeyBook(players)
        self.private: dict[int, dict[int, str]] = {s: {} for s in range(players)}

    def show_all(self, positions, *objs):
        mapping = {}
        for p in positions:
            for seat in range(self.players):
                self.book.publish(seat, p)
            mapping[unknown(p)] = self.deck[p]
        return [substitute(o, mapping) for o in objs]

    def settle(self, public):
        """Show every card the views ask for; returns the new public state."""
        while True:
            audiences = reveal_audiences(self.game, public, self.players, self.book)
            if not audiences:
                return public
            (public,) = self.show_all([p for p, who in audiences.items() if who is None], public)
            for p, viewers in audiences.items():
                if viewers is None:
                    continue
                for t in range(self.players):
                    if any(v != t for v in viewers):
                        self.book.publish(t, p)
                for v in viewers:
                    self.private[v][p] = self.deck[p]

    def retrying(self, call, public, action=None):
        """Call the engine, showing to all whatever it says it needs to see."""
        while True:
            try:
                return call(public, action), public, action
            except NeedReveal as need:
                positions = [unknown_position(t) for t in need.tokens]
                if not positions:  # it would ask again forever
                    raise AssertionError("NeedReveal without tokens") from None
                public, action = self.show_all(positions, public, action)

    def seat_state(self, public, seat: int):
        return seat_state(public, self.private[seat])


class SeatViews:
    """One deal as each seat sees it: follow the full deal's moves with
    ``played`` and ask ``seat_state`` for what a seat knows now."""

    def __init__(self, game, match, deck: list[str]):
        self.game = game
        self.table = KnowledgeTable(game, match.players, deck)
        ctx = game.deal_context(match)

        def start(public_deck, _):
            return game.start(match.players, deck=public_deck, dealer=match.dealer, options=match.options,
                              scores=list(match.scores), **ctx)

        self.public, _, _ = self.table.retrying(start, token_deck(len(deck)))
        self.public = self.table.settle(self.public)

    def seat_state(self, seat: int):
        return self.table.seat_state(self.public, seat)

    def played(self, actor: int, action: dict) -> None:
        """``actor`` played ``action`` (as the full deal has it)."""
        table = self.table
        public_action, positions = public_form(self.game, self.public, action, actor, table.private[actor])
        shown = shown_by(public_action, positions)
        for p in shown:
            table.book.publish(actor, p)
        public = substitute(self.public, {unknown(p): c for p, c in shown.items()})
        public, _, _ = table.retrying(self.game.apply, public, public_action)
        self.public = table.settle(public)


@dataclass
class DealResult:
    scores: dict  # the engine's deal_scores of the finished deal
    state: object  # the final full state
    think: list[float] = field(default_factory=list)  # seconds per decision, per seat (summed)
    decisions: list[int] = field(default_factory=list)


def deal_deck(game, match) -> list[str]:
    """The deck ``start_deal`` deals from when given none."""
    return shuffled_deck(game.id, match.seed if match.seed is not None else 0, match.deal_index)


def play_deal(game, match, bots, deck=None, max_steps=20000) -> DealResult:
    """One deal of ``match`` between ``bots`` (one per seat, each with
    ``choose(game, state)``), each bot shown only its own seat's state."""
    players = match.players
    deck = deck if deck is not None else deal_deck(game, match)
    views = SeatViews(game, match, deck)
    full = game.start_deal(match, deck=list(deck))
    think = [0.0] * players
    decisions = [0] * players
    for _ in range(max_steps):
        if game.deal_over(full):
            return DealResult(game.deal_scores(full), full, think, decisions)
        actor = game.to_act(full)
        mine = views.seat_state(actor)
        t0 = time.process_time()
        action = bots[actor].choose(game, mine)
        think[actor] += time.process_time() - t0
        decisions[actor] += 1
        full = game.apply(full, action)
        views.played(actor, action)
    raise RuntimeError("the deal did not end")


def play_match(game, players: int, bots, seed, options=None, max_deals: int | None = None):
    """A whole match (or its first ``max_deals`` deals); returns the match,
    the seconds each seat spent deciding and its number of decisions."""
    match = game.new_match(players, options, seed)
    think = [0.0] * players
    decisions = [0] * players
    deals = 0
    while not game.match_over(match) and (max_deals is None or deals < max_deals):
        result = play_deal(game, match, bots)
        match = game.end_deal(match, result.state)
        think = [a + b for a, b in zip(think, result.think)]
        decisions = [a + b for a, b in zip(decisions, result.decisions)]
        deals += 1
    return match, think, decisions
