"""Whether an abort stands: the one judgement of an accusation (table.md §6).

Every peer makes it as an abort arrives, and the audit as it reads the log:
both feed the abort to a ``TableMachine``, which calls ``judge`` before it
takes the abort in. An abort whose accusation is not proved is refused, and
the refusal blames its author, never the accused; so a referee cannot convict
an honest seat, live or in the audit, and the two can never disagree.

What proves what, for an abort at place k naming seat c of fault K:

- silence (``timeout``, ``silent``, ``left``): the attestations it carries
  (the machine's ``attested_silence``), no evidence; ``timeout`` only where
  c's entry (or the end) was due;
- nobody named (``no-card``): no evidence; only as the first abort of the
  match (the final reveal judges it);
- no evidence: the table itself found K against c (its pending problem);
- ``equivocate``: two different entries signed by c for one place j <= k on
  the same predecessor, the hash of this log's entry j-1;
- ``false-accusation``: c's silence abort for place j naming x, and x's entry
  that this log holds at j (the silence was false);
- ``misplaced``: one entry signed by c built on this log's entry j but
  claiming a place other than j+1 (no honest seat signs such an entry);
- any kind: one entry signed by c, standing at its place j <= k of this log
  (its predecessor is this log's entry j-1) and not the entry the log holds
  there, which the table before place j refuses for a fault of c of kind K.

An entry that chains onto this log is bound to this table (the chain leads
back to entry 0, which names the session): nothing from another table, from
another place or the accused's own valid entry can convict anybody.
"""

from __future__ import annotations

import contextvars
import copy
from collections.abc import Callable
from typing import Any

from p2pcards.i18n import N_, message_of
from p2pcards.limits import MAX_EVIDENCE_DEPTH
from p2pcards.protocol.log import END, TABLE, Entry, LogError, check_size
from p2pcards.protocol.silence import SILENCE_KINDS
from p2pcards.protocol.violation import Violation

ABORT = "abort"
EQUIVOCATE, FALSE_ACCUSATION, MISPLACED, NO_CARD = "equivocate", "false-accusation", "misplaced", "no-card"
MAX_EVIDENCE = 4  # entries an abort may carry as evidence
# Evidence inside evidence (an answer to a refused abort, itself an answer...)
# is judged this many levels deep at most: an honest answer needs two.
MAX_DEPTH = MAX_EVIDENCE_DEPTH  # (the log refuses an entry nested deeper: this is never reached)

History = Callable[[int], Any]  # place j -> the table (a fresh TableMachine) as it stood before entry j

NO_EVIDENCE = N_("accused seat {seat} of {kind} without evidence that shows it")
NO_TWO_ENTRIES = N_("equivocation without two differing entries signed by the accused")
SILENCE_OUT_OF_TURN = N_("blamed seat {seat} for silence when it was not its turn")
ONLY_FIRST = N_("an abort naming nobody may only stop a game that is still going")
NOT_NO_CARD = N_("an abort naming nobody can only say that a card opens to no card")
NO_EVIDENCE_HERE = N_("this kind of abort carries no evidence")
ONLY_SILENCE_ATTESTS = N_("only a silence abort carries attestations")
BAD_EVIDENCE = N_("evidence is a list of at most {n} entries")
NOT_AN_ENTRY = N_("evidence that is no entry: {reason}")
TOO_DEEP = N_("evidence nested deeper than {n} aborts")
MISPLACED_DETAIL = N_("seat {seat} signed an entry for place {place} built on entry {entry}")

_depth: contextvars.ContextVar[int] = contextvars.ContextVar("p2pcards_evidence_depth", default=0)


def judge(table, abort: Entry, culprit: int | None, kind: str, payload: dict, history: History | None):
    """Raise ``Violation`` (blaming the abort's author) unless the abort at
    its place in ``table`` (the machine just before it) proves ``kind``
    against ``culprit``. Returns the silence record of a silence abort, else
    None. ``history(j)`` gives the table before an earlier place j."""
    accuser = abort.author
    evidence = parse_evidence(accuser, payload.get("evidence"))
    silence_abort = culprit is not None and kind in SILENCE_KINDS
    if "attestations" in payload and not silence_abort:
        raise Violation(accuser, "bad-entry", ONLY_SILENCE_ATTESTS)
    if silence_abort or culprit is None:
        if evidence:
            raise Violation(accuser, "bad-entry", NO_EVIDENCE_HERE)
        if silence_abort:
            want = _due(table)
            if kind == "timeout" and want is not None and want.author not in (culprit, None):
                raise Violation(accuser, FALSE_ACCUSATION, SILENCE_OUT_OF_TURN.format(seat=culprit))
            return table.attested_silence(abort, culprit, kind, payload.get("attestations"))
        if kind != NO_CARD:
            raise Violation(accuser, "bad-entry", NOT_NO_CARD)
        if table.aborted:
            raise Violation(accuser, "bad-entry", ONLY_FIRST)
        return None
    if _proves(table, abort, culprit, kind, evidence, history):
        return None
    raise Violation(accuser, FALSE_ACCUSATION,
                    NO_TWO_ENTRIES if kind == EQUIVOCATE else NO_EVIDENCE.format(seat=culprit, kind=kind))


