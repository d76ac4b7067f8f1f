"""The seat session: everything the terminal table needs from one seat of a game.

The UI never touches the network, the log or the dealing protocol; it talks
to a :class:`SeatSession`. ``p2pcards.protocol.driver`` implements it for a networked
seat; :class:`LocalSession` here implements it with the rules engine and
in-process bots (development, tests, and a fallback with no network).

Threading: the UI runs prompt-toolkit on asyncio with trio in guest mode, both
on one thread. The synchronous methods below are called from the UI's asyncio
callbacks, i.e. *outside* trio's context: they must only read state and must
not call trio functions (no ``trio.current_time()``; that is why
``turn_deadline`` is compared with the trio clock by the UI's own ticker task).
The ``async`` methods are called inside trio.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from p2pcards.games import Game, IllegalAction, get_game
from p2pcards.games.base import Match
from p2pcards.i18n import _
from p2pcards.protocol.narration import describe
from p2pcards.ui.wording import is_you, with_own_cards, you

if TYPE_CHECKING:  # trio and the bots are imported where a LocalSession uses them: the replay needs neither
    from p2pcards.bots.strong.arena import SeatViews

# The phases of ``match_info()["phase"]``.
PHASE_DEALING = "dealing"   # no deal to show yet: shuffling / dealing in progress
PHASE_PLAYING = "playing"   # a deal is in progress
PHASE_BETWEEN = "between"   # a deal just ended; its result is in "last_deal"
PHASE_OVER = "over"         # the match has ended; "result" holds the outcome
PHASE_ABORTED = "aborted"   # the game stopped (cheating detected, peer lost); "reason" says why


@runtime_checkable
class SeatSession(Protocol):
    """One seat (or a spectator) at a table, as the terminal UI sees it."""

    game: Game                 # the rules engine, ``p2pcards.games.get_game(id)``
    seat: int | None           # this player's seat; None for a spectator
    names: list[str]           # per seat
    fingerprints: list[str]    # per seat, short key fingerprints ("" where there is none)
    options: dict              # the agreed rules options

    def view(self) -> dict | None:
        """``game.view(state, seat)`` of the deal in progress, or of the deal
        that just ended while the phase is "between"/"over"; None while there
        is no deal to show (before the first deal, during dealing)."""

    def match_info(self) -> dict:
        """The match around the deal::

            {"phase": one of the PHASE_* strings,
             "deal_index": int,               # 0-based index of the current/last deal
             "scores": [int per side],        # match totals
             "chips": [int per seat] | None,  # chip games (warkocz, bura)
             "bank": int,
             "target": int | None,            # score that ends the match, if any
             "last_deal": dict | None,        # game.deal_scores() of the last finished deal
             "result": dict | None,           # game.match_result() once over
             "reason": str | None}            # why an aborted game stopped
        """

    def legal_actions(self) -> list[dict]:
        """Every legal action of this seat now; [] unless this seat must act."""

    def to_act(self) -> int | None:
        """The seat that must act now, None when nobody (between deals, over)."""

    def hint(self) -> dict | None:
        """The greedy bot's choice for this seat now; None unless it must act."""

    async def act(self, action: dict) -> None:
        """Play ``action``. Raises ``IllegalAction(message)`` if the rules (or
        the turn) refuse it; nothing changes then and the player may retry."""

    async def chat(self, text: str) -> None:
        """Say something to the table; it appears in everybody's ``last_moves``."""

    async def ready(self) -> None:
        """This player has seen the deal's result and wants the next deal.
        A session may also go on by itself after a pause."""

    def peer_status(self) -> dict[int, str]:
        """Per other seat: "connected", "bot", "reconnecting (12 s)", "left"."""

    def turn_deadline(self) -> float | None:
        """The ``trio.current_time()`` by which the seat to act must act; between
        deals, when the next deal starts by itself; None if there is no limit."""

    def last_moves(self) -> list[str]:
        """Human-readable recent moves, deal results and chat lines ("Name:
        text"), oldest first; card codes in them (KH) are drawn as cards."""

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (no arguments, from trio, must not block) after
        every change worth a redraw; returns a function that unsubscribes."""

    def finished_deals(self) -> list:
        """Every deal played to its end, oldest first, as
        ``FinishedDeal`` (the score sheets' source)."""


@dataclasses.dataclass
class FinishedDeal:
    """A deal as it ended, as a session saw it."""

    number: int                      # 1-based
    scores: dict                     # game.deal_scores() of the final state
    hands: list[list[str]] | None    # every seat's cards at the end, None if not known
    match_scores: list[int]          # match totals after this deal, per side
    match_chips: list[int] | None    # per seat, chip games
    bank: int = 0                    # the bank after the deal
    bank_won: int = 0                # what the deal's winner took from the bank as the match ended


def final_hands(game, state) -> list[list[str]] | None:
    """Every seat's hand in a state where every card is known."""
    try:
        return [list(game.view(state, seat).get("hand") or []) for seat in range(state.players)]
    except Exception:  # a state the engine cannot show: the sheet goes without hands
        return None


class Notifier:
    """The subscriber list behind ``SeatSession.subscribe``; sessions reuse it."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], None]] = []

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return unsubscribe

    def notify(self) -> None:
        for callback in list(self._callbacks):
            callback()


def seat_name(names: list[str], seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(names):
        return _("nobody")
    return names[seat]


def deal_summary(game: Game, names: list[str], options: dict, deal_scores: dict) -> str:
    """One line for the log: who scored what in a finished deal."""
    players = len(names)
    sides = deal_scores.get("sides") or deal_scores.get("seats") or []
    if game.sides(players, options) != players:
        parts = [
            " + ".join(names[s] for s in range(players) if game.side_of(s, players, options) == side)
            + f" {points:+d}"
            for side, points in enumerate(sides)
        ]
    else:
        parts = [f"{names[s]} {points:+d}" for s, points in enumerate(deal_scores.get("seats") or sides)]
    if not game.match_points:  # a deal's results are chips
        # Translators: a finished deal in the log: "deal over: Ada +20, Bolek -10 chips".
        return _("deal over: {scores} chips").format(scores=", ".join(parts))
    return _("deal over: {scores}").format(scores=", ".join(parts))


class LocalSession:
    """A seat at a table of in-process bots, no network: the rules engine
    itself is the table. Deals follow one another through the match hooks
    exactly as on the network; bots think for ``bot_delay`` seconds.

    ``turn_time``: seconds the human has per move (None: unlimited); when it
    runs out the greedy bot plays that move for them, as a note in the log says.
    ``pause``: seconds between deals before the next one starts by itself
    (``ready()`` starts it at once; None waits for ``ready()``).
    """

    def __init__(
        self,
        game_id: str,
        players: int = 2,
        *,
        seat: int | None = 0,
        names: list[str] | None = None,
        bots: str | list[str] = "greedy",
        seed=None,
        options: dict | None = None,
        bot_delay: float = 0.8,
        pause: float | None = 8.0,
        turn_time: float | None = None,
        max_deals: int | None = None,
        history: int = 200,
    ):
        import trio
        from p2pcards.bots import Bot

        self.game = get_game(game_id)
        self.game.check_players(players)
        self.players = players
        self.seat = seat
        self.names = list(names) if names else self._default_names(players, seat)
        if len(self.names) != players:
            raise ValueError(f"{players} names needed, got {len(self.names)}")
        self.fingerprints = ["" for _ in range(players)]
        self.seed = seed if seed is not None else random.randrange(1 << 30)
        self.match: Match = self.game.new_match(players, options, seed=self.seed)
        self.options = self.match.options
        strategies = [bots] * players if isinstance(bots, str) else list(bots)
        self.bots = {
            s: Bot(strategies[s], seed=f"{self.seed}:{s}") for s in range(players) if s != seat
        }
        self._hint_bot = Bot("greedy", seed=f"{self.seed}:hint")
        self.bot_delay = bot_delay
        self.pause = pause
        self.turn_time = turn_time
        self.max_deals = max_deals
        self._state = None
        self._views: SeatViews | None = None  # what each bot's seat knows of the deal
        self._phase = PHASE_DEALING
        self._last_deal: dict | None = None
        self._deadline: float | None = None
        self._moves: list[str] = []
        self._finished: list[FinishedDeal] = []
        self._history = history
        self._notifier = Notifier()
        self._wake = trio.Event()
        self._ready = False
        self._hint_cache: tuple[int, dict | None] | None = None
        self._version = 0

    @staticmethod
    def _default_names(players: int, seat: int | None) -> list[str]:
        bot_names = iter(["Ada", "Bolek", "Cili", "Dorka", "Emil", "Franek"])
        return [you() if s == seat else next(bot_names) for s in range(players)]

    # ----- reading -----------------------------------------------------------
    def view(self) -> dict | None:
        if self._state is None:
            return None
        return self.game.view(self._state, self.seat)

    def match_info(self) -> dict:
        m = self.match
        return {
            "phase": self._phase,
            "deal_index": m.deal_index if self._phase == PHASE_PLAYING else max(m.deal_index - 1, 0),
            "scores": list(m.scores),
            "chips": list(m.chips) if m.chips is not None else None,
            "bank": m.bank,
            "target": m.options.get("target"),
            "last_deal": self._last_deal,
            "result": self.game.match_result(m) if self._phase == PHASE_OVER else None,
            "reason": None,
        }

    def to_act(self) -> int | None:
        if self._phase != PHASE_PLAYING:
            return None
        return self.game.to_act(self._state)

    def legal_actions(self) -> list[dict]:
        if self.seat is None or self.to_act() != self.seat:
            return []
        return self.game.legal_actions(self._state)

    def hint(self) -> dict | None:
        if self.seat is None or self.to_act() != self.seat:
            return None
        # The greedy bot may be slow-ish and the UI asks at every keystroke of
        # "hint"; one answer per state is enough.
        if self._hint_cache is None or self._hint_cache[0] != self._version:
            self._hint_cache = (self._version, self._hint_bot.choose(self.game, self._state))
        return self._hint_cache[1]

    def peer_status(self) -> dict[int, str]:
        return {s: "bot" for s in self.bots}

    def turn_deadline(self) -> float | None:
        return self._deadline

    def last_moves(self) -> list[str]:
        return list(self._moves)

    def finished_deals(self) -> list[FinishedDeal]:
        return list(self._finished)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return self._notifier.subscribe(callback)

    # ----- acting ------------------------------------------------------------
    async def act(self, action: dict) -> None:
        import trio

        await trio.lowlevel.checkpoint()
        if self.seat is None:
            raise IllegalAction(_("spectators do not play"))
        if self._phase != PHASE_PLAYING:
            raise IllegalAction(_("no deal is being played now"))
        who = self.game.to_act(self._state)
        if who != self.seat:
            raise IllegalAction(_("it is not your turn: {name} is to play").format(name=seat_name(self.names, who)))
        self._apply(self.seat, action)

    async def chat(self, text: str) -> None:
        import trio

        await trio.lowlevel.checkpoint()
        self._log(f"{seat_name(self.names, self.seat)}: {text}")
        self._changed()

    async def ready(self) -> None:
        import trio

        await trio.lowlevel.checkpoint()
        self._ready = True
        self._changed()

    def _apply(self, seat: int, action: dict, note: str = "") -> None:
        before = self._state
        self._state = self.game.apply(self._state, action)  # IllegalAction leaves everything as it was
        self._views.played(seat, action)
        me = self.seat if is_you(seat_name(self.names, self.seat)) else None  # "You draw", not "You draws"
        line = describe(self.game, before, seat, action, self.names, me=me)
        if seat == self.seat:
            drawn = Counter(self.game.view(self._state, seat).get("hand") or []) - \
                Counter(self.game.view(before, seat).get("hand") or [])
            line = with_own_cards(line, self.seat, seat, action, sorted(drawn.elements()))
        self._log(line + note)
        self._changed()

    def _log(self, line: str) -> None:
        self._moves.append(line)
        del self._moves[: -self._history]

    def _changed(self) -> None:
        self._version += 1
        self._wake.set()
        self._notifier.notify()

    async def _wait_change(self, deadline: float | None = None) -> None:
        """Until something changes (a move, ready) or the deadline passes."""
        import trio

        self._wake = trio.Event()
        with trio.move_on_at(deadline if deadline is not None else math.inf):
            await self._wake.wait()

    # ----- the table ---------------------------------------------------------
    def _begin_deal(self) -> None:
        """The next deal dealt: the table's state and what each seat knows of it."""
        from p2pcards.bots.strong.arena import SeatViews, deal_deck

        deck = deal_deck(self.game, self.match)
        self._views = SeatViews(self.game, self.match, deck)
        self._state = self.game.start_deal(self.match, deck=list(deck))
        self._phase = PHASE_PLAYING

    async def run(self) -> None:
        """Play the match to its end (or to ``max_deals``); then return."""
        deals = 0
        while not self.game.match_over(self.match):
            self._begin_deal()
            dealer = seat_name(self.names, self.match.dealer)
            number = self.match.deal_index + 1
            self._log(_("deal {number}: You deal").format(number=number) if is_you(dealer) else
                      _("deal {number}: {name} deals").format(number=number, name=dealer))
            self._changed()
            await self._play_deal()
            self._last_deal = self.game.deal_scores(self._state)
            self.match = self.game.end_deal(self.match, self._state)
            self._finished.append(FinishedDeal(
                len(self._finished) + 1, self._last_deal, final_hands(self.game, self._state),
                list(self.match.scores), list(self.match.chips) if self.match.chips is not None else None,
                self.match.bank, self.match.bank_won()))
            self._log(deal_summary(self.game, self.names, self.options, self._last_deal))
            deals += 1
            if self.game.match_over(self.match) or (self.max_deals is not None and deals >= self.max_deals):
                break
            self._phase = PHASE_BETWEEN
            self._ready = False
            self._changed()
            await self._between_deals()
        self._phase = PHASE_OVER if self.game.match_over(self.match) else PHASE_BETWEEN
        if self._phase == PHASE_OVER:
            self._log(_("the match is over"))
        self._changed()

    async def _play_deal(self) -> None:
        import trio

        while not self.game.deal_over(self._state):
            who = self.game.to_act(self._state)
            if who == self.seat:
                self._deadline = trio.current_time() + self.turn_time if self.turn_time else None
                self._changed()
                state = self._state
                # Chat and other changes wake us too; only a move ends the wait.
                while self._state is state:
                    await self._wait_change(self._deadline)
                    if self._state is state and self._deadline is not None and trio.current_time() >= self._deadline:
                        action = self._hint_bot.choose(self.game, self._state)
                        self._apply(who, action, " " + _("(time ran out: the bot played)"))
                self._deadline = None
            else:
                self._deadline = trio.current_time() + self.bot_delay if self.bot_delay else None
                self._changed()
                await trio.sleep(self.bot_delay)
                self._deadline = None
                await self._bot_move(who)

    async def _bot_move(self, who: int) -> None:
        import trio

        try:
            # A bot sees only its own seat, as at a network table; it thinks in
            # a thread so that the screen stays live (the strong bot takes a second).
            mine = self._views.seat_state(who)
            action = await trio.to_thread.run_sync(self.bots[who].choose, self.game, mine)
            self._apply(who, action)
        except Exception as exc:
            # A broken bot must not end the human's game: it plays at random instead.
            fallback = random.Random(f"{self.seed}:{self._version}").choice(self.game.legal_actions(self._state))
            self._apply(who, fallback, " " + _("(bot error {error}: played at random)").format(error=type(exc).__name__))

    async def _between_deals(self) -> None:
        import trio

        deadline = trio.current_time() + self.pause if self.pause is not None else None
        self._deadline = deadline
        while not self._ready and (deadline is None or trio.current_time() < deadline):
            await self._wait_change(deadline)
        self._deadline = None
