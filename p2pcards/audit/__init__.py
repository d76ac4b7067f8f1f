"""The audit of a finished log: anyone can check that nobody cheated.

In order:
1. the file: format, version, every signature over the exact bytes, the hash
   chain, entry 0 signed by all, the end entry (``p2pcards.protocol.log``);
2. the dealing and the rules as the players saw them: every entry fed through
   the ``TableMachine`` the players ran (shuffle proofs, keys, turns, moves);
3. the dealing in full: every layer of every card from the final reveal;
4. the rules with every card known: each deal replayed through the engine
   from the revealed deck, which catches what no player could check during
   play (a warkocz pass while holding the needed rank, a bura declaration's
   face-down cards, the hands at the end);
5. the results: scores, chips and the bank recomputed and compared with the
   end entry; an abort's accusation checked against its evidence.

Exit codes (CONTRACT.md): 0 clean, 1 violations found, 2 not a verifiable log.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from p2pcards.cards import unknown
from p2pcards.games import IllegalAction, NeedReveal, substitute
from p2pcards.protocol.log import Entry, GameLog, LogError, read_log
from p2pcards.protocol.machine import ABORT, TableMachine, Violation, new_machine

CLEAN, VIOLATIONS, UNVERIFIABLE = 0, 1, 2


class Unverifiable(Exception):
    """The file is not a verifiable log (exit 2)."""


@dataclasses.dataclass
class AuditReport:
    ok: bool
    game: str
    players: list[dict]
    entries: int
    deals: int
    violations: list[dict]
    scores: dict
    chips: dict | None
    exit_code: int = CLEAN
    error: str | None = None
    notes: list[str] = dataclasses.field(default_factory=list)

    def as_json(self) -> dict:
        out = {
            "ok": self.ok,
            "game": self.game,
            "players": self.players,
            "entries": self.entries,
            "deals": self.deals,
            "violations": self.violations,
            "scores": self.scores,
            "chips": self.chips,
        }
        if self.error:
            out["error"] = self.error
        return out


def _violation(v: Violation, entry: int | None) -> dict:
    return {"seat": v.seat, "entry": entry, "kind": v.kind, "detail": v.detail}


def load(path) -> GameLog:
    """The log at ``path``, checked as a file (signatures, chain); Unverifiable if not."""
    try:
        log = read_log(path, strict=True)
    except LogError as exc:
        raise Unverifiable(str(exc)) from None
    if len(log) == 0:
        raise Unverifiable("the file holds no entry")
    if not log.is_finished:
        raise Unverifiable(f"the log has no end entry: it stops after entry {len(log) - 1} (unfinished or truncated)")
    return log


def audit_file(path) -> AuditReport:
    try:
        log = load(path)
    except Unverifiable as exc:
        return _unverifiable(str(exc))
    return audit_log(log)


def _unverifiable(reason: str) -> AuditReport:
    return AuditReport(False, "", [], 0, 0, [], {}, None, UNVERIFIABLE, reason)


def audit_log(log: GameLog) -> AuditReport:
    """The audit of a log. A first pass defers the dealing proofs and key
    checks to each deal's final check, which recomputes every layer from the
    revealed seeds (cheaper, and says more); if it finds anything wrong, the
    log is audited again with every proof and key checked as the players
    checked them, so that a fault is pinned to the entry where it was made."""
    report = _audit_log(log, verify_proofs=False)
    if report.exit_code == VIOLATIONS:
        report = _audit_log(log, verify_proofs=True)
    return report


def _audit_log(log: GameLog, verify_proofs: bool) -> AuditReport:
    players = _players(log)
    try:
        machine = new_machine(log.genesis, verify_proofs=verify_proofs)
    except Exception as exc:  # an unknown game or options no engine accepts
        return _unverifiable(f"entry 0: {exc}")
    machine.head_hash = log.genesis.hash
    violations: list[dict] = []
    missing_signers = [s for s, sig in enumerate(log.end.signature) if sig is None]

    # 2. The log as the players saw it.
    history: list[TableMachine] = []  # the machine before each abort, for checking evidence
    stopped_at = None
    for entry in log.entries[1:]:
        if entry.kind == ABORT:
            history.append(copy.deepcopy(machine))
        try:
            machine.accept(entry)
        except Violation as v:
            seat = v.seat if v.seat is not None else (entry.author if entry.author >= 0 else None)
            violations.append(_violation(Violation(seat, v.kind, v.detail), entry.seq))
            stopped_at = entry.seq
            break
    if stopped_at is not None:
        return _report(log, machine, players, violations, note=f"replay stopped at entry {stopped_at}")

    # 5a. Accusations against their evidence.
    abort_states = iter(history)
    for index, accusation in machine.aborts:
        before = next(abort_states)
        abort_entry = log[index]
        violations.extend(_judge_abort(log, before, abort_entry, accusation))
    # 3. The dealing in full (done by the machine at each final reveal).
    for index, finding in machine.findings:
        violations.append(_violation(finding, index))

    # 4. The rules with every card known.
    for deal in machine.deals:
        if deal.codes is None:
            continue
        violations.extend(_replay_deal(machine, deal))

    # The end entry: everybody not blamed must have signed it.
    blamed = {v["seat"] for v in violations}
    for seat in missing_signers:
        if seat not in blamed and seat not in machine.excluded:
            violations.append({"seat": seat, "entry": len(log) - 1, "kind": "unsigned-end",
                               "detail": f"seat {seat} did not sign the end of a game it was not blamed in"})
    return _report(log, machine, players, violations)


def _report(log: GameLog, machine: TableMachine, players: list[dict], violations: list[dict],
            note: str | None = None) -> AuditReport:
    result = machine.game.match_result(machine.match)
    sides = len(result["scores"])
    pairs = sides != machine.players
    scores = {}
    for side, score in enumerate(result["scores"]):
        key = "+".join(str(s) for s in range(machine.players) if s % sides == side) if pairs else str(side)
        scores[key] = score
    chips = None
    if result["chips"] is not None:
        chips = {str(seat): c for seat, c in enumerate(result["chips"])}
        chips["bank"] = result["bank"]
    deals = len([d for d in machine.deals if d.scores is not None])
    # Deduplicate: the same fault may be found by two checks.
    seen, unique = set(), []
    for v in violations:
        key = (v["seat"], v["entry"], v["kind"])
        if key not in seen:
            seen.add(key)
            unique.append(v)
    code = VIOLATIONS if unique else CLEAN
    report = AuditReport(not unique, machine.game.id, players, len(log), deals, unique, scores, chips, code)
    if note:
        report.notes.append(note)
    return report


def _judge_abort(log: GameLog, before: TableMachine, abort_entry: Entry, accusation: Violation) -> list[dict]:
    """An accusation stands if its evidence shows it; a false one is the accuser's fault."""
    accuser = abort_entry.author
    evidence = abort_entry.payload.get("evidence") or []
    culprit = accusation.seat
    if culprit is None:
        return []  # "opens to no card": the final reveal judges it (machine findings)
    if accusation.kind == "equivocate":
        entries = _parse_evidence(evidence)
        if (len(entries) == 2 and entries[0].raw != entries[1].raw
                and all(e.author == culprit and e.seq == entries[0].seq for e in entries)
                and all(_signed_by(log, e, culprit) for e in entries)):
            return [_violation(accusation, abort_entry.seq)]
        return [_false(accuser, abort_entry.seq, "equivocation without two differing entries signed by the accused")]
    if accusation.kind in ("timeout", "silent", "left"):
        # Silence leaves no evidence; the log shows whether it was the accused's turn.
        want = before.expect() if not before.finished else None
        if want is not None and (want.author == culprit or want.author is None):
            return [_violation(accusation, abort_entry.seq)]
        if want is not None and accusation.kind in ("silent", "left"):
            return [_violation(accusation, abort_entry.seq)]
        return [_false(accuser, abort_entry.seq, f"blamed seat {culprit} for silence when it was not its turn")]
    # Any other accusation must come with the accused's signed entry, which
    # the table at that point must refuse for the culprit's fault.
    entries = _parse_evidence(evidence)
    for e in entries:
        if e.author != culprit or not _signed_by(log, e, culprit):
            continue
        if e.seq < len(log) and log[e.seq].raw == e.raw:
            continue  # an entry the log holds is no evidence against its author
        if not 0 < e.seq <= abort_entry.seq:
            continue
        # The table at the evidence's own place must refuse it for the culprit's fault.
        probe = copy.deepcopy(before) if e.seq == abort_entry.seq else _machine_at(log, e.seq)
        probe.verify_proofs = True  # evidence is judged as the players judged it
        try:
            probe.accept(e)
        except Violation as v:
            if v.seat == culprit or v.seat is None:
                return [_violation(Violation(culprit, accusation.kind, accusation.detail), abort_entry.seq)]
    return [_false(accuser, abort_entry.seq, f"accused seat {culprit} of {accusation.kind} without evidence that shows it")]


