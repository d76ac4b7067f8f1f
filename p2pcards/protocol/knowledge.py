"""Who knows which card: the bridge between the rules engines and the dealing.

On the network nobody holds the whole deal. Every peer runs the rules engine
on the *public* state: a deal started from a deck of unknown tokens ``?0 ..
?N-1`` (N-th position of the shuffled, re-keyed deck) in which a token is
replaced by its code once the card has been shown to everybody. A seat's own
state is the public state with the cards it alone has seen substituted in.

Position p is shown to seat s when every other seat has published its key for
p; to everybody when every seat has. So who knows what follows from whose keys
are public, which this module tracks, and what each seat must see follows
from the engines' ``view``: a token in ``view(state, s)`` is a card seat s must
be shown, a token in ``view(state, None)`` one everybody must be shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pcards.cards import UNKNOWN_PREFIX, is_code, is_unknown, unknown, unknown_position
from p2pcards.games.base import Game, IllegalAction, not_held, substitute
from p2pcards.i18n import N_


_PREFIX_LEN = len(UNKNOWN_PREFIX)
_SCALARS = frozenset({int, bool, float, type(None)})


def tokens_in(obj) -> set[str]:
    """Every unknown token anywhere in a view, action or nested structure
    (the values of maps, not their keys). Run on every seat's view after each
    entry: strings are tested where they are found, not stacked."""
    found: set[str] = set()
    if not isinstance(obj, (dict, list, tuple)):
        if is_unknown(obj):
            found.add(obj)
        return found
    add, stack = found.add, [obj]
    push = stack.append
    while stack:
        item = stack.pop()
        for x in item.values() if isinstance(item, dict) else item:
            kind = type(x)
            if kind is str:
                if x[:_PREFIX_LEN] == UNKNOWN_PREFIX:
                    add(x)
            elif kind is dict or kind is list or kind is tuple:
                push(x)
            elif kind in _SCALARS:
                continue
            elif isinstance(x, str):  # subclasses: the general way
                if is_unknown(x):
                    add(x)
            elif isinstance(x, (dict, list, tuple)):
                push(x)
    return found


def token_deck(size: int) -> list[str]:
    return [unknown(p) for p in range(size)]


@dataclass
class KeyBook:
    """Whose per-card key of each position is public (one deal)."""

    players: int
    published: dict[int, set[int]] = field(default_factory=dict)

    def publish(self, seat: int, position: int) -> None:
        self.published.setdefault(position, set()).add(seat)

    def knows(self, seat: int, position: int) -> bool:
        have = self.published.get(position, ())
        return all(t in have for t in range(self.players) if t != seat)

    def is_public(self, position: int) -> bool:
        return len(self.published.get(position, ())) == self.players

    def keys_needed(self, audiences: dict[int, set[int] | None]) -> dict[int, list[int]]:
        """For each seat, the positions whose key it must publish so that each
        position p reaches ``audiences[p]`` (a set of seats; None: everybody)."""
        need: dict[int, list[int]] = {t: [] for t in range(self.players)}
        for position in sorted(audiences):
            viewers = audiences[position]
            have = self.published.get(position, set())
            for t in range(self.players):
                if t in have:
                    continue
                # A seat never publishes a key only it would need.
                if viewers is None or any(v != t for v in viewers):
                    need[t].append(position)
        return {t: ps for t, ps in need.items() if ps}


def view_tokens(game: Game, state, players: int) -> tuple[set[str], ...]:
    """The tokens in the public view, then in each seat's view, of ``state``.
    States are never changed in place, so the last state's are kept: a keys
    entry that shows a card to one seat only leaves the state as it was.

    A seat's view differs from the public one in a few fields (its hand): the
    tokens of a field equal to the public view's are the public field's,
    found once (comparing is done in C, walking in Python; a field the engine
    shares between the views, ``Game.views``, is the same object)."""
    global _last_views
    last = _last_views
    if last is not None and last[0] is game and last[1] is state and len(last[2]) == players + 1:
        return last[2]
    public, *views = game.views(state, players)
    if isinstance(public, dict) and all(isinstance(view, dict) for view in views):
        # The fields every seat's view has as the public one has them are walked
        # together, once; the others field by field.
        get = public.get
        apart = {key for view in views for key, value in view.items()
                 if value is not get(key, _MISSING) and (key not in public or not _same(value, public[key]))}
        apart.update(key for key in public if any(key not in view for view in views))
        common = tokens_in([value for key, value in public.items() if key not in apart])
        by_field = {key: tokens_in(public[key]) for key in apart if key in public}
        tokens = [common.union(*by_field.values())]
        for view in views:
            found = set(common)
            for key in apart:
                if key in view:
                    value = view[key]
                    found |= by_field[key] if key in by_field and _same(value, public[key]) else tokens_in(value)
            tokens.append(found)
    elif isinstance(public, dict):
        by_field = {key: tokens_in(value) for key, value in public.items()}
        tokens = [set().union(*by_field.values())]
        for view in views:
            if not isinstance(view, dict):
                tokens.append(tokens_in(view))
                continue
            found: set[str] = set()
            for key, value in view.items():
                if key in by_field and _same(value, public[key]):
                    found |= by_field[key]
                else:
                    found |= tokens_in(value)
            tokens.append(found)
    else:
        tokens = [tokens_in(public), *(tokens_in(view) for view in views)]
    result = tuple(tokens)
    _last_views = (game, state, result)
    return result


def _same(a, b) -> bool:
    """Equal, with the same tokens: ``==`` of views (plain data); a value that
    cannot be compared is taken as different (its tokens are then walked)."""
    try:
        return a is b or (type(a) is type(b) and a == b)
    except Exception:
        return False


_last_views: tuple | None = None
_MISSING = object()


def reveal_audiences(game: Game, state, players: int, book: KeyBook) -> dict[int, set[int] | None]:
    """The positions that must be shown now, and to whom: every token in the
    public view (None: to all), and every token in a seat's own view that the
    seat has not been shown yet."""
    audiences: dict[int, set[int] | None] = {}
    public, *seats = view_tokens(game, state, players)
    published = book.published
    for token in public:
        position = unknown_position(token)
        if not book.is_public(position):
            audiences[position] = None
    for seat, tokens in enumerate(seats):
        # A token of the public view is shown to all or due to all already.
        for token in tokens - public if public else tokens:
            position = unknown_position(token)
            if position in audiences:
                continue
            have = published.get(position, ())
            if len(have) - (seat in have) == players - 1:
                continue  # every other seat's key is public: the seat knows it (KeyBook.knows)
            audiences[position] = {seat}
    return audiences


def public_form(game: Game, public_state, action: dict, seat: int, known: dict[int, str]) -> tuple[dict, list[int | None]]:
    """The action as it goes on the wire, from the actor's own action.

    Face-up cards stay codes; each is matched either to a card already public
    in the actor's hand (position None) or to one of the actor's hidden
    positions holding that code, which the action then shows. Cards of a
    face-down action become the tokens of their positions. Returns the public
    action and the position of each card (None where nothing is shown).
    """
    cards = action.get("cards")
    if not isinstance(cards, list):
        return dict(action), []
    hand = list(game.hand(public_state, seat))
    face_down = action.get("type") in game.face_down_actions
    public_cards: list[str] = []
    positions: list[int | None] = []
    for code in cards:
        if is_unknown(code):
            if code not in hand:
                raise IllegalAction(N_("{code} is not in your hand", code=code))
            hand.remove(code)
            public_cards.append(code)
            positions.append(unknown_position(code))
            continue
        match = next(
            (t for t in hand if is_unknown(t) and known.get(unknown_position(t)) == code),
            None,
        )
        # Face up, a card everybody already knows is in the hand shows nothing
        # new; face down, a hidden one keeps the secret. Otherwise the other.
        if code in hand and (not face_down or match is None):
            hand.remove(code)
            public_cards.append(code)
            positions.append(None)
            continue
        if match is None:
            raise IllegalAction(not_held(code))
        hand.remove(match)
        public_cards.append(match if face_down else code)
        positions.append(unknown_position(match))
    public = dict(action)
    public["cards"] = public_cards
    return public, positions


def shown_by(action: dict, positions: list[int | None]) -> dict[int, str]:
    """The positions a public action shows, with the codes it claims for them."""
    cards = action.get("cards") or []
    return {p: c for p, c in zip(positions, cards) if p is not None and is_code(c)}


def check_positions(game: Game, public_state, action: dict, positions, seat: int) -> None:
    """Refuse an action whose positions are not hidden cards of the actor's
    hand, or don't line up with its cards (IllegalAction)."""
    cards = action.get("cards")
    if cards is None:
        if positions:
            raise IllegalAction(N_("positions given for an action that moves no card"))
        return
    if not isinstance(cards, list) or not isinstance(positions, list) or len(positions) != len(cards):
        raise IllegalAction(N_("each card of the action needs its position (or none)"))
    hand = list(game.hand(public_state, seat))
    for card, position in zip(cards, positions):
        if position is None:
            if is_unknown(card):
                raise IllegalAction(N_("card {card} is face down: its position must be named", card=card))
            continue
        if not isinstance(position, int) or isinstance(position, bool):
            raise IllegalAction(N_("position {position} is not a number", position=repr(position)))
        token = unknown(position)
        if token not in hand:
            raise IllegalAction(N_("position {position} is not a hidden card of seat {seat}'s hand",
                                   position=position, seat=seat))
        if is_unknown(card) and card != token:
            raise IllegalAction(N_("card {card} does not match position {position}", card=card, position=position))
        hand.remove(token)


def seat_state(public_state, private: dict[int, str]):
    """A seat's own state: the public state with the cards it has seen."""
    if not private:
        return public_state
    return substitute(public_state, {unknown(p): c for p, c in private.items()})
