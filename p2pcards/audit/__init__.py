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

Silence is reported apart from violations (``silences``): who stopped
answering, where, and who attests it. A silence verdict stands, and then
counts as a violation, only if a strict majority of the players attests it.

Exit codes (CONTRACT.md): 0 clean, 1 violations found, 2 not a verifiable log,
3 clean as far as it goes but the game did not finish (the log stops before a
fully signed end: a player left, or a silence only a minority attests).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc

from p2pcards.audit import deals
from p2pcards.cards import unknown
from p2pcards.i18n import N_, Text, message_of
from p2pcards.games import IllegalAction, NeedReveal, substitute
from p2pcards.i18n import printable
from p2pcards.protocol.log import (
    END, Entry, GameLog, LogError, parse_log, read_bytes, signatures_hold, signed_parts,
)
from p2pcards.protocol.machine import (ABORT, ACTION, EQUIVOCATE, KEYS, PAUSE, REKEY, REVEAL, SHUFFLE,
                                       STOPPED, UNSIGNED_END, Expect, TableMachine, Violation)
from p2pcards.protocol.walk import LogWalk, Step, blamed, machine_at

CLEAN, VIOLATIONS, UNVERIFIABLE, UNFINISHED = 0, 1, 2, 3

# The report's own words (its notes and errors) stay English in the JSON; the
# text output puts them in the reader's language (``i18n.known(text, NOTES)``).
REPLAY_STOPPED = N_("replay stopped at entry {entry}")
STOPS_BEFORE_END = N_("the log stops after entry {entry}, before its end")
END_NOT_SIGNED = N_("the end entry is not signed by every player not blamed: {detail}")
MINORITY_SILENCE = N_("the game stopped at a silence only a minority of the players attests")
LOGS_PART = N_("the logs part at entry {entry}")
NO_ENTRY = N_("the file holds no entry")
NOT_ONE_GAME = N_("the two files are not logs of the same game (their table entries differ)")
# The details of the faults the audit itself finds (the JSON's "detail").
HIDDEN_RULE = N_("with every card known, this move is illegal: {reason}")
BAD_SCORE = N_("the deal's score with every card known differs from the table's")
TWO_VERSIONS = N_("seat {seat} signed two different versions of entry {entry} ({first} and {second})")
# Where a log stops unfinished: whose entry, of what kind, the table was waiting for.
WAITING_FOR = {
    SHUFFLE: N_("the table was waiting for seat {seat}'s shuffle (entry {entry})"),
    REKEY: N_("the table was waiting for seat {seat}'s re-key (entry {entry})"),
    KEYS: N_("the table was waiting for seat {seat}'s keys to cards (entry {entry})"),
    ACTION: N_("the table was waiting for seat {seat}'s move (entry {entry})"),
    REVEAL: N_("the table was waiting for seat {seat}'s final reveal (entry {entry})"),
    PAUSE: N_("the table was waiting for seat {seat}'s answer to a pause (entry {entry})"),
    ABORT: N_("the table was waiting for seat {seat}'s abort (entry {entry})"),
}
NOTES = (REPLAY_STOPPED, STOPS_BEFORE_END, END_NOT_SIGNED, MINORITY_SILENCE, LOGS_PART, NO_ENTRY, NOT_ONE_GAME,
         HIDDEN_RULE, BAD_SCORE, TWO_VERSIONS, *WAITING_FOR.values())


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
    silences: list[dict] = dataclasses.field(default_factory=list)
    fork: dict | None = None
    complete: bool = False  # the log holds its fully signed end: the game finished

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
            "silences": self.silences,
            "complete": self.complete,
        }
        if self.fork is not None:
            out["fork"] = self.fork
        if self.notes:
            out["notes"] = self.notes
        if self.error:
            out["error"] = self.error
        return out


def _violation(v: Violation, entry: int | None) -> dict:
    return {"seat": v.seat, "entry": entry, "kind": v.kind, "detail": v.detail}


def load(path) -> GameLog:
    """The log at ``path``, checked as a file (signatures, chain); Unverifiable if not."""
    try:
        return _parsed(read_bytes(path))
    except LogError as exc:
        raise Unverifiable(message_of(exc)) from None


def _parsed(data: bytes, signatures: bool = True) -> GameLog:
    try:
        log = parse_log(data, strict=True, signatures=signatures)
    except LogError as exc:
        raise Unverifiable(message_of(exc)) from None
    if len(log) == 0:
        raise Unverifiable(NO_ENTRY)
    return log


