"""One evidence rule (table.md §6, ``p2pcards.protocol.evidence``): for every
kind of abort, evidence that proves nothing (none at all, the victim's own
valid entry, an unrelated entry, the victim's entry from another table) is
refused with the accuser blamed, and the genuine case is taken with the
culprit blamed; the audit of the log the abort would make says the same.

The referee is seat 0 (for seat 1 and 2), seat 1 for seat 0."""

from __future__ import annotations

import copy
import secrets

import pytest

from fuzz import kit
from p2pcards.audit import VIOLATIONS, audit_log
from p2pcards.mental.group import N, scalar_to_bytes
from p2pcards.protocol import silence
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.evidence import MAX_EVIDENCE, misplaced
from p2pcards.protocol.log import Entry, GameLog
from p2pcards.protocol.machine import ABORT, Violation
from tests.helpers import make_genesis

VICTIM, REFEREE, OTHER = 1, 0, 2


@pytest.fixture(scope="module")
def m():
    return kit.match("bura3")


@pytest.fixture(scope="module")
def other_table(m):
    """The same players (the same keys) at another table: another session."""
    genesis, _ = make_genesis("bura", 3, {"rounds": 1}, signers=m.signers)
    return genesis


def _spectator(m, k: int) -> SeatDriver:
    d = SeatDriver(m.genesis, None)
    for e in m.entries[1:k]:
        d.receive(e)
    return d


def _signed(m, seq: int, prev: bytes, author: int, kind: str, payload) -> bytes:
    return kit.raw_entry(seq, prev, author, kind, payload, m.signers[author])


def _abort(m, k: int, accuser: int, culprit, kind: str, evidence=None, **extra) -> Entry:
    payload = {"culprit": culprit, "kind": kind, "detail": "x", **extra}
    if evidence is not None:
        payload["evidence"] = evidence
    return Entry.from_wire(_signed(m, k, m.entries[k - 1].hash, accuser, ABORT, payload))


def _judged(m, k: int, abort: Entry, prefix: list[Entry] | None = None) -> int:
    """The seat the table blames for ``abort`` at place k, live (a table fed
    the log up to k) and in the audit of the log the abort makes, which must
    agree. The log before k is ``prefix`` (default: the match's)."""
    prefix = m.entries[:k] if prefix is None else prefix
    d = SeatDriver(m.genesis, None)
    for e in prefix[1:]:
        d.receive(e)
    try:
        d.receive(abort)
        live = abort.payload["culprit"]
        assert d.machine.excluded == {live}
    except Violation as v:
        live = v.seat if v.seat is not None else abort.author
    log = GameLog()
    for e in list(prefix) + [abort]:
        log.append(e)
    report = audit_log(log)
    assert report.exit_code == VIOLATIONS, report.as_json()
    assert {v["seat"] for v in report.violations} == {live}, (live, report.as_json())
    return live


def _card_twice(step: str):
    """The entry's shuffle or re-key deck with its first card over its second."""

    def make(m, k):
        payload = copy.deepcopy(m.entries[k].payload)
        deck = bytearray(payload[step]["deck"])
        deck[33:66] = deck[0:33]
        payload[step]["deck"] = bytes(deck)
        return payload

    return make


def _wrong_key(m, k):
    payload = copy.deepcopy(m.entries[k].payload)
    payload["keys"][0][1] = scalar_to_bytes(secrets.randbelow(N - 1) + 1)
    return payload


def _phantom_card(m, k):
    payload = copy.deepcopy(m.entries[k].payload)
    payload["action"]["cards"] = ["AS" if payload["action"]["cards"][0] != "AS" else "KS"]
    return payload


def _illegal_move(m, k):
    return {**m.entries[k].payload, "action": {"type": "pass"}, "positions": [], "keys": []}


