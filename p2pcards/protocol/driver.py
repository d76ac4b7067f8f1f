"""One seat's driver: the rules engine, the dealing protocol and the log.

``SeatDriver`` is the part without network or clock: it checks each entry it
is given (signature and chain by the log, turn and legality by the
``TableMachine``) before it goes into the log, and writes this seat's entries
when they are due. The network runtime (``p2pcards.peer``) feeds it from the
mesh; tests and the audit can feed it directly.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

from p2pcards import limits
from p2pcards.games import IllegalAction
from p2pcards.protocol.checkpoint import CheckpointError
from p2pcards.protocol.checkpoint import restore as restore_checkpoint
from p2pcards.protocol.log import END, Entry, GameLog, LogError, LogFile, assemble, check_body_signature, sign_body
from p2pcards.protocol.machine import ABORT, ACTION, PAUSE, REKEY, SHUFFLE, Expect, TableMachine, Violation
from p2pcards.mental import deck_hash
from p2pcards.net.messages import printable
from p2pcards.protocol.seat import Seat
from p2pcards.protocol.walk import LogWalk, Step

# A seat's next shuffle or re-key, computed on a deck while that deck's proof
# is still being checked (libsecp256k1 calls release the GIL): one worker.
log = logging.getLogger("p2pcards.protocol.driver")
_AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="p2pcards-ahead")

# The latest steps a driver keeps for its screen: more than a screen's history
# of lines, and bounded, whatever the length of the match.
STEPS_KEPT = 256


class SeatDriver:
    """Log + machine (one ``LogWalk``) + this seat's knowledge, unless a spectator."""

    def __init__(self, genesis: Entry, seat: int | None, signer=None, log_path: str | os.PathLike | None = None,
                 seeds: dict[int, bytes] | None = None, walk: LogWalk | None = None):
        self.walk = walk if walk is not None else LogWalk.start(genesis)
        # The latest entries taken in, each with the table as it stood before
        # it: what the screen puts into words, however many came at once.
        self.steps: deque[Step] = deque(maxlen=STEPS_KEPT)
        # The file holds the *final* entries only (acknowledged by every
        # player): an entry that may still be replaced by an abort is not. It
        # follows this seat's log, which checked every entry once.
        self.file: LogFile | None = None
        if log_path is not None:
            self.file = LogFile.create(log_path, self.log)
        self.final_len = 1  # entries every player acknowledged
        self.written_len = 1  # entries durably in the file
        self._write_lock = threading.Lock()  # write_final runs in worker threads
        self.me = Seat(seat, seeds) if seat is not None else None
        self.signer = signer
        # ((kind, deal, context, input deck hash), this seat's step computed ahead)
        self._ahead: tuple[tuple, Future] | None = None
        self.pipelining = True  # off while a log is replayed (nothing is written meanwhile)

    @property
    def log(self) -> GameLog:
        return self.walk.log

    @property
    def machine(self) -> TableMachine:
        return self.walk.machine

    @property
    def seat(self) -> int | None:
        return None if self.me is None else self.me.seat

    @property
    def game(self):
        return self.machine.game

    @classmethod
    def reopen(cls, log_path: str | os.PathLike, seat: int, signer, seeds: dict[int, bytes],
               checkpoint: bytes | None = None) -> "SeatDriver":
        """The driver of a seat coming back after a crash: its log file (a
        torn last write is cut off) replayed through a fresh machine, or from
        ``checkpoint`` on (``protocol.checkpoint``) if it fits the log."""
        file = LogFile.open(log_path, repair=True)
        if len(file.log) == 0:
            file.close()
            raise LogError(0, f"{os.fspath(log_path)} holds not even the table entry (the file was cut short): "
                              "there is no game to come back to")
        # The file's signatures and chain were checked on opening; it holds
        # only entries this seat's machine took in, every proof checked then.
        walk = LogWalk(file.log)
        driver = cls(file.log.genesis, seat, signer, seeds=seeds, walk=walk)
        if checkpoint is not None:
            try:
                machine, me = restore_checkpoint(checkpoint, list(file.log), seat, signer)
            except CheckpointError as exc:
                log.warning("%s: the checkpoint is not used (%s); the whole log is replayed",
                            os.fspath(log_path), exc)
            else:
                walk.machine, driver.me = machine, me
                me.seeds.update(seeds)  # the state file's seeds are the newest
                log.info("%s: resumed from the checkpoint at entry %d of %d", os.fspath(log_path),
                         machine.seq - 1, len(file.log) - 1)
        walk.machine.verified_before = len(file.log)
        driver._follow()
        driver.file = file
        driver.final_len = driver.written_len = len(file.log)
        return driver

    def _follow(self) -> None:
        """Take the entries the log holds into the machine (and this seat's knowledge)."""
        me = self.me

        def taken(step: Step, machine: TableMachine) -> None:
            if step.refused is None:
                self.steps.append(step)
                if me is not None:
                    me.refresh(machine)

        refused = self.walk.follow(observe=taken)
        if refused is not None:
            raise refused.refused

    # ----- taking entries in
    def receive(self, entry: Entry) -> None:
        """Check and take in the next entry. On LogError or Violation nothing
        changes: the entry is not logged."""
        started: list[tuple[tuple, Future]] = []

        def checked(entry: Entry) -> None:
            ahead = self._start_ahead(entry)
            if ahead is not None:
                started.append(ahead)

        try:
            step = self.walk.take(entry, checked)
        except Violation:
            for _, future in started:
                future.cancel()  # built on a refused entry: never used
            raise
        self.steps.append(step)
        if started:
            self._ahead = started[0]
        if self.me is not None:
            self.me.refresh(self.machine)

    def finalize(self, length: int | None = None) -> None:
        """The entries before ``length`` (default: all) are final: no abort
        can replace them. ``write_final`` puts them in the file."""
        length = len(self.log) if length is None else min(length, len(self.log))
        self.final_len = max(self.final_len, length)

    def write_final(self) -> None:
        """Append the final entries not yet in the file, durably (blocks on
        fsync: from trio, run it in a thread)."""
        with self._write_lock:
            while self.written_len < self.final_len:
                entry = self.log[self.written_len]
                if self.file is not None:
                    self.file.append(entry)
                self.written_len += 1

    def rollback(self, length: int) -> None:
        """Forget the entries from ``length`` on (never a final one): they were
        replaced by an abort before every player had acknowledged them."""
        if length < self.final_len:
            raise ValueError(f"entry {length} is final and cannot be rolled back")
        # write_final (in a thread) reads only final entries, which stay put.
        self.log.truncate(length)
        # A machine cannot step back: a fresh one takes the entries in again,
        # with the proofs this seat checked already not checked again.
        self.walk = LogWalk(self.log)
        self.walk.machine.verified_before = length
        self.me = Seat(self.me.seat, self.me.seeds) if self.me is not None else None
        self.steps.clear()  # walked again: the kept entries are those of the log now
        self._follow()

    def _start_ahead(self, entry: Entry) -> tuple[tuple, Future] | None:
        """Pipelining: if ``entry`` hands this seat the input of its next
        shuffle or re-key, start that step in the background while the entry
        is checked. It is only ever used once the entry has been accepted and
        the step is due on exactly that input (``_take_ahead``)."""
        if self.me is None or entry.author == self.seat or not self.pipelining:
            return None
        nxt = self.me.next_step(self.machine, entry)
        if nxt is None:
            return None
        kind, deck, ctx = nxt
        deal = self.machine.deal.index
        secrets = self.me.secrets(deal)
        return (kind, deal, ctx, deck_hash(deck)), _AHEAD.submit(Seat.step_body, kind, secrets, deck, ctx)

    def _take_ahead(self, want: Expect) -> dict | None:
        ahead, self._ahead = self._ahead, None
        if ahead is None:
            return None
        key, future = ahead
        m = self.machine
        ctx = m.proof_context(self.seat, want.kind, m.head_hash)
        if key != (want.kind, m.deal.index, ctx, deck_hash(m.deck_in())):
            future.cancel()
            return None
        try:
            body = dict(future.result())
        except Exception:  # computed again in the ordinary way, which raises where it belongs
            return None
        body["deal"] = m.deal.index
        return body

    # ----- writing this seat's entries
    def due(self) -> Expect | None:
        """What this seat must write now (None: somebody else's turn)."""
        if self.me is None or self.machine.finished:
            return None
        if self.me.problem is not None and not self.machine.aborted:
            return Expect(self.seat, ABORT)
        return self.me.due(self.machine)

    def write(self, action: dict | None = None, chat: list[str] | None = None, auto: bool = False) -> Entry:
        """Sign this seat's due entry (an action needs ``action``), take it in,
        and return it for sending. IllegalAction if the engine refuses the action."""
        want = self.due()
        if want is None:
            raise IllegalAction("it is not your turn")
        if want.kind == ABORT:
            return self.write_abort(self.me.problem or self.machine.pending_problem)
        payload = None
        if want.kind in (SHUFFLE, REKEY):
            payload = self._take_ahead(want)
        if payload is None:
            payload = self.me.payload(self.machine, want, action)
        if chat:
            payload["chat"] = list(chat)
        if auto and want.kind == ACTION:
            payload["auto"] = True  # played by this seat's client for its idle player (table.md §4)
        return self._sign_and_take(want.kind, payload)

    def write_pause(self, op: str, auto: bool = False, chat: list[str] | None = None) -> Entry:
        """Sign this seat's pause entry (table.md §3a): ``ask`` in place of its
        move, its answer ``yes``/``no``, or ``continue`` to end its pause."""
        payload: dict = {"deal": self.machine.deal.index, "pause": op}
        if chat:
            payload["chat"] = list(chat)
        if auto:
            payload["auto"] = True
        return self._sign_and_take(PAUSE, payload)

    def write_abort(self, violation: Violation, evidence: list[bytes] | None = None,
                    attestations: list[bytes] | None = None) -> Entry:
        # Cut to the limits every machine checks, or our own abort would be refused.
        payload = {"culprit": violation.seat, "kind": printable(violation.kind, limits.MAX_ABORT_KIND),
                   "detail": printable(violation.detail, limits.MAX_ABORT_DETAIL)}
        if evidence:
            payload["evidence"] = list(evidence)
        if attestations:
            payload["attestations"] = list(attestations)  # a silence abort: what it rests on
        return self._sign_and_take(ABORT, payload)

    def _sign_and_take(self, kind: str, payload: dict) -> Entry:
        entry = self.log.make_next(self.seat, kind, payload, self.signer)
        self.machine.skip_proof = entry.hash  # no seat re-checks its own proof
        self.receive(entry)
        return entry

    def legal_actions(self) -> list[dict]:
        return [] if self.me is None else self.me.legal_actions(self.machine)

    def my_state(self):
        return None if self.me is None else self.me.state(self.machine)

    # ----- the end entry, signed by everybody
    def end_body(self) -> bytes:
        return self.log.end_body(self.machine.end_payload())

    def sign_end(self, body: bytes) -> bytes:
        """Sign a proposed end body after checking it says what this log says."""
        if bytes(body) != self.end_body():
            raise Violation(None, "bad-end", "the proposed end entry is not what this log shows")
        return sign_body(body, self.signer)

    def check_end_signature(self, body: bytes, seat: int, signature: bytes) -> None:
        check_body_signature(body, self.log.public_keys[seat], signature, seat)

    def end_signers(self) -> list[int]:
        """Who signs the end: every seat not blamed by an abort."""
        return [s for s in range(self.machine.players) if s not in self.machine.excluded]

    def finish(self, body: bytes, signatures: dict[int, bytes]) -> Entry:
        sigs = [signatures.get(s) for s in range(self.machine.players)]
        entry = assemble(body, sigs)
        self.receive(entry)
        return entry

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


__all__ = ["SeatDriver", "LogError", "Violation", "END", "ACTION"]
