"""The one rules core of the two canastas, ``kanasta`` and ``kanaszta``.

The games' differences live in ``kanasta.py`` and ``kanaszta.py`` as class
data (``side_melds``, ``opening_minimum_per_turn``, ``take_after_draw``, ...,
documented on ``CanastaGame``) and a few public hooks declared once here with
what a variant answers (``shape_error``, ``meld_status``, ``minimums``,
``pile_closed_reason``, ``pile_take_error``, ``pile_take_ways``,
``must_take_pile``, ``stops_pile``, ``frozen_for``, ``red3_replaced``,
``swap_actions``, ``score``) plus each game's own action handlers in its
``handlers`` table (kanasta's swap). Everything they share is here: the
state, dealing, drawing, taking the pile, melding, adding, laying red 3s
apart, discarding, going out, the enumeration of every legal action, the
scores' assembly, the view and the match.

Terms used below: the *owner* of melds is the player in kanasta (melds belong
to whoever laid them) and the side in kanaszta (a pair shares its melds). A
meld's ``rank`` is ``"4"``..``"A"``, ``"W"`` for an all-wild meld (kanasta)
or ``"3"`` for a black-3 meld (kanaszta, going out only). Melds are never
removed, so a meld's index in the table's list of melds (``view["melds"]``,
in the order they were laid) is a stable reference: actions name melds by it.

Move lists up to suit equivalence: inside a meld the cards of one rank are
interchangeable, and so are the 2s (the shape rules, the values and the
canasta kinds see only ranks and the two kinds of wild). So ``legal_actions``
lists one melding action per class — rank, count of naturals, of 2s and of
jokers — with one representative's concrete ``cards`` (the first cards of
each kind in card order), and ``apply`` checks whatever concrete cards it is
given: any member of a listed class is accepted, and a class is listed
exactly when its members are legal. This keeps lists short (a 44-card hand
with all twelve wilds would otherwise list over a hundred thousand melds).

Hidden cards: the engine never looks at an unknown token. Rules that need the
identity of a card in the actor's hand (kanaszta's "lay a red 3 at once", "lay
all your red 3s", the dead-end check of a first meld) are enforced when that
card is known; the actor's own peer and the audit always know it.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from p2pcards import cards as C
from p2pcards.games.base import (
    IllegalAction, Match, NeedReveal, SeatOverPublicViews, State, Verb, by, card_list, count, not_held,
    shuffled_deck, yes_no,
)
from p2pcards.i18n import N_, Text, lazy

RANK_INDEX = {r: i for i, r in enumerate(C.RANKS)}
SUIT_INDEX = {s: i for i, s in enumerate(C.SUITS)}
MELD_RANKS = C.RANKS[2:]  # 4..A: the ranks a natural meld can have

# Card kinds: natural (4..A), wild (JK, 2), red 3, black 3.
NAT, WILD, RED3, BLACK3 = "N", "W", "R", "B"
KIND: dict[str, str] = {C.JOKER: WILD}
for _r in C.RANKS:
    for _s in C.SUITS:
        _code = _r + _s
        if _r == "2":
            KIND[_code] = WILD
        elif _r == "3":
            KIND[_code] = RED3 if _s in C.RED_SUITS else BLACK3
        else:
            KIND[_code] = NAT
RED_THREES = ("3D", "3H")
_RED3_SET = frozenset(RED_THREES)


def card_key(card: str):
    key = _CARD_KEYS.get(card)
    return key if key is not None else _card_key(card)


def _card_key(card: str):
    """Sort order for hands and action lists: by rank, wilds after aces,
    then suit; unknown tokens last by position."""
    kind = KIND.get(card)
    if kind is None:
        return (99, C.unknown_position(card) if C.is_unknown(card) else 0, 0)
    if card == C.JOKER:
        return (15, 0, 0)
    r = card[:-1]
    order = 14 if r == "2" else RANK_INDEX[r]
    return (order, SUIT_INDEX[card[-1]], 0)


_CARD_KEYS = {code: _card_key(code) for code in KIND}
_CARD_KEYS.update((C.unknown(p), _card_key(C.unknown(p))) for p in range(2 * 108))  # a hidden hand is tokens


def describe(card: object) -> str:
    return card if isinstance(card, str) else repr(card)


@dataclasses.dataclass(slots=True)
class Meld:
    owner: int  # seat (kanasta) or side (kanaszta)
    by: int  # the seat that laid it
    rank: str  # "4".."A", "W" (all wild) or "3" (black threes)
    cards: list
    naturals: int
    wilds: int
    layers: list | None = None  # the seat that laid each card (parallel to cards); None: all by ``by``

    def laid_by(self) -> list:
        return self.layers if self.layers is not None else [self.by] * len(self.cards)

    def grown(self, cards: list, nat: int, wild: int, seat: int) -> "Meld":
        """This meld with ``cards`` (``nat`` naturals, ``wild`` wilds) laid onto it by ``seat``."""
        return Meld(self.owner, self.by, self.rank, self.cards + list(cards), self.naturals + nat,
                    self.wilds + wild, self.laid_by() + [seat] * len(cards))


@dataclasses.dataclass(slots=True)
class CanastaState(State):
    game: str
    players: int
    dealer: int
    options: dict
    scores: list  # each side's match total before this deal
    minimum: list  # kanaszta: each side's minimum first meld; kanasta: [first_meld] * owners
    hands: list  # per seat, cards in arrival order (tokens included)
    stock: list  # top is the LAST element
    pile: list  # top is the last element
    melds: list  # of Meld, in the order laid
    red3s: list  # per seat, red 3s laid apart
    opened: list  # per owner: has laid its first meld this deal
    turn: int  # the seat to act
    phase: str  # "setup" (kanaszta red 3s), "draw", "meld", "over"
    can_take: bool  # kanasta: just drew, may still take the pile
    frozen: bool  # kanaszta: a wild lies crosswise in the pile
    stopped: bool  # kanaszta: the last discard was a stop card
    turn_value: int  # card value melded this turn (kanaszta's first meld)
    turn_opening: bool  # the owner had no meld when this turn began
    turn_melded: bool  # the seat melded something this turn
    melded_before: list  # per seat: melded in an earlier turn (concealed going out)
    turns_done: list  # per seat: finished turns this deal
    went_out: int  # seat that went out, -1 if none
    concealed: bool
    meld_value_by: list  # per seat: card value that seat melded (score attribution)
    canastas: list = dataclasses.field(default_factory=list)  # per owner: holds a canasta
    pending: str | None = None  # kanasta: a swapped-out wild that must go into a new meld now
    frozen_by: int = -1  # kanaszta: the side that froze the pile, -1 when not frozen

    def evolve(self) -> "CanastaState":
        """A copy whose lists may be changed in place (melds themselves are
        replaced, never changed): the engine's hot path, written out."""
        return CanastaState(
            self.game, self.players, self.dealer, self.options, self.scores, self.minimum,
            [h[:] for h in self.hands], self.stock[:], self.pile[:], self.melds[:],
            [r[:] for r in self.red3s], self.opened[:], self.turn, self.phase, self.can_take,
            self.frozen, self.stopped, self.turn_value, self.turn_opening, self.turn_melded,
            self.melded_before[:], self.turns_done[:], self.went_out, self.concealed,
            self.meld_value_by[:], self.canastas[:], self.pending, self.frozen_by,
        )


