"""The signed hash-chained log: building, verifying, files, crashes, equivocation."""

import hashlib
import os

import msgpack
import pytest

from p2pcards import PROTOCOL_VERSION
from p2pcards.protocol import log as L
from p2pcards.identity import Identity
from p2pcards.protocol.log import LogError
from tests.helpers import build_log, ids_for



# ------------------------------------------------------------ entries


def test_entry_round_trip_and_hash_definition():
    log, ids = build_log()
    for e in log:
        again = L.Entry.from_wire(e.raw)
        assert again == e and again.body == e.body and again.payload == e.payload
        assert e.hash == hashlib.sha256(b"p2pcards/log/v1/entry\x00" + e.body).digest()
        assert msgpack.unpackb(e.body)[:4] == [e.seq, e.prev_hash, e.author, e.kind]
    assert [e.prev_hash for e in log][1:] == [e.hash for e in log][:-1]
    assert log[0].prev_hash == L.ZERO_HASH
    assert log.head_hash == log[-1].hash and log.next_seq == len(log) == 12


def test_body_bytes_are_never_reencoded():
    # seq as a 9-byte uint64 and the payload map in an odd order: a valid body
    # that msgpack-python would encode differently. It must verify as signed.
    log, ids = build_log(end=False)
    payload = msgpack.packb({"z": 1, "a": 2})
    body = (b"\x95" + b"\xcf" + log.next_seq.to_bytes(8, "big") + msgpack.packb(log.head_hash)
            + msgpack.packb(0) + msgpack.packb("move") + payload)
    raw = msgpack.packb([body, ids[0].sign(body)])
    e = log.append(raw)
    assert e.body == body and e.seq == 11 and e.hash == L.entry_hash(body)
    assert L.parse_log(log.to_bytes()).to_bytes() == log.to_bytes()


def test_outer_array_must_be_shortest_encoding():
    log, ids = build_log(end=False)
    e = log.make_next(1, "move", {}, ids[1])
    # the same body as bin16 instead of bin8
    raw = b"\x92\xc5" + len(e.body).to_bytes(2, "big") + e.body + msgpack.packb(e.signature)
    with pytest.raises(LogError, match="shortest msgpack encoding"):
        L.Entry.from_wire(raw)


@pytest.mark.parametrize("raw, why", [
    (b"", "not a msgpack entry"),
    (b"\xc1", "not a msgpack entry"),
    (msgpack.packb([1, 2, 3]), r"\[body \(bin\), signature\]"),
    (msgpack.packb([b"\x93\x01\x02\x03", b"x" * 64]), "body must be the array"),
    (msgpack.packb([msgpack.packb([0, b"x", -1, "table", {}]), [b"s" * 64]]), "prev_hash"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "Move!", {}]), b"s" * 64]), "short lowercase name"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "move", {}]), b"s" * 63]), "64 bytes"),
    (msgpack.packb([msgpack.packb([3, bytes(32), True, "move", {}]), b"s" * 64]), "author"),
    (msgpack.packb([msgpack.packb([3, bytes(32), -1, "table", {}]), [b"s" * 64]]), "only entry 0"),
    (msgpack.packb([msgpack.packb([0, bytes(32), 0, "move", {}]), b"s" * 64]), "only entry 0"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "end", {}]), [b"s" * 64]]), "author must be -1"),
    (msgpack.packb([msgpack.packb([3, bytes(32), -1, "end", {}]), [None, None]]), "no signature at all"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "move", {}]) + b"\x00", b"s" * 64]), "body is not msgpack"),
    (msgpack.packb([b"\x95\x03" + msgpack.packb(bytes(32)) + b"\x00\xa4move\x82\xa1a\x01\xa1a\x02", b"s" * 64]), "duplicate map key"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "move", msgpack.ExtType(5, b"x")]), b"s" * 64]), "extension type"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "move", msgpack.Timestamp(5)]), b"s" * 64]), "Timestamp"),
    (msgpack.packb([msgpack.packb([3, bytes(32), 0, "move", [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]),
                    b"s" * 64]), "nested more than"),
])
def test_malformed_entries_are_refused_with_a_reason(raw, why):
    with pytest.raises(LogError, match=why):
        L.Entry.from_wire(raw)


