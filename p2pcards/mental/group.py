"""The group of the dealing: secp256k1 through libsecp256k1 (``coincurve``).

A *point* travels as its 33-byte SEC1 compressed encoding; only the canonical
encoding of a point other than the identity is accepted (coincurve cannot
even represent the identity). A *scalar* travels as 32 bytes big-endian in
[1, n-1]. The cipher is ``E_k(X) = k*X``: ``E_a(E_b(X)) == E_ab(X)`` and
``E_{k^-1 mod n}`` undoes ``E_k``. No curve arithmetic is written here: every
multiplication and addition is one libsecp256k1 call.

Also here: the hash framing every other module uses, scalars from hashes,
permutations from seeds and hashing to the group (all specified in
``protocol/dealing.md``).
"""

from __future__ import annotations

import functools
import hashlib
import struct
from typing import Iterable, Sequence

from coincurve import PublicKey
# coincurve's own binding of libsecp256k1 (what PublicKey.multiply calls),
# used directly for the one call that dominates a deal's cost: it spares a
# range check and a conversion per multiplication that ``mul`` has done.
from coincurve._libsecp256k1 import ffi as _ffi, lib as _lib
from coincurve.context import GLOBAL_CONTEXT as _CONTEXT

from p2pcards.i18n import N_

# secp256k1: field prime and group order.
P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

POINT_LEN = 33
SCALAR_LEN = 32
SEED_LEN = 32
HASH_LEN = 32
TAG_PREFIX = "p2pcards/mental/v2/"

Point = PublicKey


class MentalError(ValueError):
    """Anything wrong in the dealing cryptography or its messages."""


class BadMessage(MentalError):
    """A message (or a value in it) is malformed: wrong type, length, count,
    range, or bytes that are not the canonical encoding of a point."""


class BadProof(MentalError):
    """A shuffle or re-key proof does not verify."""


class NoCard(MentalError):
    """A fully decrypted value is no card of the deck."""


# ----- hashing --------------------------------------------------------------------------

def frame(tag: str, parts: Iterable[bytes]) -> bytes:
    out = bytearray()
    t = (TAG_PREFIX + tag).encode("ascii")
    out += struct.pack(">I", len(t)) + t
    for part in parts:
        out += struct.pack(">I", len(part)) + part
    return bytes(out)


def h(tag: str, *parts: bytes) -> bytes:
    """SHA-256 over the tag and the parts, each prefixed by its u32 length."""
    return hashlib.sha256(frame(tag, parts)).digest()


def u32(i: int) -> bytes:
    return struct.pack(">I", i)


def scalar_from(tag: str, *parts: bytes) -> int:
    """A scalar in [1, n-1] from SHA-512 of the framed parts (bias < 2^-255)."""
    digest = hashlib.sha512(frame(tag, parts)).digest()
    return int.from_bytes(digest, "big") % (N - 1) + 1


_INDEX_LEN = struct.pack(">I", 4)


def scalars_from(tag: str, parts: Sequence[bytes], indices: Iterable[int]) -> list[int]:
    """``[scalar_from(tag, *parts, u32(i)) for i in indices]``, hashing the
    common prefix once (a proof draws one scalar per card this way)."""
    prefix = hashlib.sha512(frame(tag, parts))
    out = []
    for i in indices:
        digest = prefix.copy()
        digest.update(_INDEX_LEN + struct.pack(">I", i))
        out.append(int.from_bytes(digest.digest(), "big") % (N - 1) + 1)
    return out


def challenge_scalar(digest: bytes) -> int:
    """The main challenge of a proof: its 256-bit hash read mod n."""
    return int.from_bytes(digest, "big") % N


