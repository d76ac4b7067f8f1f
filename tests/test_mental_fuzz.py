"""Untrusted input of any shape gets a clear MentalError (a ValueError), never
a traceback from deep inside."""

import msgpack
from hypothesis import given, settings, strategies as st

from p2pcards.mental import (
    DealSecrets, MentalError, SeatDeal, encode_deck, parse_card_keys, parse_commit,
    parse_rekey, parse_reveal, parse_shuffle, shuffle_step, verify_shuffle,
)

leaves = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                   st.binary(max_size=70), st.text(max_size=10), st.floats(allow_nan=False))
values = st.recursive(leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=5),
    st.dictionaries(st.sampled_from(["deck", "commits", "open", "keys", "seed", "commit", "x"]),
                    kids, max_size=4)), max_leaves=20)

DECK = list(encode_deck("bura").values)
GOOD = shuffle_step(DealSecrets(b"\x07" * 32), DECK, b"ctx", rounds=2)


def rejects_cleanly(fn, *args) -> None:
    try:
        fn(*args)
    except MentalError as e:
        assert str(e)
    assert issubclass(MentalError, ValueError)


@settings(max_examples=300, deadline=None)
@given(values)
def test_parsers_never_crash(obj):
    rejects_cleanly(parse_commit, obj)
    rejects_cleanly(parse_reveal, obj)
    rejects_cleanly(parse_rekey, obj, 36)
    rejects_cleanly(parse_card_keys, obj, 36)
    rejects_cleanly(parse_shuffle, obj, 36, 2)
    rejects_cleanly(verify_shuffle, DECK, obj, b"ctx", 2)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["deck", "commits", "open"]), values)
def test_shuffle_with_one_field_replaced(field, junk):
    rejects_cleanly(verify_shuffle, DECK, dict(GOOD, **{field: junk}), b"ctx", 2)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_through_msgpack(blob):
    try:
        obj = msgpack.unpackb(blob, raw=False)
    except Exception:
        return
    seat = SeatDeal("bura", 2, 0, rounds=2)
    rejects_cleanly(seat.receive_commit, 1, obj)
    rejects_cleanly(parse_shuffle, obj, 36, 2)
