"""The shuffle step and its non-interactive cut-and-choose proof.

A seat turns deck ``a`` into ``b = shuffle(a; k, pi)``: ``b[j] = E_k(a[pi[j]])``.
To prove it did (without showing k or pi) it makes t intermediate decks
``D_i = shuffle(a; r_i, pi_i)`` and commits to their hashes. Challenge bits
come from a hash over the caller's context, both decks and the commitments
(Fiat-Shamir). Round i with bit 0 is opened to the input (the round seed
that gives r_i and pi_i); with bit 1 to the output: ``rho_i = k / r_i`` and
``sigma_i = pi_i^-1 o pi`` with ``b = shuffle(D_i; rho_i, sigma_i)``. A seat
whose b is not a re-encrypted permutation of a can answer at most one of the
two questions per round, so it passes with probability 2^-t.

Intermediate decks are not sent: the verifier rebuilds each one from its
opening and compares its hash with the commitment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from p2pcards.mental.group import (
    HASH_LEN, N, SEED_LEN, BadMessage, BadProof, MentalError, deck_bytes,
    deck_hash, h, inverse, invert_permutation, points, scalar_from_bytes, scalar_to_bytes,
    shuffle_points, shuffle_values, split_values, u32,
)
from p2pcards.mental.keys import DealSecrets, round_key, round_permutation

DEFAULT_ROUNDS = 40
MAX_ROUNDS = 256  # the challenge is one SHA-256: 256 bits


def perm_width(size: int) -> int:
    """Bytes per index in an encoded permutation: 1 up to 256 cards, else 2."""
    return 1 if size <= 256 else 2


def encode_permutation(perm: Sequence[int]) -> bytes:
    width = perm_width(len(perm))
    return b"".join(p.to_bytes(width, "big") for p in perm)


def decode_permutation(blob: object, size: int, what: str = "permutation") -> list[int]:
    width = perm_width(size)
    if not isinstance(blob, bytes) or len(blob) != size * width:
        got = f"{len(blob)} bytes" if isinstance(blob, bytes) else type(blob).__name__
        raise BadMessage(f"{what} must be {size * width} bytes ({size} indices of {width}), got {got}")
    perm = [int.from_bytes(blob[i:i + width], "big") for i in range(0, len(blob), width)]
    if sorted(perm) != list(range(size)):
        raise BadMessage(f"{what} is not a permutation of 0..{size - 1}")
    return perm


def challenge_bits(context: bytes, input_hash: bytes, output_hash: bytes,
                   commits: Sequence[bytes], rounds: int) -> list[int]:
    """Bit i (MSB first) of H("challenge", context, H(in), H(out), commits, u32 t):
    0 opens round i to the input, 1 to the output."""
    c = h("challenge", context, input_hash, output_hash, b"".join(commits), u32(rounds))
    return [(c[i // 8] >> (7 - i % 8)) & 1 for i in range(rounds)]


def _check_rounds(rounds: object) -> int:
    # 0 rounds: no proof; a bad shuffle then shows only at the final reveal.
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 0 <= rounds <= MAX_ROUNDS:
        raise MentalError(f"proof rounds must be an int in 0..{MAX_ROUNDS}, got {rounds!r}")
    return rounds


def _check_context(context: object) -> bytes:
    if not isinstance(context, bytes):
        raise MentalError("the proof context must be bytes")
    return context


def prove_shuffle(secrets: DealSecrets, deck_in: Sequence[bytes], deck_out: Sequence[bytes],
                  context: bytes, rounds: int = DEFAULT_ROUNDS) -> tuple[bytes, list]:
    """The proof (commitments, openings) that ``deck_out`` is ``deck_in``
    shuffled with this seat's deck key and permutation. Deterministic in its
    arguments. (Given any other deck_out it makes a proof that fails.)"""
    rounds = _check_rounds(rounds)
    context = _check_context(context)
    size = len(deck_in)
    input_hash = deck_hash(deck_in)
    k, pi = secrets.deck_key, secrets.deck_permutation(size)
    pts = points(deck_in)
    seeds, commits = [], []
    for i in range(rounds):
        seed = secrets.round_seed(input_hash, context, i)
        mid = shuffle_points(round_key(seed), round_permutation(seed, size), pts)
        seeds.append(seed)
        commits.append(deck_hash(mid))
    bits = challenge_bits(context, input_hash, deck_hash(deck_out), commits, rounds)
    openings: list = []
    for seed, bit in zip(seeds, bits):
        if bit == 0:
            openings.append(seed)
        else:
            rho = k * inverse(round_key(seed)) % N
            sigma = invert_permutation(round_permutation(seed, size))
            sigma = [sigma[p] for p in pi]
            openings.append([scalar_to_bytes(rho), encode_permutation(sigma)])
    return b"".join(commits), openings


def shuffle_step(secrets: DealSecrets, deck_in: Sequence[bytes], context: bytes,
                 rounds: int = DEFAULT_ROUNDS) -> dict:
    """This seat's shuffle message: ``{"deck", "commits", "open"}`` (see dealing.md)."""
    deck_out = shuffle_values(secrets.deck_key, secrets.deck_permutation(len(deck_in)), deck_in)
    commits, openings = prove_shuffle(secrets, deck_in, deck_out, context, rounds)
    return {"deck": deck_bytes(deck_out), "commits": commits, "open": openings}


