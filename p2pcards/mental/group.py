"""The commutative cipher: Pohlig-Hellman in the prime-order group of P-256,
on x-coordinates only.

A *value* is the 32-byte big-endian x-coordinate of a point of P-256. With P
the point of that x and even y, ``E_k(x) = x(k*P)``. Since ``x(k*(-P)) ==
x(k*P)`` the sign of P never matters, so ``E_a(E_b(x)) == E_b(E_a(x)) ==
E_ab(x)`` and ``E_{k^-1 mod n}`` undoes ``E_k``. One scalar multiplication is
one OpenSSL ECDH exchange.

Also here: the hash framing every other module uses, scalars from hashes,
and permutations from seeds (all specified in ``protocol/dealing.md``).
"""

from __future__ import annotations

import functools
import hashlib
import struct
from typing import Iterable, Sequence

from cryptography.hazmat.primitives.asymmetric import ec

# P-256 field prime and group order.
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
CURVE = ec.SECP256R1()
_ECDH = ec.ECDH()

VALUE_LEN = 32
SCALAR_LEN = 32
SEED_LEN = 32
HASH_LEN = 32
TAG_PREFIX = "p2pcards/mental/v1/"


class MentalError(ValueError):
    """Anything wrong in the dealing cryptography or its messages."""


class BadMessage(MentalError):
    """A message (or a value in it) is malformed: wrong type, length, count,
    range, or a value that is not a point of the curve."""


class BadProof(MentalError):
    """A shuffle proof does not verify."""


class NoCard(MentalError):
    """A fully decrypted value is no card of the deck."""


def _frame(tag: str, parts: Iterable[bytes]) -> bytes:
    out = bytearray()
    t = (TAG_PREFIX + tag).encode("ascii")
    out += struct.pack(">I", len(t)) + t
    for part in parts:
        out += struct.pack(">I", len(part)) + part
    return bytes(out)


def h(tag: str, *parts: bytes) -> bytes:
    """SHA-256 over the tag and the parts, each prefixed by its u32 length."""
    return hashlib.sha256(_frame(tag, parts)).digest()


def u32(i: int) -> bytes:
    return struct.pack(">I", i)


def scalar_from(tag: str, *parts: bytes) -> int:
    """A scalar in [1, n-1] from SHA-512 of the framed parts (bias < 2^-255)."""
    digest = hashlib.sha512(_frame(tag, parts)).digest()
    return int.from_bytes(digest, "big") % (N - 1) + 1


