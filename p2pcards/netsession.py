"""The terminal table's seat session (``p2pcards.ui.session.SeatSession``)
for a seat at a network table: what the screen shows comes from this seat's
``TablePeer``; the moves the player types go to it through ``decide``."""

from __future__ import annotations

import trio

from p2pcards.bots import Bot
from p2pcards.games import IllegalAction, NeedReveal, get_game
from p2pcards.machine import ABORT, ACTION, END, REVEAL, SHUFFLE
from p2pcards.ui.commands import describe
from p2pcards.ui.session import (
    PHASE_ABORTED, PHASE_BETWEEN, PHASE_DEALING, PHASE_OVER, PHASE_PLAYING, Notifier, deal_summary, seat_name,
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
        self._actions_send, self._actions_recv = trio.open_memory_channel(1)
        self._waiting = False
        self._hint_bot = Bot("greedy", seed="hint")
        self._hint: tuple[int, dict | None] | None = None

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
        if machine.aborted or machine.stopped:
            phase = PHASE_ABORTED
        elif machine.finished:
            phase = PHASE_OVER
        elif machine.state is None:
            phase = PHASE_BETWEEN if self._deals_done else PHASE_DEALING
        else:
            phase = PHASE_PLAYING
        reason = None
        if machine.aborts:
            accusation = machine.aborts[0][1]
            reason = f"{accusation.kind}: {accusation.detail}"
        elif machine.stopped:
            seat = machine.silences[-1].seat
            reason = (f"seat {seat} stopped answering, and too few players confirm it to blame anyone: "
                      "the game stops here")
        return {
            "phase": phase,
            "deal_index": machine.deal.index,
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
            self._hint = (seq, self._hint_bot.choose(self.game, self.peer.driver.my_state()))
        return self._hint[1]

    async def act(self, action: dict) -> None:
        await trio.lowlevel.checkpoint()
        if self.seat is None:
            raise IllegalAction("spectators do not play")
        if self.peer is None or not self._waiting:
            who = self.to_act()
            raise IllegalAction("it is not your turn" + (f": {seat_name(self.names, who)} is to play" if who is not None else ""))
        try:
            self.game.apply(self.peer.driver.my_state(), action)  # the engine's reason, before anything is sent
        except NeedReveal:
            pass
        try:
            self._actions_send.send_nowait(action)
        except trio.WouldBlock:
            raise IllegalAction("your move is already on its way") from None

    async def chat(self, text: str) -> None:
        if self.peer is None:
            raise IllegalAction("nobody to talk to yet")
        await self.peer.chat(text)

    async def ready(self) -> None:
        await trio.lowlevel.checkpoint()  # the network table deals on by itself

    def peer_status(self) -> dict[int, str]:
        if self.peer is None:
            return {}
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
                out[seat] = f"reconnecting ({int(now - status.since)} s)"
        return out

    def turn_deadline(self) -> float | None:
        if self.peer is None or self.peer.machine.finished:
            return None
        return self.peer.turn_deadline()

    def last_moves(self) -> list[str]:
        return list(self._moves)

    def subscribe(self, callback):
        return self._notifier.subscribe(callback)

    # ----- the log, in words
    def _catch_up(self) -> None:
        """Lines for the entries taken in since last time."""
        log = self.peer.driver.log
        machine = self.peer.machine
        if self._seen > len(log):
            self._seen = len(log)  # an abort replaced entries
        for entry in log.entries[self._seen:]:
            self._line_for(entry, machine)
        self._seen = len(log)
        done = [d for d in machine.deals if d.scores is not None]
        while self._deals_done < len(done):
            deal = done[self._deals_done]
            self._last_deal = deal.scores
            self._say(deal_summary(self.game, self.names, self.options, deal.scores))
            self._deals_done += 1
        for seat, text in self.peer.chat_seen:
            self._say(f"{seat_name(self.names, seat)}: {text}")
        self.peer.chat_seen.clear()

    def _line_for(self, entry, machine) -> None:
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        if entry.kind == ACTION:
            action = payload.get("action", {})
            state = machine.state if machine.state is not None else None
            try:
                self._say(describe(self.game, state, entry.author, action, self.names))
            except Exception:  # a line of history must never break the screen
                self._say(f"{seat_name(self.names, entry.author)} played")
        elif entry.kind == SHUFFLE and entry.author == 0:
            self._say(f"deal {payload.get('deal', 0) + 1}: shuffling (every player in turn, with proofs)")
        elif entry.kind == ABORT:
            culprit = payload.get("culprit")
            self._say(f"GAME STOPPED by {seat_name(self.names, entry.author)}: {payload.get('kind')}"
                      + (f" by {seat_name(self.names, culprit)}" if isinstance(culprit, int) else "")
                      + f": {payload.get('detail')}")
        elif entry.kind == REVEAL and entry.author == 0:
            self._say("the deal is over: every player reveals its keys")
        elif entry.kind == END:
            self._say("the match is over; the log is signed by " + ", ".join(
                seat_name(self.names, s) for s, sig in enumerate(entry.signature) if sig is not None))

    def _say(self, line: str) -> None:
        self._moves.append(line)
        del self._moves[:-HISTORY]
