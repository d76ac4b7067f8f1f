"""Warkocz ("the braid"): rows built upward by rank, a wild 9C, gags and arias.

Rules: RULES.md section 3 (seed ``warkocz.pl.txt``). Deck: the 48 red cards
2..K of two packs (four natural cards of every rank) plus the warkocz ``9C``,
which stands for any rank its holder names.

Actions
-------
``{"type": "play", "cards": [codes]}``
    One natural card, or 3 or 4 natural cards of one rank together (exactly
    2 only with the option ``two_of_a_kind``). When a row is open the rank
    must be the needed one; when the player leads (no row) any rank.
``{"type": "play", "cards": ["9C", 9s...], "as": rank}``
    The warkocz standing for ``as`` (``"2"``..``"K"``; the needed rank when a
    row is open), optionally with any of the player's natural 9s laid in the
    same step. Those 9s leave the hand and count as played (for exhaustion)
    but do not move the row: the next needed rank is the one after ``as``.
``{"type": "pass"}``
    End one's move without laying ("without nine"); only while a row is open.
Every action may carry ``"seat"``: it must then be the seat to act. Any other
key is refused.

One action is one step. The same seat acts again after a play until it passes,
goes out, or its play was a gag (then it leads the next row with anything).
A gag is a K, or a step whose next rank is exhausted (all four natural cards
of that rank played this deal); "the next rank" of r is r+1 in 2..10, J, Q, K
(there are no aces; after a K nothing follows, so K is always a gag). When
every player has passed since the last card was laid, the row is set aside
and whoever laid that card leads again.

Decisions (each an option)
--------------------------
- ``two_of_a_kind`` (false): laying exactly 2 cards of a rank is not allowed.
- ``must_play`` (true): a player holding a natural card of the needed rank may
  not pass. The warkocz is never forced. The engine enforces this only when
  it knows the passer's hand (the audit knows every hand).
- ``debt`` (true): a player who cannot pay a fee pays anyway and the stack
  goes negative; the debt stands in the chips totals. With ``debt`` false a
  player pays only what they have (never below 0) and the rest is forgiven.
  Either way chips are conserved: sum(stacks) + bank never changes.
- The warkocz stands for one card: it does not join a group of 3 or 4.
- An aria: the winner laid every card of the hand in one move (the seed:
  „Gracz, który wyłożył wszystkie karty za jednym ruchem"). A pass ends the
  player's move („kolejny ruch należy do następnego gracza"), so once the
  winner has passed after laying cards it is no aria, even when every other
  player passed too and the row came back to them; passing before laying
  any card does not spoil it. Gags keep the move going. It "ends with the
  warkocz" when the warkocz is in the winner's last step.
- ``hand_size``: 18 / 16 / 12 for 2 / 3 / 4 players; the rest of the deck is
  set aside unseen (13 / 1 / 1 cards).
Other options: ``target`` (24), ``ante`` (10, paid by every player into the
bank when the match starts), ``deal_fee`` (1, paid by the dealer into the bank
when the deal starts), ``warkocz_fee`` (2, paid to the player of the warkocz
by every other player), ``chips`` (100, starting stacks). The first seat to
reach ``target`` points ends the match and takes the bank. Dealer passes left.

``start`` context (from ``deal_context``): ``chips`` (stacks before the deal)
and ``bank``; without them the deal is the match's first and the ante is paid.

``view(state, seat)`` keys
--------------------------
``game``, ``seat`` (None for a spectator), ``players``, ``dealer``,
``to_act`` (-1 once over), ``hand`` (that seat's cards sorted by rank; None
for a spectator), ``hand_counts``, ``deal_over``,
``row`` (the open row: list of steps ``{"seat", "cards", "as"}``; ``as`` is
the rank the step stands for, also for natural steps), ``needed`` (the rank
the row needs next, None when the seat to act leads), ``last_layer`` (seat
that laid the row's last card, or None), ``passes`` (passes since then),
``rows_done`` (the rows set aside this deal, same step form), ``played``
(rank -> natural cards of it played this deal), ``exhausted`` (ranks with all
four natural cards played), ``aside_count``, ``warkocz_by`` (seat that played
the warkocz, or None), ``aria_open`` (per seat: could it still win with an
aria), ``chips`` (stacks now), ``bank``, ``scores`` (match totals before this
deal), ``target``, ``winner`` (None until the deal is over), ``aria`` and
``aria_warkocz`` (how the winner went out), ``options``.

``deal_scores``: ``seats``/``sides`` (points of this deal, only the winner
scores), ``winner``, ``cards_left`` (per seat), ``warkocz_holder`` (loser seat
caught holding the warkocz, or None), ``aria``, ``multiplier`` (1, 2 or 4),
``chips`` (each stack's change over the deal: ``dealer_fee`` plus
``warkocz_fees``, per seat) and ``bank`` (the bank's change: the dealer's fee).
Taking the bank when the match ends is ``end_deal``'s (the match's history
entry of the deal holds it as ``bank_won``).
It raises ``NeedReveal`` for the losers' hidden cards when the warkocz was
never played and it cannot tell whether a loser holds it.
"""

