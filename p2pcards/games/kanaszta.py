"""Kanaszta, Hungarian canasta (RULES.md section 2, seed ``kanaszta.hu.txt``).

108 cards, 15 each, 2-4 players (4: pairs 0+2 vs 1+3 sharing their melds,
unless ``pairs`` is false). The shared engine is ``canasta.py``.

Dealing: after the 15 cards each the top stock card is turned up; while it
is a 2, a 3 or a joker it is covered by the next one. ``start`` raises
``NeedReveal`` for each card it must turn up while that card is a token: the
table shows it to everybody, substitutes it in the deck and calls ``start``
again. Then a setup phase: from the left of the dealer each seat lays its red
3s (``red3``, possibly with no cards) and draws a replacement for each; a seat
that laid any acts again (a replacement may be a red 3) until it lays none.

Actions (every one may carry ``"seat"``, which must be the seat to act)
--------------------------------------------------------------------------
``{"type": "red3", "cards": [red 3s]}``
    Setup: all the seat's red 3s (``[]`` when it has none). In play: a red 3
    drawn must be laid at once; while the hand holds one this is the only
    legal action. A replacement is drawn for each (``red3_replacement``) while
    the stock lasts. Red 3s coming with the pile are laid by the engine,
    without replacement (they are public cards already).
``{"type": "draw"}``
    Draw the top stock card. With an empty stock it ends the deal (nobody
    out), unless the player takes the pile instead.
``{"type": "take_pile", "cards": [codes]}`` / ``..., "meld": i}``
    Instead of drawing (not while holding one card, not after a stop card):
    the top card goes at once, with ``cards`` from hand, into a new meld or
    (``meld``) into the side's meld ``i``; the rest of the pile into the hand.
    Before the side's first meld: the top and ``cards`` make a new valid meld
    (the seed: „felhasználhatjuk a nyitott talont, amennyiben annak
    felhasználásával lerakást tudunk teljesíteni" — e.g. 9S on the pile with
    9H + JK from hand) and that turn's melds must reach the minimum. After it:
    the top alone (``cards`` empty) into a side meld it fits. Frozen pile (for
    the sides it binds, see ``freeze_binds_own_side``): ``cards`` are 2+
    naturals of the top's rank, into a new meld or the side's meld of that
    rank; a wild lying crosswise on top can't be taken until covered.
``{"type": "meld", "cards": [codes]}``
    A new side meld: 3+ cards of one rank 4..A, more naturals than wilds, at
    most 3 wilds. Black 3s (3 or 4, no wilds) only as the last meld of the
    turn the player goes out in (keeping at most one card to discard), and
    never with ``black3_meld_going_out`` false.
``{"type": "add", "meld": i, "cards": [codes]}``
    Add to the side's meld ``i`` (the index in ``view["melds"]``).
``{"type": "discard", "cards": [code], "freeze": bool}``
    Ends the turn; ``freeze`` (default false) only for a wild (a joker or a
    2, „egy kis vagy valódi dzsókert"): discarded crosswise it freezes the pile
    until taken. A joker discarded plainly, or a black 3, is a stop card („fekete
    3-ast vagy dzsókert simán dobunk"): the next player may not take the pile;
    a 2 discarded plainly only with ``plain_two_stops``.

First meld: the melds a side lays in its first melding turn must together be
worth ``view["minimum"][side]``; melds that could no longer reach it with the
cards in hand are refused, and the discard is refused while the turn's
melds fall short. That dead-end check keeps two cards back (one with a
canasta) and counts no black-3 meld, so a first meld that could reach the
minimum only by going out in the same turn is refused: rare, and on the safe
side (never a listed action that leads nowhere). Going out (hand empty by melding,
or by the last discard) needs a side canasta (``go_out_canasta``); melds
that would leave one card without one are refused. If a player is left with
a single card they cannot go out with (after laying a red 3 with no
replacement: an empty stock, or ``red3_replacement`` false), they discard it
without going out, and play on with an empty hand until they draw.

Decisions (options): ``pairs`` (true with 4 players), ``target`` 15000,
``red3_replacement`` (true), ``go_out_canasta`` (true), ``empty_stock_ends``
(true: with the stock empty, ``draw`` ends the deal even when the player
could take the pile; false: a player who can take it must, and the deal
ends only with one who can't),
``one_meld_per_rank`` (true: a side has at most one meld of a rank; more
cards of it are added), ``partner_hand_counts`` (true: everyone who did not
go out subtracts their hand, the partner of the player who went out
included — the seed: „A vesztes a kezében maradt lapok értékét a
lerakottakból [levonja]"; false: the side that went out does not count its
partner's hand), ``plain_two_stops`` (false: the seed's stop cards are the
black 3 and the joker; true: a 2 discarded plainly stops too),
``freeze_binds_own_side`` (false: the freeze binds the opponents of the side
that froze — the seed: the crosswise wild is one „amelyet így csak akkor
tudnak használni ellenfeleink, ha azt legalább két azonos lappal fel tudják
venni", our opponents can use it only with two identical cards; the
freezer and partner take the pile by the ordinary rules; true: it binds
every side, as in classic canasta), ``black3_meld_going_out`` (true: black
3s, which the seed values at 5 but whose melding it does not mention, may be
melded as in classic canasta, 3 or 4 without wilds, as the last meld of
going out; false: they are never melded, as in kanasta).

Move lists: ``legal_actions`` lists melds, adds and pile takes up to suit
equivalence — one action per rank, count of naturals, of 2s and of jokers
(one representative's concrete ``cards``) — while ``apply`` accepts any
concrete cards of a listed class.

Scores (``deal_scores``): per side ``red3s`` (100 each, 800 for all four),
``canastas`` (natural 500, mixed 300), ``going_out`` (100, concealed 200),
``melds`` (card values of its melds), ``hand`` (minus cards in hand; see
``partner_hand_counts``); a side with no meld counts red 3s and hand as minus.
``seats`` splits it: each seat gets what it laid and holds (canasta bonus to
the seat that began the meld), so each side's seats sum to ``sides``.

View keys: as in ``kanasta`` (``phase`` also ``setup`` while red 3s are
laid after the deal; ``canasta`` kind ``natural``/``mixed``; a meld's
``rank`` also ``"3"`` for black 3s; ``owner`` of a meld is the side;
``opened`` and ``minimum`` per side; ``turn_value`` counts toward the
minimum; ``can_take_pile`` and ``pending`` unused) with ``frozen`` (a wild
lies crosswise; the state's ``frozen_by`` names the side that froze it) and
``stopped`` (the next player may not take the pile).
"""

