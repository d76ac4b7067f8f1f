"""Blame that cannot be turned on the honest (protocol v2, table.md §6):
silence aborts rest on a majority's attestations, evidence must chain onto the
log, a held entry answers a silence abort, a fully signed end is final, and
nothing is judged a false accusation while a reveal it needs is missing."""

from __future__ import annotations

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fuzz import kit
from p2pcards.protocol import silence
from p2pcards.audit import UNFINISHED, VIOLATIONS, audit_log
from p2pcards.protocol.log import Entry, GameLog, make_entry
from p2pcards.protocol.machine import ABORT, ACTION, SHUFFLE, Violation
from p2pcards.peer import TablePeer, auto_play_margin
from p2pcards.protocol.driver import SeatDriver
from tests.helpers import FakeMesh


@pytest.fixture(scope="module")
def bura3():
    return kit.match("bura3")


def _at(m, k: int) -> SeatDriver:
    """A spectator's driver holding the match's entries before place k."""
    d = SeatDriver(m.genesis, None)
    for e in m.entries[1:k]:
        d.receive(e)
    return d


def _seats_at(m, k: int) -> list[SeatDriver]:
    seats = [SeatDriver(m.genesis, s, m.signers[s], seeds=m.seeds[s]) for s in range(m.players)]
    for d in seats:
        for e in m.entries[1:k]:
            d.receive(e)
    return seats


def _first(m, kind: str, author: int | None = None) -> int:
    return next(i for i, e in enumerate(m.entries) if e.kind == kind and author in (None, e.author))


def _attest(m, d: SeatDriver, attester: int, accused: int, kind="timeout", table=None, signer=None) -> bytes:
    return silence.attest(signer or m.signers[attester], table or d.machine.table, attester, accused,
                          d.log.next_seq, d.log.head_hash, kind).raw


def _silence_abort(m, d: SeatDriver, accuser: int, accused: int, attestations, kind="timeout") -> Entry:
    payload = {"culprit": accused, "kind": kind, "detail": "sent nothing", "attestations": attestations}
    return Entry.from_wire(kit.raw_entry(d.log.next_seq, d.log.head_hash, accuser, ABORT, payload,
                                         m.signers[accuser]))


def test_a_majority_attested_silence_convicts(bura3):
    m = bura3
    k = _first(m, ACTION, 1)
    d = _at(m, k)
    d.receive(_silence_abort(m, d, 0, 1, [_attest(m, d, 0, 1), _attest(m, d, 2, 1)]))
    assert d.machine.excluded == {1} and not d.machine.stopped
    assert [s.as_dict() for s in d.machine.silences] == [
        {"seat": 1, "entry": k, "kind": "timeout", "attested_by": [0, 2], "stands": True}]


def test_a_minority_attested_silence_stops_the_game_and_convicts_nobody(bura3):
    m = bura3
    d = _at(m, _first(m, ACTION, 1))
    d.receive(_silence_abort(m, d, 0, 1, [_attest(m, d, 0, 1)]))
    assert d.machine.stopped and not d.machine.excluded and not d.machine.aborts
    assert d.machine.expect().kind == "stopped"
    seat = SeatDriver(m.genesis, 1, m.signers[1], seeds=m.seeds[1])
    for e in d.log.entries[1:]:
        seat.receive(e)
    assert seat.due() is None and seat.legal_actions() == []  # nobody is asked to play on
    report = audit_log(d.log)
    assert report.exit_code == UNFINISHED and not report.violations, report.as_json()
    assert report.silences[0]["stands"] is False and report.silences[0]["attested_by"] == [0]
    with pytest.raises(Violation):  # nothing is logged after the stop
        d.receive(Entry.from_wire(kit.raw_entry(d.log.next_seq, d.log.head_hash, 1, ACTION, {"deal": 0},
                                                m.signers[1])))


@pytest.mark.parametrize("how", ["forged", "duplicated", "other-table", "other-place", "other-seat",
                                 "without-own", "none", "junk", "self"])