def test_hostile_nesting_and_sizes():
    deep = b"\x95\x03" + msgpack.packb(bytes(32)) + b"\x00\xa4move" + b"\x91" * 100_000 + b"\xc0"
    with pytest.raises(LogError):
        L.Entry.from_wire(msgpack.packb([deep, b"s" * 64]))
    with pytest.raises(LogError, match="over the maximum"):
        L.Entry.from_wire(b"\x00" * (L.MAX_ENTRY_SIZE + 1))
    # an array header claiming 2**32-1 elements in a few bytes
    with pytest.raises(LogError, match="not a msgpack entry"):
        L.Entry.from_wire(b"\xdd\xff\xff\xff\xff")
    with pytest.raises(LogError, match="must be bytes"):
        L.Entry.from_wire("text")


def test_make_entry_refuses_unencodable_payloads():
    ids = ids_for(1)
    with pytest.raises(LogError, match="not plain msgpack data"):
        L.make_entry(1, bytes(32), 0, "move", {"x": object()}, ids[0])
    with pytest.raises(LogError, match="every player"):
        L.make_entry(1, bytes(32), -1, "end", {}, ids[0])


# ------------------------------------------------------------ the table entry


def test_table_info():
    log, ids = build_log()
    t = log.table
    assert t.game == "bura" and t.protocol == PROTOCOL_VERSION and t.session == b"session-0123"
    assert t.keys == [x.public_bytes for x in ids] == log.public_keys
    assert [p.name for p in t.players] == ["player 0", "player 1", "player 2"]
    assert t.options == {"target": 7}
    assert L.TableInfo.from_body(log[0].body) == t
    with pytest.raises(LogError, match="not a table body"):
        L.TableInfo.from_body(log[1].body)


def test_table_signatures_are_all_required_and_checked():
    ids = ids_for(3)
    players = [L.Player(f"p{i}", x.public_bytes, bytes([i]) * 32) for i, x in enumerate(ids)]
    body = L.table_body("kanasta", {}, players, b"12345678")
    sigs = [x.sign(body) for x in ids]
    L.check_body_signature(body, ids[1].public_bytes, sigs[1], 1)
    with pytest.raises(LogError, match="seat 1's signature does not verify"):
        L.check_body_signature(body, ids[1].public_bytes, sigs[2], 1)
    with pytest.raises(LogError, match="entry 0: signature does not verify for seat 2"):
        L.GameLog().append(L.assemble(body, sigs[:2] + [ids[0].sign(body)]))
    with pytest.raises(LogError, match="2 signatures for 3 players"):
        L.GameLog().append(L.assemble(body, sigs[:2]))
    with pytest.raises(LogError, match="64 bytes"):
        L.assemble(body, sigs[:2] + [None])
    L.GameLog().append(L.assemble(body, sigs))


@pytest.mark.parametrize("change, why", [
    (dict(protocol=PROTOCOL_VERSION + 1), "protocol version"),
    (dict(game="Bad Game"), "bad game id"),
    (dict(session=b"short"), "session must be"),
    (dict(players=[]), "players must be"),
    (dict(extra_key=1), "unknown"),
])
def test_table_payload_is_checked(change, why):
    payload = {"protocol": PROTOCOL_VERSION, "game": "bura", "session": b"12345678", "options": {},
               "players": [{"name": "a", "key": bytes(32), "nonce": bytes(32)}]}
    payload.update(change)
    with pytest.raises(LogError, match=why):
        L.TableInfo.from_payload(payload)


def test_table_body_refuses_duplicate_keys_and_bad_players():
    ids = ids_for(2)
    same = [L.Player("a", ids[0].public_bytes, bytes(32)), L.Player("b", ids[0].public_bytes, bytes(32))]
    with pytest.raises(LogError, match="same public key"):
        L.table_body("bura", {}, same, b"12345678")
    with pytest.raises(LogError, match="bad name"):
        L.table_body("bura", {}, [L.Player("", ids[0].public_bytes, bytes(32))], b"12345678")
    with pytest.raises(LogError, match="nonce"):
        L.table_body("bura", {}, [L.Player("x", ids[0].public_bytes, bytes(3))], b"12345678")