# ----- multiset helpers ---------------------------------------------------------
def _groups(cards) -> list[tuple[str, int]]:
    """[(code, count)] in card order."""
    counts: dict[str, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    keys = _CARD_KEYS
    return sorted(counts.items(), key=lambda kv: keys.get(kv[0]) or _card_key(kv[0]))


@lru_cache(maxsize=4096)
def _hand_groups(hand: tuple) -> tuple[tuple[str, int], ...]:
    """``_groups`` of a hand: the one sort of it that every listing of a
    state shares (discards, red 3s, and ``_hand_parts`` for the melds)."""
    return tuple(_groups(hand))


NO_WILDS = ((), ())

# The ways of taking the pile (``CanastaGame.pile_take_ways``): its top card goes at once
WITH_HAND_INTO_NEW_MELD = "with hand cards into a new meld"  # of its rank (a wild on top: any rank, or all wild)
ALONE_ONTO_MELD = "alone onto a meld"  # one it fits, that the seat may add to
WITH_TWO_NATURALS = "with two naturals of its rank"  # 2+ from hand, no wild: into a new meld or onto one of that rank
_ANY_MELD = frozenset({WITH_HAND_INTO_NEW_MELD, ALONE_ONTO_MELD})
EVERY_WAY = frozenset({WITH_HAND_INTO_NEW_MELD, ALONE_ONTO_MELD, WITH_TWO_NATURALS})


@lru_cache(maxsize=4096)
def _hand_parts(hand: tuple) -> tuple[dict, tuple, tuple]:
    """(rank -> its naturals, (2s, jokers), black 3s) of the known cards of
    ``hand``, each a tuple in card order. Inside a meld cards of one rank are
    interchangeable, and so are the 2s: a pick is a prefix of each tuple."""
    nat: dict[str, tuple] = {}
    twos = []
    jokers = []
    black = []
    for code, count in _hand_groups(hand):
        k = KIND.get(code)
        if k == NAT:
            nat[code[:-1]] = nat.get(code[:-1], ()) + (code,) * count
        elif code == C.JOKER:
            jokers += [code] * count
        elif k == WILD:
            twos += [code] * count
        elif k == BLACK3:
            black += [code] * count
    return nat, (tuple(twos), tuple(jokers)), tuple(black)


def _class_counts(naturals: tuple, wilds: tuple, shape, forced_nat: int = 0, forced_wild: int = 0,
                  need_nat: int = 0):
    """(a, t, j) for each class of suit-equivalent picks of hand cards: ``a``
    of ``naturals`` (one rank), ``t`` 2s and ``j`` jokers of ``wilds``, whose
    totals with the forced cards satisfy ``shape(n, w)``; ``a >= need_nat``."""
    n_twos, n_jokers = len(wilds[0]), len(wilds[1])
    for a in range(need_nat, len(naturals) + 1):
        for b in range(n_twos + n_jokers + 1):
            if a + b == 0 or not shape(forced_nat + a, forced_wild + b):
                continue
            for t in range(min(b, n_twos), max(0, b - n_jokers) - 1, -1):
                yield a, t, b - t


def _classes(naturals: tuple, wilds: tuple, shape, forced_nat: int = 0, forced_wild: int = 0,
             need_nat: int = 0):
    """The representative pick (the first cards of each kind) of each class
    of ``_class_counts``, as a tuple of codes."""
    twos, jokers = wilds
    for a, t, j in _class_counts(naturals, wilds, shape, forced_nat, forced_wild, need_nat):
        yield naturals[:a] + twos[:t] + jokers[:j]


def _remove(hand: list, cards: list) -> list:
    """``hand`` without ``cards`` (a multiset); IllegalAction naming a card not held."""
    rest = hand[:]
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            raise IllegalAction(not_held(c)) from None
    return rest


# The moves both canastas type alike (each game lists its verbs in its own order).
DRAW_VERB = Verb(("dr", "draw"), "draw", "", N_("draw the top card of the stock"))
MELD_VERB = Verb(("m", "meld"), "meld", "cards", N_("lay a new meld: m KH KS KD (wilds JK and 2 may join)"))
ADD_VERB = Verb(("a", "add"), "add", "meld cards", N_("add cards to meld number N as shown on the table: a 2 KH"))


class CanastaGame(SeatOverPublicViews):
    """The shared engine; the two games set the class data and public hooks below."""

    min_players = 2
    max_players = 4
    hand_size = 12
    values: dict = {}  # rank (or "JK", "3R"/"3B") -> points
    canasta_bonuses: dict = {}
    # Each canasta kind of ``canasta_bonuses`` in words (N_() marked): the
    # English name and the players' own, which a Polish or Hungarian player reads.
    canasta_names: dict = {}
    canasta_size = 7  # cards a meld needs to be a canasta
    layout = "melds"
    option_words = {
        "pairs": yes_no(N_("four players in two pairs"), N_("each for themselves")),
        "target": count(lambda n: lazy.ngettext("the match ends at {n} point", "the match ends at {n} points", n)),
        "one_meld_per_rank": yes_no(N_("one combination of each rank per player or pair"),
                                    N_("a second combination of a rank may be laid")),
    }
    any_card_actions = frozenset({"discard", "red3"})  # red 3s are laid apart, not played

    def card_moves(self, count: int) -> tuple[str, ...]:
        """One card typed alone is a discard, more a meld."""
        return ("discard",) if count == 1 else ("meld",)

    def hand_order(self, hand: list[str], trump_suit: str | None = None) -> list[str]:
        """By rank, as canasta players hold theirs: naturals 4..A, then the
        3s, then the wilds (2s, jokers), unknown tokens last."""
        def key(c: str):
            r = C.rank(c)
            if r is None:
                return (3, 0, c)
            if r in (C.JOKER, "2"):
                return (2, 0 if r == "2" else 1, c)
            if r == "3":
                return (1, 0, c)
            return (0, RANK_INDEX[r], C.suit(c) or "")

        return sorted(hand, key=key)

    # ----- the variant's rules as data (each game sets what differs) -------------------
    # Who owns a meld: with pairs, the side (kanaszta's partners share their
    # melds) rather than the seat that laid it.
    side_melds = False
    # Anyone who has laid a first meld may add to anybody's melds (kanasta),
    # rather than only to their own (side's) melds.
    adds_to_any_meld = False
    # The first-meld minimum is reached by all the melds of the owner's first
    # melding turn together (kanaszta), rather than by the first meld alone.
    opening_minimum_per_turn = False
    allows_wild_melds = False  # all-wild melds (kanasta)
    black_three_melds = False  # black 3s may be melded, as the last meld of going out (kanaszta)
    out_in_first_turn = True  # False: nobody goes out in their first turn (kanasta)
    # The pile is taken after the draw (kanasta), rather than instead of it.
    take_after_draw = False
    # After the deal the top stock card is turned up to start the pile; while
    # it is no natural card (a 2, a 3, a joker) the next one covers it (kanaszta).
    upcard_covered_until_natural = False
    # Red 3s are laid apart, never melded. Laid at once (kanaszta): a red 3
    # never stays in a hand: those dealt are laid in a round after the deal
    # (the "setup" phase), one drawn later before any other move, every red
    # 3 held together. Otherwise (kanasta) a red 3 is laid as a move of its
    # own, one at a time, whenever its holder likes during the turn.
    red3s_laid_at_once = False
    # A red 3 may be laid only while the stock has a card to replace it
    # (kanasta: otherwise it stays in hand, or is discarded), rather than
    # laid anyway, with no replacement once the stock is empty.
    red3_laid_only_with_replacement = False
    pile_red3s_laid = False  # red 3s under the pile's top are laid apart as it is taken (kanaszta), not held
    freezing_discards = False  # a wild may be discarded crosswise to freeze the pile (kanaszta)
    # A last card its holder can't go out with (kanaszta: after a red 3 with no
    # replacement) is discarded without going out, rather than refused.
    last_card_discarded_without_going_out = False
    face_down_actions = frozenset()

    # ----- options -------------------------------------------------------------
    def check_options(self, players: int, opts: dict) -> None:
        """Refuse options out of range (a variant checks its own options after these)."""
        if opts["pairs"] and players != 4:
            raise IllegalAction(N_("pairs need exactly 4 players"))
        if opts["target"] <= 0:
            raise IllegalAction(N_("target must be positive"))

    def _opts(self, players, options) -> dict:
        if options is not None and not isinstance(options, dict):
            raise IllegalAction(N_("options must be a dict of option names to values"))
        return self.options(players, options)

    # ----- cards ----------------------------------------------------------------
    def __init__(self):
        def worth(code):
            kind = KIND[code]
            if kind == RED3:
                return self.values["3R"]
            if kind == BLACK3:
                return self.values["3B"]
            return self.values[C.rank(code)]
        self.card_values = {code: worth(code) for code in KIND}

    def value(self, card: str) -> int:
        """Points of a card; 0 for an unknown token (never inspected)."""
        return self.card_values.get(card, 0)

    def owner_of(self, state, seat: int) -> int:
        if self.side_melds and state.players == 4 and state.options["pairs"]:
            return seat % 2
        return seat

    def meld_status(self, meld: Meld) -> str | None:
        """The canasta kind of a meld, None if it is no canasta."""
        raise NotImplementedError

    def canasta_bonus(self, meld: Meld) -> int:
        return self.canasta_bonuses.get(self.meld_status(meld), 0)

    def has_canasta(self, state, owner: int) -> bool:
        # Melds only grow, so a canasta once made stays (kept up by _place).
        return state.canastas[owner]

    # ----- hooks the games fill in -----------------------------------------------
    def shape_error(self, rank: str, naturals: int, wilds: int, size: int) -> str | None:
        """Why a meld of this make-up is not allowed, or None."""
        raise NotImplementedError

    def pile_closed_reason(self, state: CanastaState, seat: int) -> Text | None:
        """Why ``seat`` may not take the pile at all now (the moment of the
        turn, an empty or stopped pile...), or None: the variant's rule of
        when the pile is open."""
        raise NotImplementedError

    def pile_take_error(self, state: CanastaState, seat: int, top: str, cards: list,
                        index: int | None) -> Text | None:
        """Why the pile's known ``top`` may not be taken with ``cards`` from
        hand into meld ``index`` (None: a new meld), or None: the variant's
        rule of what a take needs (checked before the meld's shape, which
        the core checks)."""
        raise NotImplementedError

    def pile_take_ways(self, state: CanastaState, seat: int) -> frozenset:
        """The ways (``WITH_HAND_INTO_NEW_MELD``, ``ALONE_ONTO_MELD``,
        ``WITH_TWO_NATURALS``) in which ``seat`` might take the pile now,
        where it is open (``pile_closed_reason``): the listing tries only
        these, so a way ``pile_take_error`` allows must be named. The seeds'
        kanasta: with hand cards into a new meld, or alone onto a meld."""
        return _ANY_MELD

    def must_take_pile(self, state: CanastaState, seat: int) -> bool:
        """Must ``seat`` take the pile rather than draw, whenever it can?
        None of the variants here asks it, except kanaszta facing an empty
        stock without ``empty_stock_ends``."""
        return False

    def stops_pile(self, state: CanastaState, card: str) -> bool:
        """Is ``card``, discarded plainly, a stop card (the next player may
        not take the pile)? No card is, unless the variant says so."""
        return False

    def frozen_for(self, state: CanastaState, owner: int) -> bool:
        """Does a frozen pile bind ``owner`` (to take it with two naturals of
        the top's rank)? Classic canasta: it binds everybody."""
        return state.frozen

    def red3_replaced(self, state: CanastaState) -> bool:
        """Does a red 3 laid from hand draw a replacement from the stock
        (while the stock lasts)? The seeds: yes; kanaszta lets the
        ``red3_replacement`` option say no."""
        return True

    def swap_actions(self, state: CanastaState, seat: int) -> list[dict]:
        """The swap actions (a natural for a meld's wild) legal now; a
        variant without swaps has none."""
        return []

    def score(self, state: CanastaState) -> dict:
        """The deal's scores (``deal_scores``, with every card known): the variant's scoring."""
        raise NotImplementedError

    # ----- the pile ------------------------------------------------------------------
    @staticmethod
    def _pile_top(state: CanastaState) -> str:
        top = state.pile[-1]
        if C.is_unknown(top):
            raise NeedReveal([top], "the pile's top card is face up")
        return top

    def pile_actions(self, state: CanastaState, seat: int) -> list[dict]:
        """Every take of the pile legal now, in order."""
        if self.pile_closed_reason(state, seat):
            return []
        top = self._pile_top(state)
        return self.possible_takes(state, seat, self._pile_take_candidates(state, seat, top,
                                                                           self.pile_take_ways(state, seat)))

    def _pile_take_candidates(self, state: CanastaState, seat: int, top: str, ways) -> list[dict]:
        """The take_pile actions worth trying with the pile's known ``top``
        in ``ways``, in listing order, up to suit equivalence; ``pile_actions``
        keeps the ones ``take_pile`` accepts."""
        kind = KIND[top]
        if kind not in (NAT, WILD):
            return []  # a 3 is never melded
        nat, wild, _ = self._hand_parts(state.hands[seat])
        rank = C.rank(top)
        candidates = []
        if WITH_TWO_NATURALS in ways and kind == NAT:
            onto = [i for i in self._addable_melds(state, seat) if state.melds[i].rank == rank]
            for combo in _classes(nat.get(rank, ()), NO_WILDS, lambda n, w: n >= 2):
                candidates.append({"type": "take_pile", "cards": list(combo)})
                for i in onto:
                    candidates.append({"type": "take_pile", "cards": list(combo), "meld": i})
        if WITH_HAND_INTO_NEW_MELD in ways:
            if kind == WILD:  # a new meld of any rank, or all wild
                targets = [(r, nat[r]) for r in MELD_RANKS if r in nat]
                if self.allows_wild_melds:
                    targets.append(("W", ()))
                forced = (0, 1)
            else:
                targets = [(rank, nat.get(rank, ()))]
                forced = (1, 0)
            for target, groups in targets:
                def shape(n, w, target=target):
                    return self.shape_error(target, n, w, n + w) is None
                # Under a wild, a pick without naturals is the all-wild meld, listed once under "W".
                need = 1 if kind == WILD and target != "W" else 0
                for combo in _classes(groups, wild, shape, *forced, need):
                    candidates.append({"type": "take_pile", "cards": list(combo)})
        if ALONE_ONTO_MELD in ways:
            for i in self._addable_melds(state, seat):
                if state.melds[i].rank == rank or kind == WILD:  # addable melds are never of 3s
                    candidates.append({"type": "take_pile", "cards": [], "meld": i})
        return candidates

    def possible_takes(self, state: CanastaState, seat: int, candidates: list[dict]) -> list[dict]:
        """The candidate take_pile actions the rules allow now, in order."""
        out = []
        for action in candidates:
            try:
                self.take_pile(state, seat, action, check_only=True)
            except IllegalAction:
                continue
            out.append(action)
        return out

    def take_pile(self, state: CanastaState, seat: int, action: dict, check_only: bool = False):
        """Take the pile, its top card going at once (with ``cards`` from
        hand) into a new meld or into meld ``action["meld"]``; the rest of the
        pile into the hand. ``check_only``: raise or return None, changing
        nothing (the listing's check)."""
        err = self.pile_closed_reason(state, seat)
        if err:
            raise IllegalAction(err)
        top = self._pile_top(state)
        cards = self._cards(action, empty_ok=True)
        i = self._meld_index(state, action, required=False)
        rest = _remove(state.hands[seat], cards)
        owner = self.owner_of(state, seat)
        if KIND[top] in (RED3, BLACK3):
            raise IllegalAction(N_("the top card {top} can't be melded, so the pile can't be taken", top=top))
        err = self.pile_take_error(state, seat, top, cards, i)
        if err:
            raise IllegalAction(err)
        both = [top] + cards
        rank, nat, wild, err = self._make_up(both)
        if err:
            raise IllegalAction(err)
        value = sum(self.value(c) for c in both)
        if i is None:
            err = (self._new_meld_error(state, owner, rank, nat, wild, len(both))
                   or self._first_meld_error(state, seat, value, first=not state.opened[owner]))
            meld = Meld(owner, seat, rank, both, nat, wild)
        else:
            old = state.melds[i]
            err = self._add_context_error(state, seat, i) or self._add_error(old, rank, nat, wild)
            meld = old.grown(both, nat, wild, seat)
        if err:
            raise IllegalAction(err)
        below = state.pile[:-1]
        if self.pile_red3s_laid:
            laid = [c for c in below if KIND.get(c) == RED3]
            hand = rest + [c for c in below if KIND.get(c) != RED3]
        else:
            laid = []
            hand = rest + below
        err = self._after_error(state, seat, hand, value, meld, i)
        if err:
            raise IllegalAction(err)
        if check_only:
            return None
        s = state.evolve()
        s.hands[seat] = hand
        # Red 3s in the pile are public: laid at once, with no replacement.
        s.red3s[seat] += laid
        s.pile = []
        s.frozen = False
        s.frozen_by = -1
        s.stopped = False
        s.phase = "meld"
        self._place(s, seat, meld, i, value)
        return self._after_melding(s, seat)

    # ----- one deal ----------------------------------------------------------------
    def start(self, players, seed=None, deck=None, dealer=0, options=None, scores=None, **context):
        self.check_players(players)
        opts = self._opts(players, options)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise IllegalAction(N_("dealer must be a seat 0..{last}, not {dealer}",
                                   last=players - 1, dealer=repr(dealer)))
        n_sides = self.sides(players, opts)
        if scores is None:
            scores = [0] * n_sides
        if (not isinstance(scores, (list, tuple)) or len(scores) != n_sides
                or any(not isinstance(x, int) or isinstance(x, bool) for x in scores)):
            raise IllegalAction(N_("scores must be {n_sides} whole numbers, one per side", n_sides=n_sides))
        if deck is None:
            deck = shuffled_deck(self.id, 0 if seed is None else seed, 0)
        deck = self._check_deck(deck)
        hands = [[] for _ in range(players)]
        pos = 0
        for _ in range(self.hand_size):
            for k in range(players):
                hands[(dealer + 1 + k) % players].append(deck[pos])
                pos += 1
        owners = self.sides(players, opts) if self.side_melds else players
        state = CanastaState(
            game=self.id, players=players, dealer=dealer, options=opts, scores=list(scores),
            minimum=self.minimums(opts, list(scores), owners), hands=hands, stock=[], pile=[],
            melds=[], red3s=[[] for _ in range(players)], opened=[False] * owners,
            turn=(dealer + 1) % players, phase="draw", can_take=False, frozen=False, stopped=False,
            turn_value=0, turn_opening=True, turn_melded=False, melded_before=[False] * players,
            turns_done=[0] * players, went_out=-1, concealed=False, meld_value_by=[0] * players,
            canastas=[False] * owners,
        )
        pos = self._turn_up(state, deck, pos)
        if self.red3s_laid_at_once:
            state.phase = "setup"  # the round in which each seat lays the red 3s dealt to it
        state.stock = deck[pos:][::-1]
        return state

    def _turn_up(self, state: CanastaState, deck: list, pos: int) -> int:
        """Start the pile with the upcard(s) from ``deck[pos:]``; returns the first stock position."""
        covered = self.upcard_covered_until_natural
        while True:
            card = deck[pos]
            pos += 1
            if covered and C.is_unknown(card):
                # Whether the next card covers it depends on what it is.
                raise NeedReveal([card], "the upcard is turned face up, and covered while it is a 2, a 3 or a joker")
            state.pile.append(card)
            if not covered or KIND[card] == NAT:
                return pos

    def minimums(self, opts: dict, scores: list, owners: int) -> list:
        """Each owner's first-meld minimum for a deal, from the options and the sides' match totals."""
        raise NotImplementedError

    def _check_deck(self, deck) -> list:
        if not isinstance(deck, (list, tuple)):
            raise IllegalAction(N_("deck must be a list of card codes"))
        deck = list(deck)
        if len(deck) != self.deck_size():
            raise IllegalAction(N_("a {game} deck has {size} cards, not {count}",
                                   game=self.id, size=self.deck_size(), count=len(deck)))
        known = [c for c in deck if not C.is_unknown(c)]
        for c in known:
            if not C.is_code(c):
                raise IllegalAction(N_("{card} is not a card", card=describe(c)))
        full = _groups(C.deck_for(self.id))
        have = dict(_groups(known))
        for code, count in full:
            if have.get(code, 0) > count:
                raise IllegalAction(N_("the deck holds {code} {have} times, at most {count}",
                                       code=code, have=have[code], count=count))
        return deck

    def to_act(self, state) -> int:
        return -1 if state.phase == "over" else state.turn

    def deal_over(self, state) -> bool:
        return state.phase == "over"

    def hand(self, state, seat: int) -> list[str]:
        return list(state.hands[seat])

    # ----- parsing actions -----------------------------------------------------------
    # The fields each action type may carry besides "type" and "seat".
    _FIELDS = {
        "draw": frozenset(),
        "take_pile": frozenset({"cards", "meld"}),
        "meld": frozenset({"cards"}),
        "add": frozenset({"cards", "meld"}),
        "swap": frozenset({"cards", "meld", "wild"}),
        "red3": frozenset({"cards"}),
        "discard": frozenset({"cards", "freeze"}),
    }
    _ALLOWED_FIELDS = {kind: fields | {"type", "seat"} for kind, fields in _FIELDS.items()}

    def _parse(self, state, action) -> tuple[str, int]:
        if not isinstance(action, dict):
            raise IllegalAction(N_("an action must be a dict, not {type}", type=type(action).__name__))
        kind = action.get("type")
        if kind not in self.action_types:
            raise IllegalAction(N_("unknown action type {action} (allowed: {actions})", action=describe(kind),
                                   actions=', '.join(self.action_types)))
        allowed = self._ALLOWED_FIELDS[kind]
        for key in action:
            if key not in allowed:
                raise IllegalAction(N_("unexpected field {key} in a {action} action", key=describe(key), action=kind))
        if state.phase == "over":
            raise IllegalAction(N_("the deal is over"))
        seat = state.turn
        if "seat" in action:
            given = action["seat"]
            if not isinstance(given, int) or isinstance(given, bool):
                raise IllegalAction(N_("seat must be a number, not {given}", given=describe(given)))
            if given != seat:
                raise IllegalAction(N_("it is seat {seat}'s turn, not seat {given}'s", seat=seat, given=given))
        return kind, seat

    @staticmethod
    def _cards(action, empty_ok: bool = False) -> list:
        cards = action.get("cards")
        if not isinstance(cards, list):
            raise IllegalAction(N_("a {type} action needs \"cards\": a list of card codes", type=action['type']))
        for c in cards:
            if not C.is_code(c):
                raise IllegalAction(N_("{card} is not a card code", card=describe(c)))
        if not cards and not empty_ok:
            raise IllegalAction(N_("a {type} action needs at least one card", type=action['type']))
        return cards

    @staticmethod
    def _meld_index(state, action, required: bool = True):
        if "meld" not in action and not required:
            return None
        i = action.get("meld")
        if not isinstance(i, int) or isinstance(i, bool):
            raise IllegalAction(N_("give the number of a meld on the table, not {meld}", meld=describe(i)))
        if not 0 <= i < len(state.melds):
            raise IllegalAction(N_("there is no meld {meld} (the table has {count})", meld=i, count=len(state.melds)))
        return i

    # ----- meld make-up ------------------------------------------------------------------
    @staticmethod
    def _make_up(cards) -> tuple[str | None, int, int, str | None]:
        """(rank, naturals, wilds, error) of a set of known cards; rank "W" if all wild."""
        rank = None
        nat = wild = 0
        for c in cards:
            k = KIND[c]
            if k == WILD:
                wild += 1
                continue
            if k == RED3:
                return None, 0, 0, "a red 3 is never melded"
            r = C.rank(c)
            if rank is None:
                rank = r
            elif r != rank:
                return None, 0, 0, f"a meld holds one rank, not both {rank} and {r}"
            nat += 1
        if rank is None:
            rank = "W"
        return rank, nat, wild, None

    def black_threes_melded(self, options) -> bool:
        """May black 3s be melded at all (as the last meld of going out)? The
        variant says, and its option ``black3_meld_going_out`` where it has one."""
        return self.black_three_melds and options.get("black3_meld_going_out", True)

    def _new_meld_error(self, state, owner: int, rank: str, nat: int, wild: int, size: int) -> str | None:
        if rank == "3" and not self.black_threes_melded(state.options):
            return N_("3s are never melded")
        err = self.shape_error(rank, nat, wild, size)
        if err:
            return err
        if self._rank_taken(state, owner, rank):
            return N_("you already have a meld of {rank}s: add to it", rank=C.Rank(rank))
        return None

    @staticmethod
    def _rank_taken(state, owner: int, rank: str) -> bool:
        """With ``one_meld_per_rank`` an owner holds at most one meld of a rank."""
        if not state.options.get("one_meld_per_rank") or rank not in MELD_RANKS:
            return False
        return any(m.owner == owner and m.rank == rank for m in state.melds)

    def _add_error(self, meld: Meld, rank: str, nat: int, wild: int) -> str | None:
        if rank != "W" and rank != meld.rank:
            return N_("{rank}s don't go into a meld of {rank_name}", rank=C.Rank(rank),
                      rank_name=self.rank_name(meld.rank))
        return self.shape_error(meld.rank, meld.naturals + nat, meld.wilds + wild, len(meld.cards) + nat + wild)

    @staticmethod
    def rank_name(rank: str) -> str:
        if rank == "W":
            return N_("wild cards")
        return N_("black 3s") if rank == "3" else N_("{rank}s", rank=C.Rank(rank))

    # ----- after-action checks shared by apply and legal_actions -------------------------
    def _canasta_after(self, state, owner: int, changed: Meld | None) -> bool:
        if changed is not None and changed.owner == owner and len(changed.cards) >= 7 and self.meld_status(changed):
            return True
        return self.has_canasta(state, owner)

    def _finish_error(self, state, seat: int, hand_left: int, canasta: bool, turn_value: int) -> str | None:
        """Why a seat may not be left with ``hand_left`` cards after melding
        (0: going out now; 1: the discard will go out), or None."""
        if hand_left > 1:
            return None
        if not self.out_in_first_turn and state.turns_done[seat] == 0:
            return N_("you may not go out in your first turn (keep a card to discard)")
        if state.options["go_out_canasta"] and not canasta:
            return N_("you need a canasta to go out (keep a card to discard)")
        owner = self.owner_of(state, seat)
        if self.opening_minimum_per_turn and state.turn_opening and turn_value < state.minimum[owner]:
            return N_("your side's first melds must be worth {minimum} before going out",
                      minimum=state.minimum[owner])
        return None

    def _opening_error(self, state, seat: int, value: int, rest, meld: Meld, replace: int | None,
                       keep: int) -> str | None:
        """With ``opening_minimum_per_turn``: after melding ``value`` more this
        turn, can the owner still reach its minimum with the cards left
        (``rest``, a list or a function giving it)? Only checked with a known hand."""
        if not self.opening_minimum_per_turn or not state.turn_opening:
            return None
        owner = self.owner_of(state, seat)
        need = state.minimum[owner]
        total = state.turn_value + value
        if total >= need:
            return None
        if callable(rest):
            rest = rest()
        if any(KIND.get(c) is None for c in rest):
            return None
        reach = total + max_meldable(self, rest, self._owner_ranks(state, owner, meld, replace), keep)
        if reach < need:
            return (N_("your side's first melds must be worth {need}; with this one the most you can meld this turn "
                       "is {reach}",
                       need=need, reach=reach))
        return None

    def _owner_ranks(self, state, owner: int, changed: Meld, replace: int | None) -> dict:
        """rank -> (naturals, wilds) of the owner's melds once ``changed`` is
        laid (new) or put in place of meld ``replace`` (for the dead-end check)."""
        out = {}
        for i, m in enumerate(state.melds):
            if i == replace:
                m = changed
            if m.owner == owner and m.rank in MELD_RANKS:
                out[m.rank] = (m.naturals, m.wilds)
        if replace is None and changed.rank in MELD_RANKS:
            out[changed.rank] = (changed.naturals, changed.wilds)
        return out

    # ----- apply ---------------------------------------------------------------------------
    def apply(self, state, action):
        kind, seat = self._parse(state, action)
        return self.handlers[kind](self, state, seat, action)

    def _need_red3_first(self, state, seat) -> bool:
        """With ``red3s_laid_at_once``: a known red 3 in hand must be laid before anything else."""
        hand = state.hands[seat]
        return self.red3s_laid_at_once and state.phase == "meld" and not _RED3_SET.isdisjoint(hand)

    def _in_meld_phase(self, state, seat, what: str) -> None:
        if state.phase == "setup":
            raise IllegalAction(N_("first every player lays their red 3s (red3 action)"))
        if state.phase == "draw":
            raise IllegalAction(N_("draw first (or take the pile) before you {what}", what=what))
        if self._need_red3_first(state, seat):
            raise IllegalAction(N_("lay your red 3 first", about=N_("{name} held a red 3 and had to lay it first")))
        if state.pending and what != "meld":
            raise IllegalAction(N_("first lay the freed {pending} in a new meld", pending=state.pending))

    def _do_draw(self, state, seat, action):
        if state.phase != "draw":
            raise IllegalAction(N_("you have already drawn this turn") if state.phase == "meld"
                                else N_("first every player lays their red 3s (red3 action)"))
        if (self.must_take_pile(state, seat) and not any(C.is_unknown(c) for c in state.hands[seat])
                and self.pile_actions(state, seat)):
            raise IllegalAction(N_("the stock is empty and you can take the pile: you must take it"))
        s = state.evolve()
        if not s.stock:
            # Decision: the stock is empty when a player must draw: the deal ends.
            s.phase = "over"
            return s
        s.hands[seat].append(s.stock.pop())
        s.phase = "meld"
        s.can_take = self.take_after_draw
        return s

    def _do_take_pile(self, state, seat, action):
        return self.take_pile(state, seat, action)

    def _place(self, s: CanastaState, seat: int, meld: Meld, index: int | None, value: int) -> None:
        """Lay ``meld`` (new, or the changed meld ``index``) and book its value to the seat."""
        if index is None:
            s.melds.append(meld)
        else:
            s.melds[index] = meld
        s.opened[meld.owner] = True
        if len(meld.cards) >= 7 and self.meld_status(meld):
            s.canastas[meld.owner] = True
        s.turn_value += value
        s.turn_melded = True
        s.meld_value_by[seat] += value

    def _check_new_meld(self, state, seat, cards) -> tuple[str, int, int, int]:
        rank, nat, wild, err = self._make_up(cards)
        if err:
            raise IllegalAction(err)
        owner = self.owner_of(state, seat)
        err = self._new_meld_error(state, owner, rank, nat, wild, len(cards))
        if err:
            raise IllegalAction(err)
        value = sum(self.value(c) for c in cards)
        return rank, nat, wild, value

    def _do_meld(self, state, seat, action):
        self._in_meld_phase(state, seat, "meld")
        cards = self._cards(action)
        if state.pending and state.pending not in cards:
            raise IllegalAction(N_("the freed {pending} must go into this new meld", pending=state.pending))
        rest = _remove(state.hands[seat], cards)
        rank, nat, wild, value = self._check_new_meld(state, seat, cards)
        owner = self.owner_of(state, seat)
        err = self._first_meld_error(state, seat, value, first=not state.opened[owner])
        if err:
            raise IllegalAction(err)
        new = Meld(owner, seat, rank, list(cards), nat, wild)
        err = self._after_error(state, seat, rest, value, new, None)
        if err:
            raise IllegalAction(err)
        s = state.evolve()
        s.hands[seat] = rest
        s.pending = None
        self._place(s, seat, new, None, value)
        return self._after_melding(s, seat)

    def _first_meld_error(self, state, seat, value, first: bool) -> str | None:
        """Without ``opening_minimum_per_turn``: the owner's first meld alone must reach the minimum."""
        if self.opening_minimum_per_turn or not first:
            return None
        need = state.minimum[self.owner_of(state, seat)]
        if value < need:
            return N_("your first meld must be worth {need}, this one is worth {value}", need=need, value=value)
        return None

    def _after_is_free(self, state, seat, value: int, left: int) -> bool:
        """A quick sufficient test that ``_after_error`` has nothing to say
        about melding ``value`` leaving ``left`` cards (no black 3s): enough
        cards stay in hand, and no unmet first-meld minimum is at stake."""
        if left <= 1:
            return False
        if self.opening_minimum_per_turn and state.turn_opening:
            return state.turn_value + value >= state.minimum[self.owner_of(state, seat)]
        return True

    def _after_error(self, state, seat, rest, value: int, meld: Meld, replace: int | None,
                     left: int | None = None) -> str | None:
        """Why the seat may not meld ``value`` into ``meld`` (new, or in place
        of meld ``replace``) keeping ``rest`` (a list, or a function giving it
        with ``left`` its length), or None."""
        if left is None:
            left = len(rest)
        owner = self.owner_of(state, seat)
        if meld.rank == "3" and left > 1:
            return N_("black 3s may be melded only as you go out (meld them last, keeping at most one card)")
        canasta = self._canasta_after(state, owner, meld)
        err = self._finish_error(state, seat, left, canasta, state.turn_value + value)
        if err:
            return err
        return self._opening_error(state, seat, value, rest, meld, replace, keep=1 if canasta else 2)

    def _after_melding(self, s: CanastaState, seat: int) -> CanastaState:
        if not s.hands[seat]:
            self._go_out(s, seat)
        return s

    def _go_out(self, s: CanastaState, seat: int) -> None:
        s.went_out = seat
        s.concealed = not s.melded_before[seat]
        s.phase = "over"

    def _do_add(self, state, seat, action):
        self._in_meld_phase(state, seat, "add to a meld")
        i = self._meld_index(state, action)
        cards = self._cards(action)
        rest = _remove(state.hands[seat], cards)
        err = self._add_context_error(state, seat, i)
        if err:
            raise IllegalAction(err)
        rank, nat, wild, err = self._make_up(cards)
        if err:
            raise IllegalAction(err)
        meld = state.melds[i]
        err = self._add_error(meld, rank, nat, wild)
        if err:
            raise IllegalAction(err)
        value = sum(self.value(c) for c in cards)
        new = meld.grown(cards, nat, wild, seat)
        err = self._after_error(state, seat, rest, value, new, i)
        if err:
            raise IllegalAction(err)
        s = state.evolve()
        s.hands[seat] = rest
        self._place(s, seat, new, i, value)
        return self._after_melding(s, seat)

    def _addable_melds(self, state, seat) -> list[int]:
        """The indices of the melds ``seat`` may add to: the rule of
        ``_add_context_error`` (keep the two alike), asked once per listing
        rather than meld by meld with its messages."""
        owner = self.owner_of(state, seat)
        others = self.adds_to_any_meld and (state.opened[owner] or state.options["play_before_first_meld"])
        return [i for i, m in enumerate(state.melds) if m.rank != "3" and (m.owner == owner or others)]

    def _add_context_error(self, state, seat, i) -> str | None:
        meld = state.melds[i]
        owner = self.owner_of(state, seat)
        if meld.rank == "3":
            return N_("nothing can be added to black 3s")
        if not self.adds_to_any_meld:
            if meld.owner != owner:
                return N_("you may add only to your own side's melds")
            return None
        if meld.owner != owner and not state.opened[owner] and not state.options["play_before_first_meld"]:
            return N_("lay your own first meld before adding to other players' melds")
        return None

    def _do_red3(self, state, seat, action):
        if not self.red3s_laid_at_once:
            self._in_meld_phase(state, seat, "lay a red 3")
        elif state.phase == "draw":
            raise IllegalAction(N_("draw first (or take the pile)"))
        setup = state.phase == "setup"
        cards = self._cards(action, empty_ok=setup)  # in the setup round a seat may have none to lay
        if self.red3s_laid_at_once:
            for c in cards:
                if KIND[c] != RED3:
                    raise IllegalAction(N_("only red 3s are laid apart, not {card}", card=c))
        elif len(cards) != 1 or KIND[cards[0]] != RED3:
            raise IllegalAction(N_("lay one red 3 at a time"))
        if self.red3_laid_only_with_replacement and not state.stock:
            raise IllegalAction(N_("the stock is empty: there is no replacement to draw for a red 3"))
        rest = _remove(state.hands[seat], cards)
        if self.red3s_laid_at_once:
            left = [c for c in rest if KIND.get(c) == RED3]
            if left:
                raise IllegalAction(N_("lay all your red 3s: you still hold {left}",
                                       about=N_("{name} had to lay all their red 3s but kept {left}"),
                                       left=left[0]))
        s = state.evolve()
        s.hands[seat] = rest
        s.red3s[seat] += cards
        drawn = 0
        if self.red3_replaced(s):
            for _ in cards:
                if s.stock:
                    s.hands[seat].append(s.stock.pop())
                    drawn += 1
        if not setup and not s.hands[seat]:
            # The red 3 was the last card and no replacement came: the player
            # goes out if allowed, else the turn simply passes.
            if self._may_go_out(state, seat):
                self._go_out(s, seat)
                s.turns_done[seat] += 1
            else:
                self._end_turn(s, seat)
            return s
        if setup and not drawn:
            # Done with the setup round (a replacement may be a red 3 again: then the seat lays once more).
            if seat == s.dealer:
                s.phase = "draw"
                s.turn = (s.dealer + 1) % s.players
                s.turn_opening = not s.opened[self.owner_of(s, s.turn)]
            else:
                s.turn = (seat + 1) % s.players
        return s

    def _red3_actions(self, state, seat) -> list[dict]:
        if self.red3s_laid_at_once:
            # All together; in the setup round also none (``[]``): a seat's say that it has none.
            reds = sorted((c for c in state.hands[seat] if KIND.get(c) == RED3), key=card_key)
            return [{"type": "red3", "cards": reds}] if state.phase == "setup" or reds else []
        if self.red3_laid_only_with_replacement and not state.stock:
            return []
        return [{"type": "red3", "cards": [c]} for c, _ in _hand_groups(tuple(state.hands[seat])) if c in RED_THREES]

    def _do_discard(self, state, seat, action):
        self._in_meld_phase(state, seat, "discard")
        cards = self._cards(action)
        if len(cards) != 1:
            raise IllegalAction(N_("discard exactly one card"))
        freeze = action.get("freeze", False)
        if not isinstance(freeze, bool):
            raise IllegalAction(N_('"freeze" must be true or false'))
        card = cards[0]
        rest = _remove(state.hands[seat], cards)
        err = self._discard_error(state, seat, card, freeze, len(rest))
        if err:
            raise IllegalAction(err)
        s = state.evolve()
        s.hands[seat] = rest
        s.pile.append(card)
        s.can_take = False
        if freeze:
            s.frozen = True
            s.frozen_by = self.owner_of(s, seat)
            s.stopped = False
        else:
            s.stopped = self.stops_pile(s, card)
        if not rest and self._may_go_out(state, seat):
            self._go_out(s, seat)
            s.turns_done[seat] += 1
            return s
        self._end_turn(s, seat)
        return s

    def _end_turn(self, s: CanastaState, seat: int) -> None:
        s.turns_done[seat] += 1
        if s.turn_melded:
            s.melded_before[seat] = True
        s.turn = (seat + 1) % s.players
        s.phase = "draw"
        s.can_take = False
        s.turn_value = 0
        s.turn_melded = False
        s.turn_opening = not s.opened[self.owner_of(s, s.turn)]
        if self.take_after_draw and not s.stock:
            # The pile is taken only after a draw: a player facing an empty
            # stock could do nothing, so the deal ends now.
            s.phase = "over"

    def _may_go_out(self, state, seat) -> bool:
        """May the seat go out now, emptying its hand (by a discard, or by a red 3 with no replacement)?"""
        owner = self.owner_of(state, seat)
        return self._finish_error(state, seat, 0, self.has_canasta(state, owner), state.turn_value) is None

    def _discard_error(self, state, seat, card, freeze, left: int) -> str | None:
        """Why ``card`` may not be discarded leaving ``left`` cards, or None."""
        if freeze:
            if not self.freezing_discards:
                return N_("{game} has no freezing discards", game=self.id)
            if KIND.get(card) != WILD:
                return N_("only a wild card can be discarded crosswise to freeze the pile")
        if self.opening_minimum_per_turn:
            need = state.minimum[self.owner_of(state, seat)]
            if state.turn_opening and 0 < state.turn_value < need:
                return N_("your side's first melds this turn are worth {turn_value}; they must reach {need}",
                          turn_value=state.turn_value, need=need)
        if not left and not self.last_card_discarded_without_going_out:
            return self._finish_error(state, seat, 0, self.has_canasta(state, self.owner_of(state, seat)),
                                      state.turn_value)
        return None

    # What ``apply`` calls for each action type; a variant extends it with its
    # own actions (kanasta's swap, before the red 3s) in the order of
    # ``action_types``.
    handlers = {"draw": _do_draw, "take_pile": _do_take_pile, "meld": _do_meld, "add": _do_add,
                "red3": _do_red3, "discard": _do_discard}
    action_types = tuple(handlers)  # as the error messages list them

    # ----- moves in words ----------------------------------------------------------------
    def describe_action(self, state, seat: int, action: dict, who: str | None) -> Text:
        """A move in words (``Game.describe_action``); a variant words its own actions (kanasta's swap)."""
        kind = action.get("type")
        cards = card_list(action.get("cards") or [])
        meld = action.get("meld")
        meld = meld + 1 if isinstance(meld, int) and not isinstance(meld, bool) else None
        if kind == "draw":
            return by(who, N_("You draw"), N_("{who} draws", who=who))
        if kind == "take_pile":
            return self._describe_take(state, who, cards, meld)
        if kind == "meld":
            return by(who, N_("You meld {cards}", cards=cards), N_("{who} melds {cards}", who=who, cards=cards))
        if kind == "add":
            if meld is None:
                return by(who, N_("You add {cards}", cards=cards), N_("{who} adds {cards}", who=who, cards=cards))
            # Translators: {meld} is the number of a meld on the table, as the table shows it.
            return by(who, N_("You add to meld {meld} {cards}", meld=meld, cards=cards),
                      N_("{who} adds to meld {meld} {cards}", who=who, meld=meld, cards=cards))
        if kind == "discard":
            if action.get("freeze"):
                # Translators: kanaszta's freezing discard: a wild laid crosswise on the pile.
                return by(who, N_("You discard {cards} crosswise (pile frozen)", cards=cards),
                          N_("{who} discards {cards} crosswise (pile frozen)", who=who, cards=cards))
            return by(who, N_("You discard {cards}", cards=cards), N_("{who} discards {cards}", who=who, cards=cards))
        if kind == "red3":
            n = len(action.get("cards") or [])
            if not n:
                return by(who, N_("You have no red 3 to lay"), N_("{who} has no red 3 to lay", who=who))
            # Translators: red 3s laid apart, face up; {cards} are their codes.
            return by(who, lazy.ngettext("You lay a red 3: {cards}", "You lay red 3s: {cards}", n, cards=cards),
                      lazy.ngettext("{who} lays a red 3: {cards}", "{who} lays red 3s: {cards}", n,
                                    who=who, cards=cards))
        return super().describe_action(state, seat, action, who)

    @staticmethod
    def _describe_take(state, who: str | None, cards: str, meld: int | None) -> Text:
        """Taking the pile: how big it was and its top card, when the state
        before the move is known; the hand cards melded with the top, or the
        meld it goes onto."""
        pile = list(getattr(state, "pile", None) or [])
        if not pile:
            if cards and meld is not None:
                return by(who, N_("You take the pile and meld its top card with {cards} onto meld {meld}",
                                  cards=cards, meld=meld),
                          N_("{who} takes the pile and melds its top card with {cards} onto meld {meld}",
                             who=who, cards=cards, meld=meld))
            if cards:
                return by(who, N_("You take the pile and meld its top card with {cards}", cards=cards),
                          N_("{who} takes the pile and melds its top card with {cards}", who=who, cards=cards))
            if meld is not None:
                return by(who, N_("You take the pile and meld its top card onto meld {meld}", meld=meld),
                          N_("{who} takes the pile and melds its top card onto meld {meld}", who=who, meld=meld))
            return by(who, N_("You take the pile and meld its top card"),
                      N_("{who} takes the pile and melds its top card", who=who))
        n, top = len(pile), pile[-1]
        # Translators: {n} is the number of cards in the discard pile taken, {top} its top card's code.
        if cards and meld is not None:
            return by(who, lazy.ngettext(
                "You take the pile ({n} card) and meld its top {top} with {cards} onto meld {meld}",
                "You take the pile ({n} cards) and meld its top {top} with {cards} onto meld {meld}",
                n, top=top, cards=cards, meld=meld), lazy.ngettext(
                "{who} takes the pile ({n} card) and melds its top {top} with {cards} onto meld {meld}",
                "{who} takes the pile ({n} cards) and melds its top {top} with {cards} onto meld {meld}",
                n, who=who, top=top, cards=cards, meld=meld))
        if cards:
            return by(who, lazy.ngettext(
                "You take the pile ({n} card) and meld its top {top} with {cards}",
                "You take the pile ({n} cards) and meld its top {top} with {cards}",
                n, top=top, cards=cards), lazy.ngettext(
                "{who} takes the pile ({n} card) and melds its top {top} with {cards}",
                "{who} takes the pile ({n} cards) and melds its top {top} with {cards}",
                n, who=who, top=top, cards=cards))
        if meld is not None:
            return by(who, lazy.ngettext(
                "You take the pile ({n} card) and meld its top {top} onto meld {meld}",
                "You take the pile ({n} cards) and meld its top {top} onto meld {meld}",
                n, top=top, meld=meld), lazy.ngettext(
                "{who} takes the pile ({n} card) and melds its top {top} onto meld {meld}",
                "{who} takes the pile ({n} cards) and melds its top {top} onto meld {meld}",
                n, who=who, top=top, meld=meld))
        return by(who, lazy.ngettext("You take the pile ({n} card) and meld its top {top}",
                                     "You take the pile ({n} cards) and meld its top {top}", n, top=top),
                  lazy.ngettext("{who} takes the pile ({n} card) and melds its top {top}",
                                "{who} takes the pile ({n} cards) and melds its top {top}", n, who=who, top=top))

    # ----- legal actions ------------------------------------------------------------------
    def legal_actions(self, state) -> list[dict]:
        if state.phase == "over":
            return []
        seat = state.turn
        if state.phase == "setup":
            return self._red3_actions(state, seat)
        if state.phase == "draw":
            return self._draw_actions(state, seat)
        if self._need_red3_first(state, seat):
            return self._red3_actions(state, seat)
        if state.pending:
            return self._meld_actions(state, seat)
        out: list[dict] = []
        if state.can_take:
            out += self.pile_actions(state, seat)
        out += self._meld_actions(state, seat)
        out += self._add_actions(state, seat)
        out += self.swap_actions(state, seat)
        out += self._red3_actions(state, seat)
        out += self._discard_actions(state, seat)
        return out

    def _draw_actions(self, state, seat) -> list[dict]:
        if self.take_after_draw:
            return [{"type": "draw"}]
        takes = self.pile_actions(state, seat)  # the pile is taken instead of drawing
        if takes and self.must_take_pile(state, seat):
            return takes
        return [{"type": "draw"}] + takes

    @staticmethod
    def _hand_parts(hand) -> tuple[dict, tuple, tuple]:
        """(rank -> naturals, (2s, jokers), black 3s) of the known cards of a
        hand (``_hand_parts`` above); shared results, not to be changed."""
        return _hand_parts(tuple(hand))

    def _meld_actions(self, state, seat, first_only: bool = False, hand: list | None = None,
                      must: str | None = None) -> list[dict]:
        """Every legal new meld up to suit equivalence (one per rank, count
        of naturals, of 2s and of jokers: the checks of ``_do_meld``, done per
        rank); with ``first_only`` at most one (is there any?). ``hand`` and
        ``must`` (a wild the meld must hold) stand for the seat's hand and
        ``state.pending`` (kanasta's swap asks before making its state)."""
        if hand is None:
            hand, must = state.hands[seat], state.pending
        owner = self.owner_of(state, seat)
        first = not state.opened[owner]
        forced = ()
        if must:
            # A swapped-out wild must be in the meld: put it in, pick the rest.
            forced = (must,)
            pick_from = hand[:]
            pick_from.remove(must)
            nat, wild, black = self._hand_parts(pick_from)
        else:
            nat, wild, black = self._hand_parts(hand)
        values = self.card_values
        out = []
        targets = [(r, nat[r]) for r in MELD_RANKS if r in nat]
        if self.allows_wild_melds and (wild[0] or wild[1] or must):
            targets.append(("W", ()))
        if black and self.black_threes_melded(state.options) and not must:
            targets.append(("3", black))
        taken = ({m.rank for m in state.melds if m.owner == owner}
                 if state.options.get("one_meld_per_rank") else ())
        n_wild = len(wild[0]) + len(wild[1])
        v_two = values[wild[0][0]] if wild[0] else 0
        v_joker = values[C.JOKER]
        v_forced = sum(values[c] for c in forced)
        for rank, groups in targets:
            if rank in taken and rank in MELD_RANKS:
                continue
            use_wild = wild if rank != "3" else NO_WILDS
            if len(groups) + len(forced) + (n_wild if rank != "3" else 0) < 3:
                continue  # too few cards for any meld of this rank

            def shape(n, w, rank=rank):
                return self.shape_error(rank, n, w, n + w) is None
            # A pick without naturals is an all-wild meld, listed once under "W".
            need = 0 if rank == "W" else 1
            v_nat = values[groups[0]] if groups else 0
            twos, jokers = use_wild
            for a, t, j in _class_counts(groups, use_wild, shape, 0, len(forced), need):
                cards = list(groups[:a] + twos[:t] + jokers[:j] + forced)
                value = a * v_nat + t * v_two + j * v_joker + v_forced
                err = self._first_meld_error(state, seat, value, first)
                left = len(hand) - len(cards)
                if not err and (rank == "3" or not self._after_is_free(state, seat, value, left)):
                    meld = Meld(owner, seat, rank, cards, a, len(cards) - a)
                    err = self._after_error(state, seat, lambda cards=cards: _remove(hand, cards), value, meld,
                                            None, left=left)
                if err:
                    continue
                out.append({"type": "meld", "cards": cards})
                if first_only:
                    return out
        return out

    def _add_actions(self, state, seat) -> list[dict]:
        hand = state.hands[seat]
        nat, wild, _ = self._hand_parts(hand)
        values = self.card_values
        twos, jokers = wild
        v_two = values[twos[0]] if twos else 0
        v_joker = values[C.JOKER]
        out = []
        for i in self._addable_melds(state, seat):
            meld = state.melds[i]
            groups = nat.get(meld.rank, ()) if meld.rank in MELD_RANKS else ()
            if not groups and not (twos or jokers):
                continue
            v_nat = values[groups[0]] if groups else 0

            def shape(n, w, meld=meld):
                return self.shape_error(meld.rank, meld.naturals + n, meld.wilds + w, len(meld.cards) + n + w) is None
            for a, t, j in _class_counts(groups, wild, shape):
                cards = list(groups[:a] + twos[:t] + jokers[:j])
                value = a * v_nat + t * v_two + j * v_joker
                left = len(hand) - len(cards)
                if not self._after_is_free(state, seat, value, left):
                    new = meld.grown(cards, a, t + j, seat)
                    if self._after_error(state, seat, lambda cards=cards: _remove(hand, cards), value, new, i,
                                         left=left) is not None:
                        continue
                out.append({"type": "add", "meld": i, "cards": cards})
        return out

    def _discard_actions(self, state, seat) -> list[dict]:
        out = []
        left = len(state.hands[seat]) - 1
        # A discard's error depends on the card only through ``freeze``
        # (which only wilds are offered): asked once per freeze choice.
        allowed: dict[bool, bool] = {}
        for code, _ in _hand_groups(tuple(state.hands[seat])):
            for freeze in self._freeze_choices(code):
                if freeze not in allowed:
                    allowed[freeze] = self._discard_error(state, seat, code, freeze, left) is None
                if allowed[freeze]:
                    out.append({"type": "discard", "cards": [code], "freeze": True} if freeze
                               else {"type": "discard", "cards": [code]})
        return out

    def _freeze_choices(self, code) -> tuple:
        return (False, True) if self.freezing_discards and KIND.get(code) == WILD else (False,)

    # ----- scoring ---------------------------------------------------------------------------
    def deal_scores(self, state) -> dict:
        if state.phase != "over":
            raise IllegalAction(N_("the deal is not over yet"))
        for h in state.hands:
            for c in h:
                if C.is_unknown(c):
                    raise NeedReveal([c for hh in state.hands for c in hh if C.is_unknown(c)],
                                     "the cards left in hand count against their holders")
        return self.score(state)

    def _deal_result(self, state: CanastaState, seats: list, parts: dict, **after) -> dict:
        """What ``score`` returns, put together the one way for both games:
        each seat's total, each side's (the sum of its seats), the variant's
        parts of the score (in the order it gives them), who went out (None:
        nobody) and ``after`` (kanaszta's ``concealed``)."""
        return {"seats": seats, "sides": self.by_side(seats, state.options), **parts,
                "went_out": state.went_out if state.went_out >= 0 else None, **after}

    def _hand_points(self, state: CanastaState, seat: int) -> int:
        """The card value left in ``seat``'s hand (every card known)."""
        return sum(self.value(c) for c in state.hands[seat])

    # ----- view ----------------------------------------------------------------------------------
    def view(self, state, seat) -> dict:
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players):
            raise IllegalAction(N_("no seat {seat} at this table", seat=repr(seat)))
        v = self._public_view(state)
        if seat is not None:
            v.update(self._seat_fields(state, seat))
        return v

    @staticmethod
    def _seat_fields(state, seat: int) -> dict:
        """What a seat's view says that the public view does not."""
        return {"seat": seat, "hand": sorted(state.hands[seat], key=card_key)}

    def _public_view(self, state) -> dict:
        top = state.pile[-1] if state.pile else None
        v = {
            "game": self.id,
            "seat": None,
            "players": state.players,
            "dealer": state.dealer,
            "to_act": self.to_act(state),
            "hand": None,
            "hand_counts": [len(h) for h in state.hands],
            "deal_over": state.phase == "over",
            "phase": state.phase,
            "pairs": bool(state.options["pairs"]) and state.players == 4,
            "stock_count": len(state.stock),
            "pile": list(state.pile),
            "pile_top": top,
            "frozen": state.frozen,
            "stopped": state.stopped,
            "melds": [
                {"owner": m.owner, "by": m.by, "rank": m.rank, "cards": sorted(m.cards, key=card_key),
                 "canasta": self.meld_status(m) if len(m.cards) >= 7 else None}
                for m in state.melds
            ],
            "red3s": [list(r) for r in state.red3s],
            "opened": list(state.opened),
            "minimum": list(state.minimum),
            "turn_value": state.turn_value,
            "can_take_pile": state.can_take,
            "turns_done": list(state.turns_done),
            "went_out": state.went_out if state.went_out >= 0 else None,
            "concealed": state.concealed,
            "pending": state.pending,
            "scores": list(state.scores),
            "options": dict(state.options),
        }
        return v

    # ----- match -------------------------------------------------------------------------------------
    def end_deal(self, match: Match, state) -> Match:
        if state.phase != "over":
            raise IllegalAction(N_("the deal is not over yet"))
        result = self.deal_scores(state)
        scores = [a + b for a, b in zip(match.scores, result["sides"])]
        target = match.options["target"]
        best = max(scores)
        # The match ends once a side reaches the target with the highest total
        # alone; a tie at the top plays another deal.
        over = best >= target and scores.count(best) == 1
        return dataclasses.replace(
            match,
            scores=scores,
            history=match.history + [result],
            dealer=(match.dealer + 1) % match.players,
            deal_index=match.deal_index + 1,
            over=over,
        )


