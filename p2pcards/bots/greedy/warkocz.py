"""A heuristic warkocz player.

It plans its whole move: after a play the same seat acts again until it
passes, so the bot searches the sequences of steps it can lay from its own
hand (a gag or a row nobody else can continue gives it the lead back), and
takes the first step of the best one. Suits never matter, so a hand is a count
per rank. A finished move is judged by the cards left (fewer is better), with
a bonus for keeping the warkocz for later while nobody is close to going out
(and a penalty once somebody is: a loser's warkocz doubles their count), and
for kings, which always give the lead back. Going out scores above anything,
more for an aria and most for an aria ending with the warkocz.

It looks only at ``view(state, seat)`` and ``legal_actions(state)``, so its
state may hold unknown tokens for every card it cannot see.
"""

from __future__ import annotations

import random

from p2pcards.i18n import _, ngettext
from p2pcards.games.warkocz import KING, NATURAL_RANK, NATURALS_PER_RANK, NINE, RANK_INDEX, W_RANKS, WARKOCZ

WIN = 10_000
CARD = 10  # the cost of a card left in hand
KING_BONUS = 2
WARKOCZ_KEEP = 12  # keep the warkocz while the others are far from going out...
WARKOCZ_RISK = -15  # ...but not when it could double our loss
CLOSE = 3  # an opponent with this many cards or fewer is close to going out
BUDGET = 2500  # search nodes per decision
SOLVED_KEPT = 256  # situations whose solved positions are kept (then all are forgotten)

# Positions valued by a search that ran to the end (within BUDGET), by the
# situation they were valued in (_Planner.situation): such a value is exact,
# and a later search from one of them would stay within budget and find the
# same value and step. A move is several steps, each a decision, and the
# strong bot's rollouts meet the same situations again and again: about three
# in four decisions are answered here.
_solved: dict = {}


class _Planner:
    """Best value of the rest of our move from (rank counts, warkocz held, needed rank)."""

    def __init__(self, view: dict, seat: int):
        opts = view["options"]
        self.sizes = (1, 2, 3, 4) if opts["two_of_a_kind"] else (1, 3, 4)
        self.must_play = opts["must_play"]
        counts = [0] * len(W_RANKS)
        self.has_w = False
        for c in view["hand"]:
            if c == WARKOCZ:
                self.has_w = True
            elif c in NATURAL_RANK:
                counts[NATURAL_RANK[c]] += 1
        self.root = tuple(counts)
        self.played0 = [view["played"][r] for r in W_RANKS]
        others = [n for s, n in enumerate(view["hand_counts"]) if s != seat]
        self.opponents_cards = sum(others)
        self.keep_w = WARKOCZ_RISK if min(others) <= CLOSE else WARKOCZ_KEEP
        # the warkocz may be in another hand (or set aside) only if nobody played it and we lack it
        self.w_elsewhere = view["warkocz_by"] is None and not self.has_w
        self.aria_open = view["aria_open"][seat]
        self.memo: dict = {}
        self.nodes = 0
        # everything a position's value depends on besides the position (a
        # step moves cards from the hand to the played ones: their sum stays)
        self.situation = (self.sizes, self.must_play, tuple(p + n for p, n in zip(self.played0, self.root)),
                          self.keep_w, self.w_elsewhere, self.aria_open, self.opponents_cards)

    def plan(self, need: int):
        """value() of the whole hand, from the solved positions if it is one."""
        key = (self.root, self.has_w, need)
        solved = _solved.get(self.situation)
        if solved is not None and key in solved:
            return solved[key]
        best = self.value(*key)
        if self.nodes <= BUDGET:
            if len(_solved) >= SOLVED_KEPT:
                _solved.clear()
            _solved.setdefault(self.situation, {}).update(self.memo)
        return best

    def played(self, counts, r: int) -> int:
        return self.played0[r] + self.root[r] - counts[r]

    def static(self, counts, w: bool) -> int:
        return -CARD * (sum(counts) + w) + (self.keep_w if w else 0) + KING_BONUS * counts[KING]

    def win(self, last_w: bool) -> int:
        mult = (4 if last_w else 2) if self.aria_open else 1
        return WIN + mult * self.opponents_cards

    def after_step(self, counts: tuple, w: bool, r: int, last_w: bool) -> int:
        if not w and not any(counts):
            return self.win(last_w)
        # need_after, written out: this is the planner's hottest line (a call costs ~5 %).
        if r == KING or self.played(counts, r + 1) >= NATURALS_PER_RANK:
            return self.value(counts, w, -1)[0]  # a gag: we lead again
        return self.value(counts, w, r + 1)[0]

    def need_after(self, counts: tuple, r: int) -> int:
        """The rank the row needs after a step of rank ``r`` leaving ``counts``:
        -1 after a gag (a king, or a rank whose next is all played), as we lead again."""
        return -1 if r == KING or self.played(counts, r + 1) >= NATURALS_PER_RANK else r + 1

    def value(self, counts: tuple, w: bool, need: int):
        """(value, step) with step ("n", rank, k) | ("w", rank, with_nines) | ("p",)."""
        key = (counts, w, need)
        if key in self.memo:
            return self.memo[key]
        self.nodes += 1
        if self.nodes > BUDGET:
            return self.static(counts, w), ("p",)
        best = None
        ranks = range(len(W_RANKS)) if need < 0 else (need,)
        for r in ranks:
            have = counts[r]
            for k in self.sizes:
                if k > have:
                    break
                rest = counts[:r] + (have - k,) + counts[r + 1:]
                v = self.after_step(rest, w, r, False)
                if best is None or v > best[0]:
                    best = (v, ("n", r, k))
            if w:
                nines = (False, True) if counts[NINE] else (False,)
                for with_nines in nines:
                    rest = counts[:NINE] + (0,) + counts[NINE + 1:] if with_nines else counts
                    v = self.after_step(rest, False, r, True)
                    if best is None or v > best[0]:
                        best = (v, ("w", r, with_nines))
        if need >= 0 and not (self.must_play and counts[need]):
            v = self.after_pass(counts, w, need)
            if best is None or v > best[0]:
                best = (v, ("p",))
        if best is None:  # nothing to lead with cannot happen with cards in hand
            best = (self.static(counts, w), ("p",))
        self.memo[key] = best
        return best

    def after_pass(self, counts: tuple, w: bool, need: int) -> int:
        others_may_hold = NATURALS_PER_RANK - self.played(counts, need) - counts[need]
        if others_may_hold == 0 and not self.w_elsewhere:
            # nobody else can continue: the row is set aside and we lead again
            return self.value(counts, w, -1)[0]
        return self.static(counts, w)