def test_a_silence_abort_with_bad_attestations_is_refused(bura3, how):
    m = bura3
    d = _at(m, _first(m, ACTION, 1))
    good = [_attest(m, d, 0, 1), _attest(m, d, 2, 1)]
    table = d.machine.table
    atts = {
        "forged": [good[0], _attest(m, d, 2, 1, signer=Ed25519PrivateKey.generate())],
        "duplicated": [good[0], good[0], good[0]],
        "other-table": [good[0], _attest(m, d, 2, 1, table=type(table)(**{**table.__dict__,
                                                                          "session": b"another-table"}))],
        "other-place": [good[0], silence.attest(m.signers[2], table, 2, 1, d.log.next_seq + 1, d.log.head_hash,
                                                "timeout").raw],
        "other-seat": [good[0], _attest(m, d, 2, 0)],
        "without-own": [good[1]],
        "none": [],
        "junk": [good[0], b"\x96" + b"\x00" * 20],
        "self": [good[0], good[1], silence.attest(m.signers[1], table, 1, 1, 5, bytes(32), "timeout").raw],
    }[how]
    before = kit.fingerprint(d)
    with pytest.raises(Violation) as caught:
        d.receive(_silence_abort(m, d, 0, 1, atts))
    assert caught.value.seat == 0  # the accuser answers for what it signed
    assert kit.fingerprint(d) == before


def test_attestations_are_parsed_typed_and_never_raise_anything_else(bura3):
    table = _at(bura3, 2).machine.table
    for raw in [b"", b"\xc1", b"\x96\x00\x01\x02\xc4\x20" + bytes(32) + b"\xa7timeout\xc4\x40" + bytes(64),
                b"\x96\xc3\x01\x02", None, 7, "text", b"\xdd\xff\xff\xff\xff", b"\x91" * 100, bytes(200)]:
        with pytest.raises(silence.AttestationError):
            silence.parse(raw, table)


def test_evidence_from_another_place_is_refused_and_blames_the_accuser(bura3):
    m = bura3
    k = _first(m, SHUFFLE, 1)
    d = _at(m, k)
    # Seat 1's genuine shuffle, but built on another shuffle of seat 0 than the log holds.
    other = kit.raw_entry(k, bytes(32), 1, SHUFFLE, m.entries[k].payload, m.signers[1])
    payload = {"culprit": 1, "kind": "bad-shuffle", "detail": "x", "evidence": [other]}
    abort = Entry.from_wire(kit.raw_entry(k, d.log.head_hash, 0, ABORT, payload, m.signers[0]))
    with pytest.raises(Violation) as caught:
        d.receive(abort)
    assert caught.value.seat == 0 and caught.value.kind == "false-accusation"
    # An entry from a later place is no evidence either.
    payload["evidence"] = [m.entries[k + 1].raw]
    with pytest.raises(Violation):
        d.receive(Entry.from_wire(kit.raw_entry(k, d.log.head_hash, 0, ABORT, payload, m.signers[0])))


def test_the_audit_refuses_a_log_with_unchained_evidence_blaming_the_accuser(bura3):
    m = bura3
    k = _first(m, SHUFFLE, 1)
    log = GameLog()
    for e in m.entries[:k]:
        log.append(e)
    other = kit.raw_entry(k, bytes(32), 1, SHUFFLE, m.entries[k].payload, m.signers[1])
    log.append(make_entry(k, log.head_hash, 0, ABORT,
                          {"culprit": 1, "kind": "bad-shuffle", "detail": "x", "evidence": [other]}, m.signers[0]))
    report = audit_log(log)
    assert report.exit_code == VIOLATIONS and {v["seat"] for v in report.violations} == {0}, report.as_json()


def test_no_abort_after_the_fully_signed_end(bura3):
    m = bura3
    d = _at(m, len(m.entries))
    assert d.machine.finished
    late = Entry.from_wire(kit.raw_entry(len(m.entries) - 1, m.entries[-2].hash, 0, ABORT,
                                         {"culprit": 1, "kind": "illegal-move", "detail": "x"}, m.signers[0]))
    with pytest.raises(Violation):
        d.machine.accept(late)


async def _peer(m, seat: int, k: int) -> tuple[TablePeer, FakeMesh]:
    driver = _seats_at(m, k)[seat]
    mesh = FakeMesh()
    peer = TablePeer(driver, mesh, None)
    driver.finalize(k - 1)  # the last entry taken is not final yet
    return peer, mesh