# kind -> (place k where the victim's faulty entry is made, the faulty payload)
FAULTS = {"bad-shuffle": (2, _card_twice("shuffle")), "bad-rekey": (5, _card_twice("rekey")), "wrong-key": (8, _wrong_key),
          "phantom-card": (13, _phantom_card), "illegal-move": (13, _illegal_move)}
VARIANTS = ["none", "own", "own-earlier", "unrelated", "other-session", "genuine"]


def _evidence(m, other_table, k: int, variant: str, faulty: bytes, victim: int = VICTIM):
    if variant == "none":
        return None
    if variant == "own":  # the victim's valid entry for that very place (the abort would replace it)
        if m.entries[k].author == victim:
            return [m.entries[k].raw]
    if variant in ("own", "own-earlier"):  # the victim's latest valid entry, which the log holds
        return [next((e for e in reversed(m.entries[:k]) if e.author == victim), m.entries[k]).raw]
    if variant == "unrelated":
        return [next(e for e in reversed(m.entries[:k]) if e.author not in (victim, -1)).raw]
    if variant == "other-session":  # the same fault, signed by the victim, on another table's chain
        e = Entry.from_wire(faulty)
        return [_signed(m, e.seq, other_table.hash, e.author, e.kind, e.payload)]
    return [faulty]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_a_fault_of_an_entry(m, other_table, kind, variant):
    k, make = FAULTS[kind]
    assert m.entries[k].author == VICTIM
    faulty = _signed(m, k, m.entries[k - 1].hash, VICTIM, m.entries[k].kind, make(m, k))
    abort = _abort(m, k, REFEREE, VICTIM, kind, _evidence(m, other_table, k, variant, faulty))
    assert _judged(m, k, abort) == (VICTIM if variant == "genuine" else REFEREE)


@pytest.mark.parametrize("variant", VARIANTS)
def test_out_of_turn(m, other_table, variant):
    k = 3  # seat 2's shuffle is due; seat 1 signs one there
    assert m.entries[k].author == OTHER
    faulty = _signed(m, k, m.entries[k - 1].hash, VICTIM, "shuffle", m.entries[k].payload)
    abort = _abort(m, k, REFEREE, VICTIM, "out-of-turn", _evidence(m, other_table, k, variant, faulty))
    assert _judged(m, k, abort) == (VICTIM if variant == "genuine" else REFEREE)


def test_a_fault_of_a_move_the_log_holds_at_an_earlier_place(m):
    """The referee aborts one place later (the log took another entry there
    meanwhile): the table at the evidence's own place judges it."""
    k = 3
    faulty = _signed(m, k, m.entries[k - 1].hash, VICTIM, "shuffle", m.entries[k].payload)
    assert _judged(m, k + 1, _abort(m, k + 1, REFEREE, VICTIM, "out-of-turn", [faulty])) == VICTIM
    # The entry the log holds at that place is no evidence, wherever it is cited.
    assert _judged(m, k + 1, _abort(m, k + 1, REFEREE, OTHER, "out-of-turn", [m.entries[k].raw])) == REFEREE


@pytest.mark.parametrize("variant", VARIANTS + ["one", "two-predecessors", "two-authors"])
def test_equivocation(m, other_table, variant):
    k = 13
    first = m.entries[k]
    second = _signed(m, k, first.prev_hash, VICTIM, first.kind, {**first.payload, "chat": ["hello"]})
    evidence = {
        "none": None,
        "own": [first.raw],
        "own-earlier": [first.raw, m.entries[11].raw],
        "one": [second],
        "unrelated": [m.entries[k - 1].raw, m.entries[k - 2].raw],
        "other-session": [_signed(m, k, other_table.hash, VICTIM, first.kind, first.payload),
                          _signed(m, k, other_table.hash, VICTIM, first.kind, {**first.payload, "chat": ["hi"]})],
        # An honest seat whose entry was replaced by an abort signs again at that place, on another predecessor.
        "two-predecessors": [first.raw, _signed(m, k, bytes(32), VICTIM, first.kind, first.payload)],
        "two-authors": [first.raw, _signed(m, k, first.prev_hash, OTHER, first.kind, first.payload)],
        "genuine": [first.raw, second],
    }[variant]
    # At the place after the first version (the log holds it) and at its own place (replacing it).
    for place, prefix in ((k + 1, m.entries[:k + 1]), (k, m.entries[:k])):
        abort = _abort(m, place, REFEREE, VICTIM, "equivocate", evidence)
        assert _judged(m, place, abort, prefix) == (VICTIM if variant == "genuine" else REFEREE), place


