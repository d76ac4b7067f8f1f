"""Issue 23, item 1: every signed message is relayed over the mesh and taken
for its signer (protocol/table.md §5). Acknowledgements are signed (the
vector), a relaying cheater can drop (a cut link), replay (harmless) or
forge (refused), and a flood it starts is bounded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fuzz import kit
from p2pcards.peer import TablePeer
from p2pcards.peer.relay import Flood
from p2pcards.protocol import ack, silence
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.log import Player, TableInfo
from tests.helpers import FakeMesh, MeshWrapper


@pytest.fixture(scope="module")
def bura3():
    return kit.match("bura3")


def _peer(m, seat: int, k: int, final: int | None = None) -> tuple[TablePeer, FakeMesh]:
    """Seat ``seat`` holding the match's entries before k, the last not final."""
    driver = SeatDriver(m.genesis, seat, m.signers[seat], seeds=m.seeds[seat])
    for e in m.entries[1:k]:
        driver.receive(e)
    driver.finalize(k - 1 if final is None else final)
    mesh = FakeMesh()
    return TablePeer(driver, mesh, None), mesh


def _ack(m, seat: int, k: int, digest: bytes | None = None, signer=None) -> bytes:
    table = TableInfo.from_payload(m.genesis.payload)
    return ack.make(signer or m.signers[seat], table, seat, k, digest or m.entries[k].hash).raw


def test_the_ack_vector():
    """protocol/vectors/ack.json, byte for byte."""
    v = json.loads((Path(__file__).parent.parent / "protocol" / "vectors" / "ack.json").read_text())
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_seed"]))
    session, digest = bytes.fromhex(v["session"]), bytes.fromhex(v["hash"])
    players = (Player("p0", bytes(32), bytes(32)), Player("p1", bytes.fromhex(v["public_key"]), bytes(32)))
    table = TableInfo(2, "bura", session, {}, players)
    assert ack.statement(session, v["acker"], v["seq"], digest).hex() == v["statement"]
    made = ack.make(key, table, v["acker"], v["seq"], digest)
    assert made.raw.hex() == v["ack"]
    parsed = ack.parse(bytes.fromhex(v["ack"]), table)
    assert (parsed.acker, parsed.seq, parsed.hash) == (1, 17, digest)
    # Another table, another statement kind, another seat: none verifies.
    other = TableInfo(2, "bura", bytes(16), {}, players)
    with pytest.raises(ack.AckError):
        ack.parse(made.raw, other)
    att = silence.attest(key, table, 1, 0, 17, digest, "timeout")
    with pytest.raises(ack.AckError):
        ack.parse(att.raw, table)


def test_acks_are_parsed_typed_and_never_raise_anything_else(bura3):
    table = TableInfo.from_payload(bura3.genesis.payload)
    good = _ack(bura3, 1, 3)
    for raw in [b"", b"\xc1", None, 7, "text", good[:-1], good + b"\x00", b"\x94" + b"\x00" * 40, bytes(200),
                _ack(bura3, 1, 3, signer=Ed25519PrivateKey.generate())]:
        with pytest.raises(ack.AckError):
            ack.parse(raw, table)
    assert ack.parse(good, table).acker == 1


async def test_a_relayed_ack_counts_for_its_signer_and_is_handed_on_only_when_asked(bura3):
    """Seat 2 holds entry k (not final); seat 0's ack of it comes through
    seat 1 (the 0-2 link is cut): it counts for seat 0, and goes no further
    unasked (protocol 4: every seat sends its own acknowledgements to all;
    the others hand them on in answer to `have`). A second copy changes
    nothing; a `have` for place k + 1 is answered with every ack of k held."""
    m = bura3
    k = 6
    peer, mesh = _peer(m, 2, k + 1)
    peer.acks.setdefault(k, {}).update({1: m.entries[k].hash, 2: m.entries[k].hash})
    relayed = {"t": "ack", "ack": _ack(m, 0, k)}
    await peer._message(1, relayed)
    assert peer.acks[k][0] == m.entries[k].hash
    assert peer.driver.final_len == k + 1  # every seat acknowledged it: final
    assert mesh.sent == []
    await peer._message(0, relayed)
    assert mesh.sent == []
    await peer._message(1, {"t": "have", "next": k + 1})
    assert mesh.sent == [(1, relayed)]