def audit_file(path, workers: int | None = None) -> AuditReport:
    try:
        return audit_path(path, workers=workers)[1]
    except Unverifiable as exc:
        return _unverifiable(message_of(exc))


def _unverifiable(reason: str) -> AuditReport:
    return AuditReport(False, "", [], 0, 0, [], {}, None, UNVERIFIABLE, reason)


def audit_path(path, observe=None, restart=None, loaded=None, workers: int | None = None
               ) -> tuple[GameLog, AuditReport]:
    """The log at ``path`` and its audit (``audit_log``); Unverifiable if it
    is not a verifiable log. ``loaded(log)`` is called once the file is read
    and checked, before the walk.

    A long log is read with its chain and structure checked at once and its
    signatures checked by a worker process while the walk goes on (one of the
    workers of the deals' checks, ``deals.DealChecks``); if one fails, the
    file is read again in place to say which, as the sequential read does
    (``restart()`` is called first: what the walk showed is void)."""
    with _without_cyclic_gc():
        return _audit_path(path, observe, restart, loaded, workers)


@contextlib.contextmanager
def _without_cyclic_gc():
    """The cyclic garbage collector paused: a walk makes hundreds of thousands
    of objects that live on (the log, a replay's states) and no cycle worth
    collecting, and the collector's passes over them cost a tenth of a replay."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _audit_path(path, observe, restart, loaded, workers: int | None) -> tuple[GameLog, AuditReport]:
    try:
        data = read_bytes(path)
    except LogError as exc:
        raise Unverifiable(message_of(exc)) from None
    try:
        log = _parsed(data, signatures=False)
    except Unverifiable:
        log = _parsed(data)  # the sequential read's error: an earlier entry's signature may fail first
    workers = deals.workers_for(len(log)) if workers is None else workers
    if workers == 0:
        if not signatures_hold(*signed_parts(log), threads=None):
            _parsed(data)  # raises the sequential read's error
        if loaded is not None:
            loaded(log)
        return log, audit_log(log, observe, restart, workers=0)
    with deals.DealChecks(workers) as checks:
        signed = checks.signatures_hold(log)
        if loaded is not None:
            loaded(log)
        report, unchecked = _first_pass(log, observe, restart, checks)
        if not signed.result():
            if restart is not None:
                restart()
            _parsed(data)  # raises the sequential read's error
            raise AssertionError("a signature failed in one read of a file and not in the other")
        return log, _second_pass(log, report, unchecked, checks)


def audit_log(log: GameLog, observe=None, restart=None, workers: int | None = None) -> AuditReport:
    """The audit of a log. A first pass defers the dealing proofs and key
    checks to each deal's final check, which recomputes every layer from the
    revealed seeds (cheaper, and says more); if it finds anything wrong, the
    log is audited again with every proof and key checked as the players
    checked them, so that a fault is pinned to the entry where it was made.

    The first pass has the deals' final checks done by ``workers`` other
    processes (None: as many as are worth it, ``deals.workers_for``) while it
    walks on; if one of them finds what the walk did not expect, the first
    pass is walked again with every check in place (``restart()`` is called
    first), so the report is the same either way.

    ``observe(entry, machine, deal_before, state_before, refused)`` is called
    after each entry of the first pass (``refused``: the Violation, or None),
    so that the replay is built from the audit's own walk through the log."""
    workers = deals.workers_for(len(log)) if workers is None else workers
    if workers > 0:
        with deals.DealChecks(workers) as checks:
            return _second_pass(log, *_first_pass(log, observe, restart, checks), checks)
    return _second_pass(log, *_first_pass(log, observe, restart, None), None)


def _first_pass(log: GameLog, observe, restart, checks: deals.DealChecks | None
                ) -> tuple[AuditReport, deals.Unchecked]:
    """The first pass's report, and the proofs and keys it left unchecked."""
    unchecked = deals.Unchecked()
    if checks is None:
        return _audit_log(log, verify_proofs=False, observe=observe, unchecked=unchecked), unchecked
    report = _audit_log(log, verify_proofs=False, observe=observe, deal_checker=checks, unchecked=unchecked)
    if not checks.confirmed():
        if restart is not None:
            restart()
        unchecked = deals.Unchecked()
        report = _audit_log(log, verify_proofs=False, observe=observe, unchecked=unchecked)
    return report, unchecked


