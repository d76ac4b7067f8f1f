"""Kanasta, Polish canasta (RULES.md section 1, seed ``kanasta.pl.txt``).

108 cards, 12 each, 2-4 players (4: pairs 0+2 vs 1+3 unless ``pairs`` is
false). Melds belong to the player who laid them; anyone who has laid their
first meld may add to any meld. The shared engine is ``canasta.py``.

Actions (every one may carry ``"seat"``, which must be the seat to act)
--------------------------------------------------------------------------
``{"type": "draw"}``
    Draw the top stock card; mandatory, first in every turn.
``{"type": "take_pile", "cards": [codes]}``
    At any point of the turn after the draw (the seed: „po dobraniu karty z
    zakrytej talii"; laying a red 3 or melding first does not forfeit it):
    take the whole discard pile, its top card going at once into a new meld
    with ``cards`` from hand (a first meld must be worth ``first_meld`` with
    the top card).
``{"type": "take_pile", "cards": [], "meld": i}``
    The same, the top card going alone into meld ``i`` (add more with ``add``).
``{"type": "meld", "cards": [codes]}``
    A new meld: 3+ cards of one rank 4..A with any number of wilds (JK, 2),
    or 3+ wilds alone. The player's first meld must be worth ``first_meld``.
``{"type": "add", "meld": i, "cards": [codes]}``
    Add cards to meld ``i`` (the index in ``view["melds"]``), anyone's.
``{"type": "swap", "meld": i, "wild": W, "cards": [natural]}``
    Take the wild ``W`` out of meld ``i`` putting ``natural`` (a card of that
    meld's rank from hand) in its place. The freed wild goes to the hand and
    is ``view["pending"]``: the next action must be a ``meld`` containing it
    (the only legal actions then). A swap is refused when no such meld can
    follow.
``{"type": "red3", "cards": [3H or 3D]}``
    Lay a red 3 apart and draw a replacement from the stock (only while the
    stock has a card: otherwise it stays in hand, or is discarded).
``{"type": "discard", "cards": [code]}``
    Ends the turn. Discarding one's last card goes out.

A turn is: draw; any number of meld/add/swap/red3, and at any point among
them, once, take the pile; discard. Going out (no cards left, by
melding or by the discard) is refused in a player's first turn, so there
melds must keep two cards. When a player would draw from an empty stock the
deal ends with nobody out (checked as the previous turn ends).

Decisions (options): ``pairs`` (true with 4 players), ``target`` 10000,
``first_meld`` 30, ``play_before_first_meld`` (false: no adds to others'
melds and no swaps before one's first meld), ``swap_twos`` (true: a 2 may be
swapped out like a joker), ``go_out_canasta`` (false: no canasta needed to
go out), ``one_meld_per_rank`` (false: a player may hold two melds of a
rank), ``cards_score_to_layer`` (true: a card scores for the player who laid
it, also on another player's meld — the seed counts „wszystkie oczka na
pozostałych wyłożonych kartach", the cards the player laid out; false: every
card of a meld scores for the meld's owner). No swaps out of all-wild melds.
Red 3s laid apart are no meld.

Scores (``deal_scores``): per seat ``going_out`` (100), ``canastas`` (clean
500, mixed 300, joker 1000: the bonus of a meld goes to its owner),
``melds`` (card values of the cards the seat laid out — see
``cards_score_to_layer``; a wild swapped out of a meld no longer counts for
whoever laid it there) and ``red3s`` (100 per red 3 laid), both plus when the
seat owns a canasta, minus otherwise, ``hand`` (minus the cards left; every 3
is worth 100); ``seats`` their sums (each part counted once), ``sides`` per pair.

Move lists: ``legal_actions`` lists melds, adds, pile takes and swaps up to
suit equivalence — one action per rank, count of naturals, of 2s and of
jokers (one representative's concrete ``cards``) — while ``apply`` accepts
any concrete cards of a listed class.

View keys (``view(state, seat)``, spectators: ``seat`` None, ``hand`` None):
``game seat players dealer to_act hand hand_counts deal_over phase``
(``draw``/``meld``/``over``) ``pairs stock_count pile`` (bottom first)
``pile_top frozen stopped`` (always false here) ``melds`` (list of
``{"owner": seat, "by": seat, "rank": "4".."A" or "W", "cards", "canasta":
None/"clean"/"mixed"/"joker"}``) ``red3s`` (per seat) ``opened`` (per seat:
first meld laid) ``minimum`` (the first-meld minimum, per seat)
``turn_value`` (card value melded this turn) ``can_take_pile`` (drew this
turn: take_pile allowed until the discard) ``turns_done`` (per seat) ``went_out`` (seat or None)
``concealed`` ``pending`` (a swapped-out wild that must go into the next
meld, or None) ``scores`` (match totals before the deal) ``options``.
"""

