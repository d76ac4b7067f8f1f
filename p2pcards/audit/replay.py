"""Watching a game again: the log walked once through the table machine.

``open_replay`` reads and verifies the file (signatures, chain) and returns at
once; ``Replay.walk`` then feeds the log through the audit's own walk (the
same ``TableMachine`` the players ran, ``audit_log(observe=...)``), keeping
after every entry the public deal state. The viewer runs the walk in a
thread and shows what is read so far; ``load_replay`` walks it all first.

Two levels: ``frames`` (one per protocol entry, for the detail view) and
``moves`` (what players did: the dealing folded into one "dealt" step, the
card shown to a drawer folded into the draw, the final reveal into "deal
over"). Once a deal's final reveal is in, every card of it is known, so the
table can be shown as any seat saw it or with every hand open. A log without
an end (a game somebody left) is shown as far as it goes.
"""

from __future__ import annotations

import dataclasses
import os
import threading

from p2pcards.audit import UNFINISHED, Unverifiable, audit_path
from p2pcards.cards import unknown
from p2pcards.games import get_game, substitute
from p2pcards.i18n import N_, _, message_of, shown
from p2pcards.protocol.log import LogError, read_table
from p2pcards.protocol.machine import ABORT, ACTION, END, KEYS, PAUSE, REVEAL
from p2pcards.protocol.narration import narrate_entry

DEALT, MOVE, DEAL_OVER, STOP, THE_END, TABLE = "dealt", "move", "deal over", "stopped", "end", "table"


class ReplayError(Exception):
    pass


class _Cancelled(Exception):
    pass


@dataclasses.dataclass
class Frame:
    index: int  # the log entry
    author: int  # -1: signed by all
    kind: str
    deal: int
    text: str  # what happened, in words everybody could read
    state: object  # public deal state after the entry (unknown tokens), or None
    chat: list[str]
    action: dict | None = None  # an action entry's public action


@dataclasses.dataclass
class Move:
    """One step of the game as players lived it: frames ``first``..``last``."""

    kind: str  # TABLE, DEALT, MOVE, DEAL_OVER, STOP, THE_END
    deal: int
    seat: int  # -1: nobody in particular
    text: str
    first: int  # frame positions
    last: int


@dataclasses.dataclass
class DealResult:
    number: int  # 1-based
    scores: dict  # game.deal_scores of the deal
    match_scores: list[int]
    match_chips: list[int] | None
    bank: int
    bank_won: int = 0  # taken by the winner as this deal ended the match


