"""One seat's secrets for one deal, all derived from a fresh 32-byte seed.

Deriving every key from one seed makes the final reveal compact (the seed
alone) and lets anyone recompute every layer the seat produced. The seat
publishes a commitment to the seed before the deal, so at the reveal it can
only open the seed it dealt with, not pick one afterwards.
"""

from __future__ import annotations

import secrets as _random
from functools import cached_property

from p2pcards.mental.group import (
    N, SEED_LEN, BadMessage, MentalError, base_mul, h, inverse, permutation_from, scalar_from,
    scalars_from, u32,
)


class DealSecrets:
    """The seed of one seat for one deal and everything derived from it."""

    __slots__ = ("seed", "__dict__")

    def __init__(self, seed: bytes):
        if not isinstance(seed, bytes) or len(seed) != SEED_LEN:
            raise BadMessage(f"a deal seed must be {SEED_LEN} bytes")
        self.seed = seed

    @classmethod
    def fresh(cls) -> "DealSecrets":
        """New secrets from the OS generator; use once, for one deal only."""
        return cls(_random.token_bytes(SEED_LEN))

    def __repr__(self) -> str:  # never print a live seed into a log by accident
        return "DealSecrets(<hidden>)"

    @cached_property
    def commitment(self) -> bytes:
        return seed_commitment(self.seed)

    @cached_property
    def deck_key(self) -> int:
        return scalar_from("deck-key", self.seed)

    @cached_property
    def deck_key_point(self) -> bytes:
        """K = k*G, published with the shuffle: what the re-key proof is checked against."""
        return base_mul(self.deck_key).format()

    def deck_permutation(self, size: int) -> list[int]:
        return permutation_from(self.seed, "deck-perm", size)

    def card_key(self, position: int) -> int:
        """The per-card key this seat puts on ``position`` at the re-keying."""
        if type(position) is not int or position < 0:
            raise MentalError(f"bad position {position!r}")
        key = self._card_keys.get(position)
        if key is None:  # asked for again at the re-key, each publication, showing, the audit
            key = self._card_keys[position] = scalar_from("card-key", self.seed, u32(position))
        return key

    def card_keys(self, size: int) -> list[int]:
        """The per-card keys of positions 0..size-1 (the re-key needs them all)."""
        missing = [j for j in range(size) if j not in self._card_keys]
        for j, key in zip(missing, scalars_from("card-key", (self.seed,), missing)):
            self._card_keys[j] = key
        return [self._card_keys[j] for j in range(size)]

    @cached_property
    def _card_keys(self) -> dict[int, int]:
        return {}

    def rekey_scalar(self, position: int) -> int:
        """card_key(position) / deck_key: the one multiplication of a re-key."""
        return self.card_key(position) * inverse(self.deck_key) % N

    def nonce(self, label: str, statement: bytes, index: int = 0) -> int:
        """A secret proof nonce, bound to the proof's whole statement (as in
        RFC 6979): proving twice with one seed over different statements never
        reuses a nonce with another challenge, which would give the witness
        away; the same statement gives the same proof."""
        return scalar_from("nonce", self.seed, label.encode("ascii"), statement, u32(index))

    def nonces(self, label: str, statement: bytes, count: int) -> list[int]:
        """``[nonce(label, statement, i) for i in range(count)]``, faster."""
        return scalars_from("nonce", (self.seed, label.encode("ascii"), statement), range(count))


def seed_commitment(seed: bytes) -> bytes:
    return h("commit", seed)
