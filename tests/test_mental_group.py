"""The group (secp256k1 through coincurve), the cipher, the card encoding
and the strict parsing of points and scalars."""

import pytest
from coincurve import PublicKey
from hypothesis import assume, given, settings, strategies as st

from p2pcards.cards import deck_for
from p2pcards.mental import (
    N, P, BadMessage, MentalError, NoCard, encode_deck, encrypt, encrypt_all, inverse,
    shuffle_values, split_points, strip,
)
from p2pcards.mental.group import (
    base_mul, generators, h, hash_to_point, invert_permutation, load, permutation_from,
    scalar_from_bytes, scalar_to_bytes, split_scalars,
)

scalars = st.integers(min_value=1, max_value=N - 1)
X = encode_deck("bura").values[0]
Y = encode_deck("bura").values[1]
G = PublicKey.from_secret(scalar_to_bytes(1)).format()


@settings(max_examples=25, deadline=None)
@given(scalars, scalars)
def test_encryption_commutes(a, b):
    assert encrypt(a, encrypt(b, X)) == encrypt(b, encrypt(a, X)) == encrypt(a * b % N, X)


@settings(max_examples=25, deadline=None)
@given(scalars)
def test_inverse_undoes(k):
    assert encrypt(inverse(k), encrypt(k, X)) == X
    assert strip(encrypt(k, X), [k]) == X


def test_the_sign_is_kept():
    # Full points, not x-only: n-k is another cipher than k (it negates).
    k = 0x1234567
    assert encrypt(N - k, X) != encrypt(k, X)
    assert encrypt(N - k, X)[1:] == encrypt(k, X)[1:]


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
        assert len(x) == 33 and x[0] == 2 and int.from_bytes(x[1:], "big") < P
        load(x)
        assert enc.decode(x) == (codes[i], i)


def test_twins_encode_differently_and_games_differ():
    enc = encode_deck("kanasta")
    first, second = [i for i, c in enumerate(enc.codes) if c == "KH"]
    assert enc.values[first] != enc.values[second]
    assert enc.decode(enc.values[second]) == ("KH", second)
    jokers = [x for c, x in zip(enc.codes, enc.values) if c == "JK"]
    assert len(set(jokers)) == 4
    assert not set(enc.values) & set(encode_deck("kanaszta").values)


def test_encoding_is_try_and_increment_with_its_tag():
    from p2pcards.mental.encoding import encode_card, encode_card_counter
    assert encode_deck("bura") is encode_deck("bura")
    x, counter = encode_card_counter("bura", "6C", 0)
    assert x == encode_card("bura", "6C", 0) == encode_deck("bura").values[0]
    assert x == b"\x02" + h("card", b"bura", b"6C", (0).to_bytes(4, "big"), counter.to_bytes(4, "big"))
    for c in range(counter):  # every earlier counter gave no point
        cand = b"\x02" + h("card", b"bura", b"6C", (0).to_bytes(4, "big"), c.to_bytes(4, "big"))
        with pytest.raises(BadMessage):
            load(cand)


def test_generators_are_hashed_and_distinct_from_cards():
    gens = generators(108)
    assert len(gens) == 109 and len({g.format() for g in gens}) == 109
    assert gens[3].format() == hash_to_point("generator", (3).to_bytes(4, "big"))[0]
    assert not {g.format() for g in gens} & set(encode_deck("kanasta").values)
    assert G not in {g.format() for g in gens}


def test_decode_no_card():
    enc = encode_deck("bura")
    with pytest.raises(NoCard, match="no card"):
        enc.decode(encrypt(5, enc.values[0]))
    assert enc.lookup(b"\x00" * 33) is None
    with pytest.raises(ValueError, match="unknown game"):
        encode_deck("poker")


def _off_curve() -> bytes:
    i = 0
    while True:
        x = h("test-off-curve", bytes([i]))
        try:
            PublicKey(b"\x02" + x)
        except ValueError:
            return b"\x02" + x
        i += 1


UNCOMPRESSED = PublicKey(X).format(compressed=False)


@pytest.mark.parametrize("bad, match", [
    (X[:32], "33 bytes"),
    (X + b"\0", "33 bytes"),
    (X.hex(), "33 bytes, got str"),
    (None, "got NoneType"),
    (b"\x00" * 33, "compressed encoding"),                       # the identity, as far as bytes go
    (b"\x04" + X[1:], "compressed encoding"),                    # not a compressed prefix
    (b"\x06" + X[1:], "compressed encoding"),                    # hybrid prefix
    (b"\x02" + P.to_bytes(32, "big"), "compressed encoding"),    # x = p
    (b"\x03" + (P + 1).to_bytes(32, "big"), "compressed encoding"),  # x = p + 1 (≡ 1, a point mod p)
    (b"\x02" + b"\xff" * 32, "compressed encoding"),             # x >= p
    (_off_curve(), "compressed encoding"),
    (UNCOMPRESSED, "33 bytes"),
])
def test_load_rejects(bad, match):
    with pytest.raises(BadMessage, match=match):
        load(bad)
    with pytest.raises(BadMessage):
        encrypt(5, bad)


