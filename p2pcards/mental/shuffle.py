"""The shuffle step and its zero-knowledge proof (protocol/dealing.md §5.2).

A seat turns deck ``A`` into ``B``: ``B[i] = k * A[psi[i]]``, publishing its
deck-key commitment ``K = k*G``. The proof is Terelius and Wikstrom's proof
of a shuffle, as written out by Haenni, Locher, Koenig and Dubuis
("Pseudo-code algorithms for verifiable re-encryption mix-nets",
GenShuffleProof / CheckShuffleProof), with its last relation turned from
re-encryption into exponentiation: ``sum u'_i*B_i = k * sum u_i*A_i`` proved
together with ``K = k*G``. Notation (additive):

    pc_j = r_j*G + h_{psi^-1(j)}                 commitment to the permutation
    u_j  = challenge j (from every public input)   u'_i = u_{psi(i)}
    ch_i = rh_i*G + u'_i*ch_{i-1}, ch_0 = h_0    commitment chain

    t1 = w1*G   t2 = w2*G   t3 = w3*G + sum w'_i*h_i
    t4 = sum w'_i*B_i - w4*sum u_j*A_j           t5 = w4*G
    th_i = wh_i*G + w'_i*ch_{i-1}

The challenge c hashes every public input and every t; the message carries
c and the responses only (the verifier recomputes the t's and the hash).
Soundness error about N/n + 2^-256 per attempt, and no option changes it.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Sequence

from p2pcards.i18n import N_
from p2pcards.mental.group import (
    GENERATORS_TAG, HASH_LEN, N, POINT_LEN, BadMessage, BadProof, MentalError, Point,
    add, base_mul, challenge_scalar, deck_bytes, encodings, frame, generators, h,
    invert_permutation, lincomb, load, parse_points_last, mul, points, public_mul_add_base, scalars_bytes,
    scalars_from, shuffle_points, split_points, split_scalars, u32,
)
from p2pcards.mental.keys import DealSecrets

SOUNDNESS_BITS = 128  # at least: every challenge is a full scalar, the main one 256 bits mod n
FIELDS = {"deck", "key", "commits", "chain", "challenge", "responses", "chain_responses",
          "perm_responses"}


def _check_context(context: object) -> bytes:
    if not isinstance(context, bytes):
        raise MentalError("the proof context must be bytes")
    return context


def _u_state(context: bytes, deck_in: bytes, deck_out: bytes, key: bytes, commits: bytes,
             size: int) -> bytes:
    return h("shuffle-u", context, GENERATORS_TAG, u32(size), deck_in, deck_out, key, commits)


def _challenges(state: bytes, size: int) -> list[int]:
    return scalars_from("shuffle-u-i", (state,), range(size))


def _main_challenge(state: bytes, chain: bytes, ts: Sequence[Point], th: Sequence[Point]) -> bytes:
    digest = hashlib.sha256(frame("shuffle-challenge", (state, chain)))
    for t in list(ts) + list(th):
        digest.update(t.format())
    return digest.digest()


def shuffle_step(secrets: DealSecrets, deck_in: Sequence[bytes], context: bytes,
                 trace: dict | None = None) -> dict:
    """This seat's shuffle message with its proof (see dealing.md §5.2).
    ``trace`` (test vectors): filled with every intermediate value."""
    context = _check_context(context)
    size = len(deck_in)
    if size < 2:
        raise MentalError("a deck to shuffle needs at least 2 cards")
    a_pts = points(deck_in, "input deck")
    k, psi = secrets.deck_key, secrets.deck_permutation(size)
    inv = invert_permutation(psi)
    b_pts = shuffle_points(k, psi, a_pts)
    deck_out = deck_bytes(encodings(b_pts))
    key = secrets.deck_key_point
    gens = generators(size)
    h0, hs = gens[0], gens[1:]

    statement = h("shuffle-nonce", context, deck_bytes(deck_in))
    nonces = secrets.nonces
    r = nonces("shuffle-r", statement, size)
    pc = [add([hs[inv[j]], base_mul(r[j])]) for j in range(size)]
    commits = deck_bytes(encodings(pc))
    state = _u_state(context, deck_bytes(deck_in), deck_out, key, commits, size)
    u = _challenges(state, size)
    up = [u[psi[i]] for i in range(size)]

    rh = nonces("shuffle-r-hat", statement, size)
    chain_pts: list[Point] = []
    prev = h0
    for i in range(size):
        prev = lincomb([up[i]], [prev], rh[i])
        chain_pts.append(prev)
    chain = deck_bytes(encodings(chain_pts))

    w1, w2, w3, w4 = nonces("shuffle-w", statement, 4)
    wh = nonces("shuffle-w-hat", statement, size)
    wp = nonces("shuffle-w-prime", statement, size)
    t1, t2, t5 = base_mul(w1), base_mul(w2), base_mul(w4)
    t3 = lincomb(wp, hs, w3)
    # sum w'_i*B_i - w4*sum u_j*A_j, with B_i = k*A_psi(i): one multiplication per card.
    t4 = lincomb([(k * wp[inv[j]] - w4 * u[j]) % N for j in range(size)], a_pts)
    th = [lincomb([wp[i]], [h0 if i == 0 else chain_pts[i - 1]], wh[i]) for i in range(size)]
    digest = _main_challenge(state, chain, (t1, t2, t3, t4, t5), th)
    c = challenge_scalar(digest)

    v = [1] * size
    for i in range(size - 2, -1, -1):
        v[i] = up[i + 1] * v[i + 1] % N
    if trace is not None:
        trace.update(r=r, u_state=state, u=u, r_hat=rh, w=[w1, w2, w3, w4], w_hat=wh, w_prime=wp,
                     t=[t.format() for t in (t1, t2, t3, t4, t5)], t_hat=[t.format() for t in th], c=c)
    s1 = (w1 - c * sum(r)) % N
    s2 = (w2 - c * sum(x * y for x, y in zip(rh, v))) % N
    s3 = (w3 - c * sum(x * y for x, y in zip(r, u))) % N
    s4 = (w4 - c * k) % N
    sh = [(wh[i] - c * rh[i]) % N for i in range(size)]
    sp = [(wp[i] - c * up[i]) % N for i in range(size)]
    return {"deck": deck_out, "key": key, "commits": commits, "chain": chain, "challenge": digest,
            "responses": scalars_bytes((s1, s2, s3, s4)), "chain_responses": scalars_bytes(sh),
            "perm_responses": scalars_bytes(sp)}


@dataclass
class ShuffleMessage:
    deck: list[bytes]
    key: bytes                  # K = k*G
    commits: list[bytes]
    chain: list[bytes]
    challenge: bytes
    responses: list[int]        # s1..s4
    chain_responses: list[int]  # s-hat
    perm_responses: list[int]   # s'


def parse_shuffle(msg: object, size: int, points: bool = True) -> ShuffleMessage:
    """Strictly decode an untrusted shuffle message for a deck of ``size``.
    Without ``points``, the encodings of its deck, commits and chain are not
    parsed (``shuffle_encodings``: the caller has them checked); anything else
    wrong is told as the whole parse tells it."""
    return parse_points_last(_parse_shuffle, msg, size, points)


def shuffle_encodings(msg: dict) -> list[bytes]:
    """The blobs of encodings ``parse_shuffle(points=False)`` did not parse."""
    return [msg["deck"], msg["commits"], msg["chain"]]


def _parse_shuffle(msg: object, size: int, check: bool) -> ShuffleMessage:
    if not isinstance(msg, dict) or set(msg) != FIELDS:
        names = ", ".join(f'"{f}"' for f in sorted(FIELDS))
        raise BadMessage(N_("a shuffle message must be a map with exactly {names}", names=names))
    deck = split_points(msg["deck"], size, "shuffled deck", check=check)
    key = msg["key"]
    load(key, "deck-key commitment")
    challenge = msg["challenge"]
    if not isinstance(challenge, bytes) or len(challenge) != HASH_LEN:
        raise BadMessage(N_("the shuffle challenge must be {n} bytes", n=HASH_LEN))
    return ShuffleMessage(
        deck, key,
        split_points(msg["commits"], size, "permutation commitment", distinct=False, check=check),
        split_points(msg["chain"], size, "commitment chain", distinct=False, check=check),
        challenge,
        split_scalars(msg["responses"], 4, "shuffle response"),
        split_scalars(msg["chain_responses"], size, "chain response"),
        split_scalars(msg["perm_responses"], size, "permutation response"))


def verify_shuffle(deck_in: Sequence[bytes], msg: object, context: bytes) -> list[bytes]:
    """The output deck of a shuffle message whose proof holds for ``deck_in``
    under ``context``; raises BadMessage (malformed) or BadProof (false)."""
    context = _check_context(context)
    size = len(deck_in)
    m = parse_shuffle(msg, size)
    try:
        ok = _check(deck_in, m, context)
    except MentalError:  # a sum came out as the identity: no honest proof does that
        ok = False
    if not ok:
        raise BadProof(N_("the shuffle proof does not verify: the output is not the input deck, "
                          "permuted and encrypted with the committed deck key, for this place"))
    return m.deck


def _check(deck_in: Sequence[bytes], m: ShuffleMessage, context: bytes) -> bool:
    size = len(deck_in)
    a_pts = points(deck_in, "input deck")
    b_pts = [load(x) for x in m.deck]
    pc = [load(x) for x in m.commits]
    chain_pts = [load(x) for x in m.chain]
    key = load(m.key)
    gens = generators(size)
    h0, hs = gens[0], gens[1:]
    state = _u_state(context, deck_bytes(deck_in), deck_bytes(m.deck), m.key, deck_bytes(m.commits), size)
    u = _challenges(state, size)
    c = challenge_scalar(m.challenge)
    if c == 0:
        return False
    s1, s2, s3, s4 = m.responses
    sh, sp = m.chain_responses, m.perm_responses
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % N
    # Every value is public here: a*X + b*G is one variable-time double
    # multiplication where X arrived as an encoding (public_mul_add_base).
    # t1 = c*(sum pc_j - sum h_i) + s1*G
    t1 = lincomb([c], [add([add(pc), _minus_sum(size)])], s1)
    # t2 = c*(ch_N - prod(u)*h0) + s2*G
    t2 = add([public_mul_add_base(m.chain[-1], c, s2), mul(h0, -c * u_prod % N)])
    # t3 = c*sum u_j*pc_j + s3*G + sum s'_i*h_i
    t3 = lincomb([c * x for x in u] + list(sp), pc + list(hs), s3)
    # t4 = sum s'_i*B_i - s4*sum u_j*A_j
    t4 = lincomb(list(sp) + [-s4 * x for x in u], b_pts + a_pts)
    t5 = public_mul_add_base(m.key, c, s4)
    # th_i = c*ch_i + sh_i*G + s'_i*ch_{i-1}
    th = [add([public_mul_add_base(m.chain[i], c, sh[i]), mul(h0 if i == 0 else chain_pts[i - 1], sp[i])])
          for i in range(size)]
    return _main_challenge(state, deck_bytes(m.chain), (t1, t2, t3, t4, t5), th) == m.challenge


@functools.lru_cache(maxsize=8)
def _minus_sum(size: int) -> Point:
    """-(h_1 + ... + h_size): the same for every proof over a deck of that size."""
    return mul(add(generators(size)[1:]), N - 1)


__all__ = ["SOUNDNESS_BITS", "ShuffleMessage", "parse_shuffle", "shuffle_encodings", "shuffle_step",
           "verify_shuffle",
           "POINT_LEN"]