def parse_evidence(accuser: int, raw: Any) -> list[Entry]:
    """An abort's evidence: absent, or a list of at most MAX_EVIDENCE entries,
    each parsed, and each within the size its own evidence's nesting allows
    (``log.size_limit``: an entry no honest peer took as an entry is no
    evidence either)."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_EVIDENCE:
        raise Violation(accuser, "bad-entry", BAD_EVIDENCE.format(n=MAX_EVIDENCE))
    try:
        entries = [Entry.from_wire(item) for item in raw]
        for entry in entries:
            check_size(entry)
        return entries
    except LogError as exc:
        raise Violation(accuser, "bad-entry", NOT_AN_ENTRY.format(reason=message_of(exc))) from None


def _proves(table, abort: Entry, culprit: int, kind: str, evidence: list[Entry], history: History | None) -> bool:
    if not evidence:
        problem = table.pending_problem  # the log itself shows it (a move the reveal made illegal)
        return problem is not None and (problem.seat, problem.kind) == (culprit, kind)
    if not all(_signed_by(table, e, e.author) for e in evidence):
        return False
    if kind == EQUIVOCATE:
        return len(evidence) == 2 and equivocation(table, evidence[0], evidence[1]) == culprit
    if kind == FALSE_ACCUSATION and len(evidence) == 2 and _denied_silence(table, evidence, culprit):
        return True
    if len(evidence) != 1 or evidence[0].author != culprit:
        return False
    e = evidence[0]
    if kind == MISPLACED:
        return misplaced(table, e) is not None
    return _refused_there(table, abort.seq, e, culprit, kind, history)


def equivocation(table, a: Entry, b: Entry) -> int | None:
    """The seat that signed both ``a`` and ``b`` (their signatures checked by
    the caller), two different entries for one place of this log on the same
    predecessor; None if they are not that. Two entries for one place on two
    predecessors are no proof: an honest seat whose entry was replaced by an
    abort before it writes again at that place signs two such."""
    if (a.raw == b.raw or a.body == b.body or a.author != b.author or a.author < 0 or a.seq != b.seq
            or a.prev_hash != b.prev_hash or not table.chains(a)):
        return None
    return a.author


def misplaced(table, entry: Entry) -> Violation | None:
    """``entry`` is built on an entry of this log (so it belongs to this
    table) but claims another place than the one after it: no honest seat
    ever signs it, and a relay or a slow link cannot make one. The fault, or
    None. (The caller checks the signature.)"""
    place = table.place_of.get(entry.prev_hash)
    if place is None or place + 1 == entry.seq or entry.author < 0:
        return None
    return Violation(entry.author, MISPLACED, MISPLACED_DETAIL.format(seat=entry.author, place=entry.seq,
                                                                      entry=place))


def _refused_there(table, k: int, e: Entry, culprit: int, kind: str, history: History | None) -> bool:
    """``e`` stands at its place j <= k of this log, is not the log's entry
    there, and the table before j refuses it, blaming ``culprit`` for ``kind``."""
    j = e.seq
    if e.kind in (TABLE, END) or not 1 <= j <= k or not table.chains(e):
        return False
    if j < k and table.hashes.get(j) == e.hash:
        return False  # the entry the log holds: it broke no rule
    depth = _depth.get()
    if depth >= MAX_DEPTH:
        raise Violation(None, "bad-entry", TOO_DEEP.format(n=MAX_DEPTH))
    if j == k:
        there = copy.deepcopy(table)
    elif history is not None:
        there = history(j)
    else:
        return False  # no way to see the table there: nothing is proved
    there.verify_proofs = True  # evidence is judged as the players judged it, every proof checked
    token = _depth.set(depth + 1)
    try:
        there.accept(e, history)
    except Violation as v:
        blamed = v.seat if v.seat is not None else e.author
        return blamed == culprit and v.kind == kind
    finally:
        _depth.reset(token)
    return False


def _denied_silence(table, evidence: list[Entry], culprit: int) -> bool:
    """[a silence abort signed by ``culprit`` naming seat x for place j, x's
    entry at j] where this log holds that very entry at j: the silence was false."""
    accusation, held = evidence
    payload = accusation.payload if isinstance(accusation.payload, dict) else {}
    victim = payload.get("culprit")
    j = accusation.seq
    return (accusation.kind == ABORT and accusation.author == culprit and payload.get("kind") in SILENCE_KINDS
            and type(victim) is int and held.author == victim and held.seq == j
            and held.prev_hash == accusation.prev_hash and table.chains(accusation)
            and j < table.seq and table.hashes.get(j) == held.hash)


def _signed_by(table, entry: Entry, seat: int) -> bool:
    if entry.author != seat or entry.multisig:
        return False
    try:
        entry.verify_signature(table.table.keys)
    except LogError:
        return False
    return True


def _due(table):
    try:
        return table.expect()
    except Violation:
        return None


__all__ = ["EQUIVOCATE", "FALSE_ACCUSATION", "MAX_EVIDENCE", "MISPLACED", "NO_CARD", "equivocation", "judge",
           "misplaced", "parse_evidence"]