def test_expected_game_session_and_keys():
    log, ids = build_log()
    data = log.to_bytes()
    L.parse_log(data, game="bura", session=b"session-0123", keys=[x.public_bytes for x in ids])
    with pytest.raises(LogError, match="entry 0: this log is of game 'bura', not 'warkocz'"):
        L.parse_log(data, game="warkocz")
    with pytest.raises(LogError, match="another session"):
        L.parse_log(data, session=b"session-9999")
    with pytest.raises(LogError, match="expected ones"):
        L.parse_log(data, keys=[x.public_bytes for x in ids_for(3, b"other")])


def test_another_protocol_version_is_refused_on_read():
    ids = ids_for(2)
    players = [L.Player(f"p{i}", x.public_bytes, bytes(32)) for i, x in enumerate(ids)]
    payload = {"protocol": PROTOCOL_VERSION + 1, "game": "bura", "session": b"12345678", "options": {},
               "players": [{"name": p.name, "key": p.key, "nonce": p.nonce} for p in players]}
    body = msgpack.packb([0, bytes(32), -1, "table", payload])
    with pytest.raises(LogError, match=f"entry 0: protocol version {PROTOCOL_VERSION + 1}"):
        L.GameLog().append(L.assemble(body, [x.sign(body) for x in ids]))


# ------------------------------------------------------------ the chain


def test_append_checks_seq_chain_author_and_signature():
    log, ids = build_log(end=False)
    n = log.next_seq
    with pytest.raises(LogError, match=f"entry {n}: sequence number {n + 1}"):
        log.append(L.make_entry(n + 1, log.head_hash, 0, "move", {}, ids[0]))
    with pytest.raises(LogError, match="broken chain"):
        log.append(L.make_entry(n, log[-2].hash, 0, "move", {}, ids[0]))
    with pytest.raises(LogError, match=f"entry {n}: signature does not verify for seat 2"):
        log.append(L.make_entry(n, log.head_hash, 2, "move", {}, ids[1]))
    with pytest.raises(LogError, match="author seat 3 does not exist at a table of 3"):
        log.append(L.make_entry(n, log.head_hash, 3, "move", {}, ids[0]))
    assert log.next_seq == n  # nothing refused was kept
    log.append(log.make_next(2, "move", {}, ids[2]))
    assert log.next_seq == n + 1


def test_log_must_start_with_table():
    ids = ids_for(1)
    with pytest.raises(LogError, match="entry 0: entry 0, and only entry 0"):
        L.GameLog().append(L.make_entry(0, bytes(32), 0, "move", {}, ids[0]))
    with pytest.raises(LogError, match="sequence number 1 where 0"):
        L.GameLog().append(L.make_entry(1, bytes(32), 0, "move", {}, ids[0]))


def test_kinds_filter():
    log, _ = build_log()
    L.verify_log(log.entries, kinds={"move"})
    with pytest.raises(LogError, match="entry 1: unknown entry kind 'move'"):
        L.verify_log(log.entries, kinds={"shuffle"})


def test_end_entry_and_partial_agreement():
    log, ids = build_log(end=False)
    assert not log.is_finished and log.end is None and log.end_signers == []
    body = log.end_body({"result": "aborted", "blame": 1})
    end = L.assemble(body, [ids[0].sign(body), None, ids[2].sign(body)])
    log.append(end)
    assert log.is_finished and not log.agreed and log.end_signers == [0, 2]
    assert log.end.prev_hash == log[-2].hash  # the end entry attests the head
    with pytest.raises(LogError, match="already ended"):
        log.append(L.make_entry(log.next_seq, log.head_hash, 0, "move", {}, ids[0]))
    full, _ = build_log()
    assert full.agreed and full.end_signers == [0, 1, 2]
    with pytest.raises(LogError, match="empty log"):
        L.GameLog().end_body({})
    with pytest.raises(LogError, match="must be a map"):
        full.end_body([1])


def test_unfinished_log_is_readable_but_can_be_required_finished():
    log, _ = build_log(end=False)
    data = log.to_bytes()
    assert not L.parse_log(data).is_finished
    with pytest.raises(LogError, match="entry 11: the log is unfinished"):
        L.parse_log(data, finished=True)