def _machine_at(log: GameLog, seq: int) -> TableMachine:
    """The table as it stood before entry ``seq`` of the log."""
    machine = new_machine(log.genesis)
    machine.head_hash = log.genesis.hash
    for entry in log.entries[1:seq]:
        machine.accept(entry)
    return machine


def _false(accuser: int, index: int, detail: str) -> dict:
    return {"seat": accuser, "entry": index, "kind": "false-accusation", "detail": detail}


def _parse_evidence(evidence: Any) -> list[Entry]:
    out = []
    if not isinstance(evidence, list):
        return out
    for raw in evidence[:4]:
        try:
            out.append(Entry.from_wire(raw))
        except LogError:
            continue
    return out


def _signed_by(log: GameLog, entry: Entry, seat: int) -> bool:
    try:
        entry.verify_signature(log.public_keys)
    except LogError:
        return False
    return entry.author == seat


def _replay_deal(machine: TableMachine, deal) -> list[dict]:
    """Replay one deal through the engine with every card known."""
    game = machine.game
    everything = {unknown(p): c for p, c in enumerate(deal.codes)}
    ctx_match = deal.match_before
    try:
        state = game.start(machine.players, deck=list(deal.codes), dealer=deal.dealer, options=ctx_match.options,
                           scores=list(ctx_match.scores), **game.deal_context(ctx_match))
    except (IllegalAction, NeedReveal) as exc:
        return [{"seat": None, "entry": deal.first_entry, "kind": "bad-deal", "detail": str(exc)}]
    for index, seat, action in deal.actions:
        full_action = substitute(action, everything)
        try:
            state = game.apply(state, full_action)
        except (IllegalAction, NeedReveal) as exc:
            return [{"seat": seat, "entry": index, "kind": "hidden-rule",
                     "detail": f"with every card known, this move is illegal: {exc}"}]
    if deal.scores is not None and game.deal_scores(state) != deal.scores:
        return [{"seat": None, "entry": deal.first_entry, "kind": "bad-score",
                 "detail": "the deal's score with every card known differs from the table's"}]
    return []


