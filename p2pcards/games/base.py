"""What every rules engine shares: errors, the engine interface, matches, and
the handling of cards this process cannot see.

Engines are pure: no I/O, no clock, no crypto, no randomness except a seeded
shuffle. ``apply`` returns a new state and never changes the one it was given.

Hidden cards
------------
The network table runs the same engines with a deck in which every card the
seat cannot see is an unknown token ``?N`` (``p2pcards.cards.unknown``).
Engines therefore obey three rules:

1. An unknown token is moved like any card but never inspected: ``rank()`` of
   it is None. A rule that depends on a hidden card (a warkocz pass while
   holding the needed rank) is enforced only when the card is known; the
   audit replays the game with every card known and enforces it in full.
2. Where an engine must know a hidden card to go on by itself (kanaszta's
   upcard, the cards a bura declaration shows), it raises ``NeedReveal`` with
   the tokens it must see, leaving the state unchanged. The table reveals them
   to everyone, substitutes them (``substitute``) and calls again.
3. ``view(state, seat)`` lists exactly the cards that seat may see; a token
   in a seat's view is a card that must be revealed to that seat.
"""

from __future__ import annotations

import dataclasses
import operator
import random
from typing import Any

from p2pcards.cards import deck_for, suit
from p2pcards.i18n import N_, Text, _, lazy, pgettext


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why, for a player."""


class NeedReveal(Exception):
    """The engine must see these unknown tokens (publicly) before it can go on."""

    def __init__(self, tokens: list[str], why: str = ""):
        super().__init__(f"need to see {', '.join(tokens)}" + (f": {why}" if why else ""))
        self.tokens = list(tokens)
        self.why = why


def substitute(obj: Any, mapping: dict[str, str]) -> Any:
    """A copy of ``obj`` (a state or an action) with every string found in
    ``mapping`` replaced, at any depth of dataclasses, lists, tuples and dicts."""
    if not mapping:
        return obj  # nothing to replace: states are never changed in place, so sharing is safe
    return _substitute(obj, mapping)


_ATOMS = frozenset({int, bool, float, type(None)})  # kept as they are


def _substitute(obj: Any, mapping: dict[str, str]) -> Any:
    # Run on the whole state at each card shown (and by the record at each move):
    # the plain types (most of a state is lists of card strings and numbers) are
    # handled inline, without a call each; the rest as ever.
    kind = type(obj)
    if kind is str:
        return mapping.get(obj, obj)
    if kind in _ATOMS:
        return obj
    if kind is list:
        return [mapping.get(x, x) if type(x) is str else x if type(x) in _ATOMS else _substitute(x, mapping)
                for x in obj]
    if kind is tuple:
        return tuple([mapping.get(x, x) if type(x) is str else x if type(x) in _ATOMS else _substitute(x, mapping)
                      for x in obj])
    if kind is dict:
        return {k: mapping.get(v, v) if type(v) is str else v if type(v) in _ATOMS else _substitute(v, mapping)
                for k, v in obj.items()}
    if isinstance(obj, str):
        return mapping.get(obj, obj)
    if isinstance(obj, list):
        return [_substitute(x, mapping) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_substitute(x, mapping) for x in obj)
    if isinstance(obj, dict):
        return {k: _substitute(v, mapping) for k, v in obj.items()}
    names = _DATACLASS_FIELDS.get(kind)
    if names is None:
        names = _DATACLASS_FIELDS[kind] = _dataclass_fields(kind)
    if not names:
        return obj
    # what dataclasses.replace does with every field given, without looking the fields up each time
    values = []
    for name in names:
        value = getattr(obj, name)
        plain = type(value)
        values.append(mapping.get(value, value) if plain is str else value if plain in _ATOMS
                      else _substitute(value, mapping))
    return kind(*values)


_DATACLASS_FIELDS: dict[type, tuple[str, ...]] = {}


def _dataclass_fields(kind: type) -> tuple[str, ...]:
    """The fields ``_substitute`` copies of an instance of ``kind``, in the order its
    ``__init__`` takes them (none: not a dataclass, kept as it is)."""
    if not dataclasses.is_dataclass(kind):
        return ()
    fields = dataclasses.fields(kind)
    if any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"{kind.__name__}: substitute copies a dataclass whose __init__ takes every field by position")
    return tuple(f.name for f in fields)


def shuffled_deck(game_id: str, seed: int | str, deal_index: int = 0) -> list[str]:
    """The deck of deal ``deal_index`` of a match played from ``seed``: the
    same seed always gives the same match (tests, local bots, replays)."""
    deck = deck_for(game_id)
    random.Random(f"p2pcards:{game_id}:{seed}:{deal_index}").shuffle(deck)
    return deck


def yes_no(yes: Text, no: Text):
    """The words of a true/false option: what it means either way."""
    return lambda value: yes if value is True else no if value is False else None


def count(words):
    """The words of a number option: ``words(n)`` a ``lazy.ngettext`` Text."""
    return lambda value: words(value) if type(value) is int else None


def parse_option_value(text: str) -> Any:
    """``-o KEY=VALUE`` values: true/false, integers, otherwise the text."""
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(low)
    except ValueError:
        return text


def by(who: str | None, yours: Text, theirs: Text) -> Text:
    """The words for the reader's own move (``who`` None: "You draw") or for
    another player's ("Ada draws"): two messages, since a verb changes with
    the person in every language."""
    return yours if who is None else theirs


def not_held(card: str) -> Text:
    """The refusal of a card the seat to act does not hold (the audit tells it of them)."""
    return N_("you don't hold {card}", about=N_("{name} did not hold {card}"), card=card)


def card_list(cards) -> str:
    """Cards in a line of words: their codes, which every screen shows as cards."""
    return " ".join(str(c) for c in cards)


@dataclasses.dataclass(frozen=True)
class Verb:
    """How a player types one kind of move: the game's move notation, as SAN
    is chess's (python-chess keeps it on the board). ``words[0]`` is its short
    form, shown in completions; front ends parse with it and never need to
    know a game's moves themselves.

    ``args`` is a space-separated list of slots, in the order typed: ``meld``
    (a meld number), ``wild`` (the wild card taken out of that meld),
    ``natural`` (the card put in its place, first of the action's cards),
    ``card`` (exactly one), ``cards`` (one or more), ``cards?`` (any number),
    ``as?`` (``as RANK``), ``x?`` (crosswise); a trailing ``?`` makes a slot optional.
    """

    words: tuple[str, ...]
    type: str                 # the action type it makes
    args: str
    help: str                 # N_() marked: translated where shown (``explain``)
    defaults: tuple = ()      # (field, value) pairs assumed when the player does not say

    @property
    def short(self) -> str:
        return self.words[0]

    @property
    def slots(self) -> tuple[str, ...]:
        return tuple(self.args.split())

    def has(self, slot: str) -> bool:
        return slot in self.slots or slot + "?" in self.slots

    def explain(self) -> str:
        """What the command does, in the player's language."""
        return _(self.help)

    def usage(self) -> str:
        # Translators: the placeholders of a command's usage line ("m CARD...", "a N CARD...");
        # the player types the command words and "as" themselves, in English.
        card, wild, rank = pgettext("usage", "CARD"), pgettext("usage", "WILD"), pgettext("usage", "RANK")
        shown = {"meld": "N", "meld?": "[N]", "wild": wild, "natural": card, "card": card, "cards": f"{card}...",
                 "cards?": f"[{card}...]", "as?": f"[as {rank}]", "x?": "[x]"}
        return " ".join(["/".join(self.words)] + [shown[slot] for slot in self.slots])


class State:
    """What every engine's state (a dataclass) shares. ``apply`` never
    changes a state it was given: it builds the next one from ``evolve()``,
    the one way an engine copies a state, a shallow copy whose fields the
    engine then replaces (bura). A state copied in an engine's hot loop may
    write its copy out (warkocz, twice as fast); one whose engine changes its
    lists in place (the canastas) copies those lists in its ``evolve``."""

    __slots__ = ()

    def evolve(self):
        copier = _COPIERS.get(type(self)) or _copier(type(self))
        return copier(self)


def _copier(cls: type):
    """The fastest shallow copy of a state class, made once per class."""
    if hasattr(cls, "__dict__") and "__slots__" not in cls.__dict__:
        def copier(state):
            new = object.__new__(cls)
            new.__dict__.update(state.__dict__)
            return new
    else:
        fields = operator.attrgetter(*(f.name for f in dataclasses.fields(cls)))

        def copier(state):
            return cls(*fields(state))  # the positional constructor
    _COPIERS[cls] = copier
    return copier


_COPIERS: dict[type, object] = {}


@dataclasses.dataclass
class Match:
    """A match in progress: what carries over from deal to deal.

    ``scores`` is per side (per pair when playing in pairs, else per seat);
    ``chips`` is each seat's stack and ``bank`` the pot, for the chip games
    (None and 0 otherwise). Chips are conserved: sum(chips) + bank is constant.
    """

    game: str
    players: int
    options: dict
    seed: int | str | None = None
    deal_index: int = 0
    dealer: int = 0
    scores: list[int] = dataclasses.field(default_factory=list)
    chips: list[int] | None = None
    bank: int = 0
    over: bool = False
    history: list[dict] = dataclasses.field(default_factory=list)
    extra: dict = dataclasses.field(default_factory=dict)

    def bank_won(self) -> int:
        """What the winner of the last deal took from the bank as it ended the match (warkocz)."""
        return self.history[-1].get("bank_won", 0) if self.history else 0


class Game:
    """The rules of one game. Subclasses implement the deal and match hooks."""

    id: str = ""
    min_players: int = 2
    max_players: int = 4
    # option name -> (default, description); a default may depend on the
    # player count through ``default_options``.
    option_help: dict[str, str] = {}
    # Each option in a player's words, as the rules text's house rules say it:
    # option name -> a function of its value giving a Text (None: no words for
    # that value). Made with ``yes_no`` and ``count``; the lobby shows them.
    option_words: dict = {}
    # Action types whose cards go face down: on the network their "cards" are
    # the unknown tokens of the positions played, and no key is published.
    face_down_actions: frozenset = frozenset()

    # ----- the game described for a front end, which so holds no rules --------
    # How each move is typed and what it does: the game's notation (``Verb``).
    verbs: tuple[Verb, ...] = ()
    # Words players of the game use, explained in help: (the word as they say
    # it, its explanation N_() marked).
    glossary: tuple[tuple[str, str], ...] = ()
    # The match keeps points per side, played to the ``target`` option; False:
    # it is settled in chips alone and a deal's results are chips (bura, whose
    # ``target`` is a declaration's points, not the match's).
    match_points: bool = True
    # What lies on the table between the hands, which is how a front end draws
    # the table and words the score sheet: "melds" (melds and a discard pile),
    # "row" (one row laid rank after rank), "tricks" (a trick and a trump); ""
    # for none of these.
    layout: str = ""
    # Action types whose legal moves say nothing about which cards fit a play
    # (a discard or a face-down throw takes any card): a front end marks no
    # card playable for them.
    any_card_actions: frozenset = frozenset()

    def card_moves(self, count: int) -> tuple[str, ...]:
        """The action types a player means by typing ``count`` cards alone,
        without a verb: the first of them that is legal now, else the first.
        Here none: cards alone are no move."""
        return ()

    def hand_order(self, hand: list[str], trump_suit: str | None = None) -> list[str]:
        """``hand`` in the order its player would hold it: here as the view
        lists it (by suit, then rank), the trumps (``trump_suit``) moved to the end."""
        return sorted(hand, key=lambda c: suit(c) == trump_suit) if trump_suit else list(hand)

    # ----- options -------------------------------------------------------
    def default_options(self, players: int) -> dict:
        raise NotImplementedError

    def options(self, players: int, overrides: dict | None = None) -> dict:
        """The defaults with ``overrides`` applied; unknown keys or wrong
        types are refused with a message naming them."""
        self.check_players(players)
        opts = self.default_options(players)
        for key, value in (overrides or {}).items():
            if key not in opts:
                known = ", ".join(sorted(opts))
                raise IllegalAction(N_("unknown option {key} for {game} (options: {known})",
                                       key=repr(key), game=self.id, known=known))
            want = type(opts[key])
            if want is bool and not isinstance(value, bool):
                raise IllegalAction(N_("option {key} must be true or false, not {value}", key=key, value=repr(value)))
            if want is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise IllegalAction(N_("option {key} must be a whole number, not {value}",
                                       key=key, value=repr(value)))
            opts[key] = value
        self.check_options(players, opts)
        return opts

    def describe_option(self, key: str, value) -> Text | None:
        """Option ``key`` set to ``value`` in the player's words (``option_words``);
        None for an option or a value it has no words for."""
        words = self.option_words.get(key)
        return words(value) if words is not None else None

    def check_options(self, players: int, opts: dict) -> None:
        """Refuse option combinations that make no sense (IllegalAction)."""

    def check_players(self, players: int) -> None:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise IllegalAction(
                N_("{game} is played by {min_players} to {max_players} players, not {players}",
                   game=self.id, min_players=self.min_players, max_players=self.max_players, players=players)
            )

    def sides(self, players: int, options: dict) -> int:
        """How many scoring sides: pairs count as one side."""
        return 2 if options.get("pairs") and players == 4 else players

    def by_side(self, per_seat: list[int], options: dict) -> list[int]:
        """Per-seat points summed over each side's seats."""
        players = len(per_seat)
        totals = [0] * self.sides(players, options)
        for seat, points in enumerate(per_seat):
            totals[self.side_of(seat, players, options)] += points
        return totals

    def side_of(self, seat: int, players: int, options: dict) -> int:
        return seat % 2 if options.get("pairs") and players == 4 else seat

    # ----- one deal --------------------------------------------------------
    def start(self, players: int, seed=None, deck=None, dealer: int = 0, options=None, scores=None, **context):
        raise NotImplementedError

    def to_act(self, state) -> int:
        raise NotImplementedError

    def legal_actions(self, state) -> list[dict]:
        raise NotImplementedError

    def apply(self, state, action: dict):
        raise NotImplementedError

    def deal_over(self, state) -> bool:
        raise NotImplementedError

    def deal_scores(self, state) -> dict:
        raise NotImplementedError

    def hand(self, state, seat: int) -> list[str]:
        """That seat's hand as stored (unknown tokens included)."""
        raise NotImplementedError

    def view(self, state, seat: int | None) -> dict:
        """What ``seat`` may see; ``seat=None`` is a spectator (public cards only)."""
        raise NotImplementedError

    def views(self, state, players: int) -> list:
        """``[view(state, None), view(state, 0), ..., view(state, players - 1)]``,
        which the table reads after every entry (``knowledge.view_tokens``). An
        engine whose seats' views differ from the public one in a field or two
        builds the rest once: the views then share it (read them, never change them)."""
        return [self.view(state, None), *(self.view(state, seat) for seat in range(players))]

    def deck_size(self) -> int:
        return len(deck_for(self.id))

    # ----- moves in words ----------------------------------------------------
    def describe_action(self, state, seat: int, action: dict, who: str | None) -> Text:
        """``action`` of ``seat`` in words everybody may read (as OpenSpiel's
        ``action_to_string``): face-down cards as a count, a drawn card not at
        all. ``who`` is the mover's name, or None for the reader's own move
        ("You draw"). ``state`` is the state before the move, None if unknown.
        A :class:`~p2pcards.i18n.Text`: English as a str, in the reader's
        language through ``i18n.shown``. Engines word their own moves; this
        covers the face-down ones and any move they do not know."""
        kind = action.get("type")
        cards = action.get("cards") or []
        if kind in self.face_down_actions:
            n = len(cards)
            # Translators: a move whose cards nobody else sees (bura's throw).
            return by(who, lazy.ngettext("You play {n} card face down", "You play {n} cards face down", n),
                      lazy.ngettext("{who} plays {n} card face down", "{who} plays {n} cards face down", n, who=who))
        # Translators: a move this program has no words for; {move} is its name in the log.
        return by(who, N_("You: {move} {cards}", move=str(kind), cards=card_list(cards)),
                  N_("{who}: {move} {cards}", who=who, move=str(kind), cards=card_list(cards)))

    # ----- a whole match ---------------------------------------------------
    def new_match(self, players: int, options: dict | None = None, seed=None) -> Match:
        opts = self.options(players, options)
        return Match(
            game=self.id,
            players=players,
            options=opts,
            seed=seed,
            dealer=0,
            scores=[0] * self.sides(players, opts),
        )

    def deal_context(self, match: Match) -> dict:
        """Extra keyword arguments ``start`` needs from the match (bank, chips...)."""
        return {}

    def start_deal(self, match: Match, deck: list[str] | None = None):
        """The next deal of ``match``: from ``deck`` if given, else from the match seed."""
        if match.over:
            raise IllegalAction(N_("the match is over"))
        if deck is None:
            deck = shuffled_deck(self.id, match.seed if match.seed is not None else 0, match.deal_index)
        return self.start(
            match.players,
            deck=deck,
            dealer=match.dealer,
            options=match.options,
            scores=list(match.scores),
            **self.deal_context(match),
        )

    def end_deal(self, match: Match, state) -> Match:
        """The match after the finished deal ``state``: scores added, dealer
        passed on, ``over`` set when the match has ended."""
        raise NotImplementedError

    def match_over(self, match: Match) -> bool:
        return match.over

    def match_result(self, match: Match) -> dict:
        """{"scores": per side, "chips": per seat or None, "bank": int, "winner": side or None}"""
        best = max(match.scores) if match.scores else 0
        leaders = [i for i, s in enumerate(match.scores) if s == best]
        return {
            "scores": list(match.scores),
            "chips": list(match.chips) if match.chips is not None else None,
            "bank": match.bank,
            "winner": leaders[0] if match.over and len(leaders) == 1 else None,
        }


class SeatOverPublicViews(Game):
    """An engine whose seat's view is its public view and a few fields of the
    seat's own (``_public_view``, ``_seat_fields``): all the views of a state
    are built on one public part, shared."""

    def _public_view(self, state) -> dict:
        raise NotImplementedError

    def _seat_fields(self, state, seat: int) -> dict:
        raise NotImplementedError

    def views(self, state, players: int) -> list:
        if players != state.players:
            return super().views(state, players)
        public = self._public_view(state)
        return [public, *({**public, **self._seat_fields(state, seat)} for seat in range(players))]
