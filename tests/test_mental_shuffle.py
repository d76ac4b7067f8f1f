"""The shuffle argument (Terelius-Wikstrom, adapted to exponentiation):
honest proofs verify, and every way of cheating or of moving a proof
elsewhere fails."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from p2pcards.mental import (
    N, BadMessage, BadProof, DealSecrets, MentalError, encode_deck, encrypt, parse_shuffle,
    shuffle_step, shuffle_values, verify_shuffle,
)
from p2pcards.mental.group import deck_bytes, split_points

DECK = list(encode_deck("bura").values)
SEC = DealSecrets(b"\x07" * 32)
CTX = b"table|deal 0|seat 1|shuffle|prev"
MSG = shuffle_step(SEC, DECK, CTX)


def _with_deck(msg, values):
    return dict(msg, deck=deck_bytes(values))


def test_honest_proof_verifies_and_is_the_deal_seeds_shuffle():
    out = verify_shuffle(DECK, MSG, CTX)
    assert out == shuffle_values(SEC.deck_key, SEC.deck_permutation(len(DECK)), DECK)
    assert MSG["key"] == SEC.deck_key_point
    assert shuffle_step(SEC, DECK, CTX) == MSG  # deterministic in its inputs


def test_proof_over_a_shuffled_deck_and_small_decks():
    other = DealSecrets(b"\x08" * 32)
    out = verify_shuffle(DECK, MSG, CTX)
    assert verify_shuffle(out, shuffle_step(other, out, b"next"), b"next")
    two = DECK[:2]
    assert len(verify_shuffle(two, shuffle_step(other, two, CTX), CTX)) == 2


@pytest.mark.parametrize("where", ["context", "seat", "deal", "step", "prev"])
def test_a_proof_from_another_place_fails(where):
    other = {"context": b"elsewhere", "seat": CTX.replace(b"seat 1", b"seat 2"),
             "deal": CTX.replace(b"deal 0", b"deal 1"), "step": CTX.replace(b"shuffle", b"rekey"),
             "prev": CTX + b"x"}[where]
    with pytest.raises(BadProof):
        verify_shuffle(DECK, MSG, other)


def test_a_shuffle_that_duplicates_a_card_fails():
    out = split_points(MSG["deck"], len(DECK))
    out[1] = out[0]
    with pytest.raises(BadMessage, match="same value"):
        verify_shuffle(DECK, _with_deck(MSG, out), CTX)


def test_a_shuffle_that_drops_a_card_for_another_fails():
    out = split_points(MSG["deck"], len(DECK))
    out[3] = encrypt(SEC.deck_key, encode_deck("warkocz").values[0])  # a card of no deck here
    with pytest.raises(BadProof):
        verify_shuffle(DECK, _with_deck(MSG, out), CTX)


def test_a_shuffle_with_two_keys_fails():
    out = split_points(MSG["deck"], len(DECK))
    k2 = SEC.deck_key * 5 % N
    half = [encrypt(k2, encrypt(pow(SEC.deck_key, -1, N), x)) for x in out[:5]]
    with pytest.raises(BadProof):
        verify_shuffle(DECK, _with_deck(MSG, half + out[5:]), CTX)


def test_a_shuffle_of_a_different_deck_fails():
    # A valid proof, but for an input with one card replaced (say, an ace for a six).
    changed = list(DECK)
    changed[0] = encode_deck("warkocz").values[0]
    forged = shuffle_step(SEC, changed, CTX)
    verify_shuffle(changed, forged, CTX)
    with pytest.raises(BadProof):
        verify_shuffle(DECK, forged, CTX)


def test_a_proof_with_another_deck_key_commitment_fails():
    other = DealSecrets(b"\x09" * 32)
    with pytest.raises(BadProof):
        verify_shuffle(DECK, dict(MSG, key=other.deck_key_point), CTX)


def test_swapping_two_output_cards_fails():
    out = split_points(MSG["deck"], len(DECK))
    out[0], out[1] = out[1], out[0]
    with pytest.raises(BadProof):
        verify_shuffle(DECK, _with_deck(MSG, out), CTX)


def _negated(blob: bytes, i: int) -> bytes:
    """The points of ``blob`` with the i-th one negated (same x, other y)."""
    return blob[:33 * i] + bytes([blob[33 * i] ^ 1]) + blob[33 * i + 1:]


@pytest.mark.parametrize("field, index", [("chain", 0), ("chain", 17), ("chain", 35), ("key", 0),
                                          ("commits", 3)])
def test_a_negated_point_fails(field, index):
    """The checks read c*X + s*G from X's encoding (x and the sign of y): a
    point swapped for its negative, which has the same x, must still fail."""
    with pytest.raises(BadProof):
        verify_shuffle(DECK, dict(MSG, **{field: _negated(MSG[field], index)}), CTX)


FIELDS = sorted(MSG)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FIELDS), st.data())
def test_any_changed_byte_fails(field, data):
    blob = bytearray(MSG[field])
    i = data.draw(st.integers(0, len(blob) - 1))
    blob[i] ^= data.draw(st.integers(1, 255))
    with pytest.raises((BadMessage, BadProof)):
        verify_shuffle(DECK, dict(MSG, **{field: bytes(blob)}), CTX)


@pytest.mark.parametrize("change, match", [
    (lambda m: {k: v for k, v in m.items() if k != "chain"}, "exactly"),
    (lambda m: dict(m, extra=b""), "exactly"),
    (lambda m: dict(m, key=b"\x00" * 33), "deck-key commitment"),
    (lambda m: dict(m, challenge=m["challenge"][:31]), "32 bytes"),
    (lambda m: dict(m, responses=m["responses"][:96]), "4 scalars"),
    (lambda m: dict(m, responses=bytes(32) + m["responses"][32:]), r"not a scalar in \[1, n-1\]"),
    (lambda m: dict(m, perm_responses=N.to_bytes(32, "big") + m["perm_responses"][32:]), "not a scalar"),
    (lambda m: dict(m, chain=b"\x00" * 33 + m["chain"][33:]), "commitment chain value 0"),
    (lambda m: dict(m, commits=m["commits"][:-33]), "permutation commitment"),
    (lambda m: dict(m, deck=m["deck"].hex()), "got str"),
    (lambda m: [m], "a map"),
])
def test_malformed_messages_are_refused(change, match):
    with pytest.raises(BadMessage, match=match):
        verify_shuffle(DECK, change(dict(MSG)), CTX)


def test_identity_and_context_type():
    with pytest.raises(MentalError, match="context"):
        verify_shuffle(DECK, MSG, "text")
    parsed = parse_shuffle(MSG, len(DECK))
    assert parsed.key == MSG["key"] and len(parsed.perm_responses) == len(DECK)