from __future__ import annotations

import dataclasses

from p2pcards.cards import RANKS, Rank, is_code, is_unknown, rank, warkocz_deck
from p2pcards.games.base import (
    IllegalAction, Match, NeedReveal, SeatOverPublicViews, State, Verb, by, card_list, count, not_held,
    shuffled_deck, yes_no,
)
from p2pcards.i18n import N_, Text, lazy

WARKOCZ = "9C"
W_RANKS = RANKS[:-1]  # 2..K: no aces in this deck
RANK_INDEX = {r: i for i, r in enumerate(W_RANKS)}
KING = RANK_INDEX["K"]
NINE = RANK_INDEX["9"]
NATURALS_PER_RANK = 4  # two packs, two red suits
D_CODE = [r + "D" for r in W_RANKS]
H_CODE = [r + "H" for r in W_RANKS]
# rank index of every natural card; the warkocz is looked up separately
NATURAL_RANK = {c: i for i, r in enumerate(W_RANKS) for c in (r + "D", r + "H")}
DECK = warkocz_deck()
DECK_CODES = frozenset(DECK)
_SUIT_ORDER = {"C": 0, "D": 1, "H": 2}
DEFAULT_HAND = {2: 18, 3: 16, 4: 12}
_PLAY_KEYS = frozenset(("type", "seat", "cards", "as"))
_PASS_KEYS = frozenset(("type", "seat"))


def card_sort_key(card: str):
    """Rank order, then suit; unknown tokens last."""
    if card == WARKOCZ:
        return (NINE, 0)
    i = NATURAL_RANK.get(card)
    if i is None:
        return (99, card)
    return (i, _SUIT_ORDER[card[-1]])


@dataclasses.dataclass(slots=True)
class WarkoczState(State):
    """One deal. Lists are never changed in place once a state exists, so
    states share them freely (``apply`` builds new lists for what changes)."""

    players: int
    dealer: int
    options: dict
    hands: list  # per seat, cards as dealt/left (tokens for hidden ones)
    aside: list  # set aside unseen
    row: list  # open row: steps {"seat", "cards", "as"}
    done: list  # rows set aside, each a list of steps
    need: int  # rank index the row needs next; -1 when the seat to act leads
    played: list  # natural cards played per rank index
    to_act: int
    last_layer: int
    passes: int
    warkocz_by: int
    chips: list
    bank: int
    chips0: list  # stacks and bank when the deal began (before the deal fee)
    bank0: int
    laid: list  # per seat: has laid a card this deal
    streak: int  # seat that laid the latest card(s); -1 before any card
    streak_full: bool  # that seat started its unbroken streak with a full hand
    winner: int
    aria: bool
    aria_warkocz: bool
    scores: list

    def evolve(self) -> "WarkoczState":
        """A shallow copy (``State.evolve``) written out: twice as fast as the generic one."""
        return WarkoczState(
            self.players, self.dealer, self.options, self.hands, self.aside, self.row, self.done,
            self.need, self.played, self.to_act, self.last_layer, self.passes, self.warkocz_by,
            self.chips, self.bank, self.chips0, self.bank0, self.laid, self.streak,
            self.streak_full, self.winner, self.aria, self.aria_warkocz, self.scores,
        )