@pytest.mark.parametrize("variant", VARIANTS + ["refused-abort"])
def test_false_accusation(m, other_table, variant):
    """Seat 1 (the referee for seat 0) accuses seat 0 of a false accusation:
    genuine when its evidence is seat 0's silence abort for a place where the
    log holds the accused's entry, or seat 0's abort that the table refuses."""
    k = 13
    spectator = _spectator(m, k)
    att = silence.attest(m.signers[REFEREE], spectator.machine.table, REFEREE, VICTIM, k, m.entries[k - 1].hash,
                         "timeout").raw
    silence_abort = _abort(m, k, REFEREE, VICTIM, "timeout", attestations=[att]).raw
    baseless = _abort(m, k, REFEREE, VICTIM, "bad-shuffle").raw
    if variant == "refused-abort":
        abort = _abort(m, k, VICTIM, REFEREE, "false-accusation", [baseless])
        assert _judged(m, k, abort) == REFEREE
        return
    evidence = {
        "none": None,
        "own": [next(e for e in reversed(m.entries[:k]) if e.author == REFEREE).raw],
        "own-earlier": [m.entries[1].raw],
        "unrelated": [m.entries[k - 1].raw],  # chains onto the log: still nothing
        "other-session": [_signed(m, k, other_table.hash, REFEREE, ABORT, Entry.from_wire(silence_abort).payload),
                          m.entries[k].raw],
        "genuine": [silence_abort, m.entries[k].raw],
    }[variant]
    abort = _abort(m, k + 1, VICTIM, REFEREE, "false-accusation", evidence)
    assert _judged(m, k + 1, abort) == (REFEREE if variant == "genuine" else VICTIM)


@pytest.mark.parametrize("variant", VARIANTS + ["at-its-place"])
def test_misplaced(m, other_table, variant):
    """An entry built on this log's entry j for a place other than j+1: no
    honest seat signs it, so it convicts its author wherever it is seen."""
    k = 13
    payload = m.entries[k].payload
    faulty = _signed(m, k + 40, m.entries[k - 1].hash, VICTIM, "action", payload)
    if variant == "at-its-place":  # built on entry k-1 for place k: not misplaced
        evidence = [_signed(m, k, m.entries[k - 1].hash, VICTIM, "action", {**payload, "chat": ["x"]})]
    elif variant == "other-session":
        evidence = [_signed(m, k + 40, other_table.hash, VICTIM, "action", payload)]
    else:
        evidence = _evidence(m, other_table, k, variant, faulty)
    assert _judged(m, k, _abort(m, k, REFEREE, VICTIM, "misplaced", evidence)) == (
        VICTIM if variant == "genuine" else REFEREE)
    assert misplaced(_spectator(m, k).machine, Entry.from_wire(faulty)).seat == VICTIM


def test_an_abort_the_table_itself_found_needs_no_evidence(m):
    """Without evidence, an abort stands only where the table's own checks
    found that very fault (a move the reveal showed illegal): anything else is
    refused."""
    k = 13
    d = _spectator(m, k)
    d.machine.pending_problem = Violation(VICTIM, "illegal-move", "found by the table")
    d.receive(_abort(m, k, REFEREE, VICTIM, "illegal-move"))
    assert d.machine.excluded == {VICTIM}
    d = _spectator(m, k)
    d.machine.pending_problem = Violation(VICTIM, "illegal-move", "found by the table")
    with pytest.raises(Violation) as caught:
        d.receive(_abort(m, k, REFEREE, VICTIM, "phantom-card"))
    assert caught.value.seat == REFEREE