async def test_a_peer_holding_the_entry_answers_a_false_silence_abort(bura3):
    """Item 2 at the peer: seat 2 holds seat 1's entry at k, final (the
    referee acknowledged it); the referee's silence abort for k is refused,
    the entry goes to everybody, and the referee is accused of a false
    accusation."""
    m = bura3
    k = _first(m, ACTION, 1)
    peer, mesh = await _peer(m, 2, k + 1)
    peer.driver.finalize(k + 1)
    before = peer.driver.log[k]
    spectator = _at(m, k)
    abort = _silence_abort(m, spectator, 0, 1, [_attest(m, spectator, 0, 1)])
    await peer._take(abort)
    assert peer.driver.log[k] is before  # a verified entry is never replaced by a silence abort
    assert (None, {"t": "entry", "raw": before.raw}) in mesh.sent
    violation, evidence = peer.accusation
    assert (violation.seat, violation.kind) == (0, "false-accusation")
    assert evidence == [abort.raw, before.raw]
    # The referee for seat 0 (seat 1) writes it; the machine takes the abort,
    # and the audit blames seat 0 alone.
    writer = _seats_at(m, k + 1)[1]
    entry = writer.write_abort(violation, evidence)
    log = GameLog()
    for e in writer.log.entries:
        log.append(e)
    assert entry.seq == k + 1
    from tests.helpers import play_out

    seats = _seats_at(m, k + 1)
    for s in seats:
        s.receive(entry)
    play_out(seats, bots=[], max_entries=20)
    report = audit_log(seats[1].log)
    assert report.exit_code == VIOLATIONS and {v["seat"] for v in report.violations} == {0}, report.as_json()


@pytest.mark.parametrize("attesters", [[0], [0, 2]])
async def test_the_heal_race_never_blames_the_referee(bura3, attesters):
    """Issue 23: seat 1's entry for k (not final: the referee never had it)
    and the referee's silence abort for k cross as a cut heals (a majority
    attests it, or the referee's connection broke after the entry came).
    Whoever holds the entry lets the abort take its place, as any abort takes
    the place of an entry not final, and accuses nobody; seat 1 itself too.
    All end with the same log, and its audit blames the referee in no case."""
    m = bura3
    k = _first(m, ACTION, 1)
    spectator = _at(m, k)
    abort = _silence_abort(m, spectator, 0, 1, [_attest(m, spectator, s, 1) for s in attesters])
    logs = []
    for seat in (1, 2):
        peer, mesh = await _peer(m, seat, k + 1)
        assert peer.driver.final_len == k
        # The entry came just as the referee gave up on it, the turn's time after the place opened.
        peer._head_final_at = (k, trio.current_time() - peer.options.turn_timeout - 1)
        await peer._take(abort)
        assert peer.driver.log[k].raw == abort.raw and len(peer.driver.log) == k + 1
        assert peer.accusation is None
        logs.append([e.raw for e in peer.driver.log.entries])
        log = GameLog()
        for e in peer.driver.log.entries:
            log.append(e)
        report = audit_log(log)
        assert not report.violations or {v["seat"] for v in report.violations} == {1}, report.as_json()
        assert report.exit_code == (VIOLATIONS if len(attesters) == 2 else UNFINISHED)
    assert logs[0] == logs[1]
    # The entry the abort replaced, coming in late, is no fault of its author either.
    late = m.entries[k]
    await peer._take(late)
    assert peer.accusation is None and peer.driver.log[k].raw == abort.raw


async def test_a_premature_minority_abort_of_an_entry_we_hold_is_a_false_accusation(bura3):
    """The cheat the race must not excuse: seat 2 holds seat 1's entry, and
    the referee alone accuses seat 1 of silence there sooner than anybody's
    turn could have run out. The entry stays, goes to everybody again, and
    the referee is accused."""
    m = bura3
    k = _first(m, ACTION, 1)
    spectator = _at(m, k)
    abort = _silence_abort(m, spectator, 0, 1, [_attest(m, spectator, 0, 1)])
    peer, mesh = await _peer(m, 2, k + 1)
    peer._head_final_at = (k, trio.current_time() - 1)  # the place opened a second ago
    await peer._take(abort)
    assert peer.driver.log[k].raw == m.entries[k].raw
    assert (None, {"t": "entry", "raw": m.entries[k].raw}) in mesh.sent
    assert (peer.accusation[0].seat, peer.accusation[0].kind) == (0, "false-accusation")