def _pay(chips: list, payer: int, amount: int, debt: bool) -> int:
    """Take ``amount`` from ``payer`` (in place on a fresh list); returns what was paid."""
    paid = amount if debt else max(0, min(amount, chips[payer]))
    chips[payer] -= paid
    return paid


def _a(rank: str) -> Text:
    """"a 7", "an 8": a rank with its article (none in Polish or Hungarian)."""
    # Translators: a card rank with the English article; {rank} is 2..10, J, Q or K.
    return N_("an {rank}", rank=Rank(rank)) if rank == "8" else N_("a {rank}", rank=Rank(rank))


def _describe(card: object) -> str:
    return repr(card) if not isinstance(card, str) else card


class Warkocz(SeatOverPublicViews):
    id = "warkocz"
    min_players = 2
    max_players = 4
    option_help = {
        "target": "points that win the match and the bank",
        "ante": "chips every player pays into the bank when the match starts",
        "deal_fee": "chips the dealer pays into the bank each deal",
        "warkocz_fee": "chips every other player pays to whoever plays the warkocz",
        "chips": "starting stack of every player",
        "debt": "a player short of chips still pays (stack goes negative); false: pays what they have",
        "must_play": "a player holding a natural card of the needed rank may not pass",
        "two_of_a_kind": "allow laying exactly 2 cards of a rank together",
        "hand_size": "cards dealt to each player (18/16/12 for 2/3/4 players)",
    }
    option_words = {
        "target": count(lambda n: lazy.ngettext("{n} point wins the match and the bank",
                                                "{n} points win the match and the bank", n)),
        "ante": count(lambda n: lazy.ngettext("everybody pays {n} chip into the bank at the start",
                                              "everybody pays {n} chips into the bank at the start", n)),
        "deal_fee": count(lambda n: lazy.ngettext("the dealer pays {n} chip into the bank each deal",
                                                  "the dealer pays {n} chips into the bank each deal", n)),
        "warkocz_fee": count(lambda n: lazy.ngettext("a warkocz earns {n} chip from every other player",
                                                     "a warkocz earns {n} chips from every other player", n)),
        "chips": count(lambda n: lazy.ngettext("{n} chip each to start with", "{n} chips each to start with", n)),
        "debt": yes_no(N_("a player short of chips pays all the same and goes into debt"),
                       N_("a player short of chips pays what they have")),
        "must_play": yes_no(N_("a player holding a card of the needed rank may not pass"),
                            N_("passing is always allowed")),
        "two_of_a_kind": yes_no(N_("two cards of a rank may be laid together too"),
                                N_("never just two cards of a rank together")),
        "hand_size": count(lambda n: lazy.ngettext("{n} card dealt to each player", "{n} cards dealt to each player",
                                                   n)),
    }
    layout = "row"
    wild_card = WARKOCZ  # the warkocz: it stands for any rank, which the play's "as" names
    verbs = (
        Verb(("pl", "play"), "play", "cards as?",
             N_("lay the next card(s) of the row, 3 or 4 of a rank together: pl 7H, pl 8D 8D 8H; "
                "the warkocz 9C stands for any rank: pl 9C as 8 (typing the cards alone works too)")),
        Verb(("p", "pas", "pass"), "pass", "", N_("pas: you cannot continue the row (\"bez dziewi\u0105tki\")")),
    )
    glossary = (
        ("warkocz", N_("the 9\u2663: it stands for any card; other players pay its player")),
        ("pas", N_("pass: you cannot continue the row")),
        ("gag", N_("a card that ends the row: a K, or one whose next rank is used up; the same player leads again")),
        ("aria", N_("going out in one move: score doubled (x4 if the last card is the warkocz)")),
    )

    def card_moves(self, count: int) -> tuple[str, ...]:
        return ("play",)

    def gag_ranks(self, exhausted) -> list[str]:
        """The ranks whose play ends the row now (a gag), in rank order: the K,
        and each rank whose next rank is used up (``exhausted``, as in the view)."""
        used = set(exhausted)
        return [r for i, r in enumerate(W_RANKS) if i == KING or W_RANKS[i + 1] in used]

    # ----- options -------------------------------------------------------
    def default_options(self, players: int) -> dict:
        self.check_players(players)
        return {
            "target": 24,
            "ante": 10,
            "deal_fee": 1,
            "warkocz_fee": 2,
            "chips": 100,
            "debt": True,
            "must_play": True,
            "two_of_a_kind": False,
            "hand_size": DEFAULT_HAND[players],
        }

    def check_options(self, players: int, opts: dict) -> None:
        if opts["target"] < 1:
            raise IllegalAction(N_("option target must be at least 1, not {target}", target=opts['target']))
        for key in ("ante", "deal_fee", "warkocz_fee", "chips"):
            if opts[key] < 0:
                raise IllegalAction(N_("option {key} may not be negative ({value})", key=key, value=opts[key]))
        hs = opts["hand_size"]
        if hs < 1 or hs * players > len(DECK):
            raise IllegalAction(
                N_("option hand_size must be 1..{last} for {players} players, not {hand_size}",
                   last=len(DECK) // players, players=players, hand_size=hs)
            )

    def _opts(self, players: int, options) -> dict:
        if options is None:
            return self.default_options(players)
        if not isinstance(options, dict):
            raise IllegalAction(N_("options must be a dict, not {type}", type=type(options).__name__))
        return self.options(players, options)

    @staticmethod
    def _opening_stacks(players: int, opts: dict) -> tuple[list, int]:
        """Stacks and bank once every player has paid the ante (match start)."""
        chips = [opts["chips"]] * players
        bank = 0
        for s in range(players):
            bank += _pay(chips, s, opts["ante"], opts["debt"])
        return chips, bank

    # ----- one deal --------------------------------------------------------
    def start(self, players, seed=None, deck=None, dealer=0, options=None, scores=None, **context):
        self.check_players(players)
        opts = self._opts(players, options)
        unknown_keys = set(context) - {"chips", "bank"}
        if unknown_keys:
            raise IllegalAction(N_("warkocz.start got unknown arguments: {names}",
                                   names=', '.join(sorted(unknown_keys))))
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise IllegalAction(N_("dealer must be a seat 0..{last}, not {dealer}",
                                   last=players - 1, dealer=repr(dealer)))
        if deck is None:
            deck = shuffled_deck(self.id, seed if seed is not None else 0, 0)
        deck = self._check_deck(deck)
        scores = self._int_list("scores", scores, players, [0] * players)
        chips = context.get("chips")
        bank = context.get("bank")
        if chips is None and bank is None:
            chips, bank = self._opening_stacks(players, opts)  # the match's first deal
        else:
            chips = self._int_list("chips", chips, players, None)
            if isinstance(bank, bool) or not isinstance(bank, int):
                raise IllegalAction(N_("bank must be a whole number, not {bank}", bank=repr(bank)))
        chips0, bank0 = list(chips), bank
        chips = list(chips)
        bank += _pay(chips, dealer, opts["deal_fee"], opts["debt"])

        hs = opts["hand_size"]
        hands = [[] for _ in range(players)]
        for i in range(hs * players):
            hands[(dealer + 1 + i) % players].append(deck[i])
        return WarkoczState(
            players=players, dealer=dealer, options=opts, hands=hands, aside=deck[hs * players:],
            row=[], done=[], need=-1, played=[0] * len(W_RANKS), to_act=(dealer + 1) % players,
            last_layer=-1, passes=0, warkocz_by=-1, chips=chips, bank=bank, chips0=chips0,
            bank0=bank0, laid=[False] * players, streak=-1, streak_full=False, winner=-1,
            aria=False, aria_warkocz=False, scores=scores,
        )

    @staticmethod
    def _int_list(name, value, players, default):
        if value is None and default is not None:
            return default
        if (
            not isinstance(value, (list, tuple))
            or len(value) != players
            or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
        ):
            raise IllegalAction(N_("{name} must be a list of {players} whole numbers, not {value}",
                                   name=name, players=players, value=repr(value)))
        return list(value)

    @staticmethod
    def _check_deck(deck) -> list:
        if not isinstance(deck, (list, tuple)) or len(deck) != len(DECK):
            raise IllegalAction(N_("a warkocz deck is a list of {count} cards", count=len(DECK)))
        remaining = {}
        for c in DECK:
            remaining[c] = remaining.get(c, 0) + 1
        for c in deck:
            if not isinstance(c, str) or c not in DECK_CODES:
                if isinstance(c, str) and is_unknown(c):
                    continue
                raise IllegalAction(N_("bad deck: {card} is not a card of the warkocz deck", card=_describe(c)))
            if not remaining[c]:
                raise IllegalAction(N_("bad deck: {card} appears more often than the deck holds it", card=c))
            remaining[c] -= 1
        return list(deck)

    def to_act(self, state) -> int:
        return state.to_act

    def deal_over(self, state) -> bool:
        return state.winner >= 0

    def hand(self, state, seat: int) -> list[str]:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
            raise IllegalAction(N_("no seat {seat} at a table of {players}", seat=repr(seat), players=state.players))
        return list(state.hands[seat])

    def legal_actions(self, state) -> list[dict]:
        if state.winner >= 0:
            return []
        counts: dict = {}
        for c in state.hands[state.to_act]:
            counts[c] = counts.get(c, 0) + 1
        opts = state.options
        need = state.need
        ranks = range(len(W_RANKS)) if need < 0 else (need,)
        sizes = (2, 3, 4) if opts["two_of_a_kind"] else (3, 4)
        acts = []
        for r in ranks:
            dc, hc = D_CODE[r], H_CODE[r]
            d, h = counts.get(dc, 0), counts.get(hc, 0)
            if not d + h:
                continue
            if d:
                acts.append({"type": "play", "cards": [dc]})
            if h:
                acts.append({"type": "play", "cards": [hc]})
            for k in sizes:
                if k > d + h:
                    break
                for nd in range(max(0, k - h), min(d, k) + 1):
                    acts.append({"type": "play", "cards": [dc] * nd + [hc] * (k - nd)})
        if WARKOCZ in counts:
            n9d, n9h = counts.get(D_CODE[NINE], 0), counts.get(H_CODE[NINE], 0)
            extras = [[D_CODE[NINE]] * a + [H_CODE[NINE]] * b for a in range(n9d + 1) for b in range(n9h + 1)]
            for r in ranks:
                rank = W_RANKS[r]
                for ex in extras:
                    acts.append({"type": "play", "cards": [WARKOCZ] + ex, "as": rank})
        if need >= 0 and not (opts["must_play"] and (counts.get(D_CODE[need]) or counts.get(H_CODE[need]))):
            acts.append({"type": "pass"})
        return acts

    # ----- moves in words ----------------------------------------------------
    def ends_row(self, state, action: dict) -> bool:
        """Whether a play is a gag, ending the row: a K, or a rank whose next
        rank is then used up. ``state`` is the state before the play (None:
        only a K is known to end it)."""
        cards = action.get("cards") or []
        if action.get("type") != "play" or not cards:
            return False
        r = action.get("as") or rank(cards[0])
        if r == "K":
            return True
        if not isinstance(state, WarkoczState) or r not in RANK_INDEX or RANK_INDEX[r] >= KING:
            return False
        following = W_RANKS[RANK_INDEX[r] + 1]
        laid_now = sum(1 for c in cards if c != WARKOCZ and rank(c) == following)
        return state.played[RANK_INDEX[following]] + laid_now >= NATURALS_PER_RANK

    def describe_action(self, state, seat: int, action: dict, who: str | None) -> Text:
        kind = action.get("type")
        if kind == "pass":
            # Translators: "pas" is what warkocz players say when they cannot go on with the row.
            return by(who, N_("You pass (pas)"), N_("{who} passes (pas)", who=who))
        if kind != "play":
            return super().describe_action(state, seat, action, who)
        cards = card_list(action.get("cards") or [])
        gag = self.ends_row(state, action)
        as_rank = action.get("as")
        if as_rank:
            shown = Rank(str(as_rank))
            # Translators: {cards} hold the warkocz (9C) standing for the rank {rank}.
            if gag:
                return by(who, N_("You play {cards} as {rank} (gag)", cards=cards, rank=shown),
                          N_("{who} plays {cards} as {rank} (gag)", who=who, cards=cards, rank=shown))
            return by(who, N_("You play {cards} as {rank}", cards=cards, rank=shown),
                      N_("{who} plays {cards} as {rank}", who=who, cards=cards, rank=shown))
        if gag:
            # Translators: a gag ends the row (a K, or a card whose next rank is used up).
            return by(who, N_("You play {cards} (gag)", cards=cards),
                      N_("{who} plays {cards} (gag)", who=who, cards=cards))
        return by(who, N_("You play {cards}", cards=cards), N_("{who} plays {cards}", who=who, cards=cards))

    # ----- applying an action ------------------------------------------------
    def apply(self, state, action):
        if not isinstance(action, dict):
            raise IllegalAction(
                N_("an action is a dict like {{'type': 'play', 'cards': ['7H']}}, not {type}",
                   type=type(action).__name__)
            )
        if state.winner >= 0:
            raise IllegalAction(N_("the deal is over"))
        seat = state.to_act
        if "seat" in action:
            claimed = action["seat"]
            if isinstance(claimed, bool) or not isinstance(claimed, int):
                raise IllegalAction(N_("the seat of an action is a seat number, not {claimed}",
                                       claimed=repr(claimed)))
            if claimed != seat:
                raise IllegalAction(N_("it is seat {seat}'s turn, not seat {given}'s", seat=seat, given=claimed))
        kind = action.get("type")
        if kind == "play":
            self._no_extra_keys(action, _PLAY_KEYS)
            return self._play(state, seat, action)
        if kind == "pass":
            self._no_extra_keys(action, _PASS_KEYS)
            return self._pass(state, seat)
        raise IllegalAction(N_("unknown action type {action}: warkocz actions are 'play' and 'pass'",
                               action=repr(kind)))

    @staticmethod
    def _no_extra_keys(action: dict, allowed: frozenset) -> None:
        extra = [k for k in action if k not in allowed]
        if extra:
            raise IllegalAction(
                N_("a {type} action takes only {names}; unexpected: {fields}", type=action['type'],
                   names=', '.join(sorted(allowed)), fields=', '.join(map(repr, extra)))
            )

    def _play(self, state: WarkoczState, seat: int, action: dict) -> WarkoczState:
        cards = action.get("cards")
        if not isinstance(cards, list) or not cards:
            raise IllegalAction(N_("a play names its cards: 'cards' must be a non-empty list of card codes"))
        for c in cards:
            if not isinstance(c, str) or c not in DECK_CODES:
                if isinstance(c, str) and is_unknown(c):
                    raise IllegalAction(N_("{card} is a hidden card: name the card itself", card=c))
                if is_code(c):
                    raise IllegalAction(N_("there is no {card} in the warkocz deck", card=c))
                raise IllegalAction(N_("{card} is not a card code (like 7H, 10D, KH)", card=_describe(c)))
        opts = state.options
        need = state.need
        has_w = WARKOCZ in cards
        if has_w:
            as_rank = action.get("as")
            if as_rank is None:
                raise IllegalAction(N_("say which rank the warkocz stands for: as 2..K (pl 9C as 8)"))
            if not isinstance(as_rank, str) or as_rank not in RANK_INDEX:
                raise IllegalAction(N_("the warkocz stands for a rank 2..K, not {as_rank}",
                                       as_rank=_describe(as_rank)))
            r = RANK_INDEX[as_rank]
            for c in cards:
                if c != WARKOCZ and NATURAL_RANK[c] != NINE:
                    raise IllegalAction(N_("with the warkocz you may lay only 9s besides it, not {card}", card=c))
            naturals = len(cards) - 1
        else:
            if "as" in action:
                raise IllegalAction(N_("a rank given with as is only for the warkocz 9C"))
            r = NATURAL_RANK[cards[0]]
            for c in cards:
                if NATURAL_RANK[c] != r:
                    raise IllegalAction(N_("cards laid together must be of one rank: {cards}", cards=' '.join(cards)))
            naturals = len(cards)
            if naturals == 2 and not opts["two_of_a_kind"]:
                raise IllegalAction(N_("lay one card, or 3 or 4 of a rank together, never exactly 2"))
        if need >= 0 and r != need:
            raise IllegalAction(N_("the row needs {need}, not {played}",
                                   need=_a(W_RANKS[need]), played=_a(W_RANKS[r])))
        hand = list(state.hands[seat])
        for c in cards:
            try:
                hand.remove(c)
            except ValueError:
                held = state.hands[seat].count(c)
                raise IllegalAction(
                    not_held(c) if not held
                    else N_("you hold only {held} {card}, not {count}",
                            about=N_("{name} held only {held} {card}, not {count}"),
                            held=held, card=c, count=cards.count(c))
                ) from None

        new = state.evolve()
        hands = list(state.hands)
        hands[seat] = hand
        new.hands = hands
        played = list(state.played)
        if has_w:
            played[NINE] += naturals  # the 9s laid alongside; the warkocz is no natural card
        else:
            played[r] += naturals
        new.played = played
        # one order for one step, whatever order the player named the cards in
        new.row = state.row + [{"seat": seat, "cards": sorted(cards, key=card_sort_key), "as": W_RANKS[r]}]
        new.last_layer = seat
        new.passes = 0
        if state.streak != seat:
            new.streak = seat
            new.streak_full = not state.laid[seat]
        if not state.laid[seat]:
            laid = list(state.laid)
            laid[seat] = True
            new.laid = laid
        if has_w:
            new.warkocz_by = seat
            chips = list(state.chips)
            fee, debt = opts["warkocz_fee"], opts["debt"]
            for other in range(state.players):
                if other != seat:
                    chips[seat] += _pay(chips, other, fee, debt)
            new.chips = chips
        if not hand:
            new.winner = seat
            new.to_act = -1
            new.need = -1
            new.aria = new.streak_full
            new.aria_warkocz = new.aria and has_w
            return new
        new.to_act = seat
        if r == KING or played[r + 1] >= NATURALS_PER_RANK:
            # a gag: the row is done and the same player leads anew
            new.done = state.done + [new.row]
            new.row = []
            new.need = -1
        else:
            new.need = r + 1
        return new

    def _pass(self, state: WarkoczState, seat: int) -> WarkoczState:
        need = state.need
        if need < 0:
            raise IllegalAction(N_("you lead: lay any card (there is no row to pass on)"))
        if state.options["must_play"]:
            for c in state.hands[seat]:
                if NATURAL_RANK.get(c) == need:  # unknown tokens and the warkocz never match
                    raise IllegalAction(N_("you hold {card} and must play it: the row needs {need}",
                                           about=N_("{name} held {card} and had to play it: the row needed {need}"),
                                           card=c, need=_a(W_RANKS[need])))
        new = state.evolve()
        new.passes = state.passes + 1
        if state.streak == seat:
            # A pass ends the player's move: what they lay later is another
            # move, so no aria („za jednym ruchem": in one move).
            new.streak_full = False
        if new.passes >= state.players:
            # everyone passed since the last card: the row is set aside and
            # whoever laid that card leads again
            new.done = state.done + [state.row]
            new.row = []
            new.need = -1
            new.passes = 0
            new.to_act = state.last_layer
        else:
            new.to_act = (seat + 1) % state.players
        return new

    # ----- results ---------------------------------------------------------
    def deal_scores(self, state) -> dict:
        if state.winner < 0:
            raise IllegalAction(N_("the deal is not over yet"))
        n, w = state.players, state.winner
        holder = None
        if state.warkocz_by < 0:
            for t in range(n):
                if WARKOCZ in state.hands[t]:
                    holder = t
            if holder is None:
                hidden = [c for t in range(n) if t != w for c in state.hands[t] if is_unknown(c)]
                if hidden:
                    raise NeedReveal(hidden, "scoring: does a loser hold the warkocz (counts double)?")
        left = [len(h) for h in state.hands]
        points = sum(left[t] * (2 if t == holder else 1) for t in range(n) if t != w)
        mult = 4 if state.aria_warkocz else 2 if state.aria else 1
        seats = [0] * n
        seats[w] = points * mult
        chips = [state.chips[i] - state.chips0[i] for i in range(n)]
        # The bank takes nothing in a deal but the dealer's fee: the rest of the
        # stacks' change is the warkocz fees.
        dealer_fee = [-(state.bank - state.bank0) if i == state.dealer else 0 for i in range(n)]
        return {
            "seats": seats,
            "sides": list(seats),
            "winner": w,
            "cards_left": left,
            "warkocz_holder": holder,
            "aria": state.aria,
            "multiplier": mult,
            "chips": chips,
            "dealer_fee": dealer_fee,
            "warkocz_fees": [chips[i] - dealer_fee[i] for i in range(n)],
            "bank": state.bank - state.bank0,
        }

    def view(self, state, seat) -> dict:
        n = state.players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise IllegalAction(N_("no seat {seat} at a table of {players}", seat=repr(seat), players=n))
        v = self._public_view(state)
        if seat is not None:
            v.update(self._seat_fields(state, seat))
        return v

    @staticmethod
    def _seat_fields(state, seat: int) -> dict:
        """What a seat's view says that the public view does not."""
        return {"seat": seat, "hand": sorted(state.hands[seat], key=card_sort_key)}

    def _public_view(self, state) -> dict:
        n = state.players

        def steps(row):
            return [{"seat": st["seat"], "cards": list(st["cards"]), "as": st["as"]} for st in row]

        over = state.winner >= 0
        played = {W_RANKS[i]: c for i, c in enumerate(state.played)}
        aria_open = [
            not over and (not state.laid[s] or (state.streak == s and state.streak_full)) for s in range(n)
        ]
        return {
            "game": self.id,
            "seat": None,
            "players": n,
            "dealer": state.dealer,
            "to_act": state.to_act,
            "hand": None,
            "hand_counts": [len(h) for h in state.hands],
            "deal_over": over,
            "row": steps(state.row),
            "needed": W_RANKS[state.need] if state.need >= 0 else None,
            "last_layer": state.last_layer if state.row else None,
            "passes": state.passes,
            "rows_done": [steps(row) for row in state.done],
            "played": played,
            "exhausted": [r for r, c in played.items() if c >= NATURALS_PER_RANK],
            "aside_count": len(state.aside),
            "warkocz_by": state.warkocz_by if state.warkocz_by >= 0 else None,
            "aria_open": aria_open,
            "chips": list(state.chips),
            "bank": state.bank,
            "scores": list(state.scores),
            "target": state.options["target"],
            "winner": state.winner if over else None,
            "aria": state.aria,
            "aria_warkocz": state.aria_warkocz,
            "options": dict(state.options),
        }

    # ----- a whole match ---------------------------------------------------
    def new_match(self, players: int, options: dict | None = None, seed=None) -> Match:
        match = super().new_match(players, options, seed)
        match.chips, match.bank = self._opening_stacks(players, match.options)
        return match

    def deal_context(self, match: Match) -> dict:
        if match.chips is None:
            return {}
        return {"chips": list(match.chips), "bank": match.bank}

    def end_deal(self, match: Match, state) -> Match:
        if match.over:
            raise IllegalAction(N_("the match is over"))
        if state.players != match.players:
            raise IllegalAction(N_("a deal of {players} players cannot end a match of {players2}",
                                   players=state.players, players2=match.players))
        result = self.deal_scores(state)
        n = match.players
        scores = [match.scores[i] + result["seats"][i] for i in range(n)]
        if match.chips is None:  # a Match not made by new_match: its first deal paid the ante
            chips, bank = self._opening_stacks(n, match.options)
        else:
            chips, bank = list(match.chips), match.bank
        chips = [chips[i] + result["chips"][i] for i in range(n)]
        bank += result["bank"]
        over = scores[result["winner"]] >= match.options["target"]
        won = 0
        if over:
            # the first to reach the target takes the bank
            won = bank
            chips[result["winner"]] += bank
            bank = 0
        return dataclasses.replace(
            match,
            deal_index=match.deal_index + 1,
            dealer=(match.dealer + 1) % n,
            scores=scores,
            chips=chips,
            bank=bank,
            over=over,
            history=match.history + [dict(result, bank_won=won)],
        )


GAME = Warkocz()
