"""Why the audit recomputes every layer of a deal, not only the final deck.

Checking the final deck alone (one multiplication a card: is F[j] the card
the composed permutations put there, under every seat's keys?) and
recomputing the layers only when it fails was tried and rejected for issue
26: two faults leave the final deck exactly as an honest deal makes it, and
the whole check blames both (and the audit's workers, ``layers_match``,
refuse both, so that the audit walks again and finds them):

* two colluding seats whose shuffles cancel: the first writes its output in
  an order its seed does not give, the second "undoes" it, so the final deck
  is the honest one while each layer is wrong;
* a re-key whose card-key commitments are not its seed's (two swapped): the
  deck is right, but a commitment is what a published key is checked against
  (a seat could later publish a key the others cannot check).
"""

import pytest

from p2pcards import mental
from p2pcards.mental.group import POINT_LEN
from p2pcards.mental.keys import DealSecrets

GAME, PLAYERS = "bura", 3


def _context(step: str, seat: int) -> bytes:
    return f"test-layers/{step}/{seat}".encode()


def _values(blob: bytes) -> list[bytes]:
    return [blob[i:i + POINT_LEN] for i in range(0, len(blob), POINT_LEN)]


def _deal(tamper_shuffles: bool = False, tamper_commits: bool = False):
    """A DealRecord of a whole deal with every seed revealed, honest but for
    the faults asked for; and the final deck of the honest deal."""
    secrets = [DealSecrets(bytes([seat + 1]) * 32) for seat in range(PLAYERS)]
    shuffles, honest = [], list(mental.encode_deck(GAME).values)
    for seat, sec in enumerate(secrets):
        # Every message is the honest shuffle of the honest deal's input...
        msg = mental.shuffle_step(sec, honest, _context("shuffle", seat))
        honest = _values(msg["deck"])
        if tamper_shuffles and seat == 0:
            # ...but seat 0 logs its output with the first two positions swapped:
            # seat 1's honest-looking layer then "undoes" it, from the log's point
            # of view, and every later deck is the honest one.
            msg = dict(msg, deck=b"".join([honest[1], honest[0], *honest[2:]]))
        shuffles.append((_context("shuffle", seat), msg))
    logged = honest
    rekeys = []
    for seat, sec in enumerate(secrets):
        msg = mental.rekey_step(sec, logged, _context("rekey", seat))
        if tamper_commits and seat == 2:
            c = msg["commits"]
            msg = dict(msg, commits=c[POINT_LEN:2 * POINT_LEN] + c[:POINT_LEN] + c[2 * POINT_LEN:])
        rekeys.append((_context("rekey", seat), msg))
        logged = _values(msg["deck"])
    record = mental.DealRecord(
        game_id=GAME, players=PLAYERS,
        commits=[mental.commit_step(sec) for sec in secrets],
        shuffles=shuffles, rekeys=rekeys, card_keys=[],
        reveals=[mental.reveal_step(sec) for sec in secrets])
    return record, logged


def test_an_honest_deal_passes_both_ways():
    record, _ = _deal()
    audit = mental.check_deal(record)
    assert audit.ok and all(card is not None for card in audit.cards)
    expected = mental.expect_deal(record)
    assert expected is not None and mental.layers_match(expected[1])


def test_colluding_shuffles_that_cancel_are_both_blamed():
    record, final = _deal(tamper_shuffles=True)
    _, honest_final = _deal()
    assert final == honest_final  # the final deck is the honest one: checking it alone sees nothing
    audit = mental.check_deal(record)
    assert {(f.seat, f.kind) for f in audit.findings} == {(0, "bad-shuffle"), (1, "bad-shuffle")}
    expected = mental.expect_deal(record)
    assert expected is None or not mental.layers_match(expected[1])
    # What the workers are given when the walk takes the layers to be right.
    layers: list = []
    mental.check_deal(record, deferred=layers)
    assert not mental.layers_match(layers)


def test_wrong_key_commitments_with_a_right_deck_are_blamed():
    record, final = _deal(tamper_commits=True)
    _, honest_final = _deal()
    assert final == honest_final
    audit = mental.check_deal(record)
    assert [(f.seat, f.kind) for f in audit.findings] == [(2, "bad-rekey")]
    assert "0, 1" in str(audit.findings[0].detail)
    layers: list = []
    mental.check_deal(record, deferred=layers)
    assert not mental.layers_match(layers)


def _forged_point(field: str, kind: str, which: int, bad: bytes) -> bytes:
    """The bura3 match of the fuzzers with one encoding of a dealing message
    (``kind`` entry number ``which``'s ``field``) made no point, and every
    entry from there on signed and chained again (not proved again: the
    audit stops at the forged entry)."""
    import msgpack

    from fuzz import kit
    from p2pcards.protocol.log import END, HEADER, entry_hash

    m = kit.match("bura3")
    entries = [kit.fields(e) for e in m.entries]
    k = [i for i, e in enumerate(m.entries) if e.kind == kind][which]
    message = entries[k][4][kind]
    message[field] = message[field][:33 * 5] + bad + message[field][33 * 6:]
    raws, prev = [e.raw for e in m.entries[:k]], m.entries[k - 1].hash
    for f in entries[k:]:
        f[1] = prev
        body = msgpack.packb(f, use_bin_type=True)
        sigs = [key.sign(body) for key in m.signers] if f[3] == END else m.signers[f[2]].sign(body)
        raws.append(msgpack.packb([body, sigs], use_bin_type=True))
        prev = entry_hash(body)
    return HEADER + b"".join(len(r).to_bytes(4, "big") + r for r in raws)


@pytest.mark.parametrize("kind, which, field", [
    ("shuffle", 0, "commits"), ("shuffle", 1, "chain"), ("shuffle", 2, "deck"),
    ("rekey", 0, "commits"), ("rekey", 1, "deck"), ("rekey", 2, "deck"),
])
@pytest.mark.parametrize("bad", [b"\x04" + bytes(32), b"\x02" + b"\xff" * 32])
def test_a_point_the_first_pass_did_not_parse(tmp_path, kind, which, field, bad):
    """The audit's first pass leaves the encodings it does not use as points
    (every deck but the final one, a shuffle proof's commitments) to the
    deals' workers; one that is no point makes it walk again in place: the
    verdict is the one of the audit without workers, which parses them all."""
    from p2pcards.audit import VIOLATIONS, audit_file

    data = _forged_point(field, kind, which, bad)
    path = tmp_path / "forged.p2plog"
    path.write_bytes(data)
    alone, parallel = audit_file(path, workers=0), audit_file(path, workers=1)
    assert parallel.as_json() == alone.as_json()
    assert alone.exit_code == VIOLATIONS, alone.as_json()
    assert {v["seat"] for v in alone.violations} == {which}, alone.violations