async def test_a_silence_abort_waits_for_the_peers_own_clock(bura3):
    m = bura3
    k = _first(m, ACTION, 1)
    peer, mesh = await _peer(m, 2, k)
    peer.driver.finalize()
    spectator = _at(m, k)
    abort = _silence_abort(m, spectator, 0, 1, [_attest(m, spectator, 0, 1), _attest(m, spectator, 2, 1)])
    await peer._take(abort)
    assert len(peer.driver.log) == k and abort.raw in peer.pending_silence  # its own clock has not run out
    peer._progress_at -= peer.options.turn_timeout + 1  # an action: the idle player's auto-play comes first
    await peer._retry_pending_silence()
    assert len(peer.driver.log) == k and abort.raw in peer.pending_silence
    peer._progress_at -= auto_play_margin(peer.options.turn_timeout)  # now its clock has run out
    await peer._retry_pending_silence()
    assert peer.driver.log[k].raw == abort.raw and peer.machine.excluded == {1}


async def test_a_peer_refuses_an_abort_after_the_fully_signed_end(bura3):
    m = bura3
    n = len(m.entries) - 1
    peer, mesh = await _peer(m, 2, n + 1)
    assert peer.machine.finished
    for payload in ({"culprit": 1, "kind": "illegal-move", "detail": "x"},
                    {"culprit": 1, "kind": "silent", "detail": "x",
                     "attestations": [silence.attest(m.signers[0], peer.machine.table, 0, 1, n,
                                                     m.entries[n - 1].hash, "silent").raw]}):
        late = Entry.from_wire(kit.raw_entry(n, m.entries[n - 1].hash, 0, ABORT, payload, m.signers[0]))
        await peer._take(late)
        assert peer.driver.log[n] == m.entries[n]


async def test_bad_silence_messages_never_escape_the_event_loop(bura3):
    peer, mesh = await _peer(bura3, 2, 3)
    for att in [None, 7, b"", b"\x96" * 30, "x", [1, 2], {"a": 1}]:
        await peer._message(0, {"t": "silence", "att": att})
    assert not peer.attestations
    # A valid attestation relayed by another seat is taken for its signer
    # (table.md §5) and passed on once, to every seat but the one it came from.
    d = _at(bura3, 3)
    att = _attest(bura3, d, 0, 1)
    await peer._message(1, {"t": "silence", "att": att})
    assert list(peer.attestations.values())[0].keys() == {0}
    assert mesh.sent == [(0, {"t": "silence", "att": att})]
    await peer._message(0, {"t": "silence", "att": att})  # a second copy: taken once, not passed on again
    assert mesh.sent == [(0, {"t": "silence", "att": att})]


def test_no_accusation_is_judged_false_while_a_reveal_it_needs_is_missing(bura3):
    """Item 4: seat 0 says a card opens to no card; seat 2 then withholds its
    final reveal and is silenced by a majority. The check cannot be made
    without seat 2's seed, so seat 0 is not blamed: seat 2 answers for it."""
    m = bura3
    k = _first(m, ACTION)
    seats = _seats_at(m, k)
    entry = seats[0].write_abort(Violation(None, "no-card", "position 3 opens to no card"))
    for s in seats[1:]:
        s.receive(entry)
    while True:
        want = seats[0].machine.expect()
        if want.author == 2:
            break
        e = seats[want.author].write()
        for s in seats:
            if s is not seats[want.author]:
                s.receive(e)
    d0 = seats[0]
    atts = [_attest(m, d0, 0, 2), _attest(m, d0, 1, 2)]
    e = d0.write_abort(Violation(2, "timeout", "no reveal"), [], atts)
    seats[1].receive(e)
    body = d0.end_body()
    sigs = {s: seats[s].sign_end(body) for s in (0, 1)}
    d0.finish(body, sigs)
    report = audit_log(d0.log)
    blamed = {v["seat"] for v in report.violations}
    assert report.exit_code == VIOLATIONS and blamed == {2}, report.as_json()


