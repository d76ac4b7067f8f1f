"""Statements a seat signs outside the log (protocol/table.md §5–§6):
silence attestations and acknowledgements. Each is the msgpack array of its
fields followed by the signer's Ed25519 signature over
``TAG || 0x00 || msgpack([session, fields...])``: the tag keeps one kind of
statement from passing for another (or for a log body, log.md §1), the
session binds it to one table. Both are self-authenticating, so any peer may
relay them (§5): they are taken for their signer, never for the link they
came over."""

from __future__ import annotations

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2pcards.protocol.log import SIG_SIZE, TableInfo


class StatementError(ValueError):
    """Not a valid signed statement for this table."""


def statement(tag: bytes, session: bytes, fields: list) -> bytes:
    """The bytes signed: the domain tag, then the session and the fields."""
    return tag + msgpack.packb([session, *fields], use_bin_type=True)


def sign(signer, tag: bytes, session: bytes, fields: list) -> bytes:
    """The statement on the wire: ``msgpack([*fields, signature])``."""
    signature = signer.sign(statement(tag, session, fields))
    return msgpack.packb([*fields, signature], use_bin_type=True)


def unpack(raw, count: int, max_raw: int) -> list:
    """The ``count`` fields of a statement and its signature (not verified yet)."""
    if not isinstance(raw, bytes) or len(raw) > max_raw:
        raise StatementError("a signed statement must be bytes, at most %d" % max_raw)
    try:
        value = msgpack.unpackb(raw, raw=False, strict_map_key=True, max_bin_len=max_raw, max_str_len=max_raw,
                                max_array_len=count + 1, max_map_len=0, max_ext_len=0)
    except Exception as exc:  # hostile bytes raise many types; all mean "malformed"
        raise StatementError(f"not msgpack ({type(exc).__name__})") from None
    if not (isinstance(value, list) and len(value) == count + 1):
        raise StatementError(f"a signed statement is a list of {count + 1} fields")
    if not (isinstance(value[-1], bytes) and len(value[-1]) == SIG_SIZE):
        raise StatementError("the signature must be 64 bytes")
    return value


def is_seat(value, table: TableInfo) -> bool:
    return type(value) is int and 0 <= value < len(table.players)


def verify(table: TableInfo, seat: int, tag: bytes, fields: list, signature: bytes) -> None:
    """StatementError unless ``seat`` signed these fields for this table."""
    try:
        key = Ed25519PublicKey.from_public_bytes(table.players[seat].key)
        key.verify(signature, statement(tag, table.session, fields))
    except (InvalidSignature, ValueError):
        raise StatementError(f"seat {seat}'s signature does not verify for this table") from None