from __future__ import annotations

from p2pcards import cards as C
from p2pcards.games.canasta import (
    ALONE_ONTO_MELD, BLACK3, KIND, NAT, WILD, WITH_HAND_INTO_NEW_MELD, WITH_TWO_NATURALS, CanastaGame, Meld,
)
from p2pcards.i18n import N_
from p2pcards.games.base import Verb, yes_no
from p2pcards.games.canasta import ADD_VERB, DRAW_VERB, MELD_VERB


# Why a meld's shape is refused (asked thousands of times while listing the moves).
_MORE_NATURALS = N_("a meld needs more natural cards than wild cards")
_BLACK_NO_WILDS = N_("black 3s are melded without wild cards")
_BLACK_3_OR_4 = N_("black 3s are melded 3 or 4 together")
_AT_LEAST_3 = N_("a meld needs at least 3 cards")
_AT_MOST_3_WILDS = N_("a meld holds at most 3 wild cards")

# How the pile is taken (the seed): while it is frozen, with two natural cards
# of the top's rank; else before the side's first meld into a new meld with
# cards from hand, after it alone onto one of the side's melds.
_FROZEN = frozenset({WITH_TWO_NATURALS})
_INTO_NEW = frozenset({WITH_HAND_INTO_NEW_MELD})
_ALONE = frozenset({ALONE_ONTO_MELD})