def test_an_answer_to_unchained_evidence_blames_the_forger(bura3):
    """Seat 0 accuses seat 1 with evidence from another chain; the referee for
    seat 0 (seat 1) answers at that place with seat 0's abort as evidence: the
    audit blames seat 0 only."""
    from tests.helpers import play_out

    m = bura3
    k = _first(m, SHUFFLE, 1)
    seats = _seats_at(m, k)
    other = kit.raw_entry(k, bytes(32), 1, SHUFFLE, m.entries[k].payload, m.signers[1])
    forged = kit.raw_entry(k, seats[0].log.head_hash, 0, ABORT,
                           {"culprit": 1, "kind": "bad-shuffle", "detail": "x", "evidence": [other]}, m.signers[0])
    with pytest.raises(Violation) as caught:
        seats[1].receive(Entry.from_wire(forged))
    answer = seats[1].write_abort(Violation(0, caught.value.kind, caught.value.detail), [forged])
    for s in (seats[0], seats[2]):
        s.receive(answer)
    play_out(seats, bots=[], max_entries=20)
    report = audit_log(seats[2].log)
    assert report.exit_code == VIOLATIONS and {v["seat"] for v in report.violations} == {0}, report.as_json()


def test_a_rewritten_end_with_a_made_up_accusation_blames_the_rewriter(tmp_path):
    """Item 5, the other way to rewrite: the end replaced with an abort naming
    the other player for a move the log holds (evidence that proves nothing)
    and an end only the rewriter signs. Alone or beside the genuine log, only
    the rewriter is blamed."""
    from p2pcards.audit import audit_pair
    from p2pcards.protocol.log import write_log

    from p2pcards.protocol.log import assemble, sign_body

    m = kit.match("bura2")
    n = len(m.entries) - 1
    rewriter, victim = 1, 0
    d = SeatDriver(m.genesis, rewriter, m.signers[rewriter], seeds=m.seeds[rewriter])
    for e in m.entries[1:n]:
        d.receive(e)
    evidence = next(e for e in m.entries if e.kind == ACTION and e.author == victim)
    # The rewriter's own table refuses such an abort: it is forged into the file by hand.
    with pytest.raises(Violation):
        d.write_abort(Violation(victim, "illegal-move", "made up"), [evidence.raw])
    forged = GameLog()
    for e in m.entries[:n]:
        forged.append(e)
    forged.append(forged.make_next(rewriter, ABORT, {"culprit": victim, "kind": "illegal-move", "detail": "made up",
                                                     "evidence": [evidence.raw]}, m.signers[rewriter]))
    body = forged.end_body({**m.entries[n].payload, "aborted": True})
    forged.append(assemble(body, [None if s != rewriter else sign_body(body, m.signers[s]) for s in range(2)]))
    alone = audit_log(forged)
    assert alone.exit_code == VIOLATIONS and {v["seat"] for v in alone.violations} == {rewriter}, alone.as_json()
    tmp = tmp_path
    genuine = GameLog()
    for e in m.entries:
        genuine.append(e)
    write_log(tmp / "genuine.p2plog", genuine)
    write_log(tmp / "rewritten.p2plog", forged)
    both = audit_pair(tmp / "genuine.p2plog", tmp / "rewritten.p2plog")
    assert both.exit_code == VIOLATIONS and {v["seat"] for v in both.violations} == {rewriter}, both.as_json()
    assert both.fork == {"entry": n, "first": {"kind": "end", "signed_by": [0, 1]},
                         "second": {"kind": "abort", "signed_by": [rewriter]}}


def test_a_valid_entry_called_a_fault_is_refused_and_the_accuser_answers(bura3):
    """A referee replaces seat 1's valid entry with an abort calling it an
    illegal move, the entry itself as evidence: the machine refuses the abort
    (seat 0 at fault); the answer at that place blames seat 0 in the audit."""
    from tests.helpers import play_out

    m = bura3
    k = _first(m, ACTION, 1)
    seats = _seats_at(m, k)
    raw = kit.raw_entry(k, seats[2].log.head_hash, 0, ABORT,
                        {"culprit": 1, "kind": "illegal-move", "detail": "x", "evidence": [m.entries[k].raw]},
                        m.signers[0])
    with pytest.raises(Violation) as caught:
        seats[2].receive(Entry.from_wire(raw))
    assert (caught.value.seat, caught.value.kind) == (0, "false-accusation")
    answer = seats[1].write_abort(Violation(0, caught.value.kind, caught.value.detail), [raw])
    for s in (seats[0], seats[2]):
        s.receive(answer)
    play_out(seats, bots=[], max_entries=20)
    report = audit_log(seats[2].log)
    assert report.exit_code == VIOLATIONS and {v["seat"] for v in report.violations} == {0}, report.as_json()


