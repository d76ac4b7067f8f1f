"""Shuffle steps and their cut-and-choose proofs."""

import pytest
from hypothesis import given, settings, strategies as st

from p2pcards.mental import (
    BadMessage, BadProof, DealSecrets, MentalError, encode_deck, encrypt, parse_shuffle,
    prove_shuffle, shuffle_step, shuffle_values, split_values, verify_shuffle,
)
from p2pcards.mental.group import N, deck_bytes, scalar_to_bytes
from p2pcards.mental.shuffle import decode_permutation, encode_permutation

DECK = list(encode_deck("bura").values)
SIZE = len(DECK)
CTX = b"session|seat 0|shuffle|deal 3|prev hash"


def seat(i: int) -> DealSecrets:
    return DealSecrets(bytes([i + 1]) * 32)


def test_honest_shuffle_verifies_and_is_the_keyed_permutation():
    s = seat(0)
    msg = shuffle_step(s, DECK, CTX, rounds=8)
    out = verify_shuffle(DECK, msg, CTX, rounds=8)
    assert out == shuffle_values(s.deck_key, s.deck_permutation(SIZE), DECK)
    assert sorted(encrypt(pow(s.deck_key, -1, N), x) for x in out) == sorted(DECK)


def test_default_rounds_verify():
    s = seat(1)
    msg = shuffle_step(s, DECK, CTX)
    assert len(msg["open"]) == 40 and len(msg["commits"]) == 40 * 32
    verify_shuffle(DECK, msg, CTX)


def test_both_kinds_of_openings_are_exercised():
    msg = shuffle_step(seat(2), DECK, CTX, rounds=16)
    kinds = {isinstance(o, bytes) for o in msg["open"]}
    assert kinds == {True, False}


def test_proof_is_deterministic_and_bound_to_input():
    s = seat(3)
    assert shuffle_step(s, DECK, CTX, 6) == shuffle_step(s, DECK, CTX, 6)
    # Another input deck, same seed: new round secrets, so no round is ever
    # opened both ways (which would give the deck key away).
    other = list(encode_deck("warkocz").values[:SIZE])
    a, b = shuffle_step(s, DECK, CTX, 6), shuffle_step(s, other, CTX, 6)
    seeds_a = {o for o in a["open"] if isinstance(o, bytes)}
    seeds_b = {o for o in b["open"] if isinstance(o, bytes)}
    assert not seeds_a & seeds_b
    assert a["commits"][:32] != b["commits"][:32]


def cheat(kind: str, rounds: int = 12) -> dict:
    s = seat(4)
    out = shuffle_values(s.deck_key, s.deck_permutation(SIZE), DECK)
    if kind == "duplicate":
        out[5] = out[9]
    elif kind == "substitute":
        out[3] = encrypt(s.deck_key, encode_deck("warkocz").values[0])
    elif kind == "swap-only":  # another permutation than the committed one: still a valid shuffle
        out[0], out[1] = out[1], out[0]
    commits, openings = prove_shuffle(s, DECK, out, CTX, rounds)
    return {"deck": deck_bytes(out), "commits": commits, "open": openings}


def test_duplicated_card_is_rejected():
    with pytest.raises(BadMessage, match="same value at positions 5 and 9"):
        verify_shuffle(DECK, cheat("duplicate"), CTX, 12)


def test_substituted_card_fails_the_proof():
    with pytest.raises(BadProof, match="opened to the output does not match"):
        verify_shuffle(DECK, cheat("substitute"), CTX, 12)


def test_openings_swapped_for_other_seeds_fail():
    msg = cheat("substitute")
    flipped = dict(msg, open=[seat(4).round_seed(b"", b"", 0)] * 12)
    with pytest.raises(BadProof):
        verify_shuffle(DECK, flipped, CTX, 12)


def test_replay_in_another_context_fails():
    msg = shuffle_step(seat(5), DECK, CTX, rounds=12)
    for other in (CTX.replace(b"seat 0", b"seat 1"), CTX.replace(b"deal 3", b"deal 4"), b""):
        with pytest.raises(BadProof):
            verify_shuffle(DECK, msg, other, 12)


