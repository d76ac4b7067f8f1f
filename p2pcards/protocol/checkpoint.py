"""A seat's checkpoint: its table machine and card knowledge as they stood
after one entry of its log, so that coming back to a game replays only the
entries after it instead of the whole match.

It is bound to that entry's hash (the hash chain then fixes every entry
before it), to the seat, the table and this very code, and it carries a MAC
under a key derived from the seat's private key. A checkpoint that fails any
of these, or cannot be read at all, is ignored and the log is replayed from
its start: a checkpoint can make resuming faster, never different.

The snapshot is a pickle, read only after its MAC has been checked, and then
with an unpickler that builds plain data and the few classes of an explicit
allow-list (the table machine, the seat and what they hold), looked up in a
table, never resolved by name: no function, module or other class can be
reached through it, whatever the bytes say. The file is private (0600) like the state file: it holds the seat's
deal secrets and the cards it has seen.

    MAGIC | u32 header length | header (msgpack) | snapshot (pickle) | MAC (32 bytes)
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import io
import os
import pickle
import struct
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgpack

from p2pcards.games import get_game
from p2pcards.games.base import Game, Match
from p2pcards.games.bura import BuraState
from p2pcards.games.canasta import CanastaState, Meld
from p2pcards.games.warkocz import WarkoczState
from p2pcards.protocol.knowledge import KeyBook
from p2pcards.protocol.log import Player, TableInfo
from p2pcards.protocol.machine import DealRecord, Expect, Pause, Silence, TableMachine
from p2pcards.protocol.seat import Seat
from p2pcards.protocol.violation import Violation

MAGIC = b"p2pcards checkpoint\n"
VERSION = 1
MAX_CHECKPOINT_SIZE = 64 << 20
_LEN = struct.Struct(">I")
_MAC_LEN = 32
# Everything a snapshot may name: the classes a table machine and a seat are
# made of (a new one there must be added here, or its checkpoints are not used:
# tests/test_checkpoint.py resumes every game from checkpoints) and plain containers.
_SNAPSHOT_CLASSES = (TableMachine, DealRecord, Expect, Pause, Silence, Violation, TableInfo, Player, Seat, KeyBook,
                     Match, BuraState, CanastaState, Meld, WarkoczState,
                     set, frozenset, dict, list, tuple, bytearray, collections.OrderedDict,
                     collections.defaultdict, collections.Counter, collections.deque)
_ALLOWED = {(cls.__module__, cls.__qualname__): cls for cls in _SNAPSHOT_CLASSES}

class CheckpointError(ValueError):
    """The checkpoint does not fit this log, seat or code (why, for the log)."""


def checkpoint_path(log_path: str | os.PathLike) -> Path:
    return Path(str(log_path) + ".checkpoint")


@lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """A hash of p2pcards' sources: a checkpoint made by other code is not read."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.digest()


def _mac_key(signer) -> bytes:
    from cryptography.hazmat.primitives import serialization

    raw = signer.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                               serialization.NoEncryption())
    return hashlib.sha256(b"p2pcards checkpoint MAC v1\0" + raw).digest()


class _Pickler(pickle.Pickler):
    """The rules engine is named by its game, not copied."""

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Game):
            return ("game", obj.id)
        return None


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED[(module, name)]  # a table, not an import: "p2pcards.files" "os.system" finds nothing
        except (KeyError, TypeError):
            raise pickle.UnpicklingError(f"a checkpoint cannot hold {module!r}.{name!r}") from None

    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "game" and isinstance(pid[1], str):
            return get_game(pid[1])
        raise pickle.UnpicklingError("a checkpoint names an unknown object")


def make(machine, seat, signer) -> bytes:
    """A checkpoint of ``machine`` and ``seat`` (the protocol's ``Seat``) as
    they stand now, after entry ``machine.seq - 1``."""
    entry = machine.seq - 1
    header = msgpack.packb({"v": VERSION, "code": code_fingerprint(), "session": machine.table.session,
                            "seat": seat.seat, "entry": entry, "hash": machine.hashes[entry]}, use_bin_type=True)
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump((machine, seat))
    body = MAGIC + _LEN.pack(len(header)) + header + out.getvalue()
    return body + hmac.new(_mac_key(signer), body, hashlib.sha256).digest()


def restore(data: bytes, entries, seat: int, signer) -> tuple[Any, Any]:
    """(machine, seat) from a checkpoint of this seat's log ``entries`` (a
    list, entry 0 first), or CheckpointError saying why it does not fit."""
    if not isinstance(data, (bytes, bytearray)) or len(data) > MAX_CHECKPOINT_SIZE:
        raise CheckpointError("not a checkpoint")
    body, mac = bytes(data[:-_MAC_LEN]), bytes(data[-_MAC_LEN:])
    if not body.startswith(MAGIC) or len(data) < len(MAGIC) + _LEN.size + _MAC_LEN:
        raise CheckpointError("not a checkpoint")
    if not hmac.compare_digest(mac, hmac.new(_mac_key(signer), body, hashlib.sha256).digest()):
        raise CheckpointError("not made by this seat's key, or changed since")
    start = len(MAGIC) + _LEN.size
    (length,) = _LEN.unpack_from(body, len(MAGIC))
    try:
        header = msgpack.unpackb(body[start:start + length], raw=False)
    except Exception:  # msgpack raises many types on garbage
        raise CheckpointError("a damaged header") from None
    if not isinstance(header, dict) or header.get("v") != VERSION:
        raise CheckpointError("another version of checkpoint")
    if header.get("code") != code_fingerprint():
        raise CheckpointError("made by another version of p2pcards")
    index = header.get("entry")
    if header.get("seat") != seat or type(index) is not int or not 0 < index < len(entries):
        raise CheckpointError("for another seat, or past the end of the log")
    if header.get("session") != TableInfo.from_payload(entries[0].payload).session or header.get("hash") != entries[index].hash:
        raise CheckpointError(f"entry {index} of the log is not the one it was made at")
    try:
        machine, me = _Unpickler(io.BytesIO(body[start + length:])).load()
    except Exception as exc:  # whatever a damaged pickle raises
        raise CheckpointError(f"a damaged snapshot ({type(exc).__name__})") from None
    if (not isinstance(machine, TableMachine) or not isinstance(me, Seat) or machine.seq != index + 1
            or machine.hashes.get(index) != entries[index].hash or me.seat != seat):
        raise CheckpointError("the snapshot is not of that entry")
    machine.skip_proof = None  # this seat's own last entry, when the snapshot was made: in the log now
    return machine, me
