"""The re-key step and its proof (protocol/dealing.md §5.3).

A seat with deck key k (committed as K = k*G in its shuffle) turns deck B
into ``B'[j] = (k_j/k) * B[j]`` and publishes ``C_j = k_j*G`` for every
per-card key. One batched sigma proof shows it knows k and every k_j with

    K = k*G,   C_j = k_j*G,   k * sum e_j*B'_j = sum (e_j*k_j) * B_j

for weights e_j hashed from every public input: if any position is re-keyed
with anything but its committed key (a victim's card written at one's own
hand position, say), the weighted sum fails but with probability 1/n.
The message carries the challenge and responses only (compressed form).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from p2pcards.i18n import N_
from p2pcards.mental.group import (
    HASH_LEN, N, BadMessage, BadProof, MentalError, Point, base_mul, challenge_scalar, deck_bytes,
    encodings, frame, h, inverse, lincomb, load, parse_points_last, points, public_mul_add_base, scalars_bytes,
    scalars_from, split_points, split_scalars, u32,
)
from p2pcards.mental.keys import DealSecrets

FIELDS = {"deck", "commits", "challenge", "responses"}


def _weights_state(context: bytes, key: bytes, deck_in: bytes, deck_out: bytes, commits: bytes,
                   size: int) -> bytes:
    return h("rekey-e", context, u32(size), key, deck_in, deck_out, commits)


def _weights(state: bytes, size: int) -> list[int]:
    return scalars_from("rekey-e-j", (state,), range(size))


def _challenge(state: bytes, t_key: Point, t_commits: Sequence[Point], t_deck: Point) -> bytes:
    digest = hashlib.sha256(frame("rekey-challenge", (state,)))
    for t in [t_key, *t_commits, t_deck]:
        digest.update(t.format())
    return digest.digest()


def rekey_step(secrets: DealSecrets, deck_in: Sequence[bytes], context: bytes,
               trace: dict | None = None) -> dict:
    """This seat's re-key message with its commitments and proof. ``trace``
    (test vectors): filled with every intermediate value."""
    if not isinstance(context, bytes):
        raise MentalError("the proof context must be bytes")
    size = len(deck_in)
    b_pts = points(deck_in, "input deck")
    k = secrets.deck_key
    k_inv = inverse(k)
    kj = secrets.card_keys(size)
    ratios = [x * k_inv % N for x in kj]
    out = [lincomb([m], [b]) for m, b in zip(ratios, b_pts)]
    deck_out = deck_bytes(encodings(out))
    commits = deck_bytes(encodings(base_mul(x) for x in kj))
    state = _weights_state(context, secrets.deck_key_point, deck_bytes(deck_in), deck_out, commits, size)
    e = _weights(state, size)
    statement = h("rekey-nonce", context, deck_bytes(deck_in))
    a = secrets.nonce("rekey-a", statement)
    aj = secrets.nonces("rekey-a-j", statement, size)
    # a * sum e_j*B'_j - sum a_j*e_j*B_j, with B'_j = (k_j/k)*B_j: one multiplication a card.
    t_deck = lincomb([e[j] * (a * ratios[j] - aj[j]) for j in range(size)], b_pts)
    t_key, t_commits = base_mul(a), [base_mul(x) for x in aj]
    digest = _challenge(state, t_key, t_commits, t_deck)
    c = challenge_scalar(digest)
    if trace is not None:
        trace.update(e_state=state, e=e, a=a, a_j=aj, t_key=t_key.format(),
                     t_commits=[t.format() for t in t_commits], t_deck=t_deck.format(), c=c)
    z = (a - c * k) % N
    zj = [(aj[j] - c * kj[j]) % N for j in range(size)]
    return {"deck": deck_out, "commits": commits, "challenge": digest,
            "responses": scalars_bytes([z, *zj])}


@dataclass
class RekeyMessage:
    deck: list[bytes]
    commits: list[bytes]      # C_j = k_j*G
    challenge: bytes
    responses: list[int]      # z, z_0..z_{N-1}


def parse_rekey(msg: object, size: int, points: bool = True) -> RekeyMessage:
    """Strictly decode an untrusted re-key message for a deck of ``size``.
    Without ``points``, the encodings of its deck and commitments are not
    parsed (``rekey_encodings``: the caller has them checked); anything else
    wrong is told as the whole parse tells it."""
    return parse_points_last(_parse_rekey, msg, size, points)


def rekey_encodings(msg: dict) -> list[bytes]:
    """The blobs of encodings ``parse_rekey(points=False)`` did not parse."""
    return [msg["deck"], msg["commits"]]


def _parse_rekey(msg: object, size: int, check: bool) -> RekeyMessage:
    if not isinstance(msg, dict) or set(msg) != FIELDS:
        names = ", ".join(f'"{f}"' for f in sorted(FIELDS))
        raise BadMessage(N_("a re-key message must be a map with exactly {names}", names=names))
    deck = split_points(msg["deck"], size, "re-keyed deck", check=check)
    commits = split_points(msg["commits"], size, "card-key commitment", distinct=False, check=check)
    challenge = msg["challenge"]
    if not isinstance(challenge, bytes) or len(challenge) != HASH_LEN:
        raise BadMessage(N_("the re-key challenge must be {n} bytes", n=HASH_LEN))
    return RekeyMessage(deck, commits, challenge, split_scalars(msg["responses"], size + 1, "re-key response"))


def verify_rekey(deck_in: Sequence[bytes], key: bytes, msg: object, context: bytes) -> RekeyMessage:
    """The parsed re-key message if its proof holds for ``deck_in``, the
    seat's deck-key commitment ``key`` and ``context``; BadMessage or BadProof."""
    if not isinstance(context, bytes):
        raise MentalError("the proof context must be bytes")
    size = len(deck_in)
    m = parse_rekey(msg, size)
    load(key, "deck-key commitment")
    try:
        ok = _check(deck_in, key, m, context)
    except MentalError:
        ok = False
    if not ok:
        raise BadProof(N_("the re-key proof does not verify: some position is not its input with "
                          "the deck key swapped for that position's committed key"))
    return m


def _check(deck_in, key: bytes, m: RekeyMessage, context: bytes) -> bool:
    size = len(deck_in)
    b_pts = points(deck_in, "input deck")
    out_pts = [load(x) for x in m.deck]
    state = _weights_state(context, key, deck_bytes(deck_in), deck_bytes(m.deck), deck_bytes(m.commits), size)
    e = _weights(state, size)
    c = challenge_scalar(m.challenge)
    if c == 0:
        return False
    z, zj = m.responses[0], m.responses[1:]
    # Public values: c*C + z*G as one variable-time double multiplication.
    t_key = public_mul_add_base(key, c, z)
    t_commits = [public_mul_add_base(m.commits[j], c, zj[j]) for j in range(size)]
    x = lincomb(e, out_pts)
    t_deck = lincomb([z] + [-zj[j] * e[j] for j in range(size)], [x] + b_pts)
    return _challenge(state, t_key, t_commits, t_deck) == m.challenge


def card_key_commitment(key: int) -> bytes:
    """k_j*G: what a published per-card key must match."""
    return base_mul(key).format()


__all__ = ["RekeyMessage", "card_key_commitment", "parse_rekey", "rekey_encodings", "rekey_step", "verify_rekey"]