def test_replay_on_another_input_fails():
    msg = shuffle_step(seat(5), DECK, CTX, rounds=12)
    other = shuffle_values(7, range(SIZE), DECK)
    with pytest.raises(BadProof):
        verify_shuffle(other, msg, CTX, 12)


def test_wrong_round_count_is_rejected():
    msg = shuffle_step(seat(6), DECK, CTX, rounds=6)
    with pytest.raises(BadMessage, match="8 hashes"):
        verify_shuffle(DECK, msg, CTX, 8)


def test_tampered_opening_fails():
    msg = shuffle_step(seat(7), DECK, CTX, rounds=8)
    i = next(i for i, o in enumerate(msg["open"]) if not isinstance(o, bytes))
    rho, perm = msg["open"][i]
    bad = list(msg["open"])
    bad[i] = [scalar_to_bytes(int.from_bytes(rho, "big") % (N - 1) + 1), perm]
    with pytest.raises(BadProof, match=f"round {i}"):
        verify_shuffle(DECK, dict(msg, open=bad), CTX, 8)
    j = next(j for j, o in enumerate(msg["open"]) if isinstance(o, bytes))
    bad = list(msg["open"])
    bad[j] = msg["open"][i]  # answers the other question
    with pytest.raises(BadProof, match=f"round {j} must be opened to the input"):
        verify_shuffle(DECK, dict(msg, open=bad), CTX, 8)


def test_zero_rounds_means_no_proof():
    s = seat(8)
    msg = shuffle_step(s, DECK, CTX, rounds=0)
    assert msg["commits"] == b"" and msg["open"] == []
    assert verify_shuffle(DECK, msg, CTX, 0) == split_values(msg["deck"], SIZE)


GOOD = shuffle_step(seat(9), DECK, CTX, rounds=4)


@pytest.mark.parametrize("mutate, match", [
    (lambda m: [1, 2], "must be a map"),
    (lambda m: {**m, "extra": 1}, "exactly"),
    (lambda m: {k: v for k, v in m.items() if k != "open"}, "exactly"),
    (lambda m: {**m, "deck": m["deck"][:-1]}, "36 values"),
    (lambda m: {**m, "deck": list(DECK)}, "must be bytes"),
    (lambda m: {**m, "commits": m["commits"] + b"\0"}, "4 hashes"),
    (lambda m: {**m, "open": m["open"][:3]}, "list of 4"),
    (lambda m: {**m, "open": "abcd"}, "list of 4"),
    (lambda m: {**m, "open": [b"\0" * 31] + m["open"][1:]}, "opening 0: a round seed must be 32"),
    (lambda m: {**m, "open": [7] + m["open"][1:]}, "opening 0 must be"),
    (lambda m: {**m, "open": [[b"\0" * 32, bytes(range(36))]] + m["open"][1:]}, r"ratio is not a scalar"),
    (lambda m: {**m, "open": [[b"\1" * 32, bytes(36)]] + m["open"][1:]}, "not a permutation"),
    (lambda m: {**m, "open": [[b"\1" * 32, bytes(range(35))]] + m["open"][1:]}, "36 bytes"),
])
def test_malformed_shuffle_messages(mutate, match):
    with pytest.raises(BadMessage, match=match):
        parse_shuffle(mutate(GOOD), SIZE, 4)
    with pytest.raises(BadMessage):
        verify_shuffle(DECK, mutate(GOOD), CTX, 4)


def test_bad_arguments():
    with pytest.raises(MentalError, match="rounds"):
        shuffle_step(seat(0), DECK, CTX, rounds=257)
    with pytest.raises(MentalError, match="rounds"):
        verify_shuffle(DECK, GOOD, CTX, rounds=-1)
    with pytest.raises(MentalError, match="context must be bytes"):
        verify_shuffle(DECK, GOOD, "ctx", 4)
    with pytest.raises(ValueError, match="32 bytes"):
        DealSecrets(b"short")


@settings(max_examples=20, deadline=None)
@given(st.permutations(list(range(300))))
def test_wide_permutations_roundtrip(perm):
    blob = encode_permutation(perm)
    assert len(blob) == 600 and decode_permutation(blob, 300) == perm


def test_narrow_permutation_encoding():
    assert encode_permutation([2, 0, 1]) == bytes([2, 0, 1])