def test_both_signs_of_a_point_are_distinct_points():
    neg = b"\x03" + X[1:]
    assert load(neg).format() == neg and neg != X


def test_keys_must_be_scalars():
    for bad in (0, N, -1, "5", 1.5, True):
        with pytest.raises(MentalError, match=r"\[1, n-1\]"):
            encrypt(bad, X)
    with pytest.raises(MentalError):
        strip(X, [3, 0])


@pytest.mark.parametrize("bad, match", [
    (b"\x00" * 32, r"\[1, n-1\]"),
    (N.to_bytes(32, "big"), r"\[1, n-1\]"),
    ((N + 5).to_bytes(32, "big"), r"\[1, n-1\]"),
    (b"\x01" * 31, "32 bytes"),
    (5, "got int"),
])
def test_scalar_from_bytes_rejects(bad, match):
    with pytest.raises(BadMessage, match=match):
        scalar_from_bytes(bad)


def test_scalar_roundtrip_and_lists():
    for k in (1, 2, N - 1, 2**255):
        assert scalar_from_bytes(scalar_to_bytes(k)) == k
    assert split_scalars(scalar_to_bytes(3) + scalar_to_bytes(4), 2, "r") == [3, 4]
    with pytest.raises(BadMessage, match=r"r 1 is not a scalar"):
        split_scalars(scalar_to_bytes(3) + bytes(32), 2, "r")


def test_split_points():
    xs = list(encode_deck("bura").values[:4])
    assert split_points(b"".join(xs), 4) == xs
    with pytest.raises(BadMessage, match="4 points"):
        split_points(b"".join(xs[:3]), 4)
    with pytest.raises(BadMessage, match="same value at positions 0 and 2"):
        split_points(xs[0] + xs[1] + xs[0] + xs[3], 4)
    assert split_points(xs[0] + xs[1] + xs[0] + xs[3], 4, distinct=False)[2] == xs[0]
    with pytest.raises(BadMessage, match="value 2 is not the compressed"):
        split_points(xs[0] + xs[1] + b"\0" * 33 + xs[3], 4)
    with pytest.raises(BadMessage, match="must be bytes"):
        split_points(xs, 4)


def test_base_multiplication():
    assert base_mul(1).format() == G
    assert encrypt(7, G) == base_mul(7).format()


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=120))
def test_permutations(seed, size):
    perm = permutation_from(seed, "x", size)
    assert sorted(perm) == list(range(size))
    assert permutation_from(seed, "x", size) == perm
    inv = invert_permutation(perm)
    assert [perm[i] for i in inv] == list(range(size))


def test_tags_are_version_2():
    from p2pcards.mental.group import frame
    assert frame("deck", [b""]) == b"\x00\x00\x00\x17p2pcards/mental/v2/deck\x00\x00\x00\x00"


def _point_with_x_at_least_n() -> bytes:
    """A point whose x-coordinate lies in [n, p): the ECDSA-recovery shortcut
    must take its recovery id's second bit for it (about 2^-128 of points)."""
    from p2pcards.mental.group import is_point
    for t in range(1, 1000):
        b = b"\x02" + (N + t).to_bytes(32, "big")
        if is_point(b):
            return b
    raise AssertionError("no point with x >= n near n")


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=N - 1), st.integers(min_value=0, max_value=N - 1),
       st.sampled_from(["card", "negated card", "x >= n", "negated x >= n"]))
def test_public_mul_add_base_is_a_times_x_plus_b_times_g(a, b, which):
    from p2pcards.mental.group import lincomb, public_mul_add_base
    assume(a or b)  # 0*X + 0*G is the identity: refused, next test
    x = X if "card" in which else _point_with_x_at_least_n()
    if which.startswith("negated"):
        x = bytes([x[0] ^ 1]) + x[1:]  # -X: same x, the other y
    assert public_mul_add_base(x, a, b).format() == lincomb([a], [load(x)], b).format()


def test_public_mul_add_base_refuses_the_identity():
    from p2pcards.mental.group import public_mul_add_base
    k, a = 123456789, 987654321
    with pytest.raises(MentalError, match="identity"):
        public_mul_add_base(base_mul(k).format(), a, -a * k)  # a*(kG) - (ak)*G = 0
    with pytest.raises(MentalError, match="identity"):
        public_mul_add_base(X, 0, 0)


def test_products_are_the_multiplications_a_deck_at_a_time():
    from p2pcards.mental.group import base_mul, mul, products

    keys = [2, 3, N - 1, 2**200 + 7]
    pts = [load(x) for x in encode_deck("bura").values[:4]]
    assert products(keys, pts) == [mul(p, k).format() for k, p in zip(keys, pts)]
    assert products(keys) == [base_mul(k).format() for k in keys]
    for bad in (0, N):
        with pytest.raises(MentalError):
            products([bad], pts[:1])
        with pytest.raises(MentalError):
            products([bad])