@pytest.mark.parametrize("variant", ["genuine", "with-evidence", "another-kind", "after-an-abort", "attestations"])
def test_an_abort_naming_nobody(m, variant):
    """Item 3: an abort naming nobody says a card opens to no card; it carries
    nothing and may only stop a game still going (the first abort)."""
    k = 13
    if variant == "after-an-abort":
        first = _abort(m, k, OTHER, None, "no-card")
        prefix = m.entries[:k] + [first]
        second = Entry.from_wire(_signed(m, k + 1, first.hash, VICTIM, ABORT,
                                         {"culprit": None, "kind": "no-card", "detail": "again"}))
        assert _judged(m, k + 1, second, prefix) == VICTIM
        return
    extra = {"genuine": {}, "with-evidence": {"evidence": [m.entries[k - 1].raw]},
             "another-kind": {}, "attestations": {"attestations": []}}[variant]
    abort = _abort(m, k, OTHER, None, "x" if variant == "another-kind" else "no-card", **extra)
    d = _spectator(m, k)
    if variant == "genuine":
        d.receive(abort)
        assert d.machine.aborted and not d.machine.excluded
    else:
        with pytest.raises(Violation) as caught:
            d.receive(abort)
        assert caught.value.seat == OTHER
        assert _judged(m, k, abort) == OTHER


def test_evidence_is_parsed_and_bounded(m):
    k = 13
    for evidence in ([b"junk"], "no", [1, 2], [m.entries[1].raw] * (MAX_EVIDENCE + 1), [bytes(900_000)]):
        with pytest.raises(Violation) as caught:
            _spectator(m, k).receive(_abort(m, k, REFEREE, VICTIM, "bad-shuffle", evidence))
        assert caught.value.seat == REFEREE


@pytest.mark.parametrize("kind,due", [("timeout", False), ("timeout", True), ("silent", False)])
def test_a_silence_abort_for_a_seat_that_owed_no_entry(m, kind, due):
    """A ``timeout`` names the seat whose entry is due (or the end's signer);
    the table refuses it against another, live as the audit always did."""
    k = 13  # seat 1's action is due
    culprit = VICTIM if due else OTHER
    d = _spectator(m, k)
    atts = [silence.attest(m.signers[s], d.machine.table, s, culprit, k, m.entries[k - 1].hash, kind).raw
            for s in (REFEREE, 3 - culprit)]
    abort = _abort(m, k, REFEREE, culprit, kind, attestations=atts)
    assert _judged(m, k, abort) == (REFEREE if kind == "timeout" and not due else culprit)
    with pytest.raises(Violation):  # a silence abort carries attestations, not evidence
        _spectator(m, k).receive(_abort(m, k, REFEREE, culprit, kind, [m.entries[k - 1].raw], attestations=atts))


def test_what_has_no_room_ahead_costs_no_signature_check():
    """Item 5: an entry for a place ahead is checked for room among what is
    kept of its author before its signature is verified; ``has_room`` never
    says no to an entry ``offer`` would keep."""
    import random

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2pcards.peer.ahead import AheadBuffer
    from p2pcards.protocol.log import make_entry

    key = Ed25519PrivateKey.generate()
    rng = random.Random(7)
    buffer = AheadBuffer(per_author=3, bytes_per_author=2_000, window=40)
    for _ in range(2000):
        e = make_entry(rng.randrange(1, 60), rng.randbytes(32), rng.randrange(3), "action",
                       {"pad": b"p" * rng.randrange(900)}, key)
        nxt = rng.randrange(1, 10)
        room = buffer.has_room(e, nxt)
        assert buffer.offer(e, nxt) <= room, (e.seq, nxt)
        if rng.random() < 0.05:
            buffer.take(rng.randrange(1, 20))
