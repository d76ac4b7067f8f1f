"""Bura ("bessa"): RULES.md section 4, seed ``rules/seeds/bura.pl.txt``.

36 cards (6..A), 2-6 players, a bank of chips. One engine *deal* runs from a
deal of the cards to the first of: a declaration, a bessa, or exhaustion of
the cards. A *round* (antes paid at its start) runs over one or more deals
until somebody wins the bank. ``start(antes=True)`` opens a round.

Options (``-o KEY=VALUE``)
--------------------------
``ante`` 10: what each player pays into the bank at the start of a round.
``rounds`` 5: the match ends after this many rounds (a round ends when the
bank is won).  ``chips`` 500: each player's starting stack.  ``target`` 31:
points a declaration needs.  ``bessa`` true: bessas are played at all.

Decisions (where the rules are silent)
--------------------------------------
- **Lead size.** Once the stock is empty hands may differ in size; a lead may
  hold at most as many cards as the smallest non-empty hand (and at most 3).
  Players with no cards sit the trick out; when the taker has no cards the
  lead passes to the next player (clockwise) who has some. The deal is
  exhausted when every hand is empty.
- **Refill**: each player in turn from the taker fills their hand up to three
  cards before the next draws; the trump card, last in the stock, goes to
  whoever draws it. Drawn cards stay unknown tokens to the others.
- **Declaring** is offered right after taking a trick when it could succeed:
  the taker's face-up trick points plus 11 per face-down card in their tricks
  reach ``target`` (public information). The seed gives every taker the right
  („ma prawo „ujawnić się""), so it is refused at most when the declaration
  could fail *and* could not be paid for: the face-up points alone fall short
  of ``target`` and the taker's stack is below the bank (what a failure
  costs). A declaration that cannot fail (face-up points alone reach
  ``target``) is offered whatever the stack. Otherwise the engine goes
  straight on to the refill: there is nothing to decide. Refusing only the
  unpayable gamble keeps a nearly broke player from risking the bank at no
  cost to themselves.
- **Bessa** (three trumps, or three aces of any suits, all three in hand) is
  shown instead of the holder's first play after a deal or a refill: it is
  one of the ``legal_actions`` of a player to act in a trick who holds
  exactly three cards (a player with three cards at their turn has not played
  since the last deal or refill). Showing it keeps the cards in hand, face up.
  Then a short **bessa window** opens, and only then: every later player in
  turn order who has not yet played in this trick and holds three cards may
  show a bessa that beats the best one shown (``bessa``, each card of the best
  matched by a distinct card that beats it, as in a trick) or decline
  (``pass``). The last bessa that beat takes the bank. Players who played
  before the bessa was shown had their chance at their turn and let it go.
  The common case (nobody holds a bessa) costs no action at all, and nobody
  learns anything about a hand that does not show one.
- **Cannot pay.** At the start of a round every stack must cover the ante,
  else the match is over before the round (``end_deal`` sets ``over``). At
  exhaustion, if some stack is smaller than the share (bank/n rounded up), the
  match ends before anybody pays it: the bank is shared out equally, the odd
  chips one each to the players from the left of the dealer (the round is
  not counted as played: nobody won the bank). Chips are always
  conserved: ``sum(chips) + bank`` never changes.
- The bank goes to the winner of a declaration or a bessa; the round is over
  and the winner deals the next. A failed declarer pays the bank's amount into
  it and deals the next deal of the same round; after exhaustion the deal
  passes left.

Actions (``"seat"`` optional everywhere; when present it must be the seat to act)
--------------------------------------------------------------------------------
- ``{"type": "lead", "cards": [codes]}``: 1-3 cards of one suit, face up.
- ``{"type": "beat", "cards": [codes]}``: as many cards as the lead, beating
  the best play so far, face up.
- ``{"type": "throw", "cards": [codes or ?N tokens]}``: as many cards as the
  lead, face down; tokens are accepted since only the thrower knows them.
- ``{"type": "declare"}`` / ``{"type": "pass"}``: after taking a trick. A
  declaration raises ``NeedReveal`` while the declarer's tricks hold tokens.
  ``pass`` also declines in a bessa window.
- ``{"type": "bessa", "cards": [3 codes]}``.

``view(state, seat)`` keys
--------------------------
``game`` "bura"; ``seat`` (None for a spectator); ``players``; ``dealer``;
``to_act`` (-1 when over); ``phase`` ("play", "declare", "bessa", "over");
``hand`` (the seat's cards sorted, [] for a spectator); ``hand_counts``;
``deal_over``; ``trump`` (the turned card, public all deal long);
``trump_suit``; ``stock`` (cards left to draw, the trump card included);
``trump_drawn`` (the trump card has been drawn); ``leader``; ``lead_size``
(cards per play in this trick, 0 before the lead); ``max_lead``;
``trick`` (plays so far: ``{"seat", "down", "count", "cards"}``, where a
face-down play lists its cards only to its owner, else ``[]``);
``best`` (the seat whose play is the best so far, None before the lead);
``tricks`` (per seat, the tricks taken: each a list of plays as in
``trick``); ``tricks_taken`` (per seat, count); ``last_trick``
(``{"taker", "plays"}`` or None); ``bank``; ``chips`` (current stacks);
``ante``; ``target``; ``bessas`` (shown: ``[{"seat", "cards"}]``);
``declaration`` (None or ``{"seat", "cards", "points", "won", "paid"}``);
``result`` (None, or when over ``{"end", "winner", "next_dealer",
"round_over", "match_over"}``; end is "declared", "failed_declaration",
"bessa", "exhausted" or "unpayable").
"""

