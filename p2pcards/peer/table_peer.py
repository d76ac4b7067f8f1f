"""A seat at a table over the network: the seat driver on the peer mesh.

Every entry goes from its author to every player, and every player forwards
the signed messages it sees for the first time (entries, a moment later and
only to seats that have not acknowledged them; end signatures, the end
entry's acknowledgements, silence attestations at once) to the others once
(``peer.relay``): a cut link costs latency, nothing else, while some path
joins the seats. A player that takes an entry in signs an acknowledgement and
sends it to all itself; the others pass acknowledgements on only when asked
(``have``): a seat still missing one of its head half a second after taking
it asks everybody (``_ack_watch``). An entry is *final* once every player
not blamed has acknowledged it, and only final entries are written to the
log file. The author of the next entry waits for that, so two honest players
never build on different entries.

When something is wrong the *referee* speaks: the lowest seat not blamed
(and not the culprit) writes the abort, so there is one abort, not several.
An abort replaces any entry at its place that was not yet final.

Messages between players (``protocol/table.md``)::

    {"t": "entry",  "raw": bytes}            a log entry, as signed
    {"t": "ack",    "ack": bytes}             a signed acknowledgement (p2pcards.protocol.ack)
    {"t": "have",   "next": int}             "send me the entries you hold from here (and the acks from here - 1)"
    {"t": "endsig", "seat": int, "hash": bytes, "sig": bytes}
    {"t": "chat",   "text": str}             shown at once; logged in the author's next entry
    {"t": "silence", "att": bytes}           a signed silence attestation (p2pcards.protocol.silence)
    {"t": "continue"}                        "end your pause" (to the seat whose pause holds)

Silence is attested, never taken on trust: a peer signs an attestation when
its own clock runs out for a seat that owes it something (nothing of it came
by any path); the referee writes
a silence abort only with a strict majority of all seats attesting (or, after
the rejoin timeout, a minority abort that stops the game and convicts
nobody). A peer takes a silence abort only if its own clock ran out too and
it holds nothing of the accused for that place; one that holds the accused's
entry there sends it to all and accuses the accuser instead.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import msgpack
import trio

from p2pcards.peer.ahead import AheadBuffer
from p2pcards.peer.answers import HaveAnswers
from p2pcards.peer.relay import Flood
from p2pcards.games import IllegalAction
from p2pcards.i18n import _
from p2pcards.limits import MAX_AHEAD
from p2pcards.net.messages import printable
from p2pcards.net.ratelog import RateLimitedLog
from p2pcards.protocol import ack, silence
from p2pcards.protocol.evidence import equivocation, misplaced
from p2pcards.protocol.checkpoint import make as make_checkpoint
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.log import END, Entry, LogError, check_size
from p2pcards.protocol.machine import (ABORT, ACTION, FALSE_ACCUSATION, MAX_CHAT, MAX_CHAT_LEN, PAUSE, PAUSE_ASK,
                                       PAUSE_CONTINUE, PAUSE_NO, PAUSE_YES, Violation)

log = logging.getLogger("p2pcards.peer")

LEAVE_FLUSH = 1.0  # seconds a leaving seat gives its goodbye to reach the others
MAX_SILENCE_KEYS = 32  # silence attestations are kept for this many (seat, place, head) at most
SILENCE_AHEAD = 8  # attestations about places up to this far ahead of our log are kept
CHAT_KEPT = 256  # chat lines waiting to be shown, at most
GAP_ASK_INTERVAL = 1.0  # seconds before the same gap is asked for again from the same peer
LINGER = 3.0  # seconds a finished peer stays to help slower ones finish
CHECKPOINT_EVERY = 64  # written entries between two checkpoints (resume replays at most about this many)
END_OFFERS_KEPT = 4  # end signatures kept per seat (for different end bodies), the latest
RELAYED = ("entry", "ack", "endsig", "silence")  # the signed messages peers pass on, some only when asked (table.md §5)
ENTRY_RELAY_DELAY = 1.0  # seconds before an entry is passed on to a seat that has not acknowledged it yet
ACK_WAIT = 0.5  # seconds an acknowledgement of the head may be missing before everybody is asked for it
ACK_ASK_INTERVAL = 1.0  # seconds between two such asks while one is still missing


@dataclass
class PeerOptions:
    turn_timeout: float = 120.0  # a player's move, a key, an acknowledgement
    rejoin_timeout: float = 120.0  # how long a player whose connection broke may take to come back


class PeerHooks:
    """Where test machinery (``p2pcards.testing``: cheats, fault injection)
    plugs into a peer. These defaults do nothing; the peer never imports the
    machinery itself, the command line hands it in."""

    def acking(self, peer: TablePeer, entry: Entry) -> None:
        """This seat is about to acknowledge ``entry``."""

    async def idle(self, peer: TablePeer) -> None:
        """Another seat is to act."""

    async def write(self, peer: TablePeer, due, action) -> bool:
        """This seat's entry is due; True if the hook wrote it (or chose silence)."""
        return False

    async def on_entry(self, peer: TablePeer, entry: Entry) -> bool:
        """An entry came in; True if the hook dealt with it (the peer then ignores it)."""
        return False

    def after_game(self, peer: TablePeer) -> None:
        """The game is over and the log written."""


Decide = Callable[["TablePeer"], Awaitable[dict]]