async def test_an_ack_of_the_end_is_passed_on_at_once(bura3):
    """At the end the seats leave, so nobody may be left to answer a `have`:
    an acknowledgement of the end entry's place goes on to the other seats
    at once, before it counts here (table.md §5)."""
    m = bura3
    end = len(m.entries) - 1
    peer, mesh = _peer(m, 2, end)
    mesh.all_connected = lambda: True
    assert peer._end_place() == end
    relayed = {"t": "ack", "ack": _ack(m, 0, end)}
    await peer._message(1, relayed)
    assert mesh.sent == [(0, relayed)]
    await peer._message(0, relayed)
    assert mesh.sent == [(0, relayed)]


async def test_a_forged_ack_counts_for_nobody(bura3):
    """An ack in seat 0's name signed by another key (or for another place
    than it says) is refused, whoever relays it; so is an unsigned one."""
    m = bura3
    k = 6
    peer, mesh = _peer(m, 2, k + 1)
    for msg in ({"t": "ack", "ack": _ack(m, 0, k, signer=m.signers[1])},
                {"t": "ack", "seq": k, "hash": m.entries[k].hash}):
        with pytest.raises((ack.AckError, KeyError)):
            await peer._message(1, msg)
    assert 0 not in peer.acks.get(k, {}) and not mesh.sent


async def test_a_replayed_old_message_goes_no_further(bura3):
    """A relaying cheater replays old signed messages: an ack and an entry of
    places long final, an attestation about a place behind. Each is true (or
    was) and taken for what it says, but none is passed on, and none changes
    what is final."""
    m = bura3
    k = 12
    peer, mesh = _peer(m, 2, k + 1, final=k + 1)
    table = peer.machine.table
    old_att = silence.attest(m.signers[0], table, 0, 1, 5, m.entries[4].hash, "timeout").raw
    for msg in ({"t": "ack", "ack": _ack(m, 0, 5)}, {"t": "entry", "raw": m.entries[5].raw},
                {"t": "silence", "att": old_att}):
        await peer._message(1, msg)
    assert not [sent for sent in mesh.sent if sent[1]["t"] != "have"]
    assert peer.driver.final_len == k + 1 and peer.accusation is None and not peer.attestations


async def test_a_relayed_entry_is_passed_on_once_and_only_if_signed(bura3):
    m = bura3
    k = 6
    peer, mesh = _peer(m, 2, k)
    entry = m.entries[k]
    await peer._message(1, {"t": "entry", "raw": entry.raw})
    assert (0, {"t": "entry", "raw": entry.raw}) in mesh.sent
    assert len(peer.driver.log) == k + 1
    relayed = len([s for s in mesh.sent if s[1]["t"] == "entry"])
    await peer._message(0, {"t": "entry", "raw": entry.raw})
    assert len([s for s in mesh.sent if s[1]["t"] == "entry"]) == relayed
    # An entry whose signature fails is neither taken nor passed on.
    peer2, mesh2 = _peer(m, 2, k)
    forged = kit.raw_entry(k, entry.prev_hash, entry.author, entry.kind, entry.payload, m.signers[0])
    await peer2._message(1, {"t": "entry", "raw": forged})
    assert not [s for s in mesh2.sent if s[1]["t"] == "entry"] and len(peer2.driver.log) == k


async def test_a_refused_entry_is_not_passed_on(bura3):
    """A cheater's entry that the table refuses (here an abort whose evidence
    is no entry, with a large payload) goes no further than the seat it was
    sent to: relaying refused entries would flood the honest seats' own links
    with them (a 1 MB abort, sixty times, once dropped the link between two
    honest seats)."""
    m = bura3
    k = 6
    peer, mesh = _peer(m, 2, k)
    entry = m.entries[k]
    payload = {"culprit": None, "kind": "no-card", "detail": "flood", "evidence": [b"junk" * 50_000]}
    refused = kit.raw_entry(k, entry.prev_hash, 0, "abort", payload, m.signers[0])
    await peer._message(0, {"t": "entry", "raw": refused})
    assert all(s[1].get("raw") != refused for s in mesh.sent)
    assert len(peer.driver.log) == k  # not taken


