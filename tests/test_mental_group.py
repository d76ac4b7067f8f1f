"""The commutative cipher, the card encoding and the strict value parsing."""

import pytest
from hypothesis import given, settings, strategies as st
from cryptography.hazmat.primitives.asymmetric import ec

from p2pcards.cards import deck_for
from p2pcards.mental import (
    N, P, BadMessage, MentalError, NoCard, encode_deck, encrypt, encrypt_all, inverse,
    shuffle_values, split_values, strip,
)
from p2pcards.mental.group import (
    CURVE, h, invert_permutation, load, permutation_from, scalar_from_bytes, scalar_to_bytes,
)

scalars = st.integers(min_value=1, max_value=N - 1)
X = encode_deck("bura").values[0]
Y = encode_deck("bura").values[1]


@settings(max_examples=25, deadline=None)
@given(scalars, scalars)
def test_encryption_commutes(a, b):
    assert encrypt(a, encrypt(b, X)) == encrypt(b, encrypt(a, X)) == encrypt(a * b % N, X)


@settings(max_examples=25, deadline=None)
@given(scalars)
def test_inverse_undoes(k):
    assert encrypt(inverse(k), encrypt(k, X)) == X
    assert strip(encrypt(k, X), [k]) == X


@settings(max_examples=15, deadline=None)
@given(scalars, scalars)
def test_x_only_sign_collapse_is_consistent(k, m):
    # -k*P has the x of k*P: the key n-k encrypts like k, and either one's
    # inverse decrypts what the other encrypted.
    assert encrypt(N - k, X) == encrypt(k, X)
    assert encrypt(inverse(N - k), encrypt(k, X)) == X
    # Chains through points of either sign stay consistent.
    assert encrypt(N - m, encrypt(k, X)) == encrypt(k * m % N, X)
    assert strip(encrypt(m, encrypt(N - k, X)), [k, N - m]) == X


def test_point_with_odd_y_multiplies_to_same_x():
    k = 0x1234567
    key = ec.derive_private_key(k, CURVE)
    even = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, b"\x02" + X)
    odd = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, b"\x03" + X)
    assert key.exchange(ec.ECDH(), even) == key.exchange(ec.ECDH(), odd) == encrypt(k, X)


def test_strip_many_keys_at_once():
    keys = [3, 5, N - 7, 2**200 + 1]
    x = X
    for k in keys:
        x = encrypt(k, x)
    assert strip(x, keys) == X
    assert strip(x, keys[:-1]) != X


def test_shuffle_values_convention():
    xs = list(encode_deck("bura").values[:5])
    perm = [4, 0, 3, 1, 2]
    out = shuffle_values(7, perm, xs)
    assert out == [encrypt(7, xs[p]) for p in perm]
    assert encrypt_all(7, xs) == [encrypt(7, x) for x in xs]


@pytest.mark.parametrize("game", ["kanasta", "kanaszta", "warkocz", "bura"])
def test_encoding_distinct_and_decodes(game):
    enc = encode_deck(game)
    codes = deck_for(game)
    assert list(enc.codes) == codes and len(set(enc.values)) == len(codes)
    for i, x in enumerate(enc.values):
        assert len(x) == 32 and int.from_bytes(x, "big") < P
        load(x)
        assert enc.decode(x) == (codes[i], i)


def test_twins_encode_differently_and_games_differ():
    enc = encode_deck("kanasta")
    first, second = [i for i, c in enumerate(enc.codes) if c == "KH"]
    assert enc.values[first] != enc.values[second]
    assert enc.decode(enc.values[second]) == ("KH", second)
    jokers = [x for c, x in zip(enc.codes, enc.values) if c == "JK"]
    assert len(set(jokers)) == 4
    # Same cards, other game id: other encodings, so a deck cannot cross games.
    assert not set(enc.values) & set(encode_deck("kanaszta").values)


def test_encoding_is_deterministic_and_cached():
    assert encode_deck("bura") is encode_deck("bura")
    from p2pcards.mental.encoding import encode_card
    assert encode_card("bura", "6C", 0) == encode_deck("bura").values[0]


def test_decode_no_card():
    enc = encode_deck("bura")
    with pytest.raises(NoCard, match="no card"):
        enc.decode(encrypt(5, enc.values[0]))
    assert enc.lookup(b"\x00" * 32) is None
    with pytest.raises(ValueError, match="unknown game"):
        encode_deck("poker")


def _not_on_curve() -> bytes:
    i = 0
    while True:
        x = h("test-off-curve", bytes([i]))
        if int.from_bytes(x, "big") < P:
            try:
                ec.EllipticCurvePublicKey.from_encoded_point(CURVE, b"\x02" + x)
            except ValueError:
                return x
        i += 1


OFF = _not_on_curve()


@pytest.mark.parametrize("bad, match", [
    (b"\x01" * 31, "32 bytes"),
    (b"\x01" * 33, "32 bytes"),
    ("ab" * 16, "32 bytes, got str"),
    (None, "got NoneType"),
    (P.to_bytes(32, "big"), "below the field prime"),
    (b"\xff" * 32, "below the field prime"),
    (OFF, "not the x-coordinate of a point"),
])
def test_load_rejects(bad, match):
    with pytest.raises(BadMessage, match=match):
        load(bad)
    with pytest.raises(BadMessage):
        encrypt(5, bad)


def test_keys_must_be_scalars():
    for bad in (0, N, -1, "5", 1.5):
        with pytest.raises(MentalError, match=r"\[1, n-1\]"):
            encrypt(bad, X)
    with pytest.raises(MentalError):
        strip(X, [3, 0])


@pytest.mark.parametrize("bad, match", [
    (b"\x00" * 32, r"\[1, n-1\]"),
    (N.to_bytes(32, "big"), r"\[1, n-1\]"),
    (b"\x01" * 31, "32 bytes"),
    (5, "got int"),
])
def test_scalar_from_bytes_rejects(bad, match):
    with pytest.raises(BadMessage, match=match):
        scalar_from_bytes(bad)


def test_scalar_roundtrip():
    for k in (1, 2, N - 1, 2**255):
        assert scalar_from_bytes(scalar_to_bytes(k)) == k


def test_split_values():
    xs = list(encode_deck("bura").values[:4])
    assert split_values(b"".join(xs), 4) == xs
    with pytest.raises(BadMessage, match="4 values"):
        split_values(b"".join(xs[:3]), 4)
    with pytest.raises(BadMessage, match="same value at positions 0 and 2"):
        split_values(xs[0] + xs[1] + xs[0] + xs[3], 4)
    with pytest.raises(BadMessage, match="value 2 is not the x-coordinate"):
        split_values(xs[0] + xs[1] + OFF + xs[3], 4)
    # Without the curve check (decks a seat never multiplies) the rest still holds.
    assert split_values(xs[0] + xs[1] + OFF + xs[3], 4, on_curve=False)[2] == OFF
    with pytest.raises(BadMessage, match="must be bytes"):
        split_values(xs, 4)


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=120))
def test_permutations(seed, size):
    perm = permutation_from(seed, "x", size)
    assert sorted(perm) == list(range(size))
    assert permutation_from(seed, "x", size) == perm
    inv = invert_permutation(perm)
    assert [perm[i] for i in inv] == list(range(size))


def test_permutation_depends_on_seed_and_label():
    a = permutation_from(b"\x01" * 32, "deck-perm", 52)
    assert a != permutation_from(b"\x02" * 32, "deck-perm", 52)
    assert a != permutation_from(b"\x01" * 32, "round-perm", 52)