def permutation_from(seed: bytes, label: str, size: int) -> list[int]:
    """A permutation of range(size): Fisher-Yates driven by one SHAKE-256 stream,
    16 bytes (bias < 2^-120) per swap.

    Convention everywhere: a deck shuffled by ``perm`` has at position j the
    card that was at position ``perm[j]``.
    """
    perm = list(range(size))
    if size < 2:
        return perm
    stream = hashlib.shake_256(frame("perm", (seed, label.encode("ascii"), u32(size)))).digest(
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


# ----- scalars --------------------------------------------------------------------------

def inverse(k: int) -> int:
    return pow(k, -1, N)


def scalar_to_bytes(k: int) -> bytes:
    return k.to_bytes(SCALAR_LEN, "big")


def scalar_from_bytes(b: object, what: str = "key") -> int:
    """A scalar from its 32-byte big-endian form; it must lie in [1, n-1]."""
    if not isinstance(b, bytes) or len(b) != SCALAR_LEN:
        raise BadMessage(N_("{what} must be {n} bytes, got {got}", what=what, n=SCALAR_LEN, got=_describe(b)))
    k = int.from_bytes(b, "big")
    if not 1 <= k < N:
        raise BadMessage(N_("{what} is not a scalar in [1, n-1] of secp256k1", what=what))
    return k


def _describe(obj: object) -> str:
    if isinstance(obj, (bytes, bytearray)):
        return f"{len(obj)} bytes"
    return type(obj).__name__


def _check_key(k: int) -> bytes:
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k < N:
        raise MentalError("a key must be an int in [1, n-1]")
    return scalar_to_bytes(k)


# ----- points ---------------------------------------------------------------------------

# Encoding -> point, for every point this process parsed or computed: a deck
# is the output of one step, the input of the next and of both proofs'
# checks, and a seat's own entry comes back to it to be taken in. A plain
# dict (its operations are atomic for the pipelining thread), emptied when full.
_POINTS: dict[bytes, PublicKey] = {}
_POINTS_MAX = 16384
_TWEAK_MUL, _PARSE, _NEW, _CTX = (_lib.secp256k1_ec_pubkey_tweak_mul, _lib.secp256k1_ec_pubkey_parse, _ffi.new,
                                  _CONTEXT.ctx)


def _parse(b: bytes) -> PublicKey | None:
    """The point of 33 bytes, or None if they are not the canonical compressed
    encoding of a point. libsecp256k1 refuses an x-coordinate >= p and an x
    off the curve, so a compressed encoding it parses is the canonical one
    (tests/test_mental_group.py holds the non-canonical ones)."""
    point = _POINTS.get(b)
    if point is not None:
        return point
    if b[0] not in (2, 3):
        return None
    out = _NEW("secp256k1_pubkey *")
    if not _PARSE(_CTX, out, b, POINT_LEN):
        return None
    point = PublicKey(out)
    _remember(b, point)
    return point


def _remember(b: bytes, point: PublicKey) -> None:
    if len(_POINTS) >= _POINTS_MAX:
        _POINTS.clear()
    _POINTS[b] = point


def encodings(pts: Iterable[PublicKey]) -> list[bytes]:
    """The compressed encodings of points this process computed, remembered
    so that reading them back (one's own entry taken in) parses nothing."""
    out = []
    for point in pts:
        b = point.format()
        _remember(b, point)
        out.append(b)
    return out


def load(b: object, what: str = "value") -> PublicKey:
    """The point of a canonical 33-byte compressed encoding, or BadMessage."""
    if not isinstance(b, bytes) or len(b) != POINT_LEN:
        raise BadMessage(N_("{what} must be {n} bytes, got {got}", what=what, n=POINT_LEN, got=_describe(b)))
    point = _parse(b)
    if point is None:
        raise BadMessage(N_("{what} is not the compressed encoding of a point of secp256k1", what=what))
    return point


def is_point(b: bytes) -> bool:
    try:
        load(b)
    except BadMessage:
        return False
    return True


def points(xs: Sequence[bytes], what: str = "deck") -> list[PublicKey]:
    """Validate and load every value of a deck once, for many multiplications."""
    return [load(x, f"{what} value {j}") for j, x in enumerate(xs)]


def mul(point: PublicKey, k: int) -> PublicKey:
    """k*X (k in [1, n-1]; the group has prime order, so never the identity)."""
    return _tweak_mul(point, scalar_to_bytes(k))




def _tweak_mul(point: PublicKey, k: bytes) -> PublicKey:
    """k*X for 32 bytes k already known to be in [1, n-1]: libsecp256k1's
    public-key tweak multiplication, as PublicKey.multiply."""
    out = _NEW("secp256k1_pubkey *", point.public_key[0])
    if not _TWEAK_MUL(_CTX, out, k):
        raise MentalError("a multiplication failed")  # only for k out of range: a bug here
    return PublicKey(out)


def base_mul(k: int) -> PublicKey:
    """k*G."""
    return PublicKey.from_valid_secret(scalar_to_bytes(k))


_SERIALIZE, _CREATE, _COMPRESSED = (_lib.secp256k1_ec_pubkey_serialize, _lib.secp256k1_ec_pubkey_create,
                                     _lib.SECP256K1_EC_COMPRESSED)


def products(scalars: Iterable[int], pts: Iterable[PublicKey] | None = None) -> list[bytes]:
    """The encodings of k_i*X_i, or of k_i*G without ``pts`` (each k_i in
    [1, n-1]): what an audit recomputes from revealed seeds, a deck at a
    time, without a Python object per point (one buffer, libsecp256k1's own
    calls)."""
    out, encoded, size = _NEW("secp256k1_pubkey *"), _NEW("unsigned char[33]"), _NEW("size_t *")
    buffer, move, result = _ffi.buffer(encoded), _ffi.memmove, []
    for k, point in zip(scalars, pts) if pts is not None else ((k, None) for k in scalars):
        if not 1 <= k < N:
            raise MentalError("a key must be an int in [1, n-1]")
        if point is None:
            done = _CREATE(_CTX, out, k.to_bytes(SCALAR_LEN, "big"))
        else:
            move(out, point.public_key, 64)
            done = _TWEAK_MUL(_CTX, out, k.to_bytes(SCALAR_LEN, "big"))
        if not done:
            raise MentalError("a multiplication failed")  # only for k out of range: a bug here
        size[0] = POINT_LEN
        _SERIALIZE(_CTX, encoded, size, out, _COMPRESSED)
        result.append(buffer[:])
    return result


def raw_points(xs: Sequence[bytes]):
    """The points of ``xs`` as one array of libsecp256k1's own structures (for
    ``raw_products``), or None if one is not a canonical encoding."""
    out = _NEW("secp256k1_pubkey[]", len(xs))
    move = _ffi.memmove
    for j, x in enumerate(xs):
        point = _POINTS.get(x)
        if point is not None:
            move(out + j, point.public_key, 64)
        elif not (isinstance(x, bytes) and len(x) == POINT_LEN and x[0] in (2, 3) and _PARSE(_CTX, out + j, x, POINT_LEN)):
            return None
    return out


def raw_products(scalars: Sequence[int], raw, order: Sequence[int] | None = None) -> tuple[list[bytes], object]:
    """The encodings of k_j*X_order[j] (X_j without ``order``) for X a
    ``raw_points`` array and each k_j in [1, n-1], and those products as such
    an array: a deck's layer recomputed, ready to be the next one's input
    without parsing it back (the audit's recomputation of a deal)."""
    count = len(scalars)
    out, encoded, size = _NEW("secp256k1_pubkey[]", count), _NEW("unsigned char[33]"), _NEW("size_t *")
    buffer, move, result = _ffi.buffer(encoded), _ffi.memmove, []
    for j, k in enumerate(scalars):
        if not 1 <= k < N:
            raise MentalError("a key must be an int in [1, n-1]")
        target = out + j
        move(target, raw + (order[j] if order is not None else j), 64)
        if not _TWEAK_MUL(_CTX, target, k.to_bytes(SCALAR_LEN, "big")):
            raise MentalError("a multiplication failed")  # only for k out of range: a bug here
        size[0] = POINT_LEN
        _SERIALIZE(_CTX, encoded, size, target, _COMPRESSED)
        result.append(buffer[:])
    return result, out


def add(pts: Sequence[PublicKey]) -> PublicKey:
    """The sum of the points; MentalError if it is the identity."""
    if len(pts) == 1:
        return pts[0]
    try:
        return PublicKey.combine_keys(list(pts))
    except ValueError:
        raise MentalError("a sum of points is the identity") from None


def public_mul_add_base(x: bytes, a: int, b: int = 0) -> PublicKey:
    """a*X + b*G for a point X given by its canonical encoding ``x``, in one
    double multiplication of libsecp256k1 (``secp256k1_ecmult``: shared
    doublings, G from its precomputed table) instead of a multiplication, a
    fixed-base one and an addition. Its running time depends on a and b: for
    checking proofs, whose values are all public.

    libsecp256k1 exposes that double multiplication only as ECDSA public-key
    recovery, Q = r^-1 * (s*R - z*G) with R the point of x-coordinate r (plus
    n if recid bit 1) and y-parity recid bit 0. With R = X, s = a*r and
    z = -b*r, Q = a*X + b*G exactly. MentalError if it is the identity."""
    a %= N
    r, recid = int.from_bytes(x[1:], "big"), x[0] & 1
    if r >= N:  # an x-coordinate in [n, p): about 2^-128 of all points
        r, recid = r - N, recid | 2
    if not a or not r:  # not expressible as a recovery: the generic way
        return lincomb([a], [load(x)], b)
    signature = scalar_to_bytes(r) + scalar_to_bytes(a * r % N) + bytes([recid])
    try:
        return PublicKey.from_signature_and_message(signature, scalar_to_bytes(-b * r % N), hasher=None)
    except ValueError:  # the result is the identity: the generic way says so
        return lincomb([a], [load(x)], b)


def lincomb(scalars: Sequence[int], pts: Sequence[PublicKey], base: int = 0) -> PublicKey:
    """base*G + sum(s_i * X_i) (scalars mod n; zero terms left out). MentalError
    if it is the identity. (libsecp256k1's fixed-base multiplication plus an
    addition is cheaper than its X + k*G tweak.)"""
    terms = [_tweak_mul(p, (s % N).to_bytes(SCALAR_LEN, "big")) for s, p in zip(scalars, pts) if s % N]
    if base % N:
        terms.append(base_mul(base % N))
    if not terms:
        raise MentalError("a linear combination is the identity")
    return add(terms)


def encrypt(k: int, x: bytes) -> bytes:
    """E_k(x) for one value."""
    return load(x).multiply(_check_key(k)).format()


def encrypt_all(k: int, xs: Sequence[bytes]) -> list[bytes]:
    """E_k of every value, in order."""
    return shuffle_values(k, range(len(xs)), xs)


def shuffle_points(k: int, perm: Iterable[int], pts: Sequence[PublicKey]) -> list[PublicKey]:
    """out[j] = k * pts[perm[j]]."""
    kb = _check_key(k)
    return [_tweak_mul(pts[p], kb) for p in perm]


def shuffle_values(k: int, perm: Iterable[int], xs: Sequence[bytes]) -> list[bytes]:
    """Encrypt with k and permute: out[j] = E_k(xs[perm[j]])."""
    return [p.format() for p in shuffle_points(k, perm, points(xs))]


def strip(x: bytes, keys: Iterable[int]) -> bytes:
    """Remove every key in ``keys`` from x: E with the inverse of their product."""
    product = 1
    for k in keys:
        _check_key(k)
        product = product * k % N
    return encrypt(inverse(product), x)


def deck_bytes(xs: Sequence[bytes]) -> bytes:
    return b"".join(xs)


def deck_hash(xs: Sequence[bytes]) -> bytes:
    """H("deck", concatenation of the values): names a deck."""
    return h("deck", b"".join(xs))


def parse_points_last(parse, msg: object, size: int, points: bool):
    """``parse(msg, size, check)`` of a step's message; without ``points``,
    first without parsing its points' encodings (the caller has them checked).
    A fault found then is told as the whole parse tells it: the first fault in
    order is the whole parse's."""
    if not points:
        try:
            return parse(msg, size, False)
        except BadMessage:
            pass
    return parse(msg, size, True)


def split_points(blob: object, count: int, what: str = "deck", distinct: bool = True,
                 check: bool = True) -> list[bytes]:
    """Untrusted concatenated points -> list of their encodings, each checked
    canonical; with ``distinct``, no value may appear twice (two equal values
    in a deck can only come from a duplicated card). Without ``check``, the
    encodings are not parsed (the caller has that done: ``points_valid``) and
    a value twice is refused without saying where."""
    if not check:
        if not isinstance(blob, bytes) or len(blob) != count * POINT_LEN:
            raise BadMessage(N_("{what} must be bytes, got {got}", what=what, got=_describe(blob)))
        xs = [blob[i:i + POINT_LEN] for i in range(0, len(blob), POINT_LEN)]
        if distinct and len(set(xs)) != len(xs):
            raise BadMessage(N_("{what} holds a value twice", what=what))
        return xs
    if not isinstance(blob, bytes):
        raise BadMessage(N_("{what} must be bytes, got {got}", what=what, got=_describe(blob)))
    if len(blob) != count * POINT_LEN:
        raise BadMessage(N_("{what} must hold {count} points of {size} bytes ({total} bytes), got {got} bytes",
                            what=what, count=count, size=POINT_LEN, total=count * POINT_LEN, got=len(blob)))
    xs = [blob[i:i + POINT_LEN] for i in range(0, len(blob), POINT_LEN)]
    bad = next((j for j, x in enumerate(xs) if _parse(x) is None), len(xs))
    if distinct and len(set(xs)) != len(xs):
        seen: dict[bytes, int] = {}
        for j, x in enumerate(xs[:bad]):  # the first fault in order is the one told
            if x in seen:
                raise BadMessage(N_("{what} holds the same value at positions {first} and {second}",
                                    what=what, first=seen[x], second=j))
            seen[x] = j
    if bad < len(xs):
        load(xs[bad], f"{what} value {bad}")  # raises, saying what is wrong with it
    return xs


def points_valid(blobs: Iterable[bytes], known: set[bytes] | frozenset = frozenset()) -> bool:
    """Every 33 bytes of every blob (of a length ``split_points`` accepted) is
    the canonical encoding of a point: the check ``split_points(check=False)``
    left out. Encodings in ``known`` (computed here) need no parsing."""
    out = _NEW("secp256k1_pubkey *")
    for blob in blobs:
        for i in range(0, len(blob), POINT_LEN):
            x = blob[i:i + POINT_LEN]
            if x not in known and x not in _POINTS and not (x[0] in (2, 3) and _PARSE(_CTX, out, x, POINT_LEN)):
                return False
    return True


def split_scalars(blob: object, count: int, what: str) -> list[int]:
    if not isinstance(blob, bytes) or len(blob) != count * SCALAR_LEN:
        raise BadMessage(N_("{what} must be {count} scalars of {size} bytes, got {got}",
                            what=what, count=count, size=SCALAR_LEN, got=_describe(blob)))
    out = [int.from_bytes(blob[i:i + SCALAR_LEN], "big") for i in range(0, len(blob), SCALAR_LEN)]
    for j, k in enumerate(out):
        if not 1 <= k < N:
            scalar_from_bytes(blob[j * SCALAR_LEN:(j + 1) * SCALAR_LEN], f"{what} {j}")  # raises, saying why
    return out


def scalars_bytes(ks: Iterable[int]) -> bytes:
    return b"".join(scalar_to_bytes(k) for k in ks)


def hash_to_point(tag: str, *parts: bytes) -> tuple[bytes, int]:
    """Try-and-increment: the first x = H(tag, parts..., u32(counter)) that is
    the x-coordinate of a point; the point with even y. Nobody knows the
    discrete log of the result. Returns (encoding, counter)."""
    counter = 0
    while True:
        x = h(tag, *parts, u32(counter))
        b = b"\x02" + x
        if int.from_bytes(x, "big") < P and _parse(b) is not None:
            return b, counter
        counter += 1


GENERATORS_TAG = (TAG_PREFIX + "generator").encode("ascii")


@functools.lru_cache(maxsize=None)
def _generator(i: int) -> PublicKey:
    return load(hash_to_point("generator", u32(i))[0])


def generators(count: int) -> list[PublicKey]:
    """h_0 (the base of the commitment chain), h_1..h_count: the shuffle
    argument's commitment generators, ``hash_to_point("generator", u32(i))``.
    (Cached per index: safe when a proof is made and another checked at once.)"""
    return [_generator(i) for i in range(count + 1)]


def clear_caches() -> None:
    """Forget parsed points (tests: start from a cold process)."""
    _POINTS.clear()


def point_cache() -> dict[bytes, PublicKey]:
    return _POINTS


def use_point_cache(cache: dict[bytes, PublicKey]) -> None:
    """Make ``cache`` this process's parsed points (the in-memory deal gives
    each seat its own, as if each were a process)."""
    global _POINTS
    _POINTS = cache