async def test_junk_end_signatures_cannot_push_out_a_verified_one(bura3):
    """At the end, seat 0's genuine end signature is verified and kept; junk
    in seat 0's name, relayed by anybody, is never counted and never
    replaces it."""
    m = bura3
    n = len(m.entries) - 1
    peer, mesh = _peer(m, 2, n, final=n)
    body = peer.driver.end_body()
    genuine = {s: SeatDriver.sign_end(_seat_at(m, s, n), body) for s in (0, 1)}
    await peer._message(1, {"t": "endsig", "seat": 0, "hash": _sha(body), "sig": genuine[0]})
    await peer._end()
    assert 0 in peer.end_sigs
    for i in range(10):
        await peer._message(1, {"t": "endsig", "seat": 0, "hash": _sha(body), "sig": bytes([i]) * 64})
    await peer._message(1, {"t": "endsig", "seat": 1, "hash": _sha(body), "sig": genuine[1]})
    await peer._end()
    assert peer.machine.finished and peer.driver.log[n].raw == m.entries[n].raw


def _seat_at(m, seat, k):
    d = SeatDriver(m.genesis, seat, m.signers[seat], seeds=m.seeds[seat])
    for e in m.entries[1:k]:
        d.receive(e)
    return d


def _sha(body: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(body).digest()


def test_the_flood_memory_is_bounded():
    flood = Flood(keep=100)
    for i in range(1000):
        assert flood.first({"t": "ack", "ack": i.to_bytes(4, "big")})
    assert len(flood._seen) == 100
    assert flood.first({"t": "ack", "ack": (0).to_bytes(4, "big")})  # forgotten: passed on again, once
    assert not flood.first({"t": "ack", "ack": (999).to_bytes(4, "big")})


class Replayer(MeshWrapper):
    """A seat's mesh that, besides relaying honestly, sends every other seat
    again, each time something comes in, a few of the signed messages it has
    seen so far (old entries, acknowledgements, attestations, end signatures)."""

    def __init__(self, mesh, rng):
        super().__init__(mesh)
        self.rng = rng
        self.seen: list[dict] = []
        self.replayed = 0

    async def __anext__(self):
        from p2pcards.net import Message

        event = await self._mesh.__anext__()
        if isinstance(event, Message) and isinstance(event.msg, dict) and event.msg.get("t") in (
                "entry", "ack", "silence", "endsig"):
            self.seen.append(event.msg)
            for old in self.rng.sample(self.seen, min(4, len(self.seen))):
                await self._mesh.broadcast(old)
                self.replayed += 1
        return event


@pytest.mark.parametrize("players", [3, 4])
def test_a_replaying_relay_changes_nothing_and_is_not_amplified(players):
    """Through real peers (an in-process mesh): seat 1 replays old signed
    messages to everybody all match long, four for every message it gets.
    The match finishes as without it, every log the same, nobody blamed; and
    the honest seats pass on none of it (their traffic grows by far less than
    what the replayer sends)."""
    import random

    from tests.partitions import SHORT, run

    base = run(players, SHORT, None, seed=3)
    replayers = {}

    def wrap(seat, mesh):
        if seat != 1:
            return mesh
        replayers[seat] = Replayer(mesh, random.Random(seat))
        return replayers[seat]

    outcome = run(players, SHORT, None, seed=3, wrap=wrap)
    assert all(outcome.finished) and len({tuple(log) for log in outcome.logs}) == 1
    assert outcome.logs[0] == base.logs[0]
    assert all(report.exit_code == 0 and not report.violations for report in outcome.reports)
    sent_by_replayer = replayers[1].replayed * (players - 1)
    assert sent_by_replayer > 500  # (fewer since protocol 4: acknowledgements are no longer flooded to it)
    # Everything beyond the honest match's messages is the replayer's own copies, bar a few answers.
    assert outcome.messages - base.messages <= sent_by_replayer * 1.05 + 200, (outcome.messages, base.messages)


async def test_an_attestation_is_answered_with_what_it_says_never_came(bura3):
    """Seat 0 attests that seat 1 sent nothing at k; seat 2 holds seat 1's
    entry there (not final): it sends it to everybody again (each copy is
    relayed), so if any path reaches seat 0, seat 0 gets it. At the head, it
    answers with seat 1's acknowledgement it holds instead."""
    m = bura3
    k = next(i for i, e in enumerate(m.entries) if i > 5 and e.author == 1)
    table = TableInfo.from_payload(m.genesis.payload)
    peer, mesh = _peer(m, 2, k + 1)
    att = silence.attest(m.signers[0], table, 0, 1, k, m.entries[k - 1].hash, "timeout").raw
    await peer._message(0, {"t": "silence", "att": att})
    assert (None, {"t": "entry", "raw": m.entries[k].raw}) in mesh.sent
    # The acknowledgement case: seat 1 owes seat 0 its ack of the head k.
    peer2, mesh2 = _peer(m, 2, k + 1)
    signed = _ack(m, 1, k)
    await peer2._message(1, {"t": "ack", "ack": signed})
    att = silence.attest(m.signers[0], table, 0, 1, k + 1, m.entries[k].hash, "silent").raw
    await peer2._message(0, {"t": "silence", "att": att})
    assert (None, {"t": "ack", "ack": signed}) in mesh2.sent


class EndSigSpoofer(MeshWrapper):
    """A seat's mesh that, for every end signature it sees, sends everybody
    a forged one in the same signer's name for the same end body, and four
    for made-up bodies (to push the true one out of what a peer keeps)."""

    def __init__(self, mesh, seat: int):
        super().__init__(mesh)
        self.seat = seat
        self.forged: set[bytes] = set()

    async def __anext__(self):
        import os

        from p2pcards.net import Message

        event = await self._mesh.__anext__()
        msg = event.msg if isinstance(event, Message) else None
        if isinstance(msg, dict) and msg.get("t") == "endsig" and msg.get("seat") != self.seat:
            for digest in [os.urandom(32) for _ in range(4)] + [msg["hash"]]:
                sig = os.urandom(64)
                self.forged.add(sig)
                await self._mesh.broadcast({"t": "endsig", "seat": msg["seat"], "hash": digest, "sig": sig})
        return event

    async def broadcast(self, msg):
        """Its own end signature goes out with forgeries in every other seat's name."""
        import os

        sent = await self._mesh.broadcast(msg)
        if isinstance(msg, dict) and msg.get("t") == "endsig" and msg.get("seat") == self.seat:
            for signer in range(len(sent) + 1):
                if signer != self.seat:
                    for digest in [os.urandom(32) for _ in range(4)] + [msg["hash"]]:
                        sig = os.urandom(64)
                        self.forged.add(sig)
                        await self._mesh.broadcast({"t": "endsig", "seat": signer, "hash": digest, "sig": sig})
        return sent


@pytest.mark.parametrize("players", [3, 4])
def test_a_forged_end_signature_is_dropped_on_arrival(players):
    """Through real peers (an in-process mesh): seat 1 answers every end
    signature it sees with forged ones in the same signer's name, for the same
    end body and for made-up ones. Each honest peer checks a signature for its
    own end body as it comes and drops a forged one there: none is passed on,
    the match ends as without it (in the same time: nobody waits a round for a
    signature a forgery pushed out), every log the same, nobody blamed."""
    from tests.partitions import SHORT, run

    base = run(players, SHORT, None, seed=5)
    spoofers = {}
    relayed_forgeries = []

    def wrap(seat, mesh):
        if seat != 1:
            return mesh
        spoofers[seat] = EndSigSpoofer(mesh, seat)
        return spoofers[seat]

    def tap(sender, receiver, msg):
        if sender != 1 and msg.get("t") == "endsig" and msg["sig"] in spoofers[1].forged:
            relayed_forgeries.append((sender, receiver, msg["seat"]))

    outcome = run(players, SHORT, None, seed=5, wrap=wrap, tap=tap)
    assert len(spoofers[1].forged) >= 5 * (players - 1)
    assert all(outcome.finished) and len({tuple(log) for log in outcome.logs}) == 1
    assert all(report.exit_code == 0 and not report.violations for report in outcome.reports)
    assert not relayed_forgeries, relayed_forgeries
    assert max(outcome.ended_at) <= max(base.ended_at) + 0.5, (outcome.ended_at, base.ended_at)


async def test_end_signatures_are_checked_as_they_come(bura3):
    """Seat 0 at the end. Before it computes the end body, seats 1 and 2 send
    their true end signatures; then seat 1 sends, in seat 2's name, four for
    made-up bodies and a forged one for the true body: they push out nothing
    of what came from seat 2 (offers are kept per seat they came from), and
    the end is assembled at once. Once it holds its end body, a signature for
    it that does not verify is dropped as it comes (kept nowhere, passed to
    nobody); one that verifies is taken and passed on at once."""
    import hashlib
    import os

    from p2pcards.protocol.log import sign_body

    m = bura3
    k = len(m.entries) - 1  # the end's place
    peer, mesh = _peer(m, 0, k + 1, final=k)
    body = peer.driver.end_body()
    digest = hashlib.sha256(body).digest()
    true = {s: sign_body(body, m.signers[s]) for s in (1, 2)}
    for s in (1, 2):
        await peer._message(s, {"t": "endsig", "seat": s, "hash": digest, "sig": true[s]})
    for fake in [os.urandom(32) for _ in range(4)] + [digest]:
        await peer._message(1, {"t": "endsig", "seat": 2, "hash": fake, "sig": os.urandom(64)})
    await peer._end()
    assert peer.machine.finished

    peer, mesh = _peer(m, 0, k + 1, final=k)
    await peer._end()
    mesh.sent.clear()
    forged = os.urandom(64)
    await peer._message(1, {"t": "endsig", "seat": 2, "hash": digest, "sig": forged})
    assert 2 not in peer.end_sigs and not any(forged in offers.values() for offers in peer.end_offers.values())
    assert not mesh.sent
    await peer._message(1, {"t": "endsig", "seat": 2, "hash": digest, "sig": true[2]})
    assert peer.end_sigs[2] == true[2]
    assert (2, {"t": "endsig", "seat": 2, "hash": digest, "sig": true[2]}) in mesh.sent


class AckCheater(MeshWrapper):
    """Seat 1's mesh: it sends its own acknowledgements to every seat but
    seat 2, and answers every `have` (before its honest answer) with junk:
    acknowledgements forged in other seats' names, its own for the right
    places with wrong hashes, and replays of old ones it has seen."""

    def __init__(self, mesh, signer, table, players, rng):
        super().__init__(mesh)
        self.signer, self.table, self.players, self.rng = signer, table, players, rng
        self.seen: list[bytes] = []
        self.junk = self.withheld = 0

    async def broadcast(self, msg):
        if isinstance(msg, dict) and msg.get("t") == "ack" and ack.parse(msg["ack"], self.table).acker == 1:
            self.withheld += 1
            return {seat: await self._mesh.send(seat, msg) for seat in range(self.players) if seat not in (1, 2)}
        return await self._mesh.broadcast(msg)

    async def __anext__(self):
        from p2pcards.net import Message

        event = await self._mesh.__anext__()
        if isinstance(event, Message) and isinstance(event.msg, dict):
            if event.msg.get("t") == "ack":
                self.seen.append(event.msg["ack"])
            elif event.msg.get("t") == "have" and type(event.msg.get("next")) is int:
                # Every one answered: a junk ack of its own with a wrong hash makes the receiver
                # ask it again, but at most once a second per place (else mock time never passed).
                place = max(1, event.msg["next"] - 1)
                junk = [ack.make(self.signer, self.table, 1, place, self.rng.randbytes(32)).raw,
                        ack.make(self.signer, self.table, 0, place, self.rng.randbytes(32)).raw]  # seat 0's name
                if self.seen:
                    forged = bytearray(self.rng.choice(self.seen))
                    forged[10] ^= 1  # its hash changed: the signature no longer holds
                    junk += [bytes(forged), *self.rng.sample(self.seen, min(3, len(self.seen)))]
                for raw in junk:
                    await self._mesh.send(event.seat, {"t": "ack", "ack": raw})
                    self.junk += 1
        return event


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_withholding_its_acks_or_answering_have_with_junk_stalls_nobody(players):
    """Protocol 4, through real peers: seat 1 never sends its acknowledgements
    to seat 2, and answers every `have` with junk acknowledgements. Seat 2 gets
    seat 1's from the others when it asks; the junk counts for nobody (and a
    wrong hash of seat 1's own does not hide its right one). The match is the
    one played without it, every log the same, nobody blamed."""
    import random

    from fuzz.kit import make_genesis
    from tests.partitions import SHORT, run

    seed = 4
    rng = random.Random(f"partition/{players}/{seed}")  # as tests.partitions.play makes the table
    genesis, signers = make_genesis("bura", players, {"rounds": 1},
                                    {"turn_timeout": SHORT[0], "rejoin_timeout": SHORT[1], "deals": 1}, rng)
    table = TableInfo.from_payload(genesis.payload)
    cheaters = []

    def wrap(seat, mesh):
        if seat != 1:
            return mesh
        cheaters.append(AckCheater(mesh, signers[1], table, players, random.Random(seat)))
        return cheaters[0]

    base = run(players, SHORT, None, seed=seed)
    outcome = run(players, SHORT, None, seed=seed, wrap=wrap)
    assert cheaters[0].withheld > 20 and cheaters[0].junk >= 300, (cheaters[0].withheld, cheaters[0].junk)
    assert all(outcome.finished) and len({tuple(log) for log in outcome.logs}) == 1
    assert outcome.logs[0] == base.logs[0]
    assert all(report.exit_code == 0 and not report.violations for report in outcome.reports)