class Kanaszta(CanastaGame):
    id = "kanaszta"
    hand_size = 15
    side_melds = True
    opening_minimum_per_turn = True
    black_three_melds = True
    upcard_covered_until_natural = True
    red3s_laid_at_once = True
    pile_red3s_laid = True
    freezing_discards = True
    last_card_discarded_without_going_out = True
    values = {"JK": 50, "2": 20, "3R": 100, "3B": 5, "A": 20,
              **{r: 10 for r in ("8", "9", "10", "J", "Q", "K")},
              **{r: 5 for r in ("4", "5", "6", "7")}}
    canasta_bonuses = {"natural": 500, "mixed": 300}
    canasta_names = {"natural": N_("natural canasta (tiszta)"), "mixed": N_("mixed canasta (kevert)")}
    verbs = (
        DRAW_VERB,
        Verb(("t", "take"), "take_pile", "meld? cards?",
             N_("take the whole discard pile instead of drawing: t KH KS (its top card melded with these) or t 2 (onto meld 2)")),
        MELD_VERB,
        ADD_VERB,
        Verb(("d", "discard"), "discard", "card x?",
             N_("discard one card face up, ending your turn; d JK x discards a wild crosswise and freezes the pile"),
             defaults=(("freeze", False),)),
        Verb(("x", "freeze"), "discard", "card", N_("discard a wild crosswise: the pile is frozen (x JK)"),
             defaults=(("freeze", True),)),
        Verb(("r3", "red3"), "red3", "cards?",
             N_("lay your red 3s face up, a replacement drawn for each: r3 3H 3D (r3 alone when you have none)")),
    )
    glossary = (
        ("kanaszta", N_("a meld of 7 or more cards: natural 500, mixed 300")),
        ("tiszta", N_("a natural kanaszta: no wild in it, 500")),
        ("kevert", N_("a mixed kanaszta: 1 to 3 wilds in it, 300")),
        ("befagyasztás", N_("freezing the pile by discarding a wild crosswise (d JK x)")),
    )
    option_help = {
        "pairs": "4 players play in pairs 0+2 vs 1+3 sharing melds",
        "target": "a side reaching this many points ends the match",
        "red3_replacement": "a red 3 laid apart is replaced from the stock",
        "go_out_canasta": "a side needs a canasta to go out",
        "one_meld_per_rank": "a side holds at most one meld of each rank",
        "empty_stock_ends": "with the stock empty a player may end the deal instead of taking the pile",
        "partner_hand_counts": "the partner of the player who went out counts their cards in hand as minus",
        "plain_two_stops": "a 2 discarded plainly (not crosswise) is a stop card, like a joker",
        "freeze_binds_own_side": "a frozen pile binds the side that froze it too, not only its opponents",
        "black3_meld_going_out": "black 3s may be melded (3 or 4, no wilds) as the last meld of going out",
    }
    option_words = {
        **CanastaGame.option_words,
        "red3_replacement": yes_no(N_("a red 3 laid apart is replaced from the stock"),
                                   N_("a red 3 laid apart is not replaced")),
        "go_out_canasta": yes_no(N_("going out needs a kanaszta"), N_("going out needs no kanaszta")),
        "empty_stock_ends": yes_no(N_("with the stock empty, drawing may end the deal"),
                                   N_("with the stock empty, whoever can take the pile must")),
        "partner_hand_counts": yes_no(N_("the partner of whoever went out counts their hand as minus"),
                                      N_("the partner of whoever went out does not count their hand")),
        "plain_two_stops": yes_no(N_("a 2 discarded plainly stops the next player taking the pile"),
                                  N_("only a black 3 or a joker stops the next player taking the pile")),
        "freeze_binds_own_side": yes_no(N_("a frozen pile binds every side"),
                                        N_("a frozen pile binds only the opponents of the side that froze it")),
        "black3_meld_going_out": yes_no(N_("black 3s may be laid in the turn one goes out"),
                                        N_("black 3s are never laid, only discarded")),
    }

    def default_options(self, players: int) -> dict:
        return {"pairs": players == 4, "target": 15000, "red3_replacement": True,
                "go_out_canasta": True, "one_meld_per_rank": True, "empty_stock_ends": True,
                "partner_hand_counts": True, "plain_two_stops": False, "freeze_binds_own_side": False,
                "black3_meld_going_out": True}

    def minimums(self, opts, scores, owners):
        # The seed's table by the side's match total (the first deal: 0 -> 50).
        def need(total):
            if total < 0:
                return 15
            if total < 1500:
                return 50
            if total < 3000:
                return 90
            return 120
        return [need(x) for x in scores]

    # ----- melds -----------------------------------------------------------------------
    def shape_error(self, rank, naturals, wilds, size):
        if rank == "W":
            return _MORE_NATURALS
        if rank == "3":
            if wilds:
                return _BLACK_NO_WILDS
            if naturals < 3:
                return _BLACK_3_OR_4
            return None
        if size < 3:
            return _AT_LEAST_3
        if wilds > 3:
            return _AT_MOST_3_WILDS
        if naturals <= wilds:
            return _MORE_NATURALS
        return None

    def meld_status(self, meld: Meld):
        if len(meld.cards) < 7:
            return None
        return "natural" if meld.wilds == 0 else "mixed"

    # ----- red 3s ------------------------------------------------------------------------------
    def red3_replaced(self, state) -> bool:
        return state.options["red3_replacement"]

    # ----- the pile ---------------------------------------------------------------------------
    def must_take_pile(self, state, seat) -> bool:
        """With ``empty_stock_ends`` off, a player facing an empty stock who
        can take the pile must (known only with the hand known)."""
        return not state.stock and not state.options["empty_stock_ends"]

    def pile_closed_reason(self, state, seat):
        if state.phase != "draw":
            return (N_("you take the pile instead of drawing, not after it") if state.phase == "meld"
                    else N_("first every player lays their red 3s (red3 action)"))
        if not state.pile:
            return N_("the discard pile is empty")
        if state.stopped:
            return N_("the last discard was a stop card: the pile can't be taken this turn")
        if len(state.hands[seat]) <= 1:
            return N_("nobody may take the pile while holding only one card")
        return None

    def pile_take_ways(self, state, seat):
        owner = self.owner_of(state, seat)
        if self.frozen_for(state, owner):
            return _FROZEN
        return _ALONE if state.opened[owner] else _INTO_NEW

    def pile_take_error(self, state, seat, top, cards, i):
        ways = self.pile_take_ways(state, seat)
        kind = KIND[top]
        opened = state.opened[self.owner_of(state, seat)]
        if WITH_TWO_NATURALS in ways:
            if kind != NAT:
                return N_("the pile is frozen under a wild card: it can't be taken until covered")
            if any(KIND[c] != NAT or C.rank(c) != C.rank(top) for c in cards) or len(cards) < 2:
                return N_("the pile is frozen: the top card {top} must be melded with at least two "
                          "natural {rank}s from hand",
                          top=top, rank=C.Rank(C.rank(top)))
            if not opened and i is not None:
                return N_("your side has no meld yet: the top card goes into a new meld")
        elif WITH_HAND_INTO_NEW_MELD in ways:
            if i is not None:
                return N_("your side has no meld yet: the top card goes into a new meld")
            if not cards:
                return N_("before your side's first meld the top card goes into a new meld with cards "
                          "from your hand")
        elif cards or i is None:
            return N_("after your side's first meld the top card is taken alone into one of its melds: "
                      "name the meld and no cards from your hand (t N)")
        return None

    # ----- discards ----------------------------------------------------------------------------
    def stops_pile(self, state, card) -> bool:
        """Is ``card``, discarded plainly, a stop card? The seed: „fekete 3-ast
        vagy dzsókert simán dobunk" (a black 3 or a joker); a 2 only with
        ``plain_two_stops``."""
        kind = KIND.get(card)
        if kind == BLACK3 or card == C.JOKER:
            return True
        return kind == WILD and state.options["plain_two_stops"]

    def frozen_for(self, state, side) -> bool:
        """Does the freeze bind ``side``? The seed names who it binds:
        „csak akkor tudnak használni ellenfeleink" (only our opponents are
        held to two natural cards), so the side that froze takes the pile by
        the ordinary rules unless ``freeze_binds_own_side``."""
        if not state.frozen:
            return False
        return state.frozen_by != side or state.options["freeze_binds_own_side"]

    # ----- scores ----------------------------------------------------------------------------
    def score(self, state):
        n = state.players
        n_sides = self.sides(n, state.options)
        side = [self.side_of(s, n, state.options) for s in range(n)]
        has = [False] * n_sides
        bonus_by = [0] * n
        melded = [0] * n_sides
        for m in state.melds:
            has[m.owner] = True
            bonus_by[m.by] += self.canasta_bonus(m)
            melded[m.owner] += sum(self.value(c) for c in m.cards)
        reds = [0] * n_sides
        for s in range(n):
            reds[side[s]] += len(state.red3s[s])
        out_side = side[state.went_out] if state.went_out >= 0 else None
        out_pts = 200 if state.concealed else 100
        seats = [0] * n
        parts = {"red3s": [0] * n_sides, "canastas": [0] * n_sides, "going_out": [0] * n_sides,
                 "melds": list(melded), "hand": [0] * n_sides}
        for s in range(n):
            d = side[s]
            each = 200 if reds[d] == 4 else 100
            red = each * len(state.red3s[s]) * (1 if has[d] else -1)
            spared = d == out_side and not state.options["partner_hand_counts"]
            hand_pts = 0 if spared else -self._hand_points(state, s)
            out = out_pts if s == state.went_out else 0
            seats[s] = red + bonus_by[s] + out + state.meld_value_by[s] + hand_pts
            parts["red3s"][d] += red
            parts["canastas"][d] += bonus_by[s]
            parts["going_out"][d] += out
            parts["hand"][d] += hand_pts
        return self._deal_result(state, seats, parts, concealed=state.concealed)


GAME = Kanaszta()