@dataclass
class ShuffleMessage:
    deck: list[bytes]
    commits: list[bytes]
    openings: list  # per round: a round seed (bytes) or (rho: int, sigma: list[int])


def parse_shuffle(msg: object, size: int, rounds: int = DEFAULT_ROUNDS,
                  on_curve: bool = True) -> ShuffleMessage:
    """Strictly decode an untrusted shuffle message for a deck of ``size``
    (``on_curve``: see split_values)."""
    rounds = _check_rounds(rounds)
    if not isinstance(msg, dict) or set(msg) != {"deck", "commits", "open"}:
        raise BadMessage('a shuffle message must be a map with exactly "deck", "commits", "open"')
    deck = split_values(msg["deck"], size, "shuffled deck", on_curve)
    commits = msg["commits"]
    if not isinstance(commits, bytes) or len(commits) != rounds * HASH_LEN:
        raise BadMessage(f"commits must be {rounds} hashes of {HASH_LEN} bytes")
    raw = msg["open"]
    if not isinstance(raw, (list, tuple)) or len(raw) != rounds:
        raise BadMessage(f"open must be a list of {rounds} openings")
    openings: list = []
    for i, item in enumerate(raw):
        if isinstance(item, bytes):
            if len(item) != SEED_LEN:
                raise BadMessage(f"opening {i}: a round seed must be {SEED_LEN} bytes")
            openings.append(item)
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            rho = scalar_from_bytes(item[0], f"opening {i} key ratio")
            openings.append((rho, decode_permutation(item[1], size, f"opening {i} permutation")))
        else:
            raise BadMessage(f"opening {i} must be a {SEED_LEN}-byte seed or [ratio, permutation]")
    return ShuffleMessage(deck, [commits[i:i + HASH_LEN] for i in range(0, len(commits), HASH_LEN)],
                          openings)


def verify_shuffle(deck_in: Sequence[bytes], msg: object, context: bytes,
                   rounds: int = DEFAULT_ROUNDS, on_curve: bool = True) -> list[bytes]:
    """The output deck of a shuffle message whose proof holds for ``deck_in``
    under ``context``; raises BadMessage (malformed) or BadProof (false).
    The output's curve membership is checked if there are proof rounds (they
    multiply it) or ``on_curve`` asks for it (without rounds, only a seat that
    multiplies the deck needs it)."""
    context = _check_context(context)
    size = len(deck_in)
    parsed = parse_shuffle(msg, size, rounds, on_curve=False)
    pts_in = points(deck_in, "input deck") if rounds else []
    pts_out = points(parsed.deck, "shuffled deck") if rounds or on_curve else []
    bits = challenge_bits(context, deck_hash(deck_in), deck_hash(parsed.deck), parsed.commits, rounds)
    for i, (opening, bit, commit) in enumerate(zip(parsed.openings, bits, parsed.commits)):
        if bit == 0:
            if not isinstance(opening, bytes):
                raise BadProof(f"round {i} must be opened to the input and is opened to the output")
            mid = shuffle_points(round_key(opening), round_permutation(opening, size), pts_in)
        else:
            if isinstance(opening, bytes):
                raise BadProof(f"round {i} must be opened to the output and is opened to the input")
            rho, sigma = opening
            # b[j] = E_rho(D[sigma[j]])  =>  D[sigma[j]] = E_rho^-1(b[j])
            back = shuffle_points(inverse(rho), range(size), pts_out)
            mid = [b""] * size
            for j, s in enumerate(sigma):
                mid[s] = back[j]
        if deck_hash(mid) != commit:
            side = "input" if bit == 0 else "output"
            raise BadProof(f"round {i}: the deck opened to the {side} does not match its commitment")
    return parsed.deck