# ----- the dead-end bound of kanaszta's first meld ------------------------------------------------
def max_meldable(game: CanastaGame, hand: list, owner_melds: dict, keep: int) -> int:
    """The most card value the known ``hand`` can still meld this turn into
    new melds or the owner's melds ``owner_melds`` (rank -> (naturals, wilds)),
    keeping at least ``keep`` cards in hand (one to discard, and one more when
    going out is not allowed). Kanaszta shapes: more naturals than wilds, at
    most 3 wilds. Exact: the best plan keeps some card; keeping it and
    melding the best of the rest is one of the tries below."""
    value, left = _meldable(game, hand, owner_melds)
    if left >= keep or not hand:
        return value if left >= keep else 0
    best = 0
    for c in sorted(set(hand), key=card_key):
        rest = hand[:]
        rest.remove(c)
        best = max(best, max_meldable(game, rest, owner_melds, keep - 1))
    return best


def _meldable(game: CanastaGame, hand: list, owner_melds: dict) -> tuple[int, int]:
    """(value, cards left over) of the best melding of ``hand``, greedy and
    exact for kanaszta's shapes: every natural of a rank with 3+ naturals (or
    a meld already) goes in, wilds go first to pairs (each pair needs one),
    then to free wild places of melds."""
    counts: dict[str, int] = {}
    wilds = []
    left = 0
    for c in hand:
        k = KIND[c]
        if k == NAT:
            r = c[:-1]
            counts[r] = counts.get(r, 0) + 1
        elif k == WILD:
            wilds.append(game.value(c))
        else:
            left += 1
    base = 0
    free = 0
    pairs = []
    singles = 0
    for r, (n0, w0) in owner_melds.items():
        n = counts.pop(r, 0)
        base += n * game.values[r]
        free += max(0, min(3, n0 + n - 1) - w0)
    for r, n in counts.items():
        if n >= 3:
            base += n * game.values[r]
            free += min(3, n - 1)
        elif n == 2:
            pairs.append(2 * game.values[r])
        else:
            singles += 1
    wilds.sort(reverse=True)
    pairs.sort(reverse=True)
    used = min(len(wilds), len(pairs) + free)
    on_pairs = min(used, len(pairs))
    value = base + sum(wilds[:used]) + sum(pairs[:on_pairs])
    left += singles + (len(wilds) - used) + 2 * (len(pairs) - on_pairs)
    return value, left
