"""Pipelined dealing: a seat computes its next shuffle or re-key while it
checks the entry that hands it the deck, and publishes it only once that
entry is accepted and the step is due on exactly that input."""

import pytest

from p2pcards.protocol.machine import REKEY, SHUFFLE, Violation
from p2pcards.protocol.driver import SeatDriver
from tests.helpers import make_genesis


def _table(players=3):
    genesis, signers = make_genesis("bura", players, {"rounds": 1})
    return [SeatDriver(genesis, i, signers[i]) for i in range(players)], signers


def _deliver(drivers, entry):
    for d in drivers:
        if d.seat != entry.author:
            d.receive(entry)


def test_the_step_computed_ahead_is_the_one_computed_in_order():
    drivers, _ = _table()
    e0 = drivers[0].write()
    _deliver(drivers, e0)
    assert drivers[1]._ahead is not None and drivers[2]._ahead is None
    want = drivers[1].due()
    expected = drivers[1].me.payload(drivers[1].machine, want)
    e1 = drivers[1].write()
    assert e1.payload == expected and drivers[1]._ahead is None
    _deliver(drivers, e1)
    for _ in range(4):  # the last shuffle hands seat 0 its re-key, and so on
        writer = next(d for d in drivers if d.due() is not None)
        kind = writer.due().kind
        assert kind in (SHUFFLE, REKEY)
        _deliver(drivers, writer.write())
    assert all(len(d.machine.deal.decks) == 6 for d in drivers)


def test_a_refused_entry_leaves_nothing_computed_ahead():
    drivers, signers = _table()
    good = drivers[0].me.payload(drivers[0].machine, drivers[0].due())
    deck = bytearray(good["shuffle"]["deck"])
    deck[33:66] = deck[0:33]
    good["shuffle"]["deck"] = bytes(deck)
    bad = drivers[0].log.make_next(0, SHUFFLE, good, signers[0])
    with pytest.raises(Violation):
        drivers[1].receive(bad)
    assert drivers[1]._ahead is None and drivers[1].machine.deal.decks == []


def test_a_step_computed_for_another_input_is_not_used():
    from concurrent.futures import Future

    drivers, _ = _table()
    _deliver(drivers, drivers[0].write())
    key, _future = drivers[1]._ahead
    stale = Future()
    stale.set_result({"commit": b"x", "shuffle": "computed for another place"})
    drivers[1]._ahead = ((key[0], key[1], b"another context", key[3]), stale)
    want = drivers[1].due()
    assert drivers[1]._take_ahead(want) is None  # not for this input: computed again
    drivers[1]._ahead = (key, stale)
    assert drivers[1]._take_ahead(want)["shuffle"] == "computed for another place"  # the key decides