from __future__ import annotations

from p2pcards.games.base import IllegalAction, by, card_list
from p2pcards.i18n import N_, Text
from p2pcards.games.canasta import (
    KIND, MELD_RANKS, WILD, CanastaGame, Meld, _remove, card_key, describe,
)
from p2pcards import cards as C
from p2pcards.games.base import Verb, count, yes_no
from p2pcards.games.canasta import ADD_VERB, DRAW_VERB, MELD_VERB


# Why a meld's shape is refused (asked thousands of times while listing the moves).
_NO_THREES = N_("3s are never melded")
_AT_LEAST_3 = N_("a meld needs at least 3 cards")


class Kanasta(CanastaGame):
    id = "kanasta"
    hand_size = 12
    adds_to_any_meld = True
    allows_wild_melds = True
    out_in_first_turn = False
    take_after_draw = True
    red3_laid_only_with_replacement = True
    values = {"JK": 50, "2": 20, "3R": 100, "3B": 100, "A": 20,
              **{r: 10 for r in ("8", "9", "10", "J", "Q", "K")},
              **{r: 5 for r in ("4", "5", "6", "7")}}
    canasta_bonuses = {"clean": 500, "mixed": 300, "joker": 1000}
    canasta_names = {"clean": N_("clean canasta (czysta)"), "mixed": N_("mixed canasta (brudna)"),
                     "joker": N_("joker canasta")}
    verbs = (
        DRAW_VERB,
        Verb(("t", "take"), "take_pile", "meld? cards?",
             N_("after drawing, take the discard pile, its top card going at once into a meld: "
                "t KH KS (a new meld with these hand cards) or t 2 (onto meld 2)")),
        MELD_VERB,
        ADD_VERB,
        Verb(("sw", "swap"), "swap", "meld wild natural cards",
             N_("take the wild out of meld N, putting a natural card of its rank in, and meld the wild at once "
                "with more hand cards: sw 2 JK KH 5H 5S (JK out of meld 2, KH in, JK 5H 5S a new meld)")),
        Verb(("r3", "red3"), "red3", "card", N_("lay a red 3 apart and draw a replacement: r3 3H")),
        Verb(("d", "discard"), "discard", "card", N_("discard one card face up; this ends your turn")),
    )
    glossary = (
        ("kanasta", N_("a meld of 7 or more cards: clean 500, mixed 300, jokers only 1000")),
        ("czysta", N_("a clean kanasta: 7 or more natural cards (wilds may lie on top), 500")),
        ("brudna", N_("a mixed kanasta: wilds among fewer than 7 naturals, 300")),
        ("dzika karta", N_("wild card: JK or 2")),
    )
    option_help = {
        "pairs": "4 players play in pairs 0+2 vs 1+3",
        "target": "a player (or pair) reaching this many points ends the match",
        "first_meld": "the least value of a player's first meld in a deal",
        "play_before_first_meld": "may add to others' melds and swap before one's own first meld",
        "swap_twos": "a 2 in a meld may be swapped out like a joker",
        "go_out_canasta": "a player needs a canasta of their own to go out",
        "one_meld_per_rank": "a player may not lay a second meld of a rank they already have",
        "cards_score_to_layer": "a card laid onto another player's meld scores for the player who laid it",
    }
    option_words = {
        **CanastaGame.option_words,
        "first_meld": count(lambda n: N_("a first combination worth at least {n}", n=n)),
        "play_before_first_meld": yes_no(
            N_("adding to others' combinations and swapping before one's own first combination"),
            N_("no adding or swapping before one's own first combination")),
        "swap_twos": yes_no(N_("a 2 may be swapped out like a joker"), N_("only jokers are swapped out")),
        "go_out_canasta": yes_no(N_("going out needs a kanasta of one's own"), N_("going out needs no kanasta")),
        "cards_score_to_layer": yes_no(N_("a card added to another's combination counts for whoever added it"),
                                       N_("every card of a combination counts for its owner")),
    }

    def default_options(self, players: int) -> dict:
        return {"pairs": players == 4, "target": 10000, "first_meld": 30, "play_before_first_meld": False,
                "swap_twos": True, "go_out_canasta": False, "one_meld_per_rank": False,
                "cards_score_to_layer": True}

    def check_options(self, players: int, opts: dict) -> None:
        super().check_options(players, opts)
        if opts["first_meld"] < 0:
            raise IllegalAction(N_("first_meld can't be negative"))

    def minimums(self, opts, scores, owners):
        return [opts["first_meld"]] * owners

    # ----- melds ---------------------------------------------------------------------
    def shape_error(self, rank, naturals, wilds, size):
        if rank == "3":
            return _NO_THREES
        if size < 3:
            return _AT_LEAST_3
        return None

    def meld_status(self, meld: Meld):
        if len(meld.cards) < 7:
            return None
        if meld.naturals == 0:
            return "joker"
        return "clean" if meld.naturals >= 7 else "mixed"

    # ----- the pile --------------------------------------------------------------------
    def pile_closed_reason(self, state, seat):
        if state.phase == "draw":
            return N_("draw first: in kanasta the pile is taken after the draw")
        if not state.can_take:
            return N_("the pile may be taken only in your turn, after the draw")
        if state.pending:
            return N_("first lay the freed {pending} in a new meld", pending=state.pending)
        if not state.pile:
            return N_("the discard pile is empty")
        return None

    def pile_take_error(self, state, seat, top, cards, index):
        if index is not None and cards:
            return N_("to put the top card into a meld take it alone; add more cards afterwards")
        return None

    # ----- swaps ---------------------------------------------------------------------------
    def describe_action(self, state, seat: int, action: dict, who: str | None) -> Text:
        if action.get("type") != "swap":
            return super().describe_action(state, seat, action, who)
        cards = action.get("cards") or ["?"]
        natural, rest, wild = cards[0], card_list(cards[1:]), action.get("wild")
        meld = action.get("meld")
        meld = (meld if isinstance(meld, int) else 0) + 1
        if rest:
            return by(who, N_("You swap {natural} for the {wild} in meld {meld} and meld {wild} {cards}",
                              natural=natural, wild=wild, meld=meld, cards=rest),
                      N_("{who} swaps {natural} for the {wild} in meld {meld} and melds {wild} {cards}",
                         who=who, natural=natural, wild=wild, meld=meld, cards=rest))
        # Translators: kanasta's swap: a natural card takes a wild's place in a meld, the wild is melded anew.
        return by(who, N_("You swap {natural} for the {wild} in meld {meld} and meld {wild}",
                          natural=natural, wild=wild, meld=meld),
                  N_("{who} swaps {natural} for the {wild} in meld {meld} and melds {wild}",
                     who=who, natural=natural, wild=wild, meld=meld))

    def _check_swap(self, state, seat, action) -> tuple[int, Meld, str, str, list]:
        """(meld index, meld, wild, natural, hand after) of a swap the rules
        allow so far, before the check that the freed wild can be melded."""
        self._in_meld_phase(state, seat, "swap")
        if not state.opened[seat] and not state.options["play_before_first_meld"]:
            raise IllegalAction(N_("lay your own first meld before swapping wilds out of melds"))
        i = self._meld_index(state, action)
        cards = self._cards(action)
        w = action.get("wild")
        meld = state.melds[i]
        if meld.rank not in MELD_RANKS:
            raise IllegalAction(N_("no wild can be swapped out of an all-wild meld"))
        if not isinstance(w, str) or KIND.get(w) != WILD:
            raise IllegalAction(N_("the card swapped out must be a joker or a 2 of the meld, not {wild}",
                                   wild=describe(w)))
        if w not in meld.cards:
            raise IllegalAction(N_("meld {meld} has no {wild}", meld=i, wild=w))
        if w != C.JOKER and not state.options["swap_twos"]:
            raise IllegalAction(N_("only a joker may be swapped out of a meld"))
        if len(cards) != 1:
            raise IllegalAction(N_("a swap puts exactly one natural card in place of the wild"))
        natural = cards[0]
        if KIND[natural] != "N" or C.rank(natural) != meld.rank:
            raise IllegalAction(N_("the card put in place of {wild} must be a {rank}, not {natural}",
                                   wild=w, rank=C.Rank(meld.rank), natural=natural))
        rest = _remove(state.hands[seat], cards)
        return i, meld, w, natural, rest + [w]

    def _freed_wild_meldable(self, state, seat, hand: list, wild: str) -> bool:
        """Can the freed ``wild`` go into a new meld from ``hand`` (after the
        swap)? Asked of the state before the swap: a new meld's checks read
        no more of the table than its owners' ranks, which a swap keeps."""
        if any(c[0] == "?" for c in hand):
            return True  # known only with the hand known
        return bool(self._meld_actions(state, seat, first_only=True, hand=hand, must=wild))

    def _do_swap(self, state, seat, action):
        i, meld, w, natural, hand = self._check_swap(state, seat, action)
        # The freed wild must go into a new meld this turn: refuse the swap
        # when no such meld can follow.
        if not self._freed_wild_meldable(state, seat, hand, w):
            raise IllegalAction(N_("the freed {wild} could not go into a new meld with your cards", wild=w))
        # The natural takes the wild's place; whoever laid the wild no longer has it on the table.
        changed_cards = meld.cards[:]
        layers = list(meld.laid_by())
        at = changed_cards.index(w)
        del changed_cards[at], layers[at]
        s = state.evolve()
        s.hands[seat] = hand
        s.melds[i] = Meld(meld.owner, meld.by, meld.rank, changed_cards + [natural], meld.naturals + 1,
                          meld.wilds - 1, layers + [seat])
        s.pending = w
        s.turn_melded = True
        s.meld_value_by[seat] += self.value(natural)
        return s

    def swap_actions(self, state, seat):
        if not state.opened[seat] and not state.options["play_before_first_meld"]:
            return []
        nat, (twos, jokers), _ = self._hand_parts(state.hands[seat])
        wilds_held = len(twos) + len(jokers)

        def could_follow(rank: str) -> bool:
            # A quick necessary condition before the full check, once a natural
            # of ``rank`` is put in: the freed wild needs two more cards, a
            # natural among them unless all wild.
            if wilds_held >= 2:
                return True
            for r, group in nat.items():
                left = len(group) - (r == rank)
                if left and left + wilds_held >= 2:
                    return True
            return False
        swappable: dict[str, bool] = {}
        # Whether the freed wild can be melded depends on the hand after the
        # swap only: on the (natural, wild) pair, whichever meld it is.
        meldable: dict[tuple[str, str], bool] = {}
        out = []
        for i, meld in enumerate(state.melds):
            if meld.rank not in MELD_RANKS or meld.wilds == 0 or meld.rank not in nat:
                continue
            if meld.rank not in swappable:
                swappable[meld.rank] = could_follow(meld.rank)
            if not swappable[meld.rank]:
                continue
            # Up to suit equivalence: one natural of the rank, one wild of each kind (a 2, a joker).
            natural = nat[meld.rank][0]
            wilds = sorted({c for c in meld.cards if KIND[c] == WILD}, key=card_key)
            wilds = [c for k, c in enumerate(wilds) if k == 0 or (c == C.JOKER) != (wilds[k - 1] == C.JOKER)]
            for w in wilds:
                action = {"type": "swap", "meld": i, "wild": w, "cards": [natural]}
                try:
                    _, _, _, _, after = self._check_swap(state, seat, action)
                except IllegalAction:
                    continue
                if (natural, w) not in meldable:
                    meldable[natural, w] = self._freed_wild_meldable(state, seat, after, w)
                if meldable[natural, w]:
                    out.append(action)
        return out

    handlers = {"draw": CanastaGame._do_draw, "take_pile": CanastaGame._do_take_pile, "meld": CanastaGame._do_meld,
                "add": CanastaGame._do_add, "swap": _do_swap, "red3": CanastaGame._do_red3,
                "discard": CanastaGame._do_discard}
    action_types = tuple(handlers)

    # ----- scores ----------------------------------------------------------------------------------
    def score(self, state):
        n = state.players
        out = [100 if state.went_out == s else 0 for s in range(n)]
        bonus = [0] * n
        melded = [0] * n
        has = [False] * n
        to_layer = state.options["cards_score_to_layer"]
        for m in state.melds:
            bonus[m.owner] += self.canasta_bonus(m)
            has[m.owner] = has[m.owner] or self.meld_status(m) is not None
            for c, by in zip(m.cards, m.laid_by()):
                melded[by if to_layer else m.owner] += self.value(c)
        sign = [1 if has[s] else -1 for s in range(n)]
        melds = [melded[s] * sign[s] for s in range(n)]
        red3 = [100 * len(state.red3s[s]) * sign[s] for s in range(n)]
        hand = [-self._hand_points(state, s) for s in range(n)]
        seats = [out[s] + bonus[s] + melds[s] + red3[s] + hand[s] for s in range(n)]
        return self._deal_result(state, seats, {"going_out": out, "canastas": bonus, "melds": melds,
                                               "red3s": red3, "hand": hand})


GAME = Kanasta()
