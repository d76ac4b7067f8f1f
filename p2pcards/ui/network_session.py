"""The terminal table's seat session (``p2pcards.ui.session.SeatSession``)
for a seat at a network table: what the screen shows comes from this seat's
``TablePeer``; the moves the player types go to it through ``decide``."""

from __future__ import annotations

import random
from collections import Counter, deque

import trio

from p2pcards.bots.strong import DEFAULT_THINK, reason, search
from p2pcards.cards import is_code
from p2pcards.games import IllegalAction, NeedReveal, get_game
from p2pcards.i18n import _, ngettext, worded
from p2pcards.protocol.machine import ACTION, REVEAL
from p2pcards.protocol.narration import abort_kind, narrate_entry, pause_status, told_at_table
from p2pcards.ui.render import fmt_clock
from p2pcards.ui.wording import with_own_cards
from p2pcards.ui.session import (
    PHASE_ABORTED, PHASE_BETWEEN, PHASE_DEALING, PHASE_OVER, PHASE_PLAYING, FinishedDeal, Notifier, deal_summary,
    final_hands, seat_name,
)

HISTORY = 200


class NetworkSession:
    def __init__(self, game_id: str | None, seat: int | None = None, names: list[str] | None = None):
        # A joiner learns the game with the table: then ``attach`` sets it.
        self.game = get_game(game_id) if game_id else None
        self.seat = seat
        self.names: list[str] = list(names or [])
        self.fingerprints: list[str] = []
        self.options: dict = {}
        self.peer = None
        self._notifier = Notifier()
        self._moves: list[str] = []
        self._seen = 1  # log entries already turned into lines
        self._last_view: dict | None = None
        self._last_deal: dict | None = None
        self._deals_done = 0
        self._finished: list[FinishedDeal] = []
        self._said = 0  # lines said so far (``_moves`` keeps the last HISTORY)
        self._sent: list[dict] = []  # my moves on their way to the log, as I typed them (cards I know)
        self._my_draw: tuple[int, list[str]] | None = None  # (line number, hand before) of my draw
        self._told: deque[tuple[int, bytes]] = deque(maxlen=64)  # (seq, hash) of the latest entries told
        self._actions_send, self._actions_recv = trio.open_memory_channel(1)
        self._waiting = False
        self._hint: tuple[int, dict | None] | None = None
        self.hint_why: str | None = None  # the hint's reason, for the player

    # ----- wiring (runner callbacks)
    def attach(self, peer) -> None:
        from p2pcards.net import fingerprint

        self.peer = peer
        self.game = peer.machine.game
        table = peer.driver.log.table
        self.seat = peer.seat
        self.names = [p.name for p in table.players]
        self.fingerprints = [fingerprint(p.key) for p in table.players]
        self.options = dict(peer.machine.match.options)
        self.changed()

    def changed(self) -> None:
        if self.peer is not None:
            self._catch_up()
        self._notifier.notify()

    async def decide(self, peer) -> dict:
        """The player's move (TablePeer asks when this seat must act)."""
        while True:  # a move typed just as the client played for me is stale now
            try:
                self._actions_recv.receive_nowait()
            except trio.WouldBlock:
                break
        self._waiting = True
        self._notifier.notify()
        try:
            return await self._actions_recv.receive()
        finally:
            self._waiting = False
            self._notifier.notify()

    # ----- what the screen reads
    @property
    def _machine(self):
        return None if self.peer is None else self.peer.machine

    def view(self) -> dict | None:
        machine = self._machine
        if machine is None:
            return None
        if machine.state is not None:
            view = self.peer.driver.me.view(machine)
            self._last_view = view
            return view
        return self._last_view

    def match_info(self) -> dict:
        machine = self._machine
        if machine is None:
            return {"phase": PHASE_DEALING, "deal_index": 0, "scores": [], "chips": None, "bank": 0,
                    "target": None, "last_deal": None, "result": None, "reason": None}
        match = machine.match
        stop_reason = getattr(self.peer, "stop_reason", None)  # a seat that gave up (a spectator never does)
        if machine.aborted or machine.stopped or stop_reason is not None:
            phase = PHASE_ABORTED
        elif machine.finished:
            phase = PHASE_OVER
        elif machine.state is None:
            phase = PHASE_BETWEEN if self._deals_done else PHASE_DEALING
        else:
            phase = PHASE_PLAYING
        # Between deals (and at the end) the deal shown is the one just over, not the one being shuffled.
        deal_index = machine.deal.index if phase in (PHASE_PLAYING, PHASE_DEALING) or not self._finished \
            else self._finished[-1].number - 1
        reason = None
        if machine.aborts:
            accusation = machine.aborts[0][1]
            reason = f"{abort_kind(accusation.kind)}: {worded(accusation.detail)}"
        elif stop_reason is not None:
            reason = stop_reason
        elif machine.stopped:
            seat = machine.silences[-1].seat
            reason = _("seat {seat} stopped answering, and too few players confirm it to blame anyone: "
                       "the game stops here").format(seat=seat)
        return {
            "phase": phase,
            "deal_index": deal_index,
            "deals_go_on": True,  # the table deals on by itself: nobody types next
            "scores": list(match.scores),
            "chips": list(match.chips) if match.chips is not None else None,
            "bank": match.bank,
            "target": match.options.get("target"),
            "last_deal": self._last_deal,
            "result": machine.game.match_result(match) if machine.finished else None,
            "reason": reason,
        }

    def to_act(self) -> int | None:
        machine = self._machine
        if machine is None or machine.finished or machine.state is None:
            return None
        want = machine.expect()
        return want.author if want.kind == ACTION else None

    def legal_actions(self) -> list[dict]:
        if self.peer is None or not self._waiting:
            return []
        return self.peer.driver.legal_actions()

    def hint(self) -> dict | None:
        if self.peer is None or not self._waiting:
            return None
        seq = self.peer.driver.log.next_seq
        if self._hint is None or self._hint[0] != seq:
            # The strong bot, within its time budget, on this seat's own state.
            state = self.peer.driver.my_state()
            decision = search(self.game, state, random.Random(f"hint:{seq}"), seconds=DEFAULT_THINK)
            self._hint = (seq, decision.action)
            self.hint_why = reason(self.game, state, decision)
        return self._hint[1]

    async def act(self, action: dict) -> None:
        await trio.lowlevel.checkpoint()
        if self.seat is None:
            raise IllegalAction(_("spectators do not play"))
        if self.peer is None or not self._waiting:
            who = self.to_act()
            if who is None:
                raise IllegalAction(_("it is not your turn"))
            raise IllegalAction(_("it is not your turn: {name} is to play").format(name=seat_name(self.names, who)))
        try:
            self.game.apply(self.peer.driver.my_state(), action)  # the engine's reason, before anything is sent
        except NeedReveal:
            pass
        try:
            self._actions_send.send_nowait(action)
        except trio.WouldBlock:
            raise IllegalAction(_("your move is already on its way")) from None
        self._sent = (self._sent + [action])[-4:]

    async def leave(self) -> None:
        """Quitting during the game: the others are told, and wait for a return."""
        if self.peer is not None and not (self.peer.machine.finished or self.peer.machine.aborted):
            await self.peer.leave()

    async def chat(self, text: str) -> None:
        if self.peer is None:
            raise IllegalAction(_("nobody to talk to yet"))
        await self.peer.chat(text)

    async def ready(self) -> None:
        await trio.lowlevel.checkpoint()  # the network table deals on by itself

    def peer_status(self) -> dict[int, str]:
        if self.peer is None:
            return {}
        if self.peer.machine.finished or self.peer.machine.aborted:
            # The table has closed its connections: nobody is coming back.
            return {s: "blamed" for s in self.peer.machine.excluded}
        now = trio.current_time()
        out = {}
        for seat, status in self.peer.mesh.peer_status().items():
            if seat in self.peer.machine.excluded:
                out[seat] = "blamed"
            elif status.connected:
                out[seat] = "connected"
            elif status.epoch == 0:
                out[seat] = "connecting"
            else:
                out[seat] = self._away_words(seat, self._back_by(seat, status.since) - now)
        return out

    def _away_words(self, seat: int, left: float) -> str:
        """Beside the name of a player whose connection is down: how long the table still waits."""
        clock = fmt_clock(left)
        # Translators: a player's connection beside their name; {clock}: the time left, 1:23.
        return (_("left ({clock} to come back)").format(clock=clock) if seat in self.peer.left_on_purpose
                else _("reconnecting ({clock} left)").format(clock=clock))

    def _back_by(self, seat: int, since: float | None = None) -> float:
        """Until when the table waits for ``seat``, whose connection is down,
        to come back: its time to come back, and if it is the seat the table
        waits for now, the table's whole wait (the header's clock). The one
        clock of a player gone, beside their name and in the news of it."""
        down = self.peer.down_since.get(seat, trio.current_time() if since is None else since)
        until = down + self.peer.options.rejoin_timeout
        if seat == self.peer.machine.expect().author:
            until = max(until, self.peer.gives_up_at(seat))
        return until

    # ----- pauses (table.md §3a)
    def pause_line(self) -> str | None:
        return None if self._machine is None else pause_status(self._machine, self.names, self.seat)

    def pause_refusal(self) -> str | None:
        """Why this player cannot ask for a pause now (None: they can, on their turn)."""
        if self.peer is None:
            return _("no game yet")
        m = self.peer.machine
        if m.finished or m.aborted:
            return _("the game is over")
        if m.pause is not None:
            return _("a pause is asked for or holds already")
        if m.pauses_asked.get(self.seat, 0) >= m.max_pauses:
            return ngettext("you have asked for your one pause in this match",
                            "you have asked for all your {n} pauses in this match", m.max_pauses).format(n=m.max_pauses)
        return None

    async def ask_pause(self) -> None:
        await trio.lowlevel.checkpoint()
        if self.pause_refusal() is None:
            self.peer.ask_for_pause()

    async def answer_pause(self, yes: bool) -> None:
        await trio.lowlevel.checkpoint()
        if self.peer is not None:
            self.peer.answer_pause(yes)

    async def ask_continue(self) -> None:
        if self.peer is not None:
            await self.peer.ask_to_continue()

    def set_away(self, away: bool) -> None:
        if self.peer is None:
            raise IllegalAction(_("no game yet"))
        self.peer.set_away(away)

    def turn_deadline(self) -> float | None:
        if self.peer is None or self.peer.machine.finished:
            return None
        turn = self.peer.auto_play_at()  # when the player to act runs out of time (their client plays for them)
        if self.to_act() == self.seat and self.peer.auto_play is not None:
            return turn
        # How long the table waits: for a player gone, their time to come back;
        # once our clock has run out, the wait for the others to attest it.
        waited = self.peer.machine.expect().author
        wait = self.peer.turn_deadline() if waited in (None, self.seat) else self.peer.gives_up_at(waited)
        # Everybody sees the clock the player to act sees; the table's extra
        # wait for a silent client (the auto-play margin) shows only after it.
        pause = self.peer.machine.pause
        if waited not in self.peer.down_since and not (pause is not None and pause.held) and trio.current_time() < turn:
            return min(turn, wait)
        return wait

    def last_moves(self) -> list[str]:
        return list(self._moves)

    def finished_deals(self) -> list[FinishedDeal]:
        return list(self._finished)

    def subscribe(self, callback):
        return self._notifier.subscribe(callback)

    # ----- the log, in words
    def _catch_up(self) -> None:
        """Lines for the entries taken in since last time, each read from the
        table as it stood before it (the driver's steps): however many came
        at once, they read as they would have one by one."""
        driver = self.peer.driver
        log, machine = driver.log, driver.machine
        self._forget_replaced(log)
        # Chat said before a move is logged with it: its line goes before the move's.
        unshown = list(self.peer.chat_seen)
        self.peer.chat_seen.clear()
        # Kept steps only: entries older than those (a resume's whole log) are not told.
        steps = [step for step in driver.steps if step.entry.seq >= self._seen]
        # The table after each step: as the next one found it, or as it is now.
        after = [(s.deal_before, s.state_before) for s in steps[1:]] + [(machine.deal.index, machine.state)]
        for step, nxt, (deal_after, state_after) in zip(steps, steps[1:] + [None], after):
            entry = step.entry
            self._tell_deals_over(machine, upto=step.deal_before - 1)  # over before the steps kept (a resume)
            chat = entry.payload.get("chat") if isinstance(entry.payload, dict) else None
            for text in chat if isinstance(chat, list) else []:
                if (entry.author, text) in unshown:
                    unshown.remove((entry.author, text))
                    self._say(f"{seat_name(self.names, entry.author)}: {text}")
            self._line_for(step, machine, deal_after, state_after)
            self._told.append((entry.seq, entry.hash))
            self._name_my_draw(machine, deal_after, state_after)
            if entry.kind == REVEAL and not (nxt is not None and nxt.entry.kind == REVEAL
                                             and nxt.deal_before == step.deal_before):
                self._tell_deals_over(machine, upto=step.deal_before)  # its last reveal scored the deal
        self._seen = len(log)
        self._tell_deals_over(machine)
        for seat, text in unshown:  # said just now, not logged yet
            self._say(f"{seat_name(self.names, seat)}: {text}")
        news, self.peer.table_news = self.peer.table_news, []
        for seat, what in news:
            name = seat_name(self.names, seat)
            wait = fmt_clock(self._back_by(seat) - trio.current_time()) if what != "back" else ""
            self._say({"left": _("{name} left the table; the game waits {clock} for them to come back"),
                       "lost": _("{name}'s connection broke; the game waits {clock} for them to come back"),
                       "back": _("{name} is back")}[what].format(name=name, clock=wait))

    def _forget_replaced(self, log) -> None:
        """Entries told whose place an abort has taken since (they were not
        final yet): the log is told again from the first of those."""
        while self._told and (self._told[-1][0] >= len(log) or log[self._told[-1][0]].hash != self._told[-1][1]):
            self._seen = self._told.pop()[0]
        self._seen = min(self._seen, len(log))

    def _tell_deals_over(self, machine, upto: int | None = None) -> None:
        """Each deal's result once, in order (up to deal ``upto``): a deal is
        scored by its last reveal, before anything of the next deal is told."""
        done = [d for d in machine.deals if d.scores is not None and (upto is None or d.index <= upto)]
        while self._deals_done < len(done):
            deal = done[self._deals_done]
            self._last_deal = deal.scores
            self._finished.append(self._finished_deal(machine, deal))
            self._say(deal_summary(self.game, self.names, self.options, deal.scores))
            self._deals_done += 1

    def _finished_deal(self, machine, deal) -> FinishedDeal:
        """The deal's score sheet data: the match as it stood right after it,
        every hand from the deal's last state (also for a deal over before
        this session began: a resumed game's sheets keep their hands)."""
        position = machine.deals.index(deal)
        after = machine.deals[position + 1].match_before if position + 1 < len(machine.deals) else machine.match
        hands = final_hands(self.game, deal.final_state) if deal.final_state is not None else None
        return FinishedDeal(deal.index + 1, deal.scores, hands, list(after.scores),
                            list(after.chips) if after.chips is not None else None, after.bank, after.bank_won())

    def _name_my_draw(self, machine, deal: int, state) -> None:
        """The card of my last draw named in its line once its keys have shown
        it to me: my hand in ``state``, the table after an entry of ``deal``,
        against my hand before the draw."""
        if self._my_draw is None:
            return
        line, before = self._my_draw
        hand = self._my_hand(machine, deal, state)
        if hand is None:  # that deal is over
            self._my_draw = None
            return
        # Known cards only: the drawn card is a token (?33) until its keys come.
        drawn = sorted(c for c in (Counter(hand) - Counter(before)).elements() if is_code(c))
        at = line - (self._said - len(self._moves))
        if len(drawn) == 1 and 0 <= at < len(self._moves):  # a draw takes one card
            self._moves[at] = with_own_cards(self._moves[at], self.seat, self.seat, None, drawn)
        if drawn:  # one card named, or more: other changes mixed in, so nothing is claimed
            self._my_draw = None

    def _my_hand(self, machine, deal: int, state) -> list | None:
        """My hand as I saw it at ``state`` of ``deal``; None once that deal is over."""
        view = self.peer.driver.me.view_at(machine, deal, state)
        return None if view is None else list(view.get("hand") or [])

    def _cards_that_left_my_hand(self, machine, step, deal_after: int, state_after, action: dict) -> dict | None:
        """``action`` of mine with the cards that left my hand by it, from my
        own view before and after; None where that does not tell them (the
        deal ended with it, or other cards came and went)."""
        cards = action.get("cards") or []
        if cards and all(is_code(c) for c in cards):
            return action  # my cards as the log holds them (a throw the engine shows me in codes)
        if not cards or deal_after != step.deal_before:
            return None
        before = self._my_hand(machine, step.deal_before, step.state_before)
        after = self._my_hand(machine, deal_after, state_after)
        if before is None or after is None:
            return None
        gone = sorted((Counter(before) - Counter(after)).elements())
        if len(gone) != len(cards) or not all(is_code(c) for c in gone):
            return None
        return {**action, "cards": gone}

    def _line_for(self, step, machine, deal_after: int, state_after) -> None:
        entry = step.entry
        if not told_at_table(entry):
            return
        line = narrate_entry(self.game, entry, step.deal_before, step.state_before, self.names, self.seat)
        action = entry.payload.get("action") if entry.kind == ACTION and isinstance(entry.payload, dict) else None
        if entry.author == self.seat and isinstance(action, dict):
            self._my_draw = None  # a move of mine after my draw changes the hand too: no naming
            # My move as I typed it: same kind, same number of cards (the log may show them face down).
            mine = next((a for a in self._sent if a.get("type") == action.get("type")
                         and len(a.get("cards") or []) == len(action.get("cards") or [])), None)
            if mine is not None:
                self._sent.remove(mine)
            else:  # not typed here (a move of before a restart, or played for me): my hand says what went
                mine = self._cards_that_left_my_hand(machine, step, deal_after, state_after, action)
            if mine is not None:
                line = with_own_cards(line, self.seat, entry.author, mine)
            if action.get("type") == "draw":
                hand = self._my_hand(machine, step.deal_before, step.state_before)
                if hand is not None:
                    self._my_draw = (self._said, hand)
        self._say(line)

    def _say(self, line: str) -> None:
        self._said += 1
        self._moves.append(line)
        del self._moves[:-HISTORY]