def _second_pass(log: GameLog, report: AuditReport, unchecked: deals.Unchecked,
                 checks: deals.DealChecks | None) -> AuditReport:
    """After a first pass that found violations, the audit with every proof
    and key checked as the players checked them, so that a fault is pinned to
    the entry where it was made. If every proof and key the first pass left
    unchecked holds, that pass would walk as the first did and say the same:
    the first pass's report stands. Otherwise, with workers, the proofs are
    checked there while the walk goes on as if each held; if one does not,
    the pass is walked again with every proof checked in place."""
    if report.exit_code != VIOLATIONS or unchecked.hold(checks):
        return report
    if checks is not None:
        report = _audit_log(log, verify_proofs=True, deal_checker=checks, proof_checker=checks)
        if checks.confirmed():
            return report
    return _audit_log(log, verify_proofs=True)


def _audit_log(log: GameLog, verify_proofs: bool, observe=None, deal_checker=None, proof_checker=None,
               unchecked: deals.Unchecked | None = None) -> AuditReport:
    players = _players(log)
    try:
        walk = LogWalk(log, verify_proofs=verify_proofs)
    except Exception as exc:  # an unknown game or options no engine accepts
        return _unverifiable(f"entry 0: {exc}")
    machine = walk.machine
    machine.deal_checker, machine.proof_checker, machine.unchecked = deal_checker, proof_checker, unchecked
    if deal_checker is not None and not verify_proofs:
        machine.point_checker = deal_checker
    violations: list[dict] = []
    unfinished = None if log.is_finished else STOPS_BEFORE_END.format(entry=len(log) - 1)

    # 2. The log as the players saw it. The machine judges each abort's
    # evidence as it takes the abort in (protocol.evidence), as every peer
    # did: an abort it refuses stops the walk, blaming the accuser.
    def step(s: Step, m: TableMachine) -> None:
        if observe is not None:
            observe(s.entry, m, s.deal_before, s.state_before, s.refused)

    refused = walk.follow(observe=step)
    if refused is not None:
        entry, v = refused.entry, refused.refused
        if entry.kind == END and v.kind in (UNSIGNED_END, STOPPED):
            # A missing signature is silence, not proof: the game did not finish.
            unfinished = END_NOT_SIGNED.format(detail=v.detail)
        else:
            violations.append(_violation(blamed(v, entry), entry.seq))
            return _report(log, machine, players, violations, note=REPLAY_STOPPED.format(entry=entry.seq))
    if machine.stopped and unfinished is None:
        unfinished = MINORITY_SILENCE
    waiting = _waiting_for(log, machine) if unfinished is not None else None

    # 5a. The accusations the table took in: each proved (or attested by a majority) where it stands.
    violations.extend(_violation(accusation, index) for index, accusation in machine.aborts
                      if accusation.seat is not None)
    # 3. The dealing in full (done by the machine at each final reveal).
    for index, finding in machine.findings:
        violations.append(_violation(finding, index))

    # 4. The rules with every card known.
    for deal in machine.deals:
        if deal.codes is None:
            continue
        violations.extend(_replay_deal(machine, deal))
    return _report(log, machine, players, violations, unfinished=unfinished, waiting=waiting)


def _waiting_for(log: GameLog, machine: TableMachine) -> str | None:
    """Whose entry the table of an unfinished log was waiting for, in words:
    after a silence too few attested, what was due at that abort's place (the
    table as it stood there, walked again: only for a log that stopped);
    else what is due after the log's last entry."""
    if machine.stopped and machine.silences:
        place = machine.silences[-1].entry
        try:
            want = _due(machine_at(log, place))
        except Violation:
            return None
    else:
        place, want = machine.seq, _due(machine)
    if want is None or want.author is None or want.kind not in WAITING_FOR:
        return None
    return WAITING_FOR[want.kind].format(seat=want.author, entry=place)


def _due(machine: TableMachine) -> Expect | None:
    """What the table waited for (None: nothing, it had ended)."""
    try:
        return None if machine.finished else machine.expect()
    except Violation:
        return None


def _report(log: GameLog, machine: TableMachine, players: list[dict], violations: list[dict],
            note: str | None = None, unfinished: str | None = None, waiting: str | None = None) -> AuditReport:
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
    code = VIOLATIONS if unique else UNFINISHED if unfinished else CLEAN
    report = AuditReport(code == CLEAN, machine.game.id, players, len(log), deals, unique, scores, chips, code,
                         silences=[s.as_dict() for s in machine.silences],
                         complete=log.is_finished and unfinished is None and not machine.stopped)
    for text in (note, unfinished, waiting):
        if text:
            report.notes.append(text)
    return report


