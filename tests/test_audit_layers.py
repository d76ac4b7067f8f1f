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
