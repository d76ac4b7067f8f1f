"""Watching a finished game again: the log replayed entry by entry.

``load_replay`` feeds the log through the same ``TableMachine`` the players
ran and keeps, after every entry, the public deal state. Once a deal's final
reveal is in, every card of it is known, so the table can be shown as any
seat saw it (``view(state, seat)`` shows only what that seat could see) or
with every hand open. The audit's findings are attached to their entries.
"""

from __future__ import annotations

import dataclasses

from p2pcards.audit import audit_log, load, Unverifiable
from p2pcards.cards import display, unknown
from p2pcards.games import substitute
from p2pcards.protocol.machine import ABORT, ACTION, KEYS, REKEY, REVEAL, SHUFFLE, Violation, new_machine


class ReplayError(Exception):
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


@dataclasses.dataclass
class Replay:
    game: object
    names: list[str]
    players: int
    frames: list[Frame]
    deal_codes: dict[int, list[str]]  # deal -> every position's card, after its final reveal
    findings: dict[int, list[dict]]  # entry -> the audit's violations there
    audit_ok: bool
    result: dict

    def full_state(self, frame: Frame):
        """The deal state at ``frame`` with every card known (after the reveal)."""
        codes = self.deal_codes.get(frame.deal)
        if frame.state is None or codes is None:
            return frame.state
        return substitute(frame.state, {unknown(p): c for p, c in enumerate(codes)})

    def view(self, frame: Frame, seat: int | None) -> dict | None:
        """The table at ``frame`` as ``seat`` saw it (None: a spectator)."""
        state = self.full_state(frame)
        return None if state is None else self.game.view(state, seat)

    def hands(self, frame: Frame) -> list[list[str]] | None:
        """Every hand at ``frame``; None if the deal's cards are not known."""
        if self.deal_codes.get(frame.deal) is None or frame.state is None:
            return None
        state = self.full_state(frame)
        return [sorted(self.game.hand(state, s)) for s in range(self.players)]

    def deal_starts(self) -> list[int]:
        """Frame numbers where a deal's play begins."""
        starts, seen = [], set()
        for i, frame in enumerate(self.frames):
            if frame.deal not in seen:
                seen.add(frame.deal)
                starts.append(i)
        return starts


def load_replay(path) -> Replay:
    try:
        log = load(path)
    except Unverifiable as exc:
        raise ReplayError(f"cannot replay {path}: {exc}") from None
    report = audit_log(log)
    findings: dict[int, list[dict]] = {}
    for v in report.violations:
        findings.setdefault(v["entry"] if v["entry"] is not None else 0, []).append(v)
    machine = new_machine(log.genesis)
    machine.head_hash = log.genesis.hash
    names = [p.name for p in log.table.players]
    frames = [Frame(0, -1, "table", 0, _table_text(log.table, machine), None, [])]
    from p2pcards.protocol.narration import describe

    for entry in log.entries[1:]:
        deal_before = machine.deal.index
        state_before = machine.state
        try:
            machine.accept(entry)
        except Violation as v:
            frames.append(Frame(entry.seq, entry.author, entry.kind, deal_before, f"REFUSED: {v}", state_before, []))
            break
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        who = names[entry.author] if 0 <= entry.author < len(names) else "everybody"
        if entry.kind == ACTION:
            text = describe(machine.game, state_before, entry.author, payload.get("action", {}), names)
            if payload.get("auto") is True:
                text += f" (played automatically for {who})"
        elif entry.kind == SHUFFLE:
            text = f"{who} shuffles (with proof)"
        elif entry.kind == REKEY:
            text = f"{who} locks each card with its own key"
        elif entry.kind == KEYS:
            text = f"{who} shows {len(payload.get('keys', []))} card(s) to whoever may see them"
        elif entry.kind == REVEAL:
            text = f"{who} reveals its keys of the deal"
        elif entry.kind == ABORT:
            culprit = payload.get("culprit")
            text = (f"{who} stops the game: {payload.get('kind')} by "
                    f"{names[culprit] if isinstance(culprit, int) and 0 <= culprit < len(names) else 'somebody'}"
                    f": {payload.get('detail')}")
        else:
            text = f"the end, signed: {_result_text(entry.payload, names)}"
        # The state shown for an entry is the deal it belongs to.
        deal = deal_before
        state = machine.state if machine.deal.index == deal_before else state_before
        frames.append(Frame(entry.seq, entry.author, entry.kind, deal, text, state, list(payload.get("chat") or [])))
    codes = {d.index: d.codes for d in machine.deals if d.codes is not None}
    return Replay(machine.game, names, machine.players, frames, codes, findings, report.ok, report.as_json())


def _table_text(table, machine) -> str:
    names = ", ".join(f"{p.name} (seat {i})" for i, p in enumerate(table.players))
    return f"{table.game} for {len(table.players)}: {names}; options {table.options}"


def _result_text(payload, names) -> str:
    if not isinstance(payload, dict):
        return "?"
    parts = [f"scores {payload.get('scores')}"]
    if payload.get("chips") is not None:
        parts.append(f"chips {payload.get('chips')}")
    if payload.get("blame"):
        parts.append("blame: " + "; ".join(f"seat {b['seat']} {b['kind']}" for b in payload["blame"]))
    return ", ".join(parts)


def replay_text(replay: Replay, seat: int | None = None, show_all: bool = False, ascii_only: bool = False):
    """The game move by move, as lines; with ``seat`` that seat's hand after
    each move, with ``show_all`` every hand."""
    for frame in replay.frames:
        line = f"#{frame.index:<4} {frame.text}"
        for text in frame.chat:
            line += f"\n       chat {replay.names[frame.author]}: {text}"
        yield line
        for v in replay.findings.get(frame.index, []):
            who = f"seat {v['seat']}" if v["seat"] is not None else "nobody identified"
            yield f"       !! {v['kind']} by {who}: {v['detail']}"
        if frame.kind != ACTION:
            continue
        if show_all:
            hands = replay.hands(frame)
            if hands is not None:
                for s, hand in enumerate(hands):
                    yield f"       {replay.names[s]:>12}: {' '.join(display(c, ascii_only) for c in hand)}"
        elif seat is not None:
            view = replay.view(frame, seat)
            if view is not None:
                yield f"       your hand: {' '.join(display(c, ascii_only) for c in view.get('hand', []))}"
    yield ("audit: clean" if replay.audit_ok else
           f"audit: {len(replay.result['violations'])} violation(s)") + f"; final scores {replay.result['scores']}"