def permutation_from(seed: bytes, label: str, size: int) -> list[int]:
    """A permutation of range(size): Fisher-Yates driven by one SHAKE-256 stream,
    16 bytes (bias < 2^-120) per swap.

    Convention everywhere: a deck shuffled by ``perm`` has at position j the
    card that was at position ``perm[j]``.
    """
    perm = list(range(size))
    if size < 2:
        return perm
    stream = hashlib.shake_256(_frame("perm", (seed, label.encode("ascii"), u32(size)))).digest(
        16 * (size - 1))
    for step, i in enumerate(range(size - 1, 0, -1)):
        j = int.from_bytes(stream[16 * step:16 * step + 16], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def invert_permutation(perm: Sequence[int]) -> list[int]:
    inv = [0] * len(perm)
    for j, p in enumerate(perm):
        inv[p] = j
    return inv


def inverse(k: int) -> int:
    return pow(k, -1, N)


def scalar_to_bytes(k: int) -> bytes:
    return k.to_bytes(SCALAR_LEN, "big")


def scalar_from_bytes(b: object, what: str = "key") -> int:
    """A scalar from its 32-byte big-endian form; it must lie in [1, n-1]."""
    if not isinstance(b, bytes) or len(b) != SCALAR_LEN:
        raise BadMessage(f"{what} must be {SCALAR_LEN} bytes, got {_describe(b)}")
    k = int.from_bytes(b, "big")
    if not 1 <= k < N:
        raise BadMessage(f"{what} is not a scalar in [1, n-1] of P-256")
    return k


def _describe(obj: object) -> str:
    if isinstance(obj, (bytes, bytearray)):
        return f"{len(obj)} bytes"
    return type(obj).__name__


@functools.lru_cache(maxsize=8192)
def _load(x: bytes) -> ec.EllipticCurvePublicKey:
    # A value is validated once and then reused as input of many multiplications
    # (one deck is the input of a shuffle, its proof rounds and their checks).
    return ec.EllipticCurvePublicKey.from_encoded_point(CURVE, b"\x02" + x)


def load(x: object, what: str = "value") -> ec.EllipticCurvePublicKey:
    """The point of a value, or BadMessage if it is not an x-coordinate on P-256."""
    if not isinstance(x, bytes) or len(x) != VALUE_LEN:
        raise BadMessage(f"{what} must be {VALUE_LEN} bytes, got {_describe(x)}")
    if int.from_bytes(x, "big") >= P:
        raise BadMessage(f"{what} is not below the field prime of P-256")
    try:
        return _load(x)
    except ValueError:
        raise BadMessage(f"{what} is not the x-coordinate of a point on P-256") from None


def is_value(x: bytes) -> bool:
    try:
        load(x)
    except BadMessage:
        return False
    return True


def _private(k: int) -> ec.EllipticCurvePrivateKey:
    if not isinstance(k, int) or not 1 <= k < N:
        raise MentalError("a key must be an int in [1, n-1]")
    return ec.derive_private_key(k, CURVE)


def encrypt(k: int, x: bytes) -> bytes:
    """E_k(x) for one value."""
    return _private(k).exchange(_ECDH, load(x))


def encrypt_all(k: int, xs: Sequence[bytes]) -> list[bytes]:
    """E_k of every value, in order (one key object for all)."""
    return shuffle_values(k, range(len(xs)), xs)


def points(xs: Sequence[bytes], what: str = "deck") -> list[ec.EllipticCurvePublicKey]:
    """Validate and load every value of a deck once, for many multiplications."""
    return [load(x, f"{what} value {j}") for j, x in enumerate(xs)]


def shuffle_points(k: int, perm: Iterable[int], pts: Sequence[ec.EllipticCurvePublicKey]) -> list[bytes]:
    """out[j] = E_k(pts[perm[j]]) over preloaded points."""
    exchange = _private(k).exchange
    return [exchange(_ECDH, pts[p]) for p in perm]


def shuffle_values(k: int, perm: Iterable[int], xs: Sequence[bytes]) -> list[bytes]:
    """Encrypt with k and permute: out[j] = E_k(xs[perm[j]])."""
    return shuffle_points(k, perm, points(xs))


def strip(x: bytes, keys: Iterable[int]) -> bytes:
    """Remove every key in ``keys`` from x: E with the inverse of their product."""
    product = 1
    for k in keys:
        if not isinstance(k, int) or not 1 <= k < N:
            raise MentalError("a key must be an int in [1, n-1]")
        product = product * k % N
    return encrypt(inverse(product), x)


def deck_bytes(xs: Sequence[bytes]) -> bytes:
    return b"".join(xs)


def deck_hash(xs: Sequence[bytes]) -> bytes:
    """H("deck", concatenation of the values): names a deck in proofs and commitments."""
    return h("deck", b"".join(xs))


def split_values(blob: object, count: int, what: str = "deck", on_curve: bool = True) -> list[bytes]:
    """Untrusted concatenated values -> list, checking length, range, that no
    value appears twice (two equal values in a deck can only come from a
    duplicated card) and, unless ``on_curve`` is False, curve membership
    (a square root each: skipped for decks the caller never multiplies)."""
    if not isinstance(blob, bytes):
        raise BadMessage(f"{what} must be bytes, got {_describe(blob)}")
    if len(blob) != count * VALUE_LEN:
        raise BadMessage(f"{what} must hold {count} values of {VALUE_LEN} bytes "
                         f"({count * VALUE_LEN} bytes), got {len(blob)} bytes")
    xs = [blob[i:i + VALUE_LEN] for i in range(0, len(blob), VALUE_LEN)]
    seen: dict[bytes, int] = {}
    for j, x in enumerate(xs):
        if on_curve:
            load(x, f"{what} value {j}")
        elif int.from_bytes(x, "big") >= P:
            raise BadMessage(f"{what} value {j} is not below the field prime of P-256")
        if x in seen:
            raise BadMessage(f"{what} holds the same value at positions {seen[x]} and {j}")
        seen[x] = j
    return xs


def clear_caches() -> None:
    """Forget validated points (benchmarks: charge every seat its own loads)."""
    _load.cache_clear()
