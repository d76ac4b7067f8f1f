"""A heuristic player for both canastas (kanasta, kanaszta).

It decides from ``legal_actions`` and what the acting seat's ``view`` shows
(its own hand and the table), so it plays the same with unknown tokens for
every card it cannot see. The plan: take the pile whenever the rules let it
(cards are points and melds), meld natural cards as early as possible, keep wilds back except to open, to make
a canasta or to go out, add only to its own side's melds, keep five cards
back until its side has a canasta (a short hand can neither go out nor, in
kanaszta, take the pile), and discard what
helps nobody: black 3s first, then lone cards of ranks no opponent has melded,
the costliest first, never a wild while anything else will do.
"""

from __future__ import annotations

from functools import partial

WILD_RANKS = ("JK", "2")
GOING_OUT = 10  # going out ends the deal: worth it, but not above building canastas
KEEP = 5  # without a canasta, melds keep at least this many cards in hand
MELD_WILD = 14  # the cost of spending a wild on a new meld once opened


WILD_CODES = frozenset(["JK"] + ["2" + suit for suit in "CDHS"])
THREE_CODES = frozenset("3" + suit for suit in "CDHS")


def _rank(card: str) -> str:
    return "JK" if card == "JK" else card[:-1]


def _is_wild(card: str) -> bool:
    return card in WILD_CODES


def choose(game, state, rng) -> dict:
    return best_scored(game, state, scorer)


def best_scored(game, state, make_scorer) -> dict:
    """The first best legal action by ``make_scorer(game, state)``, the
    score of one action (the search's rollouts run this for every move, so
    it builds no list of scores)."""
    actions = game.legal_actions(state)
    if not actions:
        raise ValueError("no legal action: it is nobody's turn")
    if len(actions) == 1:
        return actions[0]
    score_of = make_scorer(game, state)
    rest = iter(actions)
    best = next(rest)
    best_score = score_of(best)
    for action in rest:
        score = score_of(action)
        if score > best_score:
            best, best_score = action, score
    return best


def scored(game, state, actions=None) -> list[tuple[float, dict]]:
    """(the heuristic's score, action) for every legal action, in the
    engine's order (``choose`` takes the first best); the strong bot's
    search looks first at the actions this ranks highest."""
    if actions is None:
        actions = game.legal_actions(state)
    score_of = scorer(game, state)
    return [(score_of(action), action) for action in actions]


def scorer(game, state):
    """The heuristic's score of one action of this decision."""
    return partial(_score, _Context(game, state))


class _Context:
    """What the scores of one decision's actions read, worked out once: the
    seat's own hand and the table, all of it in the seat's ``view``, read
    straight from the state (building the whole view costs more than the
    scoring)."""

    def __init__(self, game, state):
        seat = game.to_act(state)
        self.game = game
        self.seat = seat
        self.players = state.players
        self.options = state.options
        self.pairs = bool(state.options["pairs"]) and state.players == 4
        self.hand = state.hands[seat]
        self.pile = len(state.pile)
        self.frozen = state.frozen
        self.opened = state.opened
        self.opened_mine = state.opened[game.owner_of(state, seat)]
        self.melds = melds = state.melds  # the engine's, never changed here
        # Melds the seat is glad to feed: its own, or its partner's in pairs
        # (kanaszta melds belong to the side already).
        if game.side_melds:
            side = game.side_of(seat, state.players, state.options)
            self.friendly = [m.owner == side for m in melds]
        elif self.pairs:
            self.friendly = [m.owner % 2 == seat % 2 for m in melds]
        else:
            self.friendly = [m.owner == seat for m in melds]
        self.sizes = [len(m.cards) for m in melds]
        self.friendly_canasta = False
        self.my_ranks = set()
        self.their_ranks = set()
        for m, friendly, size in zip(melds, self.friendly, self.sizes):
            if friendly:
                self.my_ranks.add(m.rank)
                self.friendly_canasta = self.friendly_canasta or size >= 7
            else:
                self.their_ranks.add(m.rank)
        self.counts: dict[str, int] = {}  # rank -> cards of it in hand
        for c in self.hand:
            rank = _rank(c)
            self.counts[rank] = self.counts.get(rank, 0) + 1


def _score(ctx: _Context, action) -> float:
    kind = action["type"]
    if kind == "discard":  # the most frequent: one per card of the hand
        return _discard_score(ctx, action)
    if kind == "red3":
        return 1000
    if kind == "draw":
        return 100
    if kind == "swap":
        return -20
    cards = action.get("cards", [])
    left = len(ctx.hand) - len(cards)
    wilds = sum(map(WILD_CODES.__contains__, cards))
    naturals = len(cards) - wilds
    going_out = GOING_OUT if left == 0 and kind in ("meld", "add") else 0
    if kind == "take_pile":
        # The whole pile for one meld: worth it unless it costs wilds.
        return 200 + 2 * ctx.pile - 15 * wilds + going_out
    if kind in ("meld", "add") and 0 < left < KEEP and not _can_go_out(ctx, action):
        # Without a canasta a short hand is stuck: it can't take the pile
        # (kanaszta: not holding one card) nor go out, so keep cards back.
        return -60
    if kind == "meld":
        score = 20 + 4 * naturals - (4 if not ctx.opened_mine else MELD_WILD) * wilds + going_out
        if len(cards) >= 7:
            score += 40
        if naturals and sum(map(THREE_CODES.__contains__, cards)) == naturals:
            score += 50  # black 3s: only ever offered when going out
        return score
    if kind == "add":
        i = action["meld"]
        if not ctx.friendly[i]:
            return -50 + going_out * 2
        before = ctx.sizes[i]
        # Wilds go where they bring a canasta near; elsewhere they wait.
        per_wild = 3 if before >= 4 else 14
        score = 10 + 4 * naturals - per_wild * wilds + going_out
        if before < 7 <= before + len(cards):
            score += 45  # completes a canasta
        return score
    return -100


def _can_go_out(ctx: _Context, action) -> bool:
    """Does the seat's side hold a canasta (or make one with this action)?"""
    if ctx.friendly_canasta:
        return True
    if action["type"] == "add":
        i = action["meld"]
        return ctx.friendly[i] and ctx.sizes[i] + len(action["cards"]) >= 7
    return action["type"] == "meld" and len(action["cards"]) >= 7


def _discard_score(ctx: _Context, action) -> float:
    card = action["cards"][0]
    if action.get("freeze"):
        return -40  # a wild is worth more in hand than a frozen pile
    if card in WILD_CODES:
        return -30
    rank = card[:-1]  # not a joker
    if rank == "3":
        return 5 if card[-1] in "CS" else -5  # black 3: useless, and a stop card in kanaszta
    score = -2.0 * ctx.counts[rank]  # keep pairs and triples
    if rank in ctx.my_ranks:
        score -= 6
    if rank in ctx.their_ranks:
        score -= 8  # it would let the next player take the pile
    score += ctx.game.value(card) / 20  # shed the costly lone cards
    return score
