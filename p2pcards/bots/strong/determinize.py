"""Determinization: full deals consistent with what one seat has seen.

A seat's state (``p2pcards.protocol.knowledge.seat_state``) holds a code for every card
that seat has seen, where it lies now (its hand, cards shown or played, the
pile it watched an opponent take, the trump card) and an unknown token ``?N``
for every other. The unseen cards are the game's deck minus every code in the
state; a determinization deals them to the tokens at random, respecting what
the seat can infer beyond positions: in warkocz (with ``must_play``) a pass
proves the passer held no natural card of the needed rank, and hands only
shrink, so the passer still holds none.

Everything here depends only on the seat's state: tokens and cards are
visited in a fixed order and every random choice comes from the caller's
seeded ``random.Random``, never from set or hash order.
"""

from __future__ import annotations

import random
from collections import Counter

from p2pcards.cards import deck_for, is_unknown
from p2pcards.games.base import substitute


# ----- where the cards lie: every card of the deck exactly once -------------------

def _step_cards(steps):
    for step in steps:
        yield from step["cards"]


def card_places(game_id: str, state) -> list[tuple[int | None, list]]:
    """Every card of the deal exactly once, grouped by place: ``(holder, cards)``
    where holder is the seat whose hand it is, None for anything else
    (stock, pile, melds, tricks, face-down plays, cards set aside)."""
    places: list[tuple[int | None, list]] = [(s, list(h)) for s, h in enumerate(state.hands)]
    if game_id in ("kanasta", "kanaszta"):
        places.append((None, list(state.stock)))
        places.append((None, list(state.pile)))
        places.append((None, [c for m in state.melds for c in m.cards]))
        places.append((None, [c for r in state.red3s for c in r]))
    elif game_id == "warkocz":
        places.append((None, list(state.aside)))
        places.append((None, list(_step_cards(state.row))))
        places.append((None, [c for row in state.done for c in _step_cards(row)]))
    elif game_id == "bura":
        places.append((None, list(state.stock[state.stock_pos:])))
        plays = list(state.trick) + [p for tricks in state.tricks for trick in tricks for p in trick]
        places.append((None, [c for _, _, cards in plays for c in cards]))
    else:
        raise ValueError(f"no determinization for {game_id!r}")
    return places


def unseen_cards(game_id: str, state) -> list[str]:
    """The deck minus every code in the state, sorted (twins repeated)."""
    left = Counter(deck_for(game_id))
    for _, cards in card_places(game_id, state):
        for c in cards:
            if not is_unknown(c):
                left[c] -= 1
    if any(n < 0 for n in left.values()):
        raise ValueError("the state shows more copies of a card than the deck holds")
    return sorted(left.elements())


# ----- what a seat can infer: warkocz passes -----------------------------------

def warkocz_void_ranks(state) -> list[set[int]]:
    """Per seat, the rank indices it is known to hold no natural card of.

    Replays the rows of the deal (set aside and open): after a step by X the
    row needs the next rank; the next step by Y != X means X and every seat
    after it up to Y passed on that rank; a row set aside without a gag means
    everybody passed; in the open row, ``passes`` seats from the last layer
    have passed on the rank needed now."""
    from p2pcards.games.warkocz import KING, NATURAL_RANK, NATURALS_PER_RANK, RANK_INDEX, WARKOCZ

    n = state.players
    void: list[set[int]] = [set() for _ in range(n)]
    if not state.options.get("must_play"):
        return void
    played = [0] * (KING + 1)

    def passed(first: int, count: int, rank: int) -> None:
        for k in range(count):
            void[(first + k) % n].add(rank)

    rows = [(row, False) for row in state.done] + [(state.row, True)]
    for row, is_open in rows:
        for i, step in enumerate(row):
            r = RANK_INDEX[step["as"]]
            for c in step["cards"]:
                if c != WARKOCZ:
                    played[NATURAL_RANK[c]] += 1
            seat = step["seat"]
            if r == KING:
                continue  # a gag: nothing follows, nobody passed
            if i + 1 < len(row):
                nxt = row[i + 1]["seat"]
                passed(seat, (nxt - seat) % n, r + 1)
            elif is_open:
                passed(seat, state.passes, r + 1)
            elif played[r + 1] < NATURALS_PER_RANK:
                passed(seat, n, r + 1)  # set aside because everybody passed
    return void


def _forbidden(game_id: str, state):
    """A function (holder, card) -> True when the seat knows holder can't hold card."""
    if game_id != "warkocz":
        return None
    from p2pcards.games.warkocz import NATURAL_RANK

    void = warkocz_void_ranks(state)
    if not any(void):
        return None
    return lambda holder, card: holder is not None and NATURAL_RANK.get(card) in void[holder]


# ----- sampling -------------------------------------------------------------------

class Determinizer:
    """Samples full states consistent with one seat's state."""

    def __init__(self, game_id: str, state):
        self.game_id = game_id
        self.state = state
        self.slots: list[tuple[int | None, str]] = []  # (holder, token), in state order
        for holder, cards in card_places(game_id, state):
            self.slots.extend((holder, c) for c in cards if is_unknown(c))
        self.cards = unseen_cards(game_id, state)
        if len(self.cards) != len(self.slots):
            raise ValueError(f"{len(self.slots)} hidden cards but {len(self.cards)} unseen ones")
        self.forbidden = _forbidden(game_id, state)
        if self.forbidden is not None:
            self._matching(list(self.cards), random.Random(0))  # raises now if no deal fits

    def sample(self, rng: random.Random):
        """One full state: every token replaced by an unseen card.
        (The constructor raises ValueError when no deal fits.)"""
        if not self.slots:
            return self.state
        order = list(self.cards)
        rng.shuffle(order)
        if self.forbidden is not None:
            order = self._matching(order, rng)
        return substitute(self.state, {token: card for (_, token), card in zip(self.slots, order)})

    def _matching(self, shuffled: list[str], rng: random.Random) -> list[str]:
        """Cards for the slots (in slot order) that no slot forbids: the
        shuffled deal where it fits, repaired by augmenting paths (Kuhn's
        matching) where it does not. A consistent deal always exists: the
        real one."""
        forbidden = self.forbidden
        slots = self.slots
        owner = [-1] * len(shuffled)  # card index -> slot index
        given = [-1] * len(slots)  # slot index -> card index
        fits = [[c for c in range(len(shuffled)) if not forbidden(h, shuffled[c])] for h, _ in slots]
        for s in range(len(slots)):  # the shuffled deal first: card s to slot s where allowed
            if not forbidden(slots[s][0], shuffled[s]):
                owner[s], given[s] = s, s

        def augment(s: int, seen: list[bool]) -> bool:
            candidates = fits[s][:]
            rng.shuffle(candidates)
            for c in candidates:
                if seen[c]:
                    continue
                seen[c] = True
                if owner[c] == -1 or augment(owner[c], seen):
                    owner[c], given[s] = s, c
                    return True
            return False

        for s in range(len(slots)):
            if given[s] == -1 and not augment(s, [False] * len(shuffled)):
                raise ValueError("no deal fits what this seat has seen")
        return [shuffled[given[s]] for s in range(len(slots))]