from __future__ import annotations

import dataclasses
from itertools import combinations, permutations

from p2pcards.cards import bura_deck, is_code, is_unknown
from p2pcards.games.base import (
    Game, IllegalAction, Match, NeedReveal, State, Verb, by, card_list, count, not_held, shuffled_deck, yes_no,
)
from p2pcards.i18n import N_, Text, lazy

HAND_SIZE = 3
SUIT_ORDER = {"C": 0, "D": 1, "H": 2, "S": 3}
SUIT_NAMES = {"C": N_("clubs"), "D": N_("diamonds"), "H": N_("hearts"), "S": N_("spades")}
# Bura's rank order, low to high: the ten ranks just below the ace.
RANK_STRENGTH = {"6": 0, "7": 1, "8": 2, "9": 3, "J": 4, "Q": 5, "K": 6, "10": 7, "A": 8}
POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}

ACE = RANK_STRENGTH["A"]
DECK = tuple(bura_deck())
DECK_SET = frozenset(DECK)
# Per code: (suit, strength, points); looked up in the hot paths.
INFO = {c: (c[-1], RANK_STRENGTH[c[:-1]], POINTS.get(c[:-1], 0)) for c in DECK}

ACTION_FIELDS = {
    "lead": ("cards",),
    "beat": ("cards",),
    "throw": ("cards",),
    "bessa": ("cards",),
    "declare": (),
    "pass": (),
}


def points(card: str) -> int:
    """Card points (A 11, 10 10, K 4, Q 3, J 2, else 0); 0 for an unknown token."""
    info = INFO.get(card)
    return info[2] if info else 0


def beats(card: str, other: str, trump_suit: str) -> bool:
    """Whether ``card`` beats ``other``: higher of the same suit, or a trump against a non-trump."""
    s1, r1, _ = INFO[card]
    s2, r2, _ = INFO[other]
    if s1 == s2:
        return r1 > r2
    return s1 == trump_suit


def play_beats(new: tuple | list, old: tuple | list, trump_suit: str) -> bool:
    """Every card of ``old`` matched by a distinct card of ``new`` that beats it."""
    if len(new) != len(old):
        return False
    if len(new) == 1:
        return beats(new[0], old[0], trump_suit)
    for perm in permutations(new):
        for a, b in zip(perm, old):
            if not beats(a, b, trump_suit):
                break
        else:
            return True
    return False


_KEYS = {c: (0, SUIT_ORDER[s], r) for c, (s, r, _) in INFO.items()}


def card_key(card: str):
    """Sort order for hands: by suit, then rank; unknown tokens last by position."""
    key = _KEYS.get(card)
    if key is not None:
        return key
    try:
        return (1, int(card[1:]), 0)
    except ValueError:
        return (2, 0, 0)


def sort_cards(cards) -> list[str]:
    return sorted(cards, key=card_key)


@dataclasses.dataclass
class BuraState(State):
    """One deal. Immutable by convention: every field is a tuple, int, str,
    bool, None or a dict never changed after creation, so a shallow copy is a
    safe copy (``_copy``)."""

    players: int
    dealer: int
    options: dict
    trump: str  # the turned card
    trump_suit: str
    hands: tuple  # per seat, tuple of cards
    stock: tuple  # the draw order, the trump card last
    stock_pos: int  # next card to draw
    phase: str  # "play", "declare", "bessa", "over"
    turn: int
    leader: int
    trick: tuple  # plays: (seat, face_down, cards tuple)
    best: int  # index in ``trick`` of the best play, -1 before the lead
    tricks: tuple  # per seat, tuple of tricks (each a tuple of plays)
    last_trick: tuple | None  # (taker, plays)
    chips: tuple  # current stacks
    bank: int
    start_chips: tuple
    start_bank: int
    antes: bool
    bessas: tuple = ()  # shown: (seat, cards)
    window: tuple = ()  # seats still to answer in the bessa window
    declaration: dict | None = None
    end: str | None = None
    winner: int | None = None
    next_dealer: int | None = None
    round_over: bool = False
    match_over: bool = False