class TablePeer:
    def __init__(self, driver: SeatDriver, mesh, decide: Decide | None, options: PeerOptions | None = None,
                 on_change: Callable[[], None] | None = None, publish: Callable[[bytes], None] | None = None,
                 backlog: list | None = None, persist: Callable[[bytes | None], None] | None = None,
                 pending: bytes | None = None, hooks: PeerHooks | None = None, auto_play: Decide | None = None,
                 checkpoint: Callable[[bytes], None] | None = None,
                 news: Callable[[int, str], None] | None = None):
        self.driver = driver
        self.mesh = mesh
        self.decide = decide
        # A person's seat: the bot that moves for them when they are idle past
        # the turn time, or away (table.md §3, auto-play); None: ``decide`` is a bot.
        self.auto_play = auto_play
        self.away = False
        self._person_asked: trio.CancelScope | None = None
        # Pauses (table.md §3a): what this seat's person asked for, and whether
        # somebody asked this seat to end its pause.
        self.pause_wanted = False
        self.pause_answer: bool | None = None
        self.continue_wanted = False
        # Who came and went, for the screen: (seat, "left" | "lost" | "back"), taken by the UI.
        self.table_news: list[tuple[int, str]] = []
        self._last_up = float("-inf")  # when a connection last came (back) up
        self._said_bye: set[int] = set()  # seats that closed their connections for good
        self.left_on_purpose: set[int] = set()  # seats that said they leave (and may come back)
        self.options = options or PeerOptions()
        self.on_change = on_change or (lambda: None)
        self.publish = publish  # spectators: called with each final entry
        self.publish_news = news  # spectators: called with (seat, "left" | "lost" | "back")
        self.acks: dict[int, dict[int, bytes]] = {}  # place -> seat -> hash it acknowledged there
        self.signed_acks: dict[int, dict[int, bytes]] = {}  # the same, signed, near the head (to pass on)
        self.flood = Flood()  # what was forwarded already (table.md §5)
        self.ahead = AheadBuffer()  # verified entries for places past the log's end
        self._gap_asked: dict[int, tuple[int, float]] = {}  # seat -> (place asked for, when)
        self._other_entry_asked: dict[int, tuple[int, float]] = {}  # seat -> (place asked for, when)
        self._acked_beyond: dict[int, int] = {}  # seat -> highest place it acknowledged past our log
        self.have_answers = HaveAnswers(mesh)
        self.bad_input_log = RateLimitedLog(log)  # what peers send wrong: a flood of it must not flood the log
        # Messages that raised while being read (counted: a test fails on any from an
        # honest peer, for a bug of ours is swallowed here as a peer's bad message).
        self.bad_messages = 0
        self.bad_from: set[int] = set()
        self.last_bad_message: str | None = None
        # Faults found and not yet answered by an abort, in the order found, one
        # per culprit: (the violation, its evidence). Each goes to its referee;
        # one held for another referee never keeps this seat from writing one
        # it referees itself (table.md §6).
        self.accusations: list[tuple[Violation, list[bytes]]] = []
        self._told_referee: dict[int, int] = {}  # culprit -> the referee its accusation's evidence went to
        # End signatures not yet checked (for an end body we have not computed):
        # (signer, the seat it came from) -> hash of an end body -> signature.
        self.end_offers: dict[tuple[int, int], dict[bytes, bytes]] = {}
        self.end_hash: bytes | None = None
        self._end_body: bytes | None = None  # the end body whose hash is end_hash
        self.end_sigs: dict[int, bytes] = {}  # seat -> its verified signature on our end body (end_hash)
        self._end_asked = float("-inf")  # when we last asked everybody for the end signatures we lack
        self.chat_out: list[str] = []
        self.chat_seen: list[tuple[int, str]] = []  # to show: (seat, text)
        self._live_chat: list[tuple[int, str]] = []  # shown when said, not yet in the log
        self.error: str | None = None
        self._changed = trio.Event()
        self._to_write = trio.Event()
        self._progress_at = trio.current_time()
        self._turn_restarted: tuple[int, int] | None = None  # (seat due, log length) of the last restart
        self._published = 1
        self.backlog = list(backlog or [])  # mesh events that came before this peer ran
        # Saves this seat's state file (seeds, the entry about to be sent) before
        # anything leaves: a crash must never make us sign a different entry.
        self.persist = persist
        # Saves a checkpoint (protocol.checkpoint) now and then, so that coming back replays little.
        self.checkpoint = checkpoint
        self._checkpointed = len(driver.log)
        self._unsaved_checkpoint: tuple[int, bytes] | None = None  # (entries it covers, the checkpoint)
        self.down_since: dict[int, float] = {}
        self._head_final_at = (driver.final_len, trio.current_time())  # (final length, since when)
        # Silence (table.md §6): attestations by (accused, place, head) -> attester -> attestation,
        # when this seat attested, and silence aborts that wait for this seat's own clock.
        self.attestations: dict[tuple[int, int, bytes], dict[int, silence.Attestation]] = {}
        self.attested_at: dict[tuple[int, int, bytes], float] = {}
        self.pending_silence: dict[bytes, Entry] = {}
        self.gave_up = False  # no majority could be had for a silence: this seat stops, convicting nobody
        self.stop_reason: str | None = None  # why this seat stopped without the end, for its player (translated)
        self._resend_pending(pending)
        self.bytes_sent = 0
        trace_dir = os.environ.get("P2PCARDS_TRACE")
        self._trace_file = open(os.path.join(trace_dir, f"trace-{driver.seat}.txt"), "a", buffering=1) if trace_dir else None
        self.hooks = hooks or PeerHooks()
        self._nursery: trio.Nursery | None = None  # while running: for entries passed on a moment later

    # ----- small helpers
    @property
    def machine(self):
        return self.driver.machine

    @property
    def seat(self) -> int:
        return self.driver.seat

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
        self.on_change()

    def others(self) -> list[int]:
        return [s for s in range(self.machine.players) if s != self.seat and s not in self.machine.excluded]

    def referee(self, culprit: int | None = None) -> int:
        return self.machine.referee(culprit)

    def auto_play_at(self) -> float:
        """When an idle person's own client moves for them."""
        return self._progress_at + self.options.turn_timeout

    def turn_deadline(self, culprit: int | None = None) -> float:
        """When waiting for ``culprit`` (or anybody) stops: a turn's time, or
        for a player whose connection broke, the time it has to come back.
        An action waits the auto-play margin longer: an idle person's client
        moves for them first (table.md §3)."""
        deadline = self._progress_at + self.options.turn_timeout
        pause = self.machine.pause if self.head_final() else None
        if pause is not None and pause.held:
            # Nobody present is waited for while a pause holds; its asker's
            # client ends it after pause_time (table.md §3a). A process gone
            # is still given up on after the rejoin timeout.
            held_until = deadline + self.machine.pause_time + auto_play_margin(self.options.turn_timeout)
            if pause.asker not in self.down_since:
                return held_until
            return min(held_until, max(deadline, self.down_since[pause.asker] + self.options.rejoin_timeout))
        if self.head_final() and self.machine.expect().kind in (ACTION, PAUSE):
            deadline += auto_play_margin(self.options.turn_timeout)
        if culprit is not None and culprit in self.down_since:
            deadline = max(deadline, self.down_since[culprit] + self.options.rejoin_timeout)
        return deadline

    def _restart_turn(self, back: int) -> None:
        """Seat ``back``'s connection came back (table.md §3): if it is the
        seat due, the turn's clock starts afresh here, as a resumed client's
        own clock starts when it comes back. The seat due never restarts its
        own clock this way: it must never wait past the others. Once per
        entry, so that coming and going cannot stall the table."""
        if self.machine.finished or self.machine.stopped:
            return  # nobody's turn: nothing to restart
        due = self.machine.expect().author
        place = (due, len(self.driver.log))
        if back == due and self.head_final() and self._turn_restarted != place:
            self._turn_restarted = place
            self._progress_at = trio.current_time()

    def gives_up_at(self, culprit: int) -> float:
        """When this seat stops waiting for ``culprit``: its ``turn_deadline``,
        or once it has attested their silence here, the end of the wait for
        a majority's attestations (``_attest_silence``)."""
        attested = self.attested_at.get(self._silence_key(culprit))
        return self.turn_deadline(culprit) if attested is None else attested + self.options.rejoin_timeout

    def _resend_pending(self, pending: bytes | None) -> None:
        """After a restart: the entry we sent last, if the log does not hold it
        yet, goes in again as it was (the others may have it already)."""
        if pending is None:
            return
        entry = Entry.from_wire(pending)
        if entry.seq == self.driver.log.next_seq:
            try:
                self.driver.receive(entry)
            except (LogError, Violation) as exc:
                log.warning("seat %s: the entry sent before the restart no longer fits: %s", self.seat, exc)
                return
            # Ours, so acknowledged by us; the others hear it when they reconnect.
            self._note_ack(self._my_ack(entry))

    # ----- tracing (benchmarks/table.py): P2PCARDS_TRACE=DIR
    def _trace(self, event: str, entry: Entry | None, size: int = 0) -> None:
        """One line: clock, seat, event, the entry's seq, kind and author,
        size, and this process's CPU time so far (ns)."""
        if self._trace_file is not None:
            what = "0 - -" if entry is None else f"{entry.seq} {entry.kind} {entry.author}"
            self._trace_file.write(f"{time.monotonic_ns()} {self.seat} {event} {what} {size} {time.process_time_ns()}\n")

    # ----- sending
    async def _broadcast(self, msg: dict) -> None:
        if self._trace_file is not None:
            self.bytes_sent += len(msgpack.packb(msg, use_bin_type=True)) * len(self.others())
        if msg["t"] in RELAYED:
            self.flood.first(msg)  # a copy relayed back to us is not forwarded again
        await self.mesh.broadcast(msg)

    async def _relay(self, msg: dict, came_from: int | None) -> None:
        """Forward a signed message seen for the first time to every other
        player but the one it came from (table.md §5: flooding)."""
        if not self.flood.first(msg):
            return
        if self._trace_file is not None:
            self.bytes_sent += len(msgpack.packb(msg, use_bin_type=True)) * len(self.others())
        for seat in range(self.machine.players):
            if seat != self.seat and seat != came_from:
                await self.mesh.send(seat, msg)

    async def _relay_entry(self, entry: Entry, came_from: int) -> None:
        """Entries are big: each is passed on, a moment later, only to the
        seats that have not acknowledged it by then (its author sent it to
        every seat directly; while all links work, nobody needs a copy)."""
        msg = {"t": "entry", "raw": entry.raw}
        if not self.flood.first(msg):
            return
        if self._nursery is None:  # not running (a test driving the peer by hand): at once
            await self._pass_on(entry, msg, came_from)
            return

        async def later() -> None:
            await trio.sleep(ENTRY_RELAY_DELAY)
            await self._pass_on(entry, msg, came_from)

        self._nursery.start_soon(later)

    async def _pass_on(self, entry: Entry, msg: dict, came_from: int) -> None:
        log_ = self.driver.log
        if not (entry.seq < len(log_) and log_[entry.seq].hash == entry.hash):
            # Not taken here (refused, or replaced by an abort): nobody is helped by a
            # copy, and passing on a cheater's refused entries (aborts of 1 MB each, say)
            # would flood the honest seats' own links with them.
            return
        for seat in range(self.machine.players):
            if seat not in (self.seat, came_from, entry.author) and not self._holds(seat, entry):
                if self._trace_file is not None:
                    self.bytes_sent += len(entry.raw)
                await self.mesh.send(seat, msg)

    def _holds(self, seat: int, entry: Entry) -> bool:
        """``seat`` acknowledged ``entry``, or a later entry of our log (which chains it)."""
        log_ = self.driver.log
        if self.acks.get(entry.seq, {}).get(seat) == entry.hash:
            return True
        if not (entry.seq < len(log_) and log_[entry.seq].hash == entry.hash):
            return False
        return any(self.acks.get(j, {}).get(seat) == log_[j].hash for j in range(entry.seq + 1, len(log_)))

    async def _ask_for(self, start: int, *seats: int | None) -> None:
        """Ask these seats (once each) for the entries from ``start`` on:
        any holder may answer, the entries prove themselves (table.md §5)."""
        for seat in dict.fromkeys(seats):
            if seat is not None and seat != self.seat and 0 <= seat < self.machine.players:
                await self.mesh.send(seat, {"t": "have", "next": max(1, start)})

    async def _send_entry(self, entry: Entry) -> None:
        if self.persist is not None:
            await trio.to_thread.run_sync(self.persist, entry.raw)
        self._progress_at = trio.current_time()  # the others' acknowledgements are due from now
        self._trace("write", entry, len(entry.raw))
        await self._broadcast({"t": "entry", "raw": entry.raw})
        await self._ack(entry)

    async def _ack(self, entry: Entry) -> None:
        self.hooks.acking(self, entry)
        signed_ack = self._my_ack(entry)
        self._note_ack(signed_ack)
        await self._broadcast({"t": "ack", "ack": signed_ack.raw})
        self._check_final()

    def _my_ack(self, entry: Entry) -> ack.Ack:
        return ack.make(self.driver.signer, self.machine.table, self.seat, entry.seq, entry.hash)

    def _note_ack(self, signed_ack: ack.Ack) -> None:
        self.acks.setdefault(signed_ack.seq, {})[signed_ack.acker] = signed_ack.hash
        if signed_ack.seq >= self.driver.final_len - 1:
            self.signed_acks.setdefault(signed_ack.seq, {})[signed_ack.acker] = signed_ack.raw

    # ----- finality
    def _check_final(self) -> None:
        """Make final (and write to the file) every entry all players acknowledged.
        An acknowledgement of entry j vouches for every entry before it too (its
        hash chains them), so acks lost while a peer was away do not matter."""
        log_ = self.driver.log
        length = len(log_)
        for seat in range(self.machine.players):
            if seat in self.machine.excluded:
                continue
            upto = self.driver.final_len
            for j in range(len(log_) - 1, self.driver.final_len - 1, -1):
                if self.acks.get(j, {}).get(seat) == log_[j].hash:
                    upto = j + 1
                    break
            length = min(length, upto)
        if length > self.driver.final_len:
            self.driver.finalize(length)
            for seq in [seq for seq in self.signed_acks if seq < length - 1]:
                del self.signed_acks[seq]  # final: only the last final entry's are still passed on
            self._head_final_at = (length, trio.current_time())
            self._to_write.set()
            self._progress_at = trio.current_time()
            self._publish_final()
            self._wake()

    def _publish_final(self) -> None:
        """Hand spectators (the host's hub) every final entry not yet handed."""
        if self.publish is not None:
            while self._published < self.driver.final_len:
                self.publish(self.driver.log[self._published].raw)
                self._published += 1

    def head_final(self) -> bool:
        return self.driver.final_len == len(self.driver.log)

    # ----- taking entries in
    async def _take(self, entry: Entry, sender: int | None = None) -> None:
        if await self.hooks.on_entry(self, entry):
            return
        nxt = self.driver.log.next_seq
        if self._misplaced(entry):
            return
        if entry.seq > nxt:
            if not self.ahead.has_room(entry, nxt):
                return  # past what is kept of its author: dropped before its signature costs anything
            # Verified before it is kept: nobody can fill the buffer in another's name
            # (once: the log remembers it when the entry comes to its place).
            try:
                self.driver.log.verify(entry)
            except LogError as exc:
                self.bad_input_log.info("seat %s: refused entry %d from seat %s: %s", self.seat, entry.seq, sender, exc)
                return
            self.ahead.offer(entry, nxt)
            if sender is not None:
                await self._ask_for_gap(sender)  # the sender may have what comes before: ask for it
            return
        if entry.seq < nxt:
            await self._older(entry)
            return
        if _is_silence_abort(entry) and not await self._silence_abort_agreed(entry):
            return
        try:
            self.driver.receive(entry)
        except LogError as exc:
            log.info("seat %s: refused entry %d: %s", self.seat, entry.seq, exc)
            if entry.prev_hash != self.driver.log.head_hash:
                # Built on another entry than our last: ask its author and the sender for that one.
                await self._ask_for(entry.seq - 1, entry.author, sender)
            return
        except Violation as v:
            culprit = v.seat if v.seat is not None else entry.author
            log.warning("seat %s: entry %d breaks the rules: %s", self.seat, entry.seq, v)
            self._accuse(Violation(culprit, v.kind, v.detail), [entry.raw])
            return
        self._progress_at = trio.current_time()
        self._trace("take", entry)
        await self._ack(entry)
        self._chats_logged(entry)
        self._wake()
        for later in self.ahead.take(self.driver.log.next_seq):
            await self._take(later)

    def _misplaced(self, entry: Entry) -> bool:
        """An entry built on an entry of our log but for another place than
        the next after it (table.md §6, ``misplaced``): its author is accused.
        True if it was that."""
        fault = misplaced(self.machine, entry)
        if fault is None or fault.seat in self.machine.excluded:
            return fault is not None
        try:
            self.driver.log.verify(entry)
        except LogError:
            return True
        self.bad_input_log.warning("seat %s: %s", self.seat, fault)
        self._accuse(fault, [entry.raw])
        return True

    @staticmethod
    def _may_ask(asked: dict[int, tuple[int, float]], seat: int, place: int) -> bool:
        """Whether ``seat`` may be asked for ``place`` now: not asked for it in the
        last GAP_ASK_INTERVAL, by what ``asked`` remembers (then noted as asked now)."""
        now = trio.current_time()
        last = asked.get(seat)
        if last is not None and last[0] == place and now - last[1] < GAP_ASK_INTERVAL:
            return False
        asked[seat] = (place, now)
        return True

    async def _ask_for_gap(self, sender: int) -> None:
        """``sender`` has entries past our log's end: ask it for those we lack
        (once per gap, again if the answer is slow in coming)."""
        nxt = self.driver.log.next_seq
        if not self._may_ask(self._gap_asked, sender, nxt):
            return
        log.info("seat %s: asking seat %d for the entries from %d on", self.seat, sender, nxt)
        await self.mesh.send(sender, {"t": "have", "next": nxt})

    async def _older(self, entry: Entry) -> None:
        """An entry for a place we already filled: the same one (a resend), an
        abort that replaces what was not final, or a second version: equivocation."""
        mine = self.driver.log[entry.seq]
        if mine.raw == entry.raw:
            return
        if entry.kind == ABORT and self.machine.finished:
            return  # an end signed by every player not blamed is final: nothing replaces it
        if _is_silence_abort(entry):
            if await self._silence_abort_agreed(entry):  # the heal race: it crossed the accused's entry
                await self._replace_with_abort(entry)
            return
        if entry.kind == ABORT and entry.seq >= self.driver.final_len and entry.prev_hash == self.driver.log[entry.seq - 1].hash:
            if mine.kind != ABORT or entry.author < mine.author:
                await self._replace_with_abort(entry)
            return
        if entry.prev_hash != self.driver.log[entry.seq - 1].hash:
            # Built on another entry than ours before it: ask its author for that
            # one (a second version of a place is equivocation).
            await self._ask_for(entry.seq - 1, entry.author)
        elif mine.kind == ABORT and entry.author != mine.author:
            return  # an entry the abort took the place of, late (the heal race): no fault of its author
        if entry.author < 0 or entry.author >= self.machine.players:
            return
        try:
            entry.verify_signature(self.driver.log.public_keys)
        except LogError:
            return
        if entry.prev_hash != self.driver.log[entry.seq - 1].hash:
            return  # not at its place in our log: it proves nothing here (table.md §6)
        if equivocation(self.machine, mine, entry) is not None:
            self._accuse(Violation(entry.author, "equivocate",
                                   f"seat {entry.author} signed two different entries {entry.seq}"), [mine.raw, entry.raw])
        elif entry.kind != ABORT and mine.kind != ABORT and entry.author != mine.author:
            # Signed for a place that was somebody else's.
            self._accuse(Violation(entry.author, "out-of-turn",
                                   f"seat {entry.author} signed entry {entry.seq}, which was seat {mine.author}'s"), [entry.raw])

    async def _replace_with_abort(self, entry: Entry) -> None:
        """An abort for a place we filled with an entry not yet final: it takes
        that place if it is a valid abort there; otherwise nothing changes."""
        dropped = self.driver.log[entry.seq:]
        self._rollback(entry.seq)
        try:
            self.driver.receive(entry)
        except (LogError, Violation) as exc:
            log.info("seat %s: refused abort %d: %s", self.seat, entry.seq, exc)
            for kept in dropped:  # they were valid before: take them back
                self.driver.receive(kept)
            if isinstance(exc, Violation) and exc.seat is not None:
                self._accuse(exc, [entry.raw])  # e.g. a valid entry called a fault: the accuser answers
            return
        self._progress_at = trio.current_time()
        self._trace("take", entry)
        await self._ack(entry)
        self._wake()

    def _rollback(self, seq: int) -> None:
        # Acknowledgements of the dropped entries stay: they name those entries'
        # hashes, so they can never count for what takes their place.
        self.driver.rollback(seq)

    @property
    def accusation(self) -> tuple[Violation, list[bytes]] | None:
        """The accusation this seat must write as the referee, else the first it holds for another."""
        return self._accusation_to_write() or (self.accusations[0] if self.accusations else None)

    def _accusation_to_write(self) -> tuple[Violation, list[bytes]] | None:
        if self.machine.aborted:
            return None
        return next((a for a in self.accusations if self.referee(a[0].seat) == self.seat), None)

    def _abort_to_write(self) -> bool:
        """This seat holds an accusation it must write as the referee."""
        return self._accusation_to_write() is not None

    async def _tell_referee(self) -> None:
        """Accusations another seat must write: the evidence of each goes to its
        referee, once (it may not have seen it: a cheater can send an entry
        to one seat alone); the referee judges it as its own."""
        if self.machine.aborted:
            return
        for violation, evidence in list(self.accusations):
            referee = self.referee(violation.seat)
            if referee == self.seat or self._told_referee.get(violation.seat) == referee:
                continue
            self._told_referee[violation.seat] = referee
            for raw in evidence:
                await self.mesh.send(referee, {"t": "entry", "raw": raw})

    def _accuse(self, violation: Violation, evidence: list[bytes]) -> None:
        try:
            for raw in evidence:  # what the log would refuse to hold is no evidence (log.md §8)
                check_size(Entry.from_wire(raw))
        except LogError as exc:
            self.bad_input_log.info("seat %s: cannot quote the evidence of %s: %s", self.seat, violation, exc)
            return
        if violation.seat in self.machine.excluded or any(v.seat == violation.seat for v, _ in self.accusations):
            return  # at most one abort per culprit: the first fault found is the one told
        self.accusations.append((violation, evidence))
        self._wake()

    def _chats_logged(self, entry: Entry) -> None:
        """Chat that reached the log; what was shown live already is not shown twice."""
        if isinstance(entry.payload, dict) and isinstance(entry.payload.get("chat"), list):
            for text in entry.payload["chat"]:
                if (entry.author, text) in self._live_chat:
                    self._live_chat.remove((entry.author, text))
                else:
                    self.chat_seen.append((entry.author, text))

    def _show_live_chat(self, seat: int, text: str) -> None:
        self.chat_seen.append((seat, text))
        del self.chat_seen[:-CHAT_KEPT]  # nobody may be reading them (a bot): the latest only
        self._live_chat.append((seat, text))
        del self._live_chat[:-64]  # a chat never logged (its author left) is forgotten in time

    # ----- the mesh
    async def _reader(self) -> None:
        from p2pcards.net import Message, PeerDown, PeerUp

        async def events():
            while self.backlog:
                yield self.backlog.pop(0)
            async for event in self.mesh:
                yield event

        async for event in events():
            if isinstance(event, PeerUp):
                self._last_up = trio.current_time()
                if self.down_since.pop(event.seat, None) is not None:
                    self._news(event.seat, "back")
                    self._restart_turn(event.seat)
                self.left_on_purpose.discard(event.seat)
                await self._catch_up(event.seat)
                self._wake()
            elif isinstance(event, PeerDown):
                if event.seat not in self.down_since and not self.machine.finished:
                    self._news(event.seat, "left" if event.seat in self.left_on_purpose or event.final else "lost")
                self.down_since.setdefault(event.seat, trio.current_time())
                if event.final:
                    self._said_bye.add(event.seat)  # it will not come back
                self._wake()
            elif isinstance(event, Message):
                try:
                    await self._message(event.seat, event.msg)
                except Exception as exc:  # nothing a peer sends may stop this loop
                    self.bad_messages += 1
                    self.last_bad_message = f"from seat {event.seat}: {type(exc).__name__}: {exc}"
                    self.bad_from.add(event.seat)
                    self.bad_input_log.warning("seat %s: bad message from seat %d: %s: %s", self.seat, event.seat,
                                               type(exc).__name__, exc)

    async def _catch_up(self, seat: int) -> None:
        """A connection came (back) up: ask for what we lack, and pass on what
        the head needs (every acknowledgement of it and end signature we hold,
        the attestations about this place), for it may have missed them while
        no path reached it (table.md §5)."""
        await self.mesh.send(seat, {"t": "have", "next": self.driver.final_len})
        if len(self.driver.log) > 1:
            head = self.driver.log[len(self.driver.log) - 1]
            if self.seat not in self.signed_acks.get(head.seq, {}):  # e.g. a log read back after a restart
                self._note_ack(self._my_ack(head))
            for raw in list(self.signed_acks.get(head.seq, {}).values()):
                await self.mesh.send(seat, {"t": "ack", "ack": raw})
        await self._send_end_sigs(seat)
        for (_culprit, place, _head), attesters in list(self.attestations.items()):  # for a referee that missed them
            if place == len(self.driver.log):
                for att in list(attesters.values()):
                    await self.mesh.send(seat, {"t": "silence", "att": att.raw})

    async def _message(self, sender: int, msg) -> None:
        """One message from the peer at ``sender``; signed ones are taken for
        their signer, whoever passed them on, and forwarded (table.md §5)."""
        if not isinstance(msg, dict):
            raise ValueError("a message must be a map")
        kind = msg.get("t")
        if kind == "entry":
            entry = Entry.from_wire(msg["raw"])
            worth_relaying = self._worth_relaying(entry)  # judged on the log as it was when the entry came
            await self._take(entry, sender)
            if worth_relaying:
                await self._relay_entry(entry, sender)  # passed on only if taken (_pass_on)
        elif kind == "ack":
            relayed = {"t": "ack", "ack": msg["ack"]}
            if self.flood.seen(relayed):
                self._ack_again(msg["ack"])  # checked already
                return
            signed_ack = ack.parse(msg["ack"], self.machine.table)
            seq, digest, acker = signed_ack.seq, signed_ack.hash, signed_ack.acker
            # Bounded: acknowledgements kept are one per place near the log, per seat.
            if acker == self.seat or not 0 < seq < len(self.driver.log) + MAX_AHEAD:
                return
            if seq == self._end_place():
                # The end's are passed on at once, before they count here (which
                # may end this peer's linger): the others are leaving, nobody may
                # be left to answer a `have` for them (table.md §5).
                await self._relay(relayed, sender)
            else:
                self.flood.first(relayed)  # passed on only when asked (`have`); a copy costs no check
            self._note_ack(signed_ack)
            if seq < len(self.driver.log) and self.driver.log[seq].hash != digest:
                # The acker holds another entry here: ask for it (equivocation or a replaced entry),
                # once a second per seat and place: a seat answering every `have` with such
                # acknowledgements of its own must not get a `have` back for each.
                for seat in dict.fromkeys((acker, sender)):
                    if self._may_ask(self._other_entry_asked, seat, seq):
                        await self._ask_for(seq, seat)
            elif seq >= len(self.driver.log):
                # It acknowledges an entry we do not have: usually that entry is on its
                # way; if it is still missing a moment later, the gap watch asks for it.
                self._acked_beyond[sender] = max(seq, self._acked_beyond.get(sender, 0))
                if not self.mesh.all_connected():
                    # One of our own links is down: the entry may come only through another
                    # seat (relayed a second late), so ask the one that has it now.
                    await self._ask_for_gap(sender)
            self._check_final()
            self._wake()
        elif kind == "have":
            start = msg["next"]
            if type(start) is not int or start < 1:
                raise ValueError("bad have")
            # The entries from `start` on, the acknowledgements from `start` - 1 on and
            # the end signatures held: limited in rate and bytes, all together.
            await self.have_answers.answer(sender, self.driver.log, start, also=self._have_also(start))
        elif kind == "endsig":
            signer, digest, sig = msg["seat"], msg["hash"], msg["sig"]
            if not (type(signer) is int and 0 <= signer < self.machine.players and isinstance(digest, bytes)
                    and len(digest) == 32 and isinstance(sig, bytes) and len(sig) == 64):
                raise ValueError("bad endsig")
            if signer == self.seat or signer in self.end_sigs and self.end_hash == digest:
                return
            if self.end_hash == digest:
                # Our own end body: checked now; one that does not verify is dropped
                # here and goes no further, one that does is passed on (table.md §5).
                if self._end_sig_ok(self._end_body, signer, sig):
                    self.end_sigs[signer] = sig
                    await self._relay(self._end_sig_message(signer), sender)
                    self._wake()
                else:
                    self.bad_input_log.info("seat %s: an end signature for seat %d from seat %d does not verify",
                                            self.seat, signer, sender)
                return
            # Another end body (or before we reach the end): kept, a few per signer and
            # per seat it came from (the latest), so that a seat passing on junk in
            # another's name pushes out only its own; checked in _end once ours is the same.
            offers = self.end_offers.setdefault((signer, sender), {})
            offers.pop(digest, None)
            offers[digest] = sig
            while len(offers) > END_OFFERS_KEPT:
                del offers[next(iter(offers))]
            self._wake()
        elif kind == "silence":
            await self._attestation_in(sender, msg["att"])
        elif kind == "tablesig":
            pass  # a late copy of a signature on entry 0, which we have
        elif kind == "leaving":
            self.left_on_purpose.add(sender)  # its connection goes next; shown then
        elif kind == "continue":
            pause = self.machine.pause
            if pause is not None and pause.held and pause.asker == self.seat:
                self.continue_wanted = True  # any player may end a pause: the asker's client writes it
                self._wake()
        elif kind == "chat":
            text = msg["text"]
            if isinstance(text, str) and 0 < len(text) <= MAX_CHAT_LEN and text.isprintable():
                self._show_live_chat(sender, text)
                self._wake()
        else:
            raise ValueError(f"unknown message {kind!r}")

    # ----- the main loop
    async def run(self) -> None:
        self._trace("start", None)
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._reader)
                nursery.start_soon(self._writer)
                nursery.start_soon(self._gap_watch)
                nursery.start_soon(self._ack_watch)
                log.info("seat %s: playing", self.seat)
                await self._main()
                log.info("seat %s: the log is %s (%d entries)", self.seat,
                         "complete" if self.machine.finished else "stopped, unfinished", len(self.driver.log))
                # The end entry carries every player's signature on the whole
                # log: that is agreement, whoever's acknowledgements are late.
                # A game that stopped (silence no majority attests) keeps only
                # what was final: its log is unfinished.
                if self.machine.finished:
                    self.driver.finalize()
                self._publish_final()  # the end entry is final now, with no ack to trigger it
                self._to_write.set()
                await self._linger()
                nursery.cancel_scope.cancel()
        finally:
            # The writer task has stopped (its thread finished first); write the rest.
            with trio.CancelScope(shield=True):
                await self._write_final()
                self.hooks.after_game(self)
            if self._trace_file is not None:
                sent = self.bytes_sent + self.have_answers.sent_bytes  # (answers to `have` too)
                self._trace_file.write(f"{time.monotonic_ns()} {self.seat} bytes {sent} - - 0 {time.process_time_ns()}\n")
                self._trace_file.close()

    async def _writer(self) -> None:
        """Final entries go to the file off the event loop (fsync blocks)."""
        while True:
            await self._to_write.wait()
            self._to_write = trio.Event()
            await self._write_final()
            await self._checkpoint_if_due()

    async def _write_final(self) -> None:
        if self.driver.file is None:
            self.driver.write_final()  # no file (a test's seat): nothing blocks
        else:
            await trio.to_thread.run_sync(self.driver.write_final)

    async def _checkpoint_if_due(self) -> None:
        """Now and then a snapshot of the machine as it stands (here, between
        entries); it is saved once every entry it covers is in the file, for
        one made past the file's end would not fit the log after a crash."""
        d = self.driver
        if self.checkpoint is None or d.machine.finished:
            return
        if self._unsaved_checkpoint is None and d.written_len - self._checkpointed >= CHECKPOINT_EVERY:
            self._checkpointed = d.written_len
            self._unsaved_checkpoint = (len(d.log), make_checkpoint(d.machine, d.me, d.signer))
        if self._unsaved_checkpoint is not None and d.written_len >= self._unsaved_checkpoint[0]:
            snapshot, self._unsaved_checkpoint = self._unsaved_checkpoint[1], None
            await trio.to_thread.run_sync(self.checkpoint, snapshot)

    async def _gap_watch(self) -> None:
        """A peer that acknowledged an entry we still lack is asked for it:
        one lost entry must not leave this seat stuck while the others wait."""
        while True:
            await trio.sleep(GAP_ASK_INTERVAL)
            for sender, seq in list(self._acked_beyond.items()):
                if seq >= len(self.driver.log):
                    await self._ask_for_gap(sender)
                else:
                    del self._acked_beyond[sender]

    def _ack_again(self, raw: bytes) -> None:
        """An acknowledgement this seat checked before (the same bytes) comes
        again: no second check, but it counts again if it names the entry we
        hold at its place and what we keep for its acker there says another
        (an older acknowledgement of the acker's, of an entry an abort
        replaced, replayed since by a cheater: what it says stays true, but
        must not hide the acker's acknowledgement of our entry)."""
        acker, seq, digest, _signature = msgpack.unpackb(raw)
        log_ = self.driver.log
        if seq < len(log_) and log_[seq].hash == digest and self.acks.get(seq, {}).get(acker) != digest:
            self._note_ack(ack.Ack(acker, seq, digest, raw))
            self._check_final()
            self._wake()

    def _end_place(self) -> int | None:
        """The end entry's place once this seat is there (its signatures are
        being gathered, or it is in the log); None before."""
        if self.machine.finished:
            return len(self.driver.log) - 1
        if self.machine.stopped or self.machine.expect().kind != END:
            return None
        return len(self.driver.log)

    def _have_also(self, start: int) -> list[dict]:
        """What a `have` answer carries after the entries (table.md §5): the
        signed acknowledgements held for places from ``start`` - 1 on (ours and
        the others'), then the end signatures verified."""
        out = [{"t": "ack", "ack": raw}
               for seq in sorted(self.signed_acks) if start - 1 <= seq < start - 1 + MAX_AHEAD
               for raw in list(self.signed_acks[seq].values())]
        return out + [self._end_sig_message(signer) for signer in list(self.end_sigs)]

    def _acks_missing(self) -> bool:
        """Some seat not blamed has not acknowledged the head (a later entry
        of ours cannot be: the head is the last)."""
        log_ = self.driver.log
        if len(log_) < 2 or self.gave_up:
            return False
        head = log_[len(log_) - 1]
        acks = self.acks.get(head.seq, {})
        return any(acks.get(s) != head.hash for s in self.others())

    async def _ack_watch(self) -> None:
        """Acknowledgements are not passed on unasked (table.md §5): an
        acknowledgement of the head still missing ACK_WAIT after the head came
        (a cut link, or an acker that sent it to some seats only) is asked of
        everybody with `have`, again every ACK_ASK_INTERVAL while one is
        missing; whoever holds it answers with it."""
        head, asked_at = None, float("-inf")
        while True:
            changed = self._changed
            log_ = self.driver.log
            now = trio.current_time()
            if (len(log_), log_.head_hash) != head:
                head, asked_at = (len(log_), log_.head_hash), now + ACK_WAIT - ACK_ASK_INTERVAL
            if not self._acks_missing():
                await changed.wait()
                continue
            ask_at = asked_at + ACK_ASK_INTERVAL
            if now < ask_at:
                with trio.move_on_after(ask_at - now):
                    await changed.wait()
                continue
            asked_at = now
            await self._broadcast({"t": "have", "next": len(log_)})

    async def _linger(self) -> None:
        """Stay a moment so slower peers can finish too (they may need our
        end signature or entries). A peer cut off as the game ended comes back
        for the end entry: for it we wait as long as the table waits for a
        player to come back, and a moment more once it is back."""
        if self.gave_up:
            return  # stopped unfinished: the others stopped waiting for us, or are gone
        start = trio.current_time()
        while True:
            end = len(self.driver.log) - 1
            missing = [s for s in self.others() if not self.acks.get(end, {}).get(s)]
            if not missing:
                return
            if any(s in self.down_since and s not in self._said_bye for s in missing):
                deadline = start + self.options.rejoin_timeout
            else:
                deadline = max(start, self._last_up) + LINGER
            now = trio.current_time()
            if now >= deadline:
                return
            await self._wait(deadline - now)

    async def _wait(self, timeout: float) -> None:
        alone_until = self.alone_until()
        if alone_until is not None and alone_until > trio.current_time():
            timeout = min(timeout, alone_until - trio.current_time())  # then _main gives up
        with trio.move_on_after(max(timeout, 0.001)):
            await self._changed.wait()

    def alone_until(self) -> float | None:
        """While no other seat is connected (all ended, left or cut off):
        when this seat stops waiting for them, ``rejoin_timeout`` after the
        last went (table.md §6); None while some connection is up."""
        gone = [self.down_since.get(s) for s in range(self.machine.players) if s != self.seat]
        if not gone or None in gone:
            return None
        return max(gone) + self.options.rejoin_timeout

    def _give_up(self, reason: str) -> None:
        """Stop here, the log unfinished (what is final stays in the file)."""
        self.gave_up = True
        self.stop_reason = reason
        self._wake()

    def _alone_too_long(self) -> bool:
        alone_until = self.alone_until()
        if alone_until is None or trio.current_time() < alone_until:
            return False
        log.warning("seat %s: no other seat for %g s; stopping", self.seat, self.options.rejoin_timeout)
        self._give_up(_("every other player has left or cannot be reached for {seconds} s: the game stops here, "
                        "unfinished (its log is kept)").format(seconds=f"{self.options.rejoin_timeout:g}"))
        return True

    async def _main(self) -> None:
        driver = self.driver
        while not (driver.machine.finished or driver.machine.stopped or self.gave_up):
            if self._alone_too_long():
                break
            await self._retry_pending_silence()
            accusation = self._accusation_to_write()
            if accusation is not None:
                await self._write_abort(*accusation)
                continue
            await self._tell_referee()
            want = driver.machine.expect()
            due = driver.due()
            now = trio.current_time()
            if want.kind == END:
                await self._end()
                continue
            if due is not None:
                if not self.head_final():
                    if now > self.turn_deadline():
                        await self._silence()
                    else:
                        await self._wait(self.turn_deadline() - now)
                    continue
                await self._write_due(due)
                continue
            if now > self.turn_deadline():
                await self._silence()
                continue
            changed = self._changed
            await self.hooks.idle(self)
            if not changed.is_set():  # what came in while the hook ran is looked at first
                await self._wait(self.turn_deadline() - now)

    async def _silence(self) -> None:
        """Nothing came in time: attest who kept us waiting; the referee writes
        the abort once a majority attests it."""
        if self.head_final():
            want = self.machine.expect()
            culprit, kind = want.author, "timeout"
        else:
            head = self.driver.log[len(self.driver.log) - 1]
            acks = self.acks.get(head.seq, {})
            missing = [s for s in range(self.machine.players) if s not in self.machine.excluded and acks.get(s) != head.hash]
            culprit, kind = (missing[0] if missing else None), "silent"
        if culprit is None or culprit == self.seat or self.seat in self.machine.excluded:
            # A blamed seat follows the game but attests nothing (its word no longer counts).
            self._progress_at = trio.current_time()
            return
        attested = self._silence_key(culprit) in self.attested_at  # then its own clock runs (gives_up_at)
        if not attested and trio.current_time() < self.turn_deadline(culprit):
            await self._wait(self.turn_deadline(culprit) - trio.current_time())  # it may still come back
            return
        await self._attest_silence(culprit, kind)

    def _silence_key(self, culprit: int) -> tuple[int, int, bytes]:
        log_ = self.driver.log
        return (culprit, len(log_), log_.head_hash)

    async def _attest_silence(self, culprit: int, kind: str) -> None:
        """Our clock ran out for ``culprit`` here: sign that (once), then, as
        referee, abort with a majority's attestations, or after the rejoin
        timeout without one (stopping the game, convicting nobody); a seat that
        is not the referee stops waiting then too."""
        if self.seat in self.machine.excluded:
            self._progress_at = trio.current_time()  # a blamed seat's word no longer counts: it waits on
            return
        if culprit in self.down_since:
            kind = "left"
        key = self._silence_key(culprit)
        now = trio.current_time()
        if key not in self.attested_at:
            att = silence.attest(self.driver.signer, self.machine.table, self.seat, *key, kind)
            log.info("seat %s: attests the silence (%s) of seat %s at entry %d", self.seat, kind, culprit, key[1])
            self._keep_attestation(att)
            self.attested_at[key] = now
            await self._broadcast({"t": "silence", "att": att.raw})
            # Before anybody is blamed, ask everybody for what they hold here:
            # the accused's entry may have reached them and not us.
            await self._broadcast({"t": "have", "next": key[1]})
            self._wake()
            return
        attesters = {seat: att for seat, att in self.attestations.get(key, {}).items()
                     if seat not in self.machine.excluded}  # kept before its author was blamed: no longer counts
        give_up = self.gives_up_at(culprit)
        if self.referee(culprit) == self.seat:
            if silence.majority(attesters, self.machine.players) or now >= give_up:
                limit = self.options.rejoin_timeout if kind == "left" else self.options.turn_timeout
                await self._write_abort(Violation(culprit, kind, f"seat {culprit} sent nothing for {limit:g} s"), [],
                                        attestations=[a.raw for _seat, a in sorted(attesters.items())])
                return
        elif now >= give_up:
            log.warning("seat %s: no majority attests the silence of seat %s; stopping", self.seat, culprit)
            self._give_up(_("seat {seat} stopped answering, and too few players confirm it to blame anyone: "
                            "the game stops here").format(seat=culprit))
            return
        await self._wait(give_up - now)

    def _keep_attestation(self, att: silence.Attestation) -> None:
        key = att.about
        if key not in self.attestations and len(self.attestations) >= MAX_SILENCE_KEYS:
            del self.attestations[next(iter(self.attestations))]  # the oldest
        self.attestations.setdefault(key, {})[att.attester] = att

    async def _attestation_in(self, sender: int, raw) -> None:
        """An attestation, taken for its signer whoever passed it on: kept if
        valid for this table and about the place we are at or just ahead of
        (bad ones are ignored). If we hold what it says never came, the
        attester gets it (by every path)."""
        relayed = {"t": "silence", "att": raw}
        if self.flood.seen(relayed):
            return
        try:
            att = silence.parse(raw, self.machine.table)
        except silence.AttestationError as exc:
            self.bad_input_log.info("seat %s: bad attestation from seat %d: %s", self.seat, sender, exc)
            return
        if att.attester == self.seat:
            return
        await self._answer_attestation(att)
        here = len(self.driver.log)
        if not here <= att.place <= here + SILENCE_AHEAD:
            return  # about a place behind us (answered above) or too far ahead: a replay goes no further
        await self._relay(relayed, sender)
        self._keep_attestation(att)
        self._wake()

    async def _answer_attestation(self, att: silence.Attestation) -> None:
        """Somebody's clock ran out for seat c at place k: if we hold c's entry
        for k, or c's acknowledgement or end signature that k waits for, it
        goes to everybody again (each copy floods): silence is only silence
        when no path delivers the message (table.md §6)."""
        log_, c, k = self.driver.log, att.accused, att.place
        if k < self.driver.final_len:
            return  # final here, so the attester acknowledged it: a replay, not to be answered (amplified)
        if k < len(log_) and log_[k].author == c and log_[k].prev_hash == att.head:
            await self.mesh.broadcast({"t": "entry", "raw": log_[k].raw})
        elif k == len(log_) and log_.head_hash == att.head:
            raw = self.signed_acks.get(k - 1, {}).get(c)
            if raw is not None:
                await self.mesh.broadcast({"t": "ack", "ack": raw})
            if c in self.end_sigs:
                await self.mesh.broadcast(self._end_sig_message(c))

    def _worth_relaying(self, entry: Entry) -> bool:
        """An entry is passed on if it is signed by its author and for a place
        not final here, up to the next one: a replayed old entry, or a flood of
        entries for places ahead, goes no further."""
        if not (self.driver.final_len <= entry.seq <= len(self.driver.log)
                and 0 <= entry.author < self.machine.players) or entry.kind == END:
            return False
        if self.flood.seen({"t": "entry", "raw": entry.raw}):
            return False
        try:
            entry.verify_signature(self.driver.log.public_keys)
        except LogError:
            return False
        return True

    def _owes(self, culprit: int) -> bool:
        """From this seat's own view, ``culprit`` owes something at the head:
        the next entry, an acknowledgement of the head, or its end signature."""
        want = self.machine.expect()
        if want.author == culprit:
            return True
        head = self.driver.log[len(self.driver.log) - 1]
        if self.acks.get(head.seq, {}).get(culprit) != head.hash:
            return True
        return want.author is None and culprit not in self.end_sigs

    async def _silence_abort_agreed(self, entry: Entry) -> bool:
        """Whether a silence abort may be taken now (for a place we filled:
        whether it replaces what we hold there). At the head: only if our own
        clock ran out for the accused too; otherwise the abort waits for it.
        If we hold the accused's entry for that place (table.md §6, the heal
        race): a final one (the accuser acknowledged it) proves the accusation
        false: it goes to everybody and the accuser is accused; one not final
        crossed the abort on the way and the abort takes its place, as any
        abort takes the place of an entry not final."""
        if self.machine.finished or self.machine.stopped:
            return False
        culprit = entry.payload["culprit"]
        log_ = self.driver.log
        if not 0 <= culprit < self.machine.players:
            return False
        try:
            log_.verify(entry)  # once: should the abort be taken, the log does not check it again
        except LogError:
            return False
        if entry.seq < len(log_):
            mine = log_[entry.seq]
            if mine.author != culprit or mine.prev_hash != entry.prev_hash:
                return False
            if entry.seq >= self.driver.final_len and self._may_have_crossed(entry, culprit):
                return True
            await self._broadcast({"t": "entry", "raw": mine.raw})
            self._accuse(Violation(entry.author, FALSE_ACCUSATION,
                                   f"accused seat {culprit} of silence at entry {entry.seq}, "
                                   f"whose entry there seat {self.seat} holds"), [entry.raw, mine.raw])
            return False
        if entry.seq != len(log_) or entry.prev_hash != log_.head_hash:
            return False
        # Taken if our own clock ran out for the accused too, now or when we
        # attested it here ourselves: what came from it since (a connection
        # healing as the abort was written) does not undo that.
        attested = self._silence_key(culprit) in self.attested_at
        if culprit == self.seat or attested or (trio.current_time() > self.turn_deadline(culprit)
                                                and self._owes(culprit)):
            if culprit != self.seat and not attested:
                await self._attest_silence(culprit, entry.payload.get("kind"))
            self.pending_silence.pop(entry.raw, None)
            return True
        if len(self.pending_silence) < MAX_SILENCE_KEYS:
            self.pending_silence[entry.raw] = entry
        return False

    def _may_have_crossed(self, abort: Entry, culprit: int) -> bool:
        """The accused's entry we hold at the abort's place (not final) and
        the abort may have crossed (table.md §6, the heal race): a majority
        attests the silence, or we did ourselves, or the abort comes late
        enough for an honest referee to have waited the turn's time for it.
        One that comes sooner, by our clock, accused a seat nobody could yet
        call silent."""
        if (culprit, abort.seq, abort.prev_hash) in self.attested_at:
            return True
        attesters = set()
        for raw in abort.payload.get("attestations") or []:
            try:
                att = silence.parse(raw, self.machine.table)
            except silence.AttestationError:
                continue
            if att.about == (culprit, abort.seq, abort.prev_hash) and att.attester not in self.machine.excluded:
                attesters.add(att.attester)
        if silence.majority(attesters, self.machine.players):
            return True
        opened, since = self._head_final_at
        return opened != abort.seq or trio.current_time() >= since + self.options.turn_timeout

    async def _retry_pending_silence(self) -> None:
        """Silence aborts that waited for our own clock: taken once it runs out."""
        if not self.pending_silence:
            return
        here = len(self.driver.log)
        for raw, entry in list(self.pending_silence.items()):
            if entry.seq < here or (entry.seq == here and entry.prev_hash != self.driver.log.head_hash):
                del self.pending_silence[raw]
                if entry.seq < here:
                    await self._older(entry)  # we hold something there now: answer if it is the accused's
            elif entry.seq == here and trio.current_time() > self.turn_deadline(entry.payload["culprit"]):
                await self._take(entry)

    async def _write_abort(self, violation: Violation, evidence: list[bytes],
                           attestations: list[bytes] | None = None) -> None:
        if violation.kind == "equivocate" and evidence:
            # The abort takes the place of the two versions (neither can be final).
            seq = Entry.from_wire(evidence[0]).seq
            if self.driver.final_len <= seq < len(self.driver.log):
                self._rollback(seq)
        try:
            entry = self.driver.write_abort(violation, evidence, attestations)
        except (LogError, Violation) as exc:
            # The evidence is too big to go into an entry, or it does not prove
            # the fault by the table's own rule (protocol.evidence), which
            # every other peer applies too: an honest seat never signs an
            # accusation the table refuses. The culprit did not send its due
            # entry either, so the turn's time names it.
            log.warning("seat %s: cannot write the abort for %s: %s", self.seat, violation, exc)
            self._forget_accusation(violation)
            return
        self._forget_accusation(violation)
        await self._send_entry(entry)
        self._wake()

    def _forget_accusation(self, violation: Violation) -> None:
        self.accusations = [a for a in self.accusations if a[0] is not violation]

    async def _write_due(self, due) -> None:
        action, auto = None, False
        if due.kind == ACTION and self.pause_wanted and not self.machine.may_pause(self.seat):
            self.pause_wanted = False  # no pause left to ask for: the move is due
        if due.kind == PAUSE or (due.kind == ACTION and self.pause_wanted):
            await self._write_pause(due)
            return
        if due.kind == ACTION:
            chosen = await self._choose()
            if chosen is None:
                return  # something changed while deciding; look again
            action, auto = chosen
        if await self.hooks.write(self, due, action):
            return
        chat, self.chat_out = self.chat_out[:MAX_CHAT], self.chat_out[MAX_CHAT:]
        try:
            entry = self.driver.write(action, chat=chat or None, auto=auto)
        except IllegalAction as exc:
            log.warning("seat %s: own move refused: %s", self.seat, exc)
            self.chat_out = chat + self.chat_out
            return
        await self._send_entry(entry)
        self._wake()

    async def _write_pause(self, due) -> None:
        """This seat's pause entry: asking (its person typed pause), its
        answer (a bot agrees; a person is asked, and agrees automatically
        when idle past the turn time), or the end of its own pause (when its
        person or anybody asks, or after pause_time)."""
        pause, now = self.machine.pause, trio.current_time()
        if pause is None:
            op, auto = PAUSE_ASK, False
            self.pause_wanted = False
        elif pause.held:
            ends_at = self._progress_at + self.machine.pause_time
            if not self.continue_wanted and now < ends_at:
                await self._wait(ends_at - now)
                return
            op, auto = PAUSE_CONTINUE, not self.continue_wanted
        elif self.auto_play is None or self.away:
            op, auto = PAUSE_YES, self.auto_play is not None
        elif self.pause_answer is not None:
            op, auto = (PAUSE_YES if self.pause_answer else PAUSE_NO), False
        elif now < self.auto_play_at():
            await self._wait(self.auto_play_at() - now)
            return
        else:
            op, auto = PAUSE_YES, True
        if await self.hooks.write(self, due, {"pause": op}):
            return
        self.continue_wanted, self.pause_answer = False, None
        chat, self.chat_out = self.chat_out[:MAX_CHAT], self.chat_out[MAX_CHAT:]
        entry = self.driver.write_pause(op, auto=auto, chat=chat or None)
        await self._send_entry(entry)
        self._wake()

    def ask_for_pause(self) -> None:
        """A person typed pause: it is asked for in place of their next move."""
        self.pause_wanted = True
        self._wake()

    def answer_pause(self, yes: bool) -> None:
        self.pause_answer = yes
        self._wake()

    async def ask_to_continue(self) -> None:
        """Anybody may end a pause: the asker's client writes the end."""
        pause = self.machine.pause
        if pause is None or not pause.held:
            return
        if pause.asker == self.seat:
            self.continue_wanted = True
            self._wake()
        else:
            await self._broadcast({"t": "continue"})

    def set_away(self, away: bool) -> None:
        """A person says they are away (their client plays for them) or back."""
        self.away = away
        if away and self._person_asked is not None:
            self._person_asked.cancel()
        self._wake()

    async def _choose(self) -> tuple[dict, bool] | None:
        """This seat's move, from the bot or the person, and whether it was
        played automatically for an idle person; None if the table moved on
        meanwhile (an abort came in)."""
        seq = self.driver.log.next_seq
        result: list = []

        async def ask(cancel: trio.CancelScope) -> None:
            if self.auto_play is None:
                result.append((await self.decide(self), False))
            else:
                if not self.away:
                    with trio.CancelScope(deadline=self.auto_play_at()) as self._person_asked:
                        result.append((await self.decide(self), False))
                    self._person_asked = None
                if not result:
                    log.info("seat %s: the player is idle or away; their client plays for them", self.seat)
                    result.append((await self.auto_play(self), True))
            cancel.cancel()

        async def watch(cancel: trio.CancelScope) -> None:
            # Only an abort this seat must write (or one arriving: the log moves on)
            # stops its move: an accusation whose referee is another seat does not,
            # or a seat that saw what the referee did not would be blamed for timeout.
            while (self.driver.log.next_seq == seq and not self._abort_to_write()
                   and not (self.pause_wanted and self.machine.may_pause(self.seat))):
                await self._changed.wait()
            cancel.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask, nursery.cancel_scope)
            nursery.start_soon(watch, nursery.cancel_scope)
        if not result or self.driver.log.next_seq != seq:
            return None
        return result[0]

    async def _end(self) -> None:
        """Everybody not blamed signs the end entry; then it is assembled."""
        driver = self.driver
        body = driver.end_body()
        digest = hashlib.sha256(body).digest()
        if self.end_hash != digest:
            self.end_hash, self._end_body = digest, body
            self.end_sigs = {self.seat: driver.sign_end(body)}
            self._end_asked = trio.current_time()  # the others' come unasked; asked for after a second
            await self._broadcast(self._end_sig_message(self.seat))
        for (signer, _came_from), offers in list(self.end_offers.items()):  # (more may come in meanwhile)
            sig = offers.pop(digest, None)
            if sig is not None and signer not in self.end_sigs and self._end_sig_ok(body, signer, sig):
                self.end_sigs[signer] = sig
                await self._relay(self._end_sig_message(signer), None)  # verified: passed on (table.md §5)
        if self.machine.finished:
            return  # the end entry itself came in meanwhile (an answer to `have`)
        signers = driver.end_signers()
        if all(s in self.end_sigs for s in signers):
            entry = driver.finish(body, {s: self.end_sigs[s] for s in signers})
            await self._ack(entry)
            self._wake()
            return
        now = trio.current_time()
        if now - self._end_asked >= GAP_ASK_INTERVAL:
            # A signature that came in our name only to be pushed out by junk, or lost
            # on a link that broke: whoever holds it verified sends it on `have`.
            self._end_asked = now
            await self._broadcast({"t": "have", "next": len(driver.log)})
        culprit = next(s for s in signers if s not in self.end_sigs)
        if now > self.turn_deadline(culprit) or self._silence_key(culprit) in self.attested_at:
            await self._attest_silence(culprit, "silent")
            return
        await self._wait(min(self.turn_deadline(culprit) - now, GAP_ASK_INTERVAL))

    def _end_sig_message(self, signer: int) -> dict:
        return {"t": "endsig", "seat": signer, "hash": self.end_hash, "sig": self.end_sigs[signer]}

    async def _send_end_sigs(self, seat: int) -> None:
        """The end signatures we verified, for a peer that may lack them."""
        for signer in list(self.end_sigs):  # (more may come in meanwhile)
            await self.mesh.send(seat, self._end_sig_message(signer))

    def _end_sig_ok(self, body: bytes, seat: int, sig: bytes) -> bool:
        try:
            self.driver.check_end_signature(body, seat, sig)
            return True
        except (LogError, IndexError):
            return False

    # ----- for the UI
    def _news(self, seat: int, what: str) -> None:
        self.table_news.append((seat, what))
        del self.table_news[:-64]  # the screen takes them as they come; a flapping link cannot grow this
        if self.publish_news is not None:
            self.publish_news(seat, what)

    async def leave(self) -> None:
        """The player quits during the game: the others hear that it is on
        purpose, and the connections close without a bye, so the table waits
        ``rejoin_timeout`` for this seat to come back (``p2pcards resume``)."""
        await self._broadcast({"t": "leaving"})
        with trio.move_on_after(LEAVE_FLUSH):
            while any(status.queued for status in self.mesh.peer_status().values()):
                await trio.sleep(LEAVE_FLUSH / 20)
            await trio.sleep(LEAVE_FLUSH / 10)  # the last frame off the queue reaches the socket
        self.mesh.vanish()

    async def chat(self, text: str) -> None:
        text = printable(text.strip(), MAX_CHAT_LEN)  # the log takes printable text only
        if not text:
            return
        self.chat_out.append(text)
        self._show_live_chat(self.seat, text)
        await self._broadcast({"t": "chat", "text": text})
        self._wake()


def auto_play_margin(turn_timeout: float) -> float:
    """How much longer than the turn time the others wait for an action
    before attesting silence (table.md §3): the idle player's auto-play first."""
    return max(5.0, turn_timeout / 2)


def _is_silence_abort(entry: Entry) -> bool:
    payload = entry.payload
    return (entry.kind == ABORT and isinstance(payload, dict) and payload.get("kind") in silence.SILENCE_KINDS
            and type(payload.get("culprit")) is int)