def test_parallel_verification_reports_the_first_bad_entry():
    log, ids = build_log(moves=2000, end=False)
    entries = list(log.entries)
    bad = 1234
    e = entries[bad]
    entries[bad] = L.Entry.from_wire(msgpack.packb([e.body, ids[(e.author + 1) % 3].sign(e.body)]))
    for workers in (1, 2, 4):
        with pytest.raises(LogError, match=f"entry {bad}: signature does not verify for seat {e.author}"):
            L.verify_log(entries, workers=workers)
        part = L.GameLog()
        with pytest.raises(LogError):
            part.extend(entries, workers=workers)
        assert part.entries == tuple(entries[:bad])
    assert L.verify_log(log.entries, workers=4).entries == log.entries


# ------------------------------------------------------------ files


def test_file_round_trip_is_byte_identical(tmp_path):
    log, _ = build_log()
    path = tmp_path / "game.p2plog"
    L.write_log(path, log)
    data = path.read_bytes()
    assert data == log.to_bytes()
    assert data.startswith(b"P2PCLOG\n\x01")
    again = L.read_log(path, finished=True)
    assert again.to_bytes() == data and again.entries == log.entries and again.cut is None


def test_logfile_appends_durably(tmp_path, monkeypatch):
    log, ids = build_log()
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(L.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    path = tmp_path / "g.log"
    with L.LogFile.create(path) as f:
        assert len(synced) == 2  # the new file, and its directory
        for e in log:
            f.append(e.raw)
            assert path.read_bytes() == f.log.to_bytes()  # on disk before append returns
        assert len(synced) == 2 + len(log)
    assert path.read_bytes() == log.to_bytes()
    with pytest.raises(LogError, match="already exists"):
        L.LogFile.create(path)


def test_logfile_refuses_bad_entries_without_writing(tmp_path):
    log, ids = build_log(end=False)
    path = tmp_path / "g.log"
    n = log.next_seq
    with L.LogFile.create(path, log) as f:
        assert f.log is log  # the file keeps the caller's log up to date
        before = path.read_bytes()
        with pytest.raises(LogError, match="signature does not verify"):
            f.append(L.make_entry(f.log.next_seq, f.log.head_hash, 0, "move", {}, ids[1]))
        assert path.read_bytes() == before
        f.append(f.log.make_next(0, "move", {}, ids[0]))
    assert L.read_log(path).next_seq == n + 1 == log.next_seq


def test_failed_write_is_rolled_back(tmp_path, monkeypatch):
    log, ids = build_log(end=False)
    path = tmp_path / "g.log"
    n, before = log.next_seq, log.to_bytes()
    f = L.LogFile.create(path, log)
    real_write = os.write

    def torn(fd, data):
        real_write(fd, bytes(data[:7]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(L.os, "write", torn)
    with pytest.raises(LogError, match="No space left"):
        f.append(f.log.make_next(0, "move", {}, ids[0]))
    monkeypatch.setattr(L.os, "write", real_write)
    assert path.read_bytes() == before and log.next_seq == n
    f.append(f.log.make_next(0, "move", {}, ids[0]))
    f.close()
    assert L.read_log(path).next_seq == n + 1


def test_crash_mid_append_is_detected_and_recovered(tmp_path):
    log, ids = build_log(end=False)
    good = log.to_bytes()
    extra = log.make_next(2, "move", {"type": "pass"}, ids[2])
    frame = len(extra.raw).to_bytes(4, "big") + extra.raw
    path = tmp_path / "g.log"
    for cut in range(1, len(frame)):
        path.write_bytes(good + frame[:cut])
        with pytest.raises(LogError, match=f"entry {log.next_seq}: truncated"):
            L.read_log(path)
        rec = L.read_log(path, strict=False)
        assert rec.entries == log.entries
        assert rec.cut.index == log.next_seq and rec.cut.offset == len(good) and rec.cut.discarded == cut
    # A zero-filled tail (what some filesystems leave after a crash) is cut too.
    path.write_bytes(good + frame[:4] + bytes(len(extra.raw)))
    with pytest.raises(LogError, match=f"entry {log.next_seq}: not a msgpack entry"):
        L.read_log(path)
    with pytest.raises(LogError):
        L.LogFile.open(path)
    with L.LogFile.open(path, repair=True) as f:
        assert "not a msgpack entry" in str(f.log.cut)
        assert path.read_bytes() == good
        f.append(extra)
    assert L.read_log(path).entries == log.entries + (extra,)


def test_file_header_and_read_errors(tmp_path):
    log, _ = build_log()
    data = log.to_bytes()
    with pytest.raises(LogError, match="bad magic"):
        L.parse_log(b"PK\x03\x04" + data)
    with pytest.raises(LogError, match="bad magic"):
        L.parse_log(b"")
    with pytest.raises(LogError, match="log file format 2"):
        L.parse_log(data[:8] + b"\x02" + data[9:])
    with pytest.raises(LogError, match="cannot read"):
        L.read_log(tmp_path / "missing.log")
    huge = data[:9] + (L.MAX_ENTRY_SIZE + 1).to_bytes(4, "big") + b"x" * 10
    with pytest.raises(LogError, match="entry 0: length .* exceeds the maximum"):
        L.parse_log(huge)
    with pytest.raises(LogError, match="entry 12: the log already ended"):
        L.parse_log(data + data[9:])
    with pytest.raises(LogError, match="entry 12: truncated: 2 stray bytes"):
        L.parse_log(data + b"\x00\x00")
    assert L.parse_log(L.HEADER).next_seq == 0  # a file just created


# ------------------------------------------------------------ equivocation


def test_equivocation_proof():
    log, ids = build_log(end=False)
    a = log.make_next(1, "move", {"type": "play", "cards": ["KH"]}, ids[1])
    b = log.make_next(1, "move", {"type": "play", "cards": ["QS"]}, ids[1])
    key = ids[1].public_bytes
    proof = L.equivocation(a, b, key)
    assert proof is not None and proof.seat == 1 and proof.seq == log.next_seq
    again = L.EquivocationProof.from_wire(proof.to_wire(), key)
    assert again.first == a and again.second == b
    assert L.equivocation(a, a, key) is None  # same statement twice
    assert L.equivocation(a, b, ids[0].public_bytes) is None  # not this seat's signatures
    c = log.make_next(2, "move", {}, ids[2])
    assert L.equivocation(a, c, key) is None  # different authors
    forged = L.Entry.from_wire(msgpack.packb([b.body, ids[0].sign(b.body)]))
    assert L.equivocation(a, forged, key) is None
    with pytest.raises(LogError, match="signature does not verify for seat 1"):
        L.EquivocationProof(a, forged).verify(key)
    with pytest.raises(LogError, match="not msgpack"):
        L.EquivocationProof.from_wire(b"\xc1", key)
    with pytest.raises(LogError, match=r"\[entry, entry\]"):
        L.EquivocationProof.from_wire(msgpack.packb([1, 2]), key)


# ------------------------------------------------------------ the test vector

VECTOR = os.path.join(os.path.dirname(__file__), "..", "protocol", "vectors", "log_small.json")


def build_vector_log():
    """The 3-entry log of protocol/vectors/log_small.json, from its inputs."""
    ids = [Identity.from_seed(bytes([1]) * 32), Identity.from_seed(bytes([2]) * 32)]
    players = [L.Player("Ala", ids[0].public_bytes, bytes([0xA0]) * 32),
               L.Player("Bolek", ids[1].public_bytes, bytes([0xB0]) * 32)]
    body = L.table_body("bura", {"target": 7}, players, bytes.fromhex("00112233445566778899aabbccddeeff"))
    log = L.GameLog()
    log.append(L.assemble(body, [x.sign(body) for x in ids]))
    log.append(log.make_next(0, "move", {"type": "lead", "cards": ["AS"]}, ids[0]))
    end = log.end_body({"result": "finished"})
    log.append(L.assemble(end, [x.sign(end) for x in ids]))
    return log, ids


def vector_json(log, ids):
    def sig_hex(e):
        return [s.hex() for s in e.signature] if e.multisig else e.signature.hex()

    return {
        "about": f"p2pcards log format 1, protocol {L.PROTOCOL_VERSION}: a 3-entry finished log (see protocol/log.md)",
        "private_seeds": [bytes([i + 1]).hex() * 32 for i in range(len(ids))],
        "public_keys": [x.public_bytes.hex() for x in ids],
        "fingerprints": [x.fingerprint for x in ids],
        "entries": [{"seq": e.seq, "author": e.author, "kind": e.kind, "prev_hash": e.prev_hash.hex(),
                     "body": e.body.hex(), "signature": sig_hex(e), "raw": e.raw.hex(), "hash": e.hash.hex()}
                    for e in log],
        "head_hash": log.head_hash.hex(),
        "file": log.to_bytes().hex(),
    }


def test_small_vector_byte_for_byte():
    import json
    with open(VECTOR) as f:
        vec = json.load(f)
    log, ids = build_vector_log()
    assert vector_json(log, ids) == vec
    # And independently of the code that made it: hashes, signatures, framing.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    prev = bytes(32)
    keys = [Ed25519PublicKey.from_public_bytes(bytes.fromhex(k)) for k in vec["public_keys"]]
    frames = b""
    for ent in vec["entries"]:
        body, raw = bytes.fromhex(ent["body"]), bytes.fromhex(ent["raw"])
        assert msgpack.unpackb(body)[1] == prev
        assert bytes.fromhex(ent["hash"]) == hashlib.sha256(b"p2pcards/log/v1/entry\x00" + body).digest()
        sigs = ent["signature"] if isinstance(ent["signature"], list) else None
        if sigs:
            for k, s in zip(keys, sigs):
                k.verify(bytes.fromhex(s), body)
        else:
            keys[ent["author"]].verify(bytes.fromhex(ent["signature"]), body)
        assert msgpack.unpackb(raw)[0] == body
        prev = bytes.fromhex(ent["hash"])
        frames += len(raw).to_bytes(4, "big") + raw
    assert bytes.fromhex(vec["file"]) == b"P2PCLOG\n\x01" + frames
    read = L.parse_log(bytes.fromhex(vec["file"]), finished=True)
    assert read.agreed and read.to_bytes().hex() == vec["file"]


if __name__ == "__main__":  # regenerate the vector: PYTHONPATH=. python -m tests.test_log
    import json
    with open(VECTOR, "w") as f:
        json.dump(vector_json(*build_vector_log()), f, indent=1)
        f.write("\n")


def test_trust_end_checks_only_the_attestation_of_an_agreed_log():
    log, ids = build_log(moves=20)
    entries = list(log.entries)
    e = entries[5]
    swapped = L.Entry.from_wire(msgpack.packb([e.body, ids[(e.author + 1) % 3].sign(e.body)]))
    entries[5] = swapped
    # Same bodies, so the same chain and a valid attestation by every seat:
    assert L.verify_log(entries, trust_end=True).agreed
    with pytest.raises(LogError, match="entry 5: signature"):
        L.verify_log(entries)
    # A body change breaks the chain whatever the mode.
    forged = L.make_entry(5, e.prev_hash, e.author, e.kind, {"type": "forged"}, ids[e.author])
    entries[5] = forged
    with pytest.raises(LogError, match="entry 6: prev_hash"):
        L.verify_log(entries, trust_end=True)
    # Without everyone's end signature, everything is checked.
    partial, _ = build_log(moves=20, end=False)
    body = partial.end_body({})
    ents = list(partial.entries)
    ents[5] = swapped
    ents.append(L.assemble(body, [ids[0].sign(body), ids[1].sign(body), None]))
    with pytest.raises(LogError, match="entry 5: signature"):
        L.verify_log(ents, trust_end=True)
    # A bad end signature: reported as such, with everything before it checked.
    ents[5] = log[5]
    ents[-1] = L.assemble(body, [ids[0].sign(body), ids[1].sign(body), ids[0].sign(body)])
    with pytest.raises(LogError, match="entry 21: signature does not verify for seat 2"):
        L.verify_log(ents, trust_end=True)


def test_conflict_with_a_stored_entry():
    log, ids = build_log(end=False)
    mine = log[4]
    other = L.make_entry(4, mine.prev_hash, mine.author, "move", {"type": "other"}, ids[mine.author])
    proof = log.conflict(other)
    assert proof is not None and proof.seat == mine.author and proof.first == mine and proof.second == other
    assert log.conflict(mine) is None  # the same entry relayed again
    assert log.conflict(log.make_next(0, "move", {}, ids[0])) is None  # not held yet
    by_other_seat = L.make_entry(4, mine.prev_hash, (mine.author + 1) % 3, "move", {}, ids[(mine.author + 1) % 3])
    assert log.conflict(by_other_seat) is None
    assert "unfinished" in repr(log) and "seq=4" in repr(mine)


def test_check_then_append_verifies_once(monkeypatch):
    log, ids = build_log(end=False)
    calls = []
    real = L._verify_one
    monkeypatch.setattr(L, "_verify_one", lambda *a: (calls.append(a[2]), real(*a)))
    e = log.make_next(2, "move", {}, ids[2])
    log.check(e)
    log.append(e)
    assert calls == [11]
    bad = L.make_entry(log.next_seq, log.head_hash, 0, "move", {}, ids[1])
    for _ in range(2):  # a refused entry is refused every time
        with pytest.raises(LogError, match="signature"):
            log.check(bad)
    with pytest.raises(LogError, match="signature"):
        log.append(bad)


@pytest.mark.parametrize("key_hex, why", [
    ("01" + "00" * 31, "weak"),  # the identity point
    ("00" * 32, "weak"),  # order 4
    ("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", "weak"),  # order 8
    ("ec" + "ff" * 30 + "7f", "weak"),  # order 2
    ("ed" + "ff" * 30 + "7f", "not a point"),  # y = p: not canonical
    ("02" + "00" * 31, "not a point"),  # y = 2 gives no x
    ("0102", "32 bytes"),
])
def test_weak_or_invalid_keys_are_refused(key_hex, why):
    key = bytes.fromhex(key_hex)
    assert why in L.key_problem(key)
    with pytest.raises(LogError, match=f"player 0's key: .*{why}"):
        L.table_body("bura", {}, [L.Player("w", key, bytes(32))], b"12345678")


def test_weak_key_would_let_anyone_sign():
    # Why they are refused: the identity key "signs" everything with R = identity, S = 0.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    weak = Ed25519PublicKey.from_public_bytes(bytes.fromhex("01" + "00" * 31))
    weak.verify(bytes.fromhex("01" + "00" * 31) + bytes(32), b"any message at all")
    assert all(L.key_problem(x.public_bytes) is None for x in ids_for(50))


def test_table_payload_with_wrongly_typed_key():
    payload = {"protocol": PROTOCOL_VERSION, "game": "bura", "session": b"12345678", "options": {},
               "players": [{"name": "a", "key": [1, 2], "nonce": bytes(32)}]}
    with pytest.raises(LogError, match="player 0's key: a public key is 32 bytes"):
        L.TableInfo.from_payload(payload)


def test_a_signature_is_checked_once_ahead_of_its_place_and_after_a_cut(monkeypatch):
    """An entry checked ahead of its place, or cut off and taken back, is not
    verified again; a forged one is still refused."""
    log, keys = build_log(moves=0, end=False)
    first = log.make_next(0, "move", {"n": 1}, keys[0])
    ahead = L.make_entry(2, first.hash, 1, "move", {"n": 2}, keys[1])
    forged = L.Entry.from_wire(msgpack.packb([ahead.body, bytes(64)], use_bin_type=True))
    log.verify(ahead)
    with pytest.raises(L.LogError):
        log.verify(forged)
    calls = []
    real = L._verify_one
    monkeypatch.setattr(L, "_verify_one", lambda *a: (calls.append(a[0]), real(*a))[1])
    log.append(first)
    log.append(ahead)
    assert calls == [first]
    log.truncate(1)
    log.append(first)
    log.append(ahead)
    assert calls == [first]
    log.truncate(2)
    with pytest.raises(L.LogError):
        log.append(forged)


def test_a_file_follows_a_longer_log_without_checking_again(tmp_path, monkeypatch):
    log, keys = build_log(moves=0, end=False)
    f = L.LogFile.create(tmp_path / "g.p2plog", log)
    first = log.make_next(0, "move", {"n": 1}, keys[0])
    log.append(first)
    monkeypatch.setattr(L, "_verify_one", lambda *a: pytest.fail("verified twice"))
    f.append(first)
    other = L.make_entry(1, log[0].hash, 1, "move", {"n": 9}, keys[1])
    with pytest.raises(L.LogError):
        f.append(other)  # not the entry the log holds there
    f.close()
    monkeypatch.undo()
    assert [e.raw for e in L.read_log(tmp_path / "g.p2plog")] == [e.raw for e in log]
