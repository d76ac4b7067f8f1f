"""Silence attestations (protocol version 2, ``protocol/table.md`` §6).

Silence leaves nothing signed by the silent seat, so it can never be proved,
only attested: a peer whose own clock ran out for seat c at place k, holding
nothing of c for that place, signs "c kept me waiting at k, after the entry
with hash h". A silence abort carries the attestations it rests on; it convicts
only when a strict majority of all seats attests it.

An attestation on the wire and in an abort is the msgpack array
``[attester, accused, place, head, kind, signature]``; the signature is
Ed25519 over ``TAG || msgpack([session, attester, accused, place, head, kind])``,
so it binds the table and can never be taken for a log body (log.md §1).
"""

from __future__ import annotations

import dataclasses

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2pcards.protocol.log import HASH_SIZE, SIG_SIZE, TableInfo

TAG = b"p2pcards/silence/v2\x00"
SILENCE_KINDS = ("timeout", "silent", "left")
MAX_RAW = 160  # an attestation is about 115 bytes
MAX_PLACE = 10**7


class AttestationError(ValueError):
    """Not a valid attestation for this table."""


@dataclasses.dataclass(frozen=True)
class Attestation:
    attester: int
    accused: int
    place: int
    head: bytes
    kind: str
    raw: bytes

    @property
    def about(self) -> tuple[int, int, bytes]:
        """What it attests: (accused, place, head); the kind of silence may
        differ between peers (one saw the connection break, one did not)."""
        return (self.accused, self.place, self.head)


def statement(session: bytes, attester: int, accused: int, place: int, head: bytes, kind: str) -> bytes:
    return TAG + msgpack.packb([session, attester, accused, place, head, kind], use_bin_type=True)


def attest(signer, table: TableInfo, attester: int, accused: int, place: int, head: bytes, kind: str) -> Attestation:
    """This seat's signed attestation."""
    signature = signer.sign(statement(table.session, attester, accused, place, head, kind))
    raw = msgpack.packb([attester, accused, place, head, kind, signature], use_bin_type=True)
    return Attestation(attester, accused, place, head, kind, raw)


def _is_int(value) -> bool:
    return type(value) is int


def parse(raw, table: TableInfo) -> Attestation:
    """Check one attestation (types, lengths, signature); AttestationError if bad."""
    if not isinstance(raw, bytes) or len(raw) > MAX_RAW:
        raise AttestationError("an attestation must be bytes, at most %d" % MAX_RAW)
    try:
        value = msgpack.unpackb(raw, raw=False, strict_map_key=True, max_bin_len=MAX_RAW, max_str_len=MAX_RAW,
                                max_array_len=6, max_map_len=0, max_ext_len=0)
    except Exception as exc:  # hostile bytes raise many types; all mean "malformed"
        raise AttestationError(f"not msgpack ({type(exc).__name__})") from None
    if not (isinstance(value, list) and len(value) == 6):
        raise AttestationError("an attestation is a list of six fields")
    attester, accused, place, head, kind, signature = value
    players = len(table.players)
    if not (_is_int(attester) and _is_int(accused) and 0 <= attester < players and 0 <= accused < players):
        raise AttestationError("attester and accused must be seats of this table")
    if attester == accused:
        raise AttestationError("a seat cannot attest its own silence")
    if not (_is_int(place) and 1 <= place < MAX_PLACE):
        raise AttestationError("bad place")
    if not (isinstance(head, bytes) and len(head) == HASH_SIZE):
        raise AttestationError("the head must be a 32-byte hash")
    if kind not in SILENCE_KINDS:
        raise AttestationError(f"unknown kind of silence {kind!r}")
    if not (isinstance(signature, bytes) and len(signature) == SIG_SIZE):
        raise AttestationError("the signature must be 64 bytes")
    try:
        key = Ed25519PublicKey.from_public_bytes(table.players[attester].key)
        key.verify(signature, statement(table.session, attester, accused, place, head, kind))
    except (InvalidSignature, ValueError):
        raise AttestationError(f"seat {attester}'s signature does not verify for this table") from None
    return Attestation(attester, accused, place, head, kind, raw)


def majority(attesters, players: int) -> bool:
    """A strict majority of all seats (the accused counts among them)."""
    return 2 * len(set(attesters)) > players