class Bura(Game):
    id = "bura"
    min_players = 2
    max_players = 6
    option_help = {
        "ante": "chips each player pays into the bank at the start of a round",
        "rounds": "rounds in a match (a round ends when somebody wins the bank)",
        "chips": "each player's starting stack",
        "target": "points a declaration needs to win the bank",
        "bessa": "three trumps or three aces in hand may be shown to take the bank",
    }
    option_words = {
        "ante": count(lambda n: lazy.ngettext("everybody pays {n} chip into the bank each round",
                                              "everybody pays {n} chips into the bank each round", n)),
        "rounds": count(lambda n: lazy.ngettext("{n} round in a match", "{n} rounds in a match", n)),
        "chips": count(lambda n: lazy.ngettext("{n} chip each to start with", "{n} chips each to start with", n)),
        "target": count(lambda n: lazy.ngettext("a declaration needs {n} point", "a declaration needs {n} points", n)),
        "bessa": yes_no(N_("bessas are played"), N_("no bessas")),
    }
    face_down_actions = frozenset({"throw"})
    any_card_actions = frozenset({"throw"})
    match_points = False
    layout = "tricks"
    verbs = (
        Verb(("l", "lead"), "lead", "cards", N_("lead 1-3 cards of one suit: l 7C 9C (typing the cards alone works too)")),
        Verb(("b", "beat"), "beat", "cards",
             N_("beat every card of the best play, each by a higher card of its suit or a trump: b QS")),
        Verb(("th", "throw"), "throw", "cards", N_("play as many cards face down, unseen: th 7C")),
        Verb(("decl", "declare"), "declare", "",
             N_("declare after taking a trick: 31 or more points wins the bank, less pays the bank")),
        Verb(("p", "pas", "pass"), "pass", "", N_("pas: do not declare now")),
        Verb(("bessa",), "bessa", "cards?", N_("bessa: show three trumps or three aces and take the bank")),
    )
    glossary = (
        ("bura", N_("the game: take tricks, declare 31 points to win the bank")),
        ("bessa", N_("three trumps or three aces in hand: show them and take the bank")),
        ("pas", N_("do not declare now")),
    )

    def card_moves(self, count: int) -> tuple[str, ...]:
        """Cards typed alone lead a trick, or beat the best play."""
        return ("lead", "beat")

    # ----- options -------------------------------------------------------
    def default_options(self, players: int) -> dict:
        return {"ante": 10, "rounds": 5, "chips": 500, "target": 31, "bessa": True}

    def check_options(self, players: int, opts: dict) -> None:
        if opts["ante"] < 1:
            raise IllegalAction(N_("option ante must be at least 1, not {ante}", ante=opts['ante']))
        if opts["rounds"] < 1:
            raise IllegalAction(N_("option rounds must be at least 1, not {rounds}", rounds=opts['rounds']))
        if opts["chips"] < opts["ante"]:
            raise IllegalAction(N_("option chips ({chips}) must cover the ante ({ante})",
                                   chips=opts['chips'], ante=opts['ante']))
        if not 1 <= opts["target"] <= 120:
            raise IllegalAction(N_("option target must be between 1 and 120 (the deck's points), not {target}",
                                   target=opts['target']))

    # ----- one deal --------------------------------------------------------
    def start(self, players, seed=None, deck=None, dealer=0, options=None, scores=None,
              chips=None, bank=0, antes=True, **context):
        """Deal a new deal. ``chips`` (stacks before this deal; default every
        player the ``chips`` option), ``bank`` (its content before this deal)
        and ``antes`` (a new round begins: everyone pays the ante) come from
        the match through ``deal_context``."""
        opts = self.options(players, options)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise IllegalAction(N_("dealer must be a seat 0..{last}, not {dealer}",
                                   last=players - 1, dealer=repr(dealer)))
        if deck is None:
            deck = shuffled_deck(self.id, seed if seed is not None else 0, 0)
        deck = self._check_deck(deck)
        chips = self._check_chips(players, opts, chips, bank)
        start_chips, start_bank = chips, bank
        if antes:
            ante = opts["ante"]
            for seat, stack in enumerate(chips):
                if stack < ante:
                    raise IllegalAction(N_("seat {seat} cannot pay the ante of {ante} (holds {stack})",
                                           seat=seat, ante=ante, stack=stack))
            chips = tuple(c - ante for c in chips)
            bank += ante * players
        dealt = HAND_SIZE * players
        hands = [[] for _ in range(players)]
        for i, card in enumerate(deck[:dealt]):
            hands[(dealer + 1 + i) % players].append(card)
        trump = deck[dealt]
        if not is_code(trump):
            raise NeedReveal([trump], "the trump card is turned face up")
        first = (dealer + 1) % players
        return BuraState(
            players=players,
            dealer=dealer,
            options=opts,
            trump=trump,
            trump_suit=INFO[trump][0],
            hands=tuple(tuple(h) for h in hands),
            stock=tuple(deck[dealt + 1:]) + (trump,),
            stock_pos=0,
            phase="play",
            turn=first,
            leader=first,
            trick=(),
            best=-1,
            tricks=((),) * players,
            last_trick=None,
            chips=chips,
            bank=bank,
            start_chips=start_chips,
            start_bank=start_bank,
            antes=bool(antes),
        )

    @staticmethod
    def _check_deck(deck) -> tuple:
        if not isinstance(deck, (list, tuple)) or len(deck) != len(DECK):
            raise IllegalAction(N_("a bura deck is a list of {count} cards", count=len(DECK)))
        seen = set()
        for card in deck:
            if not isinstance(card, str) or not (card in DECK_SET or is_unknown(card)):
                raise IllegalAction(N_("{card} is not a bura card (6 to A) nor an unknown token", card=repr(card)))
            if card in seen:
                raise IllegalAction(N_("{card} appears twice in the deck", card=card))
            seen.add(card)
        return tuple(deck)

    @staticmethod
    def _check_chips(players, opts, chips, bank) -> tuple:
        if chips is None:
            chips = [opts["chips"]] * players
        if not isinstance(chips, (list, tuple)) or len(chips) != players:
            raise IllegalAction(N_("chips must give one stack per player ({players})", players=players))
        for c in list(chips) + [bank]:
            if not isinstance(c, int) or isinstance(c, bool) or c < 0:
                raise IllegalAction(N_("chip counts are whole numbers, not {value}", value=repr(c)))
        return tuple(chips)

    def to_act(self, state: BuraState) -> int:
        return state.turn

    def deal_over(self, state: BuraState) -> bool:
        return state.phase == "over"

    def hand(self, state: BuraState, seat: int) -> list[str]:
        self._check_seat(state, seat)
        return list(state.hands[seat])

    @staticmethod
    def _check_seat(state: BuraState, seat) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
            raise IllegalAction(N_("no seat {seat} at this table", seat=repr(seat)))

    # ----- what may be done ----------------------------------------------
    def _lead_limit(self, state: BuraState) -> int:
        return min([HAND_SIZE] + [len(h) for h in state.hands if h]) if any(state.hands) else 0

    def _bessa_ok(self, state: BuraState, cards) -> bool:
        """Three known cards, all trumps or all aces."""
        if len(cards) != 3:
            return False
        infos = [INFO.get(c) for c in cards]
        if None in infos:
            return False
        trump = state.trump_suit
        return all(i[0] == trump for i in infos) or all(i[1] == ACE for i in infos)

    def _bessa_beats_shown(self, state: BuraState, cards) -> bool:
        if not state.bessas:
            return True
        return play_beats(cards, state.bessas[-1][1], state.trump_suit)

    def legal_actions(self, state: BuraState) -> list[dict]:
        phase = state.phase
        if phase == "over":
            return []
        seat = state.turn
        hand = state.hands[seat]
        if phase == "declare":
            return [{"type": "declare"}, {"type": "pass"}]
        if phase == "bessa":
            out = []
            if self._bessa_ok(state, hand) and self._bessa_beats_shown(state, hand):
                out.append({"type": "bessa", "cards": sort_cards(hand)})
            out.append({"type": "pass"})
            return out
        out = []
        if state.options["bessa"] and len(hand) == 3 and self._bessa_ok(state, hand):
            out.append({"type": "bessa", "cards": sort_cards(hand)})
        ordered = sort_cards(hand)
        known = [c for c in ordered if c in INFO]
        if not state.trick:
            limit = self._lead_limit(state)
            by_suit: dict[str, list[str]] = {}
            for c in known:
                by_suit.setdefault(INFO[c][0], []).append(c)
            for suit_cards in by_suit.values():
                for k in range(1, min(limit, len(suit_cards)) + 1):
                    for combo in combinations(suit_cards, k):
                        out.append({"type": "lead", "cards": list(combo)})
            return out
        best = state.trick[state.best][2]
        k = len(best)
        trump = state.trump_suit
        for combo in combinations(known, k):
            if play_beats(combo, best, trump):
                out.append({"type": "beat", "cards": list(combo)})
        for combo in combinations(ordered, k):
            out.append({"type": "throw", "cards": list(combo)})
        return out

    # ----- moves in words ----------------------------------------------------
    def describe_action(self, state, seat: int, action: dict, who: str | None) -> Text:
        kind = action.get("type")
        cards = card_list(action.get("cards") or [])
        if kind == "lead":
            return by(who, N_("You lead {cards}", cards=cards), N_("{who} leads {cards}", who=who, cards=cards))
        if kind == "beat":
            return by(who, N_("You beat with {cards}", cards=cards),
                      N_("{who} beats with {cards}", who=who, cards=cards))
        if kind == "throw":
            n = len(action.get("cards") or [])
            # Translators: bura: cards played face down, unseen, that cannot take the trick.
            return by(who, lazy.ngettext("You throw {n} card face down", "You throw {n} cards face down", n),
                      lazy.ngettext("{who} throws {n} card face down", "{who} throws {n} cards face down", n,
                                    who=who))
        if kind == "declare":
            # Translators: bura: the taker of a trick claims 31 points for the bank.
            return by(who, N_("You declare"), N_("{who} declares", who=who))
        if kind == "pass":
            if getattr(state, "phase", None) == "bessa":
                # Translators: bura: "pas" in the bessa window: no better bessa shown.
                return by(who, N_("You show no bessa (pas)"), N_("{who} shows no bessa (pas)", who=who))
            return by(who, N_("You do not declare (pas)"), N_("{who} does not declare (pas)", who=who))
        if kind == "bessa":
            # Translators: bura's bessa: three trumps or three aces shown from the hand.
            return by(who, N_("You show a bessa {cards}", cards=cards),
                      N_("{who} shows a bessa {cards}", who=who, cards=cards))
        return super().describe_action(state, seat, action, who)

    # ----- applying an action ------------------------------------------------
    def _parse(self, state: BuraState, action) -> tuple[str, list]:
        if not isinstance(action, dict):
            raise IllegalAction(N_("an action is a dict with a 'type', not {type}", type=type(action).__name__))
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in ACTION_FIELDS:
            raise IllegalAction(N_("unknown action type {action}; bura's are {actions}",
                                   action=repr(kind), actions=', '.join(ACTION_FIELDS)))
        fields = ACTION_FIELDS[kind]
        for key in action:
            if key != "type" and key != "seat" and key not in fields:
                raise IllegalAction(N_("a {action} action has no field {key}", action=kind, key=repr(key)))
        if state.phase == "over":
            raise IllegalAction(N_("the deal is over"))
        if "seat" in action:
            seat = action["seat"]
            if not isinstance(seat, int) or isinstance(seat, bool):
                raise IllegalAction(N_("seat must be a seat number, not {seat}", seat=repr(seat)))
            if seat != state.turn:
                raise IllegalAction(N_("it is seat {seat}'s turn, not seat {given}'s", seat=state.turn, given=seat))
        cards: list = []
        if "cards" in fields:
            if "cards" not in action:
                raise IllegalAction(N_("a {action} action must name its cards", action=kind))
            cards = action["cards"]
            if not isinstance(cards, list):
                raise IllegalAction(N_("cards must be a list of card codes, not {cards}", cards=repr(cards)))
            for c in cards:
                if not isinstance(c, str) or not (c in INFO or is_unknown(c)):
                    raise IllegalAction(N_("{card} is not a bura card", card=repr(c)))
            if len(set(cards)) != len(cards):
                raise IllegalAction(N_("the same card is named twice"))
        return kind, cards

    def apply(self, state: BuraState, action) -> BuraState:
        kind, cards = self._parse(state, action)
        phase = state.phase
        seat = state.turn
        if phase == "declare":
            if kind == "declare":
                return self._declare(state)
            if kind == "pass":
                return self._refill(state.evolve())
            raise IllegalAction(N_("seat {seat} took the trick and must declare or pass, not {action}",
                                   seat=seat, action=kind))
        if phase == "bessa":
            if kind == "bessa":
                return self._bessa(state, cards)
            if kind == "pass":
                return self._next_in_window(state.evolve(), state.window[1:])
            raise IllegalAction(N_("a bessa was shown: seat {seat} may show a stronger bessa or pass, not {action}",
                                   seat=seat, action=kind))
        # phase "play"
        if kind == "bessa":
            return self._bessa(state, cards)
        if kind in ("declare", "pass"):
            raise IllegalAction(N_("there is nothing to {action} now: seat {seat} must play to the trick",
                                   action=kind, seat=seat))
        hand = state.hands[seat]
        if not cards:
            raise IllegalAction(N_("a {action} names at least one card", action=kind))
        if not state.trick:
            if kind != "lead":
                raise IllegalAction(N_("seat {seat} leads this trick: {action} is not a lead",
                                       seat=seat, action=kind))
            self._face_up(hand, cards)
            limit = self._lead_limit(state)
            if len(cards) > limit:
                raise IllegalAction(
                    lazy.ngettext("a lead has at most {n} card now, not {count}",
                                  "a lead has at most {n} cards now, not {count}",
                                  limit, count=len(cards))
                )
            suits = {INFO[c][0] for c in cards}
            if len(suits) > 1:
                raise IllegalAction(N_("a lead is of one suit: {cards} are not", cards=' '.join(cards)))
            return self._play(state, cards, face_down=False, beat=True)
        if kind == "lead":
            raise IllegalAction(N_("seat {leader} has led this trick: beat or throw", leader=state.leader))
        best = state.trick[state.best][2]
        if len(cards) != len(best):
            raise IllegalAction(lazy.ngettext("this trick is played with {n} card, not {count}",
                                                "this trick is played with {n} cards, not {count}", len(best),
                                                count=len(cards)))
        if kind == "beat":
            self._face_up(hand, cards)
            if not play_beats(cards, best, state.trump_suit):
                raise IllegalAction(N_("{cards} does not beat {best}", cards=' '.join(cards), best=' '.join(best)))
            return self._play(state, cards, face_down=False, beat=True)
        # throw: face down, tokens welcome
        for c in cards:
            if c not in hand:
                raise IllegalAction(not_held(c))
        return self._play(state, cards, face_down=True, beat=False)

    @staticmethod
    def _face_up(hand, cards) -> None:
        for c in cards:
            if is_unknown(c):
                raise IllegalAction(N_("a card played face up is named by its code, not {card}", card=c))
            if c not in hand:
                raise IllegalAction(not_held(c))

    def _next_holder(self, state: BuraState, seat: int) -> int:
        """The next seat after ``seat`` (clockwise) holding cards, else -1."""
        n = state.players
        for i in range(1, n + 1):
            s = (seat + i) % n
            if state.hands[s]:
                return s
        return -1

    def _play(self, state: BuraState, cards: list, face_down: bool, beat: bool) -> BuraState:
        seat = state.turn
        new = state.evolve()
        hands = list(state.hands)
        hands[seat] = tuple(c for c in state.hands[seat] if c not in cards)
        new.hands = tuple(hands)
        new.trick = state.trick + ((seat, face_down, tuple(cards)),)
        if beat:
            new.best = len(state.trick)
        nxt = self._next_holder(new, seat)
        # The trick is over once play comes back to the leader (seats without
        # cards, and the leader if it played its last cards, are skipped).
        n = state.players
        if nxt == -1 or (nxt - state.leader) % n <= (seat - state.leader) % n:
            return self._take_trick(new)
        new.turn = nxt
        return new

    def _take_trick(self, state: BuraState) -> BuraState:
        """``state`` is a fresh copy: finish the trick in place."""
        taker = state.trick[state.best][0]
        tricks = list(state.tricks)
        tricks[taker] = tricks[taker] + (state.trick,)
        state.tricks = tuple(tricks)
        state.last_trick = (taker, state.trick)
        state.trick = ()
        state.best = -1
        state.leader = taker
        state.turn = taker
        if self._may_declare(state, taker):
            state.phase = "declare"
            return state
        return self._refill(state)

    def _may_declare(self, state: BuraState, seat: int) -> bool:
        """Public bounds: could this seat's tricks reach the target? If they
        could also fall short, can it pay the failure? (The seed: every taker
        „ma prawo ujawnić się"; only a declaration that could fail and could
        not be paid for is refused.)"""
        sure = bound = 0
        for trick in state.tricks[seat]:
            for _, down, cards in trick:
                if down:
                    bound += 11 * len(cards)
                else:
                    for c in cards:
                        sure += INFO[c][2]
        target = state.options["target"]
        if sure + bound < target:
            return False
        return sure >= target or state.chips[seat] >= state.bank

    def _refill(self, state: BuraState) -> BuraState:
        """In place on a fresh copy: each draws up to 3 from the taker on, then the next lead."""
        taker = state.turn
        n = state.players
        pos = state.stock_pos
        stock = state.stock
        if pos < len(stock):
            hands = list(state.hands)
            for i in range(n):
                s = (taker + i) % n
                want = HAND_SIZE - len(hands[s])
                if want > 0 and pos < len(stock):
                    got = stock[pos:pos + want]
                    pos += len(got)
                    hands[s] = hands[s] + got
            state.hands = tuple(hands)
            state.stock_pos = pos
        state.phase = "play"
        leader = taker if state.hands[taker] else self._next_holder(state, taker)
        if leader == -1:
            return self._exhausted(state)
        state.leader = leader
        state.turn = leader
        return state

    # ----- ends of a deal -------------------------------------------------------
    def _finish(self, state: BuraState, end: str, winner, next_dealer, round_over: bool,
                match_over: bool = False) -> BuraState:
        state.phase = "over"
        state.turn = -1
        state.window = ()
        state.end = end
        state.winner = winner
        state.next_dealer = next_dealer
        state.round_over = round_over
        state.match_over = match_over
        return state

    def _win_bank(self, state: BuraState, seat: int, end: str) -> BuraState:
        chips = list(state.chips)
        chips[seat] += state.bank
        state.chips = tuple(chips)
        state.bank = 0
        return self._finish(state, end, seat, seat, round_over=True)

    def _declare(self, state: BuraState) -> BuraState:
        seat = state.turn
        shown = [c for trick in state.tricks[seat] for _, _, cards in trick for c in cards]
        hidden = [c for c in shown if c not in INFO]
        if hidden:
            raise NeedReveal(hidden, f"seat {seat} declares: all their tricks are shown")
        total = sum(INFO[c][2] for c in shown)
        new = state.evolve()
        won = total >= state.options["target"]
        paid = 0 if won else state.bank
        new.declaration = {"seat": seat, "cards": sort_cards(shown), "points": total, "won": won, "paid": paid}
        if won:
            return self._win_bank(new, seat, "declared")
        chips = list(state.chips)
        chips[seat] -= paid
        new.chips = tuple(chips)
        new.bank = state.bank + paid
        return self._finish(new, "failed_declaration", None, seat, round_over=False)

    def _exhausted(self, state: BuraState) -> BuraState:
        n = state.players
        share = -(-state.bank // n)
        next_dealer = (state.dealer + 1) % n
        if any(c < share for c in state.chips):
            # The match ends before the payment; the bank goes back to the players.
            each, odd = divmod(state.bank, n)
            chips = list(state.chips)
            for i in range(n):
                chips[(state.dealer + 1 + i) % n] += each + (1 if i < odd else 0)
            state.chips = tuple(chips)
            state.bank = 0
            return self._finish(state, "unpayable", None, next_dealer, round_over=False, match_over=True)
        state.chips = tuple(c - share for c in state.chips)
        state.bank = state.bank + share * n
        return self._finish(state, "exhausted", None, next_dealer, round_over=False)

    def _bessa(self, state: BuraState, cards: list) -> BuraState:
        seat = state.turn
        if not state.options["bessa"]:
            raise IllegalAction(N_("bessa is not played at this table (option bessa=false)"))
        hand = state.hands[seat]
        if len(hand) != 3:
            raise IllegalAction(N_("a bessa is shown with three cards in hand, right after a deal or a refill"))
        self._face_up(hand, cards)
        if not self._bessa_ok(state, cards):
            raise IllegalAction(
                N_("{cards} is no bessa: it takes three trumps ({suit}) or three aces", cards=' '.join(cards),
                   suit=SUIT_NAMES[state.trump_suit])
            )
        if state.bessas and not self._bessa_beats_shown(state, cards):
            prev_seat, prev = state.bessas[-1]
            raise IllegalAction(N_("{cards} does not beat seat {prev_seat}'s bessa {prev}",
                                   cards=' '.join(cards), prev_seat=prev_seat, prev=' '.join(prev)))
        new = state.evolve()
        new.bessas = state.bessas + ((seat, tuple(cards)),)
        if state.phase == "bessa":
            return self._next_in_window(new, state.window[1:])
        # The window: later players who have not played in this trick and hold three cards.
        n = state.players
        played = (seat - state.leader) % n
        later = tuple(
            (seat + i) % n
            for i in range(1, n - played)
            if len(state.hands[(seat + i) % n]) == 3
        )
        new.phase = "bessa"
        return self._next_in_window(new, later)

    def _next_in_window(self, state: BuraState, rest: tuple) -> BuraState:
        """In place on a fresh copy: the next seat of the window, or the bank to the best bessa."""
        if rest:
            state.window = rest
            state.turn = rest[0]
            return state
        return self._win_bank(state, state.bessas[-1][0], "bessa")

    # ----- scores and views -------------------------------------------------
    def deal_scores(self, state: BuraState) -> dict:
        """Chips won or lost by each seat in this deal (antes included); while
        the deal is not over, the flows so far with ``end`` None."""
        seats = [c - s for c, s in zip(state.chips, state.start_chips)]
        # A deal moves chips twice at most: the antes as a round opens, then
        # its end (a declaration, a bessa, the bank doubled or shared out).
        ante = [-state.options["ante"] if state.antes else 0] * state.players
        return {
            "seats": seats,
            "sides": list(seats),
            "ante": ante,  # per seat; what the end moved is ``seats`` less this
            "bank": state.bank,
            "bank_change": state.bank - state.start_bank,
            "antes": state.antes,
            "end": state.end,
            "winner": state.winner,
            "declaration": dict(state.declaration) if state.declaration else None,
            "bessas": [{"seat": s, "cards": list(c)} for s, c in state.bessas],
            "next_dealer": state.next_dealer,
            "round_over": state.round_over,
            "match_over": state.match_over,
        }

    @staticmethod
    def _play_view(play, seat) -> dict:
        s, down, cards = play
        shown = not down or seat == s
        return {"seat": s, "down": down, "count": len(cards), "cards": list(cards) if shown else []}

    def view(self, state: BuraState, seat) -> dict:
        if seat is not None:
            self._check_seat(state, seat)
        pv = self._play_view
        over = state.phase == "over"
        return {
            "game": self.id,
            "seat": seat,
            "players": state.players,
            "dealer": state.dealer,
            "to_act": state.turn,
            "phase": state.phase,
            "hand": sort_cards(state.hands[seat]) if seat is not None else [],
            "hand_counts": [len(h) for h in state.hands],
            "deal_over": over,
            "trump": state.trump,
            "trump_suit": state.trump_suit,
            "stock": len(state.stock) - state.stock_pos,
            "trump_drawn": state.stock_pos >= len(state.stock),
            "leader": state.leader,
            "lead_size": len(state.trick[0][2]) if state.trick else 0,
            "max_lead": self._lead_limit(state) if state.phase == "play" and not state.trick else 0,
            "trick": [pv(p, seat) for p in state.trick],
            "best": state.trick[state.best][0] if state.trick else None,
            "tricks": [[[pv(p, seat) for p in t] for t in ts] for ts in state.tricks],
            "tricks_taken": [len(ts) for ts in state.tricks],
            "last_trick": (
                {"taker": state.last_trick[0], "plays": [pv(p, seat) for p in state.last_trick[1]]}
                if state.last_trick else None
            ),
            "bank": state.bank,
            "chips": list(state.chips),
            "ante": state.options["ante"],
            "target": state.options["target"],
            "bessas": [{"seat": s, "cards": list(c)} for s, c in state.bessas],
            "declaration": dict(state.declaration) if state.declaration else None,
            "result": (
                {"end": state.end, "winner": state.winner, "next_dealer": state.next_dealer,
                 "round_over": state.round_over, "match_over": state.match_over}
                if over else None
            ),
        }

    # ----- a whole match ------------------------------------------------------
    def new_match(self, players: int, options: dict | None = None, seed=None) -> Match:
        match = super().new_match(players, options, seed)
        match.chips = [match.options["chips"]] * players
        match.bank = 0
        match.extra = {"rounds_played": 0, "new_round": True}
        return match

    def deal_context(self, match: Match) -> dict:
        return {
            "chips": list(match.chips) if match.chips is not None else None,
            "bank": match.bank,
            "antes": bool(match.extra.get("new_round", True)),
        }

    def end_deal(self, match: Match, state: BuraState) -> Match:
        if state.phase != "over":
            raise IllegalAction(N_("the deal is not over"))
        if match.chips is not None and (list(state.start_chips) != list(match.chips)):
            raise IllegalAction(N_("this deal was not started from this match's stacks"))
        scores = self.deal_scores(state)
        chips = list(state.chips)
        rounds_played = match.extra.get("rounds_played", 0) + (1 if state.round_over else 0)
        ante = match.options["ante"]
        over = (
            state.match_over
            or rounds_played >= match.options["rounds"]
            or (state.round_over and any(c < ante for c in chips))
        )
        return dataclasses.replace(
            match,
            deal_index=match.deal_index + 1,
            dealer=state.next_dealer,
            scores=[a + b for a, b in zip(match.scores, scores["seats"])],
            chips=chips,
            bank=state.bank,
            over=over,
            history=match.history + [scores],
            extra={**match.extra, "rounds_played": rounds_played, "new_round": state.round_over},
        )

    def match_result(self, match: Match) -> dict:
        chips = list(match.chips) if match.chips is not None else [0] * match.players
        best = max(chips)
        leaders = [i for i, c in enumerate(chips) if c == best]
        return {
            "scores": list(match.scores),
            "chips": chips,
            "bank": match.bank,
            "rounds": match.extra.get("rounds_played", 0),
            "winner": leaders[0] if match.over and len(leaders) == 1 else None,
        }


GAME = Bura()