class Replay:
    """Built from the table entry alone (``read_table``); ``walk`` reads the
    rest of the file, verified, and goes through it."""

    def __init__(self, path, table_log, total: int):
        self.path = path
        self.log = table_log  # the whole log once walk() has read it
        self.names = [p.name for p in table_log.table.players]
        self.players = len(self.names)
        self.total = total  # entries the file frames
        self.finished_log = False
        self.reading = True  # the file's signatures and chain are being checked
        self.game = get_game(table_log.table.game)
        self.options: dict = dict(table_log.table.options or {})
        self.frames: list[Frame] = []
        self.moves: list[Move] = []
        self.deal_codes: dict[int, list[str]] = {}
        self._mappings: dict[int, dict[str, str]] = {}  # _revealed
        self.results: dict[int, DealResult] = {}
        self.match_result: dict | None = None  # game.match_result as the log ends
        self.findings: dict[int, list[dict]] = {}
        self.report = None  # the audit's report, once the walk is done
        self.done = threading.Event()
        self.error: str | None = None
        self._pending: Move | None = None
        self._cancel = False
        self.on_progress = None  # called now and then from the walk
        self.frames.append(Frame(0, -1, "table", 0, self._table_text(), None, []))
        self.moves.append(Move(TABLE, 0, -1, self.frames[0].text, 0, 0))

    # ----- reading ------------------------------------------------------------------
    @property
    def audit_ok(self) -> bool:
        return self.report is not None and self.report.ok

    @property
    def result(self) -> dict:
        return self.report.as_json() if self.report is not None else {}

    @property
    def complete(self) -> bool:
        """The game finished: the log ends with its signed end entry."""
        return self.report is not None and self.report.exit_code != UNFINISHED and self.finished_log

    def progress(self) -> float:
        if self.done.is_set():
            return 1.0
        return 0.0 if self.reading else len(self.frames) / max(1, self.total)

    def walk(self) -> "Replay":
        """Read the whole log (the audit's walk); frames and moves grow as it goes."""
        def loaded(log) -> None:
            self.log = log
            self.total, self.finished_log, self.reading = len(log), log.is_finished, False
            if self.on_progress:
                self.on_progress()

        try:
            try:
                _log, report = audit_path(self.path, observe=self._observe, restart=self._restart, loaded=loaded)
            except Unverifiable as exc:
                raise ReplayError(N_("cannot replay {path}: {reason}", path=os.fspath(self.path),
                                     reason=message_of(exc))) from None
            for v in report.violations:
                self.findings.setdefault(v["entry"] if v["entry"] is not None else 0, []).append(v)
            self.report = report
            self._publish()
        except _Cancelled:
            pass
        except ReplayError as exc:
            self.error = shown(exc)
        except Exception as exc:  # a walk that breaks must say so, not hang the viewer
            self.error = _("the replay stopped reading the log: {reason}").format(reason=shown(exc))
            self._publish()
        finally:
            self.done.set()
            if self.on_progress:
                self.on_progress()
        return self

    def _restart(self) -> None:
        """Back to the table entry: the audit walks the log again (a deal's
        layers were not what its walk took them to be, ``audit_log``)."""
        self.frames, self.moves = self.frames[:1], self.moves[:1]
        self.deal_codes, self._mappings, self.results, self.findings = {}, {}, {}, {}
        self.match_result, self._pending = None, None

    def start(self) -> threading.Thread:
        """The walk in a thread (the viewer shows what is read so far)."""
        thread = threading.Thread(target=self.walk, name="replay-walk", daemon=True)
        thread.start()
        return thread

    def cancel(self) -> None:
        self._cancel = True

    def _observe(self, entry, machine, deal_before, state_before, refused) -> None:
        if self._cancel:
            raise _Cancelled
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        action = payload.get("action") if entry.kind == ACTION and isinstance(payload.get("action"), dict) else None
        if refused is not None:
            # Translators: a replay's step that the rules refused; {reason} says why.
            text = _("REFUSED: {reason}").format(reason=shown(refused))
            state = state_before
        else:
            text = narrate_entry(machine.game, entry, deal_before, state_before, self.names)
            state = machine.state if machine.deal.index == deal_before else state_before
        pos = len(self.frames)
        self.frames.append(Frame(entry.seq, entry.author, entry.kind, deal_before, text, state,
                                 list(payload.get("chat") or []), action))
        self._fold(pos, entry, deal_before, text, refused is not None, machine.deal.dealer)
        if entry.kind in (REVEAL, END, ABORT):
            self._deal_closed(machine)
            self.match_result = machine.game.match_result(machine.match)
        if self.on_progress and pos % 64 == 0:
            self.on_progress()

    def _fold(self, pos: int, entry, deal: int, text: str, refused: bool, dealer: int) -> None:
        """Which move this entry belongs to."""
        pending = self._pending
        if refused or entry.kind in (ABORT, END):
            self._publish()
            kind = THE_END if entry.kind == END else STOP
            self._pending = Move(kind, deal, entry.author, text, pos, pos)
            self._publish()
        elif entry.kind in (ACTION, PAUSE):  # a pause asked, answered or ended is a step of its own
            self._publish()
            self._pending = Move(MOVE, deal, entry.author, text, pos, pos)
        elif entry.kind == REVEAL:
            if pending is None or pending.kind != DEAL_OVER or pending.deal != deal:
                self._publish()
                self._pending = Move(DEAL_OVER, deal, -1, _("deal {number} is over").format(number=deal + 1), pos, pos)
            else:
                pending.last = pos
        elif pending is not None and pending.deal == deal and pending.kind in (MOVE, DEALT) and (
                entry.kind == KEYS or pending.kind == DEALT):
            pending.last = pos  # the keys that show a drawn card, or more of the dealing
        else:  # the dealing of a new deal begins
            self._publish()
            text = (_("deal {number}: {name} deals").format(number=deal + 1, name=self.names[dealer])
                    if 0 <= dealer < self.players else _("deal {number}").format(number=deal + 1))
            self._pending = Move(DEALT, deal, -1, text, pos, pos)

    def _publish(self) -> None:
        if self._pending is not None:
            self.moves.append(self._pending)
            self._pending = None

    def _deal_closed(self, machine) -> None:
        for record in machine.deals:
            if record.codes is not None and record.index not in self.deal_codes:
                self.deal_codes[record.index] = list(record.codes)
            if record.scores is not None and record.index not in self.results:
                later = next((d for d in machine.deals if d.index == record.index + 1 and d.match_before), None)
                match = later.match_before if later is not None else machine.match
                result = machine.game.match_result(match)
                self.results[record.index] = DealResult(record.index + 1, record.scores, list(result["scores"]),
                                                        result["chips"], result.get("bank", 0),
                                                        match.bank_won())

    def _table_text(self) -> str:
        table = self.log.table
        seats = ", ".join(_("{name} (seat {seat})").format(name=p.name, seat=i) for i, p in enumerate(table.players))
        return _("{game} for {players}: {seats}").format(game=table.game, players=len(table.players), seats=seats)

    # ----- looking at a frame -------------------------------------------------------
    def _revealed(self, deal: int) -> dict[str, str] | None:
        """Every token of ``deal`` -> its card, once the reveal made them known (made once a deal)."""
        codes = self.deal_codes.get(deal)
        if codes is None:
            return None
        mapping = self._mappings.get(deal)
        if mapping is None:
            mapping = self._mappings[deal] = {unknown(p): c for p, c in enumerate(codes)}
        return mapping

    def full_state(self, frame: Frame):
        """The deal state at ``frame`` with every card known (after the reveal)."""
        mapping = self._revealed(frame.deal)
        if frame.state is None or mapping is None:
            return frame.state
        return substitute(frame.state, mapping)

    def view(self, frame: Frame, seat: int | None) -> dict | None:
        """The table at ``frame`` as ``seat`` saw it (None: a spectator)."""
        state = self.full_state(frame)
        return None if state is None else self.game.view(state, seat)

    def hands(self, frame: Frame) -> list[list[str]] | None:
        """Every hand at ``frame``, each in the order its seat saw it; None if
        the deal's cards are not known."""
        if self.deal_codes.get(frame.deal) is None or frame.state is None:
            return None
        state = self.full_state(frame)
        return [list(self.game.view(state, s).get("hand") or []) for s in range(self.players)]

    def public_action(self, frame: Frame) -> dict | None:
        """An action with every card the reveal made known."""
        mapping = self._revealed(frame.deal)
        if frame.action is None or mapping is None:
            return frame.action
        return substitute(frame.action, mapping)

    def frame_of(self, move: Move) -> Frame:
        return self.frames[move.last]

    def deal_starts(self) -> list[int]:
        """Move numbers where a deal is dealt."""
        return [i for i, m in enumerate(self.moves) if m.kind == DEALT]

    def first_decision(self, deal: int) -> int | None:
        """The move number of the first move of ``deal`` that was a choice
        (more than one legal move), or its first move if that is not known."""
        moves = [i for i, m in enumerate(self.moves) if m.deal == deal and m.kind == MOVE]
        for i in moves:
            before = self.frames[self.moves[i].first - 1]
            state = self.full_state(before) if before.deal == deal else None
            if state is None or self.deal_codes.get(deal) is None:
                return moves[0]
            try:
                if len(self.game.legal_actions(state)) > 1:
                    return i
            except Exception:  # an engine that cannot list moves here: take the first
                return moves[0]
        return moves[0] if moves else None


def open_replay(path) -> Replay:
    """The table entry read and verified; the rest of the file not yet."""
    try:
        table, total = read_table(path)
    except LogError as exc:
        raise ReplayError(N_("cannot replay {path}: {reason}", path=os.fspath(path), reason=message_of(exc))) from None
    try:
        return Replay(path, table, total)
    except Exception as exc:  # an unknown game: entry 0 names no engine we have
        raise ReplayError(N_("cannot replay {path}: entry 0: {reason}", path=os.fspath(path),
                             reason=message_of(exc))) from None


def load_replay(path) -> Replay:
    """The whole log walked (the audit included)."""
    replay = open_replay(path).walk()
    if replay.error:
        raise ReplayError(replay.error)
    return replay