def test_at_most_one_abort_per_culprit(bura3):
    m = bura3
    d = _at(m, _first(m, ACTION, 1))
    d.receive(_silence_abort(m, d, 0, 1, [_attest(m, d, 0, 1), _attest(m, d, 2, 1)]))
    again = Entry.from_wire(kit.raw_entry(d.log.next_seq, d.log.head_hash, 0, ABORT,
                                          {"culprit": 1, "kind": "illegal-move", "detail": "again"}, m.signers[0]))
    with pytest.raises(Violation):
        d.receive(again)


def test_the_attestation_vector():
    """protocol/vectors/silence.json, byte for byte."""
    import json
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as Key

    from p2pcards.protocol.log import Player, TableInfo

    v = json.loads((Path(__file__).parent.parent / "protocol" / "vectors" / "silence.json").read_text())
    key = Key.from_private_bytes(bytes.fromhex(v["private_seed"]))
    session, head = bytes.fromhex(v["session"]), bytes.fromhex(v["head"])
    players = (Player("p0", bytes.fromhex(v["public_key"]), bytes(32)), Player("p1", bytes(32), bytes(32)))
    table = TableInfo(2, "bura", session, {}, players)
    assert silence.statement(session, v["attester"], v["accused"], v["place"], head, v["kind"]).hex() == v["statement"]
    att = silence.attest(key, table, v["attester"], v["accused"], v["place"], head, v["kind"])
    assert att.raw.hex() == v["attestation"]
    parsed = silence.parse(bytes.fromhex(v["attestation"]), table)
    assert (parsed.attester, parsed.accused, parsed.place, parsed.head, parsed.kind) == (0, 1, 17, head, "timeout")


async def test_an_accusation_held_for_another_referee_does_not_stop_this_seat_refereeing(bura3):
    """Two cheaters (table.md §6): seat 2 sends an out-of-turn entry for seat
    0's place to seat 1 alone, whose referee is seat 0, which ignores it; then
    seat 0 breaks a rule at that place, and seat 1 is that fault's referee.
    Seat 1 tells seat 0 of the first fault once and writes the abort for the
    second: an accusation held for another referee (one that may never write
    it) does not keep this seat from writing one it referees."""
    m = bura3
    k = _first(m, ACTION, 0)
    peer, mesh = await _peer(m, 1, k)
    head = peer.driver.log.head_hash
    deal = peer.machine.deal.index
    whisper = kit.raw_entry(k, head, 2, ACTION, {"action": {"type": "pass"}, "positions": [], "keys": [],
                                                 "deal": deal}, m.signers[2])
    await peer._take(Entry.from_wire(whisper), sender=2)
    assert (peer.accusation[0].seat, peer.accusation[0].kind) == (2, "out-of-turn")
    assert not peer._abort_to_write()
    await peer._tell_referee()
    await peer._tell_referee()
    assert mesh.sent.count((0, {"t": "entry", "raw": whisper})) == 1  # told once
    illegal = kit.raw_entry(k, head, 0, ACTION, {"action": {"type": "no such move"}, "positions": [], "keys": [],
                                                 "deal": deal}, m.signers[0])
    await peer._take(Entry.from_wire(illegal), sender=0)
    assert peer._abort_to_write()
    violation, evidence = peer.accusation
    assert violation.seat == 0 and evidence == [illegal]
    await peer._write_abort(violation, evidence)
    abort = peer.driver.log[k]
    assert abort.kind == ABORT and abort.payload["culprit"] == 0
    assert [(v.seat, v.kind) for v, _ in peer.accusations] == [(2, "out-of-turn")]  # no longer anybody's to write
    assert not peer._abort_to_write()
    log = GameLog()
    for e in peer.driver.log.entries:
        log.append(e)
    report = audit_log(log)
    assert {v["seat"] for v in report.violations} == {0}, report.as_json()
