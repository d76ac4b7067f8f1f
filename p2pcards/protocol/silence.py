"""Silence attestations (protocol version 2, ``protocol/table.md`` §6).

Silence leaves nothing signed by the silent seat, so it can never be proved,
only attested: a peer whose own clock ran out for seat c at place k, holding
nothing of c for that place, signs "c kept me waiting at k, after the entry
with hash h". A silence abort carries the attestations it rests on; it convicts
only when a strict majority of all seats attests it.

An attestation on the wire and in an abort is the msgpack array
``[attester, accused, place, head, kind, signature]``; the signature is
Ed25519 over ``TAG || msgpack([session, attester, accused, place, head, kind])``
(``p2pcards.protocol.signed``), so it binds the table and can never be taken
for a log body (log.md §1) or an acknowledgement.
"""

from __future__ import annotations

import dataclasses

from p2pcards.protocol import signed
from p2pcards.protocol.log import HASH_SIZE, TableInfo

TAG = b"p2pcards/silence/v2\x00"
SILENCE_KINDS = ("timeout", "silent", "left")
MAX_RAW = 160  # an attestation is about 115 bytes
MAX_PLACE = 10**7

AttestationError = signed.StatementError  # not a valid attestation for this table


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
    return signed.statement(TAG, session, [attester, accused, place, head, kind])


def attest(signer, table: TableInfo, attester: int, accused: int, place: int, head: bytes, kind: str) -> Attestation:
    """This seat's signed attestation."""
    raw = signed.sign(signer, TAG, table.session, [attester, accused, place, head, kind])
    return Attestation(attester, accused, place, head, kind, raw)


def parse(raw, table: TableInfo) -> Attestation:
    """Check one attestation (types, lengths, signature); AttestationError if bad."""
    attester, accused, place, head, kind, signature = signed.unpack(raw, 5, MAX_RAW)
    if not (signed.is_seat(attester, table) and signed.is_seat(accused, table)):
        raise AttestationError("attester and accused must be seats of this table")
    if attester == accused:
        raise AttestationError("a seat cannot attest its own silence")
    if not (type(place) is int and 1 <= place < MAX_PLACE):
        raise AttestationError("bad place")
    if not (isinstance(head, bytes) and len(head) == HASH_SIZE):
        raise AttestationError("the head must be a 32-byte hash")
    if kind not in SILENCE_KINDS:
        raise AttestationError(f"unknown kind of silence {kind!r}")
    signed.verify(table, attester, TAG, [attester, accused, place, head, kind], signature)
    return Attestation(attester, accused, place, head, kind, raw)


def majority(attesters, players: int) -> bool:
    """A strict majority of all seats (the accused counts among them)."""
    return 2 * len(set(attesters)) > players