def _replay_deal(machine: TableMachine, deal) -> list[dict]:
    """Replay one deal through the engine with every card known."""
    game = machine.game
    everything = {unknown(p): c for p, c in enumerate(deal.codes)}
    try:
        state = game.start_deal(deal.match_before, deck=list(deal.codes))
    except (IllegalAction, NeedReveal) as exc:
        return [{"seat": None, "entry": deal.first_entry, "kind": "bad-deal", "detail": str(exc)}]
    for index, seat, action in deal.actions:
        full_action = substitute(action, everything)
        try:
            state = game.apply(state, full_action)
        except (IllegalAction, NeedReveal) as exc:
            return [{"seat": seat, "entry": index, "kind": "hidden-rule",
                     "detail": hidden_rule(exc, printable(machine.table.players[seat].name, 32))}]
    if deal.scores is not None and game.deal_scores(state) != deal.scores:
        return [{"seat": None, "entry": deal.first_entry, "kind": "bad-score",
                 "detail": BAD_SCORE}]
    return []


def hidden_rule(refusal: Exception, name: str) -> Text:
    """The detail of a move the engine refuses with every card known: its
    refusal (worded for the player to act) told of ``name`` in the third
    person where the engine gives that form. A live Text: English in the
    JSON, the reader's language in the text."""
    reason = message_of(refusal)
    told = reason.said_of(name) if isinstance(reason, Text) else None
    return Text(HIDDEN_RULE.message, fields={"reason": told if told is not None else reason})


def audit_pair(path_a, path_b) -> AuditReport:
    """Two logs of one game. Where they part, a seat that signed both versions
    of that place (two entries, an entry and an end, two ends) equivocated;
    otherwise the fork is shown and blames nobody (a partition). Each log is
    audited as well; the report holds what either proves."""
    try:
        a = load(path_a)
        b = load(path_b)
    except Unverifiable as exc:
        return _unverifiable(message_of(exc))
    if a.genesis.raw != b.genesis.raw:
        return _unverifiable(NOT_ONE_GAME)
    reports = [audit_log(a), audit_log(b)]
    for report in reports:
        if report.exit_code == UNVERIFIABLE:
            return report
    fork_at = next((i for i, (ea, eb) in enumerate(zip(a.entries, b.entries)) if ea.raw != eb.raw), None)
    violations: list[dict] = []
    fork = None
    if fork_at is not None:
        ea, eb = a[fork_at], b[fork_at]
        signed_a, signed_b = _signers(a, ea), _signers(b, eb)
        fork = {"entry": fork_at,
                "first": {"kind": ea.kind, "signed_by": signed_a},
                "second": {"kind": eb.kind, "signed_by": signed_b}}
        for seat in sorted(set(signed_a) & set(signed_b)):
            violations.append({"seat": seat, "entry": fork_at, "kind": EQUIVOCATE,
                               "detail": TWO_VERSIONS.format(seat=seat, entry=fork_at, first=ea.kind,
                                                             second=eb.kind)})
    base = reports[0] if len(a) >= len(b) else reports[1]
    seen = {(v["seat"], v["entry"], v["kind"]) for v in violations}
    for report in reports:
        for v in report.violations:
            key = (v["seat"], v["entry"], v["kind"])
            if key not in seen:
                seen.add(key)
                violations.append(v)
    silences = []
    for report in reports:
        silences += [x for x in report.silences if x not in silences]
    unfinished = fork is not None or any(r.exit_code == UNFINISHED for r in reports)
    code = VIOLATIONS if violations else UNFINISHED if unfinished else CLEAN
    notes = [n for r in reports for n in r.notes]
    if fork is not None:
        notes.append(LOGS_PART.format(entry=fork_at))
    return dataclasses.replace(base, ok=code == CLEAN, violations=violations, exit_code=code,
                               silences=silences, fork=fork, notes=notes,
                               complete=not unfinished and all(r.complete for r in reports))


def _players(log: GameLog) -> list[dict]:
    from p2pcards.identity import fingerprint

    return [{"seat": i, "name": p.name, "key": p.key.hex(), "fingerprint": fingerprint(p.key)}
            for i, p in enumerate(log.table.players)]


def _signers(log: GameLog, entry: Entry) -> list[int]:
    """Who signed ``entry`` (its signatures were checked when the log was read)."""
    if entry.multisig:
        return [s for s, sig in enumerate(entry.signatures) if sig is not None]
    return [entry.author]
