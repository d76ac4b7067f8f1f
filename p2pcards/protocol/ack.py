"""Signed acknowledgements (protocol version 3, ``protocol/table.md`` §5).

"Seat a took entry ``seq``, whose hash is ``hash``, into its log" — signed
by a, so that any peer can relay it and everybody takes it for a, whatever
link it came over. On the wire it is the msgpack array
``[acker, seq, hash, signature]``; the signature is Ed25519 over
``"p2pcards/ack/v3" || 0x00 || msgpack([session, acker, seq, hash])``.
An acknowledgement never expires (what it says stays true), so a replayed one
is harmless: it names its entry by hash, and counts for nothing else.
"""

from __future__ import annotations

import dataclasses

from p2pcards.protocol import signed
from p2pcards.protocol.log import HASH_SIZE, TableInfo

TAG = b"p2pcards/ack/v3\x00"
MAX_RAW = 128  # an acknowledgement is about 110 bytes
MAX_PLACE = 10**7

AckError = signed.StatementError


@dataclasses.dataclass(frozen=True)
class Ack:
    acker: int
    seq: int
    hash: bytes
    raw: bytes


def statement(session: bytes, acker: int, seq: int, digest: bytes) -> bytes:
    return signed.statement(TAG, session, [acker, seq, digest])


def make(signer, table: TableInfo, acker: int, seq: int, digest: bytes) -> Ack:
    """This seat's signed acknowledgement of entry ``seq`` with hash ``digest``."""
    return Ack(acker, seq, digest, signed.sign(signer, TAG, table.session, [acker, seq, digest]))


def parse(raw, table: TableInfo) -> Ack:
    """Check one acknowledgement (types, lengths, signature); AckError if bad."""
    acker, seq, digest, signature = signed.unpack(raw, 3, MAX_RAW)
    if not signed.is_seat(acker, table):
        raise AckError("the acker must be a seat of this table")
    if not (type(seq) is int and 1 <= seq < MAX_PLACE):
        raise AckError("bad place")
    if not (isinstance(digest, bytes) and len(digest) == HASH_SIZE):
        raise AckError("the hash must be 32 bytes")
    signed.verify(table, acker, TAG, [acker, seq, digest], signature)
    return Ack(acker, seq, digest, raw)