def _matches(action: dict, step: tuple, nines_held: int) -> bool:
    cards = action.get("cards")
    if step[0] == "p":
        return action["type"] == "pass"
    if cards is None:
        return False
    if step[0] == "n":
        _, r, k = step
        return WARKOCZ not in cards and len(cards) == k and NATURAL_RANK[cards[0]] == r
    _, r, with_nines = step
    return (
        cards[0] == WARKOCZ
        and action["as"] == W_RANKS[r]
        and len(cards) - 1 == (nines_held if with_nines else 0)
    )


def choose(game, state, rng: random.Random) -> dict:
    """The greedy action for the seat to act."""
    legal = game.legal_actions(state)
    if not legal:
        raise ValueError("no legal action: the deal is over")
    if len(legal) == 1:
        return legal[0]
    seat = game.to_act(state)
    view = game.view(state, seat)
    planner = _Planner(view, seat)
    need = RANK_INDEX[view["needed"]] if view["needed"] is not None else -1
    _, step = planner.plan(need)
    for action in legal:
        if _matches(action, step, planner.root[NINE]):
            return action
    return rng.choice(legal)  # the plan found no listed action: should not happen


def why(game, state, action: dict) -> str | None:
    """What ``action`` does for the seat to act, in a few words for a player
    (the hint's reason), from the seat's own view; None where there is
    nothing short to say."""
    cards = action.get("cards")
    if not cards:
        return None  # a pass: forced, or the row is worth leaving
    seat = game.to_act(state)
    view = game.view(state, seat)
    planner = _Planner(view, seat)
    counts = list(planner.root)
    if cards[0] == WARKOCZ:
        r, w, last_w = RANK_INDEX[action["as"]], False, True
        counts[NINE] -= len(cards) - 1
    else:
        r, w, last_w = NATURAL_RANK[cards[0]], planner.has_w, False
        counts[r] -= len(cards)
    if len(cards) == len(view["hand"]):
        return _("goes out")
    if planner.after_step(tuple(counts), w, r, last_w) >= WIN:
        if planner.aria_open:
            return _("goes out in this move: an aria doubles the score")
        return _("goes out in this move")
    if r == KING:
        return _("a king ends the row: you lead again")
    if planner.need_after(tuple(counts), r) < 0:
        return _("nobody can follow it: you lead again")
    if last_w:
        return _("the warkocz keeps your move going")
    if planner.has_w and planner.keep_w > 0 and _keeps_warkocz(planner, tuple(counts), r):
        return _("keeps the warkocz for later")
    if len(cards) >= 3:
        return ngettext("lays {n} card of one rank at once", "lays {n} cards of one rank at once",
                        len(cards)).format(n=len(cards))
    return None


def _keeps_warkocz(planner: _Planner, counts: tuple, r: int) -> bool:
    """Does the rest of the planned move, after a natural step of rank ``r``
    leaving ``counts``, end with the warkocz still in hand?"""
    need = planner.need_after(counts, r)
    for _ in range(len(W_RANKS) * 4):  # a move lays at most every card
        if not any(counts):
            return True
        _value, step = planner.value(counts, True, need)
        if step[0] == "w":
            return False
        if step[0] == "p":
            return True  # the move ends (a pass that leads again keeps it too, for this move)
        _, r, k = step
        counts = counts[:r] + (counts[r] - k,) + counts[r + 1:]
        need = planner.need_after(counts, r)
    return True