def audit_pair(path_a, path_b) -> AuditReport:
    """Two logs of the same game: where they part, the author of the two
    differing entries signed both, which is equivocation."""
    try:
        a = read_log(path_a, strict=False)
        b = read_log(path_b, strict=False)
    except LogError as exc:
        return _unverifiable(str(exc))
    if not len(a) or not len(b) or a.genesis.raw != b.genesis.raw:
        return _unverifiable("the two files are not logs of the same game (their table entries differ)")
    for ea, eb in zip(a.entries, b.entries):
        if ea.raw == eb.raw:
            continue
        report = audit_log(a) if a.is_finished else _report(a, _replayed(a), _players(a), [])
        if ea.author == eb.author and ea.author >= 0 and ea.seq == eb.seq:
            report.violations.insert(0, {"seat": ea.author, "entry": ea.seq, "kind": "equivocate",
                                         "detail": f"seat {ea.author} signed two different entries {ea.seq}"})
        else:
            report.violations.insert(0, {"seat": None, "entry": ea.seq, "kind": "forked",
                                         "detail": "the logs part at entries by different authors"})
        report.ok, report.exit_code = False, VIOLATIONS
        return report
    if len(a) == len(b):
        return audit_log(a) if a.is_finished else _unverifiable("the logs are the same and unfinished")
    longer = a if len(a) > len(b) else b
    return audit_log(longer) if longer.is_finished else _unverifiable("the longer log is unfinished")


def _players(log: GameLog) -> list[dict]:
    from p2pcards.identity import fingerprint

    return [{"seat": i, "name": p.name, "key": p.key.hex(), "fingerprint": fingerprint(p.key)}
            for i, p in enumerate(log.table.players)]


def _replayed(log: GameLog) -> TableMachine:
    machine = new_machine(log.genesis)
    for entry in log.entries[1:]:
        try:
            machine.accept(entry)
        except Violation:
            break
    return machine
