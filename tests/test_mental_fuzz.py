"""Untrusted input of any shape gets a clear MentalError (a ValueError), never
a traceback from deep inside."""

import msgpack
from hypothesis import given, settings, strategies as st

from p2pcards.mental import (
    DealSecrets, MentalError, encode_deck, parse_card_keys, parse_commit, parse_rekey,
    parse_reveal, parse_shuffle, rekey_step, shuffle_step, verify_rekey, verify_shuffle,
)

leaves = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                   st.binary(max_size=70), st.text(max_size=10), st.floats(allow_nan=False))
FIELDS = ["deck", "key", "commits", "chain", "challenge", "responses", "chain_responses",
          "perm_responses", "keys", "seed", "commit", "x"]
values = st.recursive(leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=5),
    st.dictionaries(st.sampled_from(FIELDS), kids, max_size=4)), max_leaves=20)

DECK = list(encode_deck("bura").values)
SEC = DealSecrets(b"\x07" * 32)
GOOD = shuffle_step(SEC, DECK, b"ctx")
REKEY = rekey_step(SEC, DECK, b"ctx")


def rejects_cleanly(fn, *args) -> None:
    try:
        fn(*args)
    except MentalError as e:
        assert str(e)


@settings(max_examples=300, deadline=None)
@given(values)
def test_parsers_never_crash(obj):
    rejects_cleanly(parse_commit, obj)
    rejects_cleanly(parse_reveal, obj)
    rejects_cleanly(parse_rekey, obj, 36)
    rejects_cleanly(parse_card_keys, obj, 36)
    rejects_cleanly(parse_shuffle, obj, 36)
    rejects_cleanly(verify_shuffle, DECK, obj, b"ctx")
    rejects_cleanly(verify_rekey, DECK, SEC.deck_key_point, obj, b"ctx")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(GOOD)), values)
def test_shuffle_with_one_field_replaced(field, junk):
    rejects_cleanly(verify_shuffle, DECK, dict(GOOD, **{field: junk}), b"ctx")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(REKEY)), values)
def test_rekey_with_one_field_replaced(field, junk):
    rejects_cleanly(verify_rekey, DECK, SEC.deck_key_point, dict(REKEY, **{field: junk}), b"ctx")


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_through_msgpack(blob):
    try:
        obj = msgpack.unpackb(blob, raw=False)
    except Exception:
        return
    rejects_cleanly(parse_commit, obj)
    rejects_cleanly(parse_shuffle, obj, 36)
