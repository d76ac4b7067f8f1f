"""The signed, hash-chained game log: entries, the in-memory chain, the file.

The normative description of every byte is ``protocol/log.md``; this module
implements it. In short:

* An entry on the wire and on disk is the msgpack array ``[body, sig]`` where
  ``body`` (bin) is the msgpack of ``[seq, prev_hash, author, kind, payload]``
  and ``sig`` (bin, 64 bytes) is its author's Ed25519 signature over exactly
  those body bytes. The first entry (kind ``"table"``) and the last one (kind
  ``"end"``) are signed by every player: ``sig`` is then an array with one
  signature per seat, in seat order.
* The body bytes are kept as received and never re-encoded: they are what was
  signed and what is hashed. An entry's hash is
  ``SHA-256(b"p2pcards/log/v1/entry\\0" + body)``; ``prev_hash`` of entry n is
  the hash of entry n-1 (32 zero bytes for entry 0).
* A file is ``MAGIC + FORMAT_VERSION`` followed by one frame per entry:
  a 4-byte big-endian length and the entry bytes (the same framing as the wire).

Everything read from outside goes through :meth:`Entry.from_wire`, which parses
strictly with bounded sizes and depth; any problem becomes a :class:`LogError`
naming the entry and the reason.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import itertools
import os
import re
import struct
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from p2pcards import LOG_PROTOCOLS, PROTOCOL_VERSION, limits
from p2pcards.files import cannot_read
from p2pcards.i18n import N_, message_of
from p2pcards.identity import PUBLIC_KEY_SIZE, key_problem

MAGIC = b"P2PCLOG\n"
FORMAT_VERSION = 1
HEADER = MAGIC + bytes([FORMAT_VERSION])

# Shuffle proofs for a 108-card deck are the largest entries (a few hundred KB);
# anything far beyond that is an attack, not a move.
MAX_ENTRY_SIZE = limits.MAX_ENTRY  # the most any entry may be (one whose evidence nests deepest)
MAX_SEATS = 16
MAX_DEPTH = 32  # nesting of payload arrays/maps: far more than any move needs
MAX_NAME_LEN = limits.MAX_NAME

HASH_TAG = b"p2pcards/log/v1/entry\x00"
HASH_SIZE = 32
ZERO_HASH = bytes(HASH_SIZE)
SIG_SIZE = 64
KEY_SIZE = PUBLIC_KEY_SIZE
NONCE_SIZE = 32
MIN_SESSION_SIZE, MAX_SESSION_SIZE = 8, 32

TABLE = "table"
END = "end"
NO_SEAT = -1  # the author of the table and end entries, which all players sign
_KIND_RE = re.compile(r"[a-z][a-z0-9_.-]{0,31}\Z")
_FRAME_LEN = struct.Struct(">I")
_GENESIS_KEYS = frozenset({"protocol", "game", "session", "options", "players", "extra"})
_PLAYER_KEYS = frozenset({"name", "key", "nonce"})

# Below this many signatures a thread pool costs more than it saves.
_PARALLEL_MIN = 512
# Bytes of entries checked ahead of their place (or cut off) a log remembers at most.
_MAX_REMEMBERED_BYTES = 4 * MAX_ENTRY_SIZE


class LogError(ValueError):
    """The log (or an entry of it) is not acceptable; ``index`` is the entry
    concerned (None when the problem is not one entry's, e.g. the file header)."""

    def __init__(self, index: int | None, reason: str):
        # A Text (i18n) either way: English where kept, the reader's language where shown.
        super().__init__(reason if index is None else N_("entry {index}: {reason}", index=index, reason=reason))
        self.index = index
        self.reason = reason


class Signer(Protocol):
    """An Ed25519 private key or an ``identity.Identity``: anything that signs."""

    def sign(self, data: bytes) -> bytes: ...


def entry_hash(body: bytes) -> bytes:
    """The hash of an entry: over its body only, so the chain commits to what
    was said and a second valid signature on the same body cannot fork it."""
    return hashlib.sha256(HASH_TAG + body).digest()


# ---------------------------------------------------------------- parsing


def _reject_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not allowed in a log")


def _pairs_to_dict(pairs: list) -> dict:
    out = {}
    for k, v in pairs:
        if k in out:
            # Implementations disagree on which duplicate wins; refuse ambiguity.
            raise ValueError(f"duplicate map key {k!r}")
        out[k] = v
    return out


def _unpack(data: bytes) -> Any:
    n = len(data)
    return msgpack.unpackb(
        data, raw=False, use_list=True, strict_map_key=False, timestamp=0,
        ext_hook=_reject_ext, object_pairs_hook=_pairs_to_dict,
        max_str_len=n, max_bin_len=n, max_array_len=n, max_map_len=n, max_ext_len=n,
    )


_PLAIN = (type(None), bool, int, float, str, bytes)


def check_plain(value: Any, what: str = "payload") -> None:
    """Raise ValueError unless ``value`` is plain msgpack data (nil, bool, int,
    float, str, bin, arrays and maps of those) nested at most MAX_DEPTH deep.
    Iterative, so hostile nesting cannot exhaust the Python stack; only
    containers are stacked, so a huge flat array costs no extra memory."""
    if isinstance(value, _PLAIN):
        return
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth >= MAX_DEPTH:
            raise ValueError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(v, (list, tuple)):
            items: Iterable = v
        elif isinstance(v, dict):
            items = itertools.chain(v.keys(), v.values())
        else:
            raise ValueError(f"{what} holds a {type(v).__name__}, which is not plain msgpack data")
        for x in items:
            if not isinstance(x, _PLAIN):
                stack.append((x, depth + 1))


def _is_int(v: Any) -> bool:
    return type(v) is int  # bool is an int subclass but a different msgpack type


@dataclasses.dataclass(frozen=True, eq=False)
class Entry:
    """One log entry as received: ``raw`` is exactly the bytes stored and sent,
    ``body`` exactly the bytes signed. ``signature`` is 64 bytes for an entry
    by one seat, or a tuple (one per seat, None where a seat did not sign the
    end entry) for the table and end entries. Build with :func:`make_entry`,
    :func:`assemble` or :meth:`from_wire`; equality is equality of ``raw``."""

    raw: bytes
    body: bytes
    signature: bytes | tuple[bytes | None, ...]
    seq: int
    prev_hash: bytes
    author: int
    kind: str
    payload: Any
    hash: bytes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and self.raw == other.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return f"Entry(seq={self.seq}, author={self.author}, kind={self.kind!r}, hash={self.hash.hex()[:12]}…)"

    @property
    def multisig(self) -> bool:
        return self.kind in (TABLE, END)

    @property
    def signatures(self) -> tuple[bytes | None, ...]:
        """The signatures as a tuple, whatever the kind of entry."""
        return self.signature if isinstance(self.signature, tuple) else (self.signature,)

    @classmethod
    def from_wire(cls, raw: bytes, index: int | None = None) -> "Entry":
        """Parse an entry strictly, without checking signatures or the chain.
        ``index`` (where the caller expects it) only labels errors."""
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise LogError(index, N_("an entry must be bytes, not {type}", type=type(raw).__name__))
        raw = bytes(raw)
        if len(raw) > MAX_ENTRY_SIZE:
            raise LogError(index, N_("entry is {size} bytes, over the maximum of {max}",
                                     size=len(raw), max=MAX_ENTRY_SIZE))
        try:
            outer = _unpack(raw)
        except Exception as e:  # msgpack raises many types on hostile bytes; all mean "malformed"
            raise LogError(index, N_("not a msgpack entry ({error})", error=str(e))) from None
        if not (isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes)):
            raise LogError(index, N_("an entry must be the array [body (bin), signature]"))
        body, sig = outer
        seq, prev_hash, author, kind, payload = _parse_body(body, index)
        label = index if index is not None else seq
        multisig = kind in (TABLE, END)
        if multisig:
            if author != NO_SEAT:
                raise LogError(label, N_("a {kind} entry is signed by all seats; its author must be {seat}",
                                         kind=repr(kind), seat=NO_SEAT))
            if not (isinstance(sig, list) and 1 <= len(sig) <= MAX_SEATS):
                raise LogError(label, N_("a {kind} entry carries an array of 1 to {max} signatures",
                                         kind=repr(kind), max=MAX_SEATS))
            for s in sig:
                if s is None and kind == END:
                    continue
                if not (isinstance(s, bytes) and len(s) == SIG_SIZE):
                    raise LogError(label, N_("each signature of a {kind} entry must be {n} bytes",
                                             kind=repr(kind), n=SIG_SIZE))
            if kind == END and all(s is None for s in sig):
                raise LogError(label, N_("the end entry carries no signature at all"))
            signature: bytes | tuple = tuple(sig)
        else:
            if not (0 <= author < MAX_SEATS):
                raise LogError(label, N_("author must be a seat 0..{last}, not {author}",
                                         last=MAX_SEATS - 1, author=author))
            if not (isinstance(sig, bytes) and len(sig) == SIG_SIZE):
                raise LogError(label, N_("the signature must be {n} bytes", n=SIG_SIZE))
            signature = sig
        if (seq == 0) != (kind == TABLE):
            raise LogError(label, N_("entry 0, and only entry 0, is the 'table' entry"))
        if seq == 0 and prev_hash != ZERO_HASH:
            raise LogError(label, N_("the table entry's prev_hash must be 32 zero bytes"))
        # The frame around the body is ours, so it has one encoding (the shortest);
        # requiring it makes equal entries byte-identical everywhere.
        if raw != msgpack.packb([body, sig], use_bin_type=True):
            raise LogError(label, N_("the entry's outer array is not in its shortest msgpack encoding"))
        return cls(raw, body, signature, seq, prev_hash, author, kind, payload, entry_hash(body))

    def verify_signature(self, public_keys: Sequence[bytes], index: int | None = None) -> None:
        """Check this entry's signature(s) against the seats' public keys."""
        _verify_one(self, [_public_key(k, i) for i, k in enumerate(public_keys)],
                    self.seq if index is None else index)


def _parse_body(body: bytes, index: int | None) -> list:
    """The five fields of a body, each checked for its type and range."""
    try:
        fields = _unpack(body)
    except Exception as e:  # see from_wire
        raise LogError(index, N_("body is not msgpack ({error})", error=str(e))) from None
    if not (isinstance(fields, list) and len(fields) == 5):
        raise LogError(index, N_("body must be the array [seq, prev_hash, author, kind, payload]"))
    seq, prev_hash, author, kind, payload = fields
    label = index if index is not None else (seq if _is_int(seq) and seq >= 0 else None)
    if not (_is_int(seq) and seq >= 0):
        raise LogError(label, N_("seq must be a non-negative integer, not {seq}", seq=repr(seq)))
    if not (isinstance(prev_hash, bytes) and len(prev_hash) == HASH_SIZE):
        raise LogError(label, N_("prev_hash must be {n} bytes", n=HASH_SIZE))
    if not isinstance(kind, str) or not _KIND_RE.match(kind):
        raise LogError(label, N_("kind {kind} is not a short lowercase name", kind=repr(kind)))
    if not _is_int(author):
        raise LogError(label, N_("author must be a seat number, not {author}", author=repr(author)))
    try:
        check_plain(payload)
    except ValueError as e:
        raise LogError(label, message_of(e)) from None
    return fields


def size_limit(depth: int) -> int:
    """The most bytes an entry whose evidence nests ``depth`` levels deep
    (0: it quotes no entry) may take: each level of quoting leaves room
    (``ANSWER_ROOM``) for one more answer around it, so any entry refused for
    a fault can be quoted in the abort that answers it (log.md §8)."""
    return MAX_ENTRY_SIZE - (limits.MAX_EVIDENCE_DEPTH - depth) * limits.ANSWER_ROOM


def evidence_depth(entry: "Entry", _level: int = 0) -> int:
    """How deep entries quoted as evidence nest in ``entry`` (an abort's
    ``evidence``: a list of entries as signed): 0 if it quotes none. Items
    that are no entry count as nothing here (the table refuses them). Past
    MAX_EVIDENCE_DEPTH it stops looking: the entry is too deep in any case."""
    payload = entry.payload
    items = payload.get("evidence") if isinstance(payload, dict) else None
    if not isinstance(items, list) or not items:
        return 0
    if _level > limits.MAX_EVIDENCE_DEPTH:
        return limits.MAX_EVIDENCE_DEPTH + 1
    depth = 1
    for item in items:
        try:
            inner = Entry.from_wire(item)
        except LogError:
            continue
        depth = max(depth, 1 + evidence_depth(inner, _level + 1))
    return depth


def check_size(entry: "Entry", index: int | None = None) -> None:
    """LogError unless ``entry`` is within the size its evidence's nesting allows."""
    depth = evidence_depth(entry)
    if depth > limits.MAX_EVIDENCE_DEPTH:
        raise LogError(index, N_("evidence nested deeper than {n} aborts", n=limits.MAX_EVIDENCE_DEPTH))
    if len(entry.raw) > size_limit(depth):
        raise LogError(index, N_("entry is {size} bytes, over the maximum of {max}",
                                 size=len(entry.raw), max=size_limit(depth)))


def encode_body(seq: int, prev_hash: bytes, author: int, kind: str, payload: Any) -> bytes:
    """The msgpack body of an entry (the bytes that get signed)."""
    try:
        check_plain(payload)
        return msgpack.packb([seq, prev_hash, author, kind, payload], use_bin_type=True)
    except (ValueError, TypeError, OverflowError) as e:
        raise LogError(seq, N_("cannot encode the entry: {error}", error=str(e))) from None


def make_entry(seq: int, prev_hash: bytes, author: int, kind: str, payload: Any, signer: Signer) -> Entry:
    """A new entry by one seat, signed with its key."""
    if kind in (TABLE, END):
        raise LogError(seq, N_("a {kind} entry is signed by every player: build it with assemble()", kind=repr(kind)))
    body = encode_body(seq, prev_hash, author, kind, payload)
    sig = signer.sign(body)
    return Entry.from_wire(msgpack.packb([body, sig], use_bin_type=True), seq)


def assemble(body: bytes, signatures: Sequence[bytes | None]) -> Entry:
    """The table or end entry from its body and every seat's signature over it,
    in seat order (None for a seat that refused to sign the end entry).
    Signatures are checked when the entry is appended to a GameLog."""
    return Entry.from_wire(msgpack.packb([bytes(body), list(signatures)], use_bin_type=True))


# ---------------------------------------------------------------- the table entry


@dataclasses.dataclass(frozen=True)
class Player:
    name: str
    key: bytes      # Ed25519 public key, 32 bytes
    nonce: bytes    # the player's random contribution to the session, 32 bytes


@dataclasses.dataclass(frozen=True)
class TableInfo:
    """What entry 0 says: the game, its options and the seated players."""

    protocol: int
    game: str
    session: bytes
    options: dict
    players: tuple[Player, ...]
    extra: Any = None

    @property
    def keys(self) -> list[bytes]:
        return [p.key for p in self.players]

    @classmethod
    def from_payload(cls, payload: Any, index: int | None = 0) -> "TableInfo":
        p = payload
        if not isinstance(p, dict) or not all(isinstance(k, str) for k in p):
            raise LogError(index, N_("the table payload must be a map with string keys"))
        missing = sorted(_GENESIS_KEYS - {"extra"} - p.keys())
        unknown = sorted(p.keys() - _GENESIS_KEYS)
        if missing or unknown:
            raise LogError(index, N_("table payload: missing {missing}, unknown {unknown}",
                                     missing=missing, unknown=unknown))
        if not _is_int(p["protocol"]):
            raise LogError(index, N_("table payload: protocol must be an integer"))
        if p["protocol"] == 1:
            raise LogError(index, N_("protocol version 1: its dealing (cut-and-choose proofs on P-256) is "
                                     "no longer accepted; this program speaks protocol version {version}",
                                     version=PROTOCOL_VERSION))
        if p["protocol"] not in LOG_PROTOCOLS:
            raise LogError(index, N_("protocol version {protocol} (this program speaks {version})",
                                     protocol=p['protocol'], version=PROTOCOL_VERSION))
        if not isinstance(p["game"], str) or not _KIND_RE.match(p["game"]):
            raise LogError(index, N_("table payload: bad game id {game}", game=repr(p['game'])))
        s = p["session"]
        if not (isinstance(s, bytes) and MIN_SESSION_SIZE <= len(s) <= MAX_SESSION_SIZE):
            raise LogError(index, N_("table payload: session must be {low}..{high} bytes",
                                     low=MIN_SESSION_SIZE, high=MAX_SESSION_SIZE))
        if not isinstance(p["options"], dict) or not all(isinstance(k, str) for k in p["options"]):
            raise LogError(index, N_("table payload: options must be a map with string keys"))
        raw_players = p["players"]
        if not (isinstance(raw_players, list) and 1 <= len(raw_players) <= MAX_SEATS):
            raise LogError(index, N_("table payload: players must be a list of 1 to {max}", max=MAX_SEATS))
        players = []
        for seat, rp in enumerate(raw_players):
            if not (isinstance(rp, dict) and rp.keys() == _PLAYER_KEYS):
                raise LogError(index, N_("table payload: player {seat} must be a map of name, key, nonce", seat=seat))
            name, key, nonce = rp["name"], rp["key"], rp["nonce"]
            if not (isinstance(name, str) and 1 <= len(name) <= MAX_NAME_LEN and name.isprintable()):
                raise LogError(index, N_("table payload: player {seat} has a bad name {name}",
                                         seat=seat, name=repr(name)))
            problem = key_problem(key)
            if problem:
                raise LogError(index, N_("table payload: player {seat}'s key: {reason}", seat=seat, reason=problem))
            if not (isinstance(nonce, bytes) and len(nonce) == NONCE_SIZE):
                raise LogError(index, N_("table payload: player {seat}'s nonce must be {n} bytes",
                                         seat=seat, n=NONCE_SIZE))
            players.append(Player(name, key, nonce))
        keys = [pl.key for pl in players]
        if len(set(keys)) != len(keys):
            raise LogError(index, N_("table payload: two seats have the same public key"))
        return cls(p["protocol"], p["game"], s, p["options"], tuple(players), p.get("extra"))

    @classmethod
    def from_body(cls, body: bytes) -> "TableInfo":
        """Parse a proposed table body, so a player can check it before signing."""
        seq, prev_hash, author, kind, payload = _parse_body(bytes(body), 0)
        if (seq, prev_hash, author, kind) != (0, ZERO_HASH, NO_SEAT, TABLE):
            raise LogError(0, N_("not a table body (kind 'table', seq 0, prev_hash zeros, author -1)"))
        return cls.from_payload(payload)


def table_body(game: str, options: dict, players: Sequence[Player], session: bytes,
               *, extra: Any = None) -> bytes:
    """The body of entry 0, for every player to sign (see :func:`assemble`)."""
    payload = {
        "protocol": PROTOCOL_VERSION, "game": game, "session": bytes(session), "options": dict(options),
        "players": [{"name": p.name, "key": bytes(p.key), "nonce": bytes(p.nonce)} for p in players],
    }
    if extra is not None:
        payload["extra"] = extra
    TableInfo.from_payload(payload)  # refuse to build what no reader would accept
    return encode_body(0, ZERO_HASH, NO_SEAT, TABLE, payload)


def sign_body(body: bytes, signer: Signer) -> bytes:
    """A seat's signature over a table or end body it has checked."""
    return signer.sign(bytes(body))


def check_body_signature(body: bytes, public_key: bytes, signature: bytes, seat: int) -> None:
    """Check one seat's signature on a table/end body while collecting them."""
    if not (isinstance(signature, bytes) and len(signature) == SIG_SIZE):
        raise LogError(None, N_("seat {seat}'s signature must be {n} bytes", seat=seat, n=SIG_SIZE))
    try:
        _public_key(public_key, seat).verify(signature, bytes(body))
    except InvalidSignature:
        raise LogError(None, N_("seat {seat}'s signature does not verify", seat=seat)) from None


# ---------------------------------------------------------------- signatures

class Ed25519Key:
    """A seat's public key as the log checks signatures with it: libsodium's
    verification (PyNaCl), about twice as fast here as OpenSSL's and stricter
    (it also refuses keys and signature points of small order, which no
    honest key or signature has). It releases the GIL, so threads check
    signatures in parallel."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes):
        self.raw = raw

    def verify(self, signature: bytes, data: bytes) -> None:
        """InvalidSignature unless ``signature`` is this key's over ``data``."""
        try:
            crypto_sign_open(signature + data, self.raw)
        except (BadSignatureError, ValueError, TypeError):
            raise InvalidSignature from None


def _public_key(key: bytes, seat: int) -> Ed25519Key:
    try:
        raw = bytes(key)
        Ed25519PublicKey.from_public_bytes(raw)  # the same keys refused as everywhere else
    except (ValueError, TypeError):
        raise LogError(0, N_("seat {seat}'s public key is not a valid Ed25519 key", seat=seat)) from None
    return Ed25519Key(raw)


def _verify_one(entry: Entry, keys: Sequence[Ed25519Key], index: int) -> None:
    if entry.multisig:
        if len(entry.signature) != len(keys):
            raise LogError(index, N_("{count} signatures for {players} seats",
                                     count=len(entry.signature), players=len(keys)))
        for seat, (sig, key) in enumerate(zip(entry.signature, keys)):
            if sig is None:
                continue
            try:
                key.verify(sig, entry.body)
            except InvalidSignature:
                raise LogError(index, N_("signature does not verify for seat {seat}", seat=seat)) from None
    else:
        if entry.author >= len(keys):
            raise LogError(index, N_("author seat {seat} does not exist at a table of {players}",
                                     seat=entry.author, players=len(keys)))
        try:
            keys[entry.author].verify(entry.signature, entry.body)
        except InvalidSignature:
            raise LogError(index, N_("signature does not verify for seat {seat}", seat=entry.author)) from None


def _first_bad_signature(entries: Sequence[Entry], keys: Sequence[Ed25519Key],
                         start: int, workers: int) -> LogError | None:
    """Verify all signatures; return the error of the lowest failing index.
    cryptography releases the GIL in verify, so threads give real parallelism."""
    def run(lo: int, hi: int) -> LogError | None:
        for i in range(lo, hi):
            try:
                _verify_one(entries[i], keys, start + i)
            except LogError as e:
                return e
        return None

    n = len(entries)
    if workers <= 1 or n < _PARALLEL_MIN:
        return run(0, n)
    bounds = [(n * w // workers, n * (w + 1) // workers) for w in range(workers)]
    with ThreadPoolExecutor(workers) as pool:
        for err in pool.map(lambda b: run(*b), bounds):  # chunks in order: first error is lowest
            if err is not None:
                return err
    return None


def default_workers() -> int:
    try:
        return max(1, min(8, len(os.sched_getaffinity(0))))
    except AttributeError:  # not on Linux
        return max(1, min(8, os.cpu_count() or 1))


# ---------------------------------------------------------------- the chain


@dataclasses.dataclass(frozen=True)
class Cut:
    """What a recovery read dropped: from entry ``index`` (at byte ``offset`` of
    the file) on, ``discarded`` bytes, because of ``reason``."""

    index: int
    offset: int
    discarded: int
    reason: str

    def __str__(self) -> str:
        return f"cut at entry {self.index} (byte {self.offset}, {self.discarded} bytes dropped): {self.reason}"


class GameLog:
    """A verified chain of entries in memory. Every entry is checked (sequence,
    chain, author, signature; the table entry's contents; nothing after the end
    entry) before it is accepted, so a GameLog is always a valid prefix.

    ``session``/``game``/``keys``, when given, are what the caller expects
    entry 0 to say; ``kinds``, when given, are the only kinds accepted besides
    "table" and "end"."""

    def __init__(self, *, session: bytes | None = None, game: str | None = None,
                 keys: Sequence[bytes] | None = None, kinds: Iterable[str] | None = None):
        self._expect_session = session
        self._expect_game = game
        self._expect_keys = None if keys is None else [bytes(k) for k in keys]
        self._kinds = None if kinds is None else frozenset(kinds)
        self._entries: list[Entry] = []
        self._table: TableInfo | None = None
        self._keys: list[Ed25519Key] = []
        self.cut: Cut | None = None  # set by a recovery read that dropped a torn tail
        # Entries whose signatures passed but that the log does not hold (yet, or
        # any more): checked ahead of their place, or cut off by truncate().
        # So each signature is verified once, whatever order entries come in.
        self._verified: set[Entry] = set()
        self._verified_bytes = 0

    # -- reading the state
    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries)

    def __getitem__(self, i):
        return self._entries[i]

    @property
    def next_seq(self) -> int:
        return len(self._entries)

    @property
    def head_hash(self) -> bytes:
        """The hash the next entry must name as prev_hash (zeros when empty)."""
        return self._entries[-1].hash if self._entries else ZERO_HASH

    @property
    def genesis(self) -> Entry | None:
        return self._entries[0] if self._entries else None

    @property
    def table(self) -> TableInfo | None:
        return self._table

    @property
    def public_keys(self) -> list[bytes]:
        return self._table.keys if self._table else []

    @property
    def end(self) -> Entry | None:
        return self._entries[-1] if self._entries and self._entries[-1].kind == END else None

    @property
    def is_finished(self) -> bool:
        """An end entry closes the log (see ``agreed`` for who signed it)."""
        return self.end is not None

    @property
    def end_signers(self) -> list[int]:
        e = self.end
        return [s for s, sig in enumerate(e.signature) if sig is not None] if e else []

    @property
    def agreed(self) -> bool:
        """Finished, and every seat signed the end entry: all agree on the log."""
        e = self.end
        return e is not None and all(sig is not None for sig in e.signature)

    def conflict(self, entry: Entry) -> "EquivocationProof | None":
        """If ``entry`` is validly signed by the author of the entry this log
        already holds at its seq but says something else, the proof of that
        seat's equivocation; otherwise None (e.g. the same entry relayed again)."""
        if not (0 <= entry.seq < len(self._entries)) or entry.multisig:
            return None
        mine = self._entries[entry.seq]
        if mine.multisig or mine.author != entry.author:
            return None
        return equivocation(mine, entry, self._table.keys[entry.author])

    def __repr__(self) -> str:
        state = "agreed" if self.agreed else "finished" if self.is_finished else "unfinished"
        game = self._table.game if self._table else "?"
        return f"<GameLog {game} {len(self)} entries, {state}, head {self.head_hash.hex()[:12]}…>"

    # -- building
    def make_next(self, author: int, kind: str, payload: Any, signer: Signer) -> Entry:
        """A new entry by ``author`` on top of this log (not yet appended)."""
        return make_entry(self.next_seq, self.head_hash, author, kind, payload, signer)

    def end_body(self, payload: dict) -> bytes:
        """The body of the end entry that closes the log as it is now; every
        player signs it (sign_body) and assemble() makes the entry."""
        if not self._entries:
            raise LogError(0, N_("an empty log cannot be ended"))
        if not isinstance(payload, dict):
            raise LogError(self.next_seq, N_("the end payload must be a map"))
        return encode_body(self.next_seq, self.head_hash, NO_SEAT, END, payload)

    # -- accepting
    def check(self, entry: Entry) -> None:
        """Raise LogError unless ``entry`` may be appended next."""
        self._check_and_keys(entry)

    def _check_and_keys(self, entry: Entry) -> list[Ed25519Key] | None:
        keys = self._check_structure(entry, self.next_seq, self.head_hash, self._table, self.is_finished)
        # check() then append() of the same entry verifies its signature once.
        if entry not in self._verified:
            _verify_one(entry, keys if keys is not None else self._keys, self.next_seq)
            self._remember(entry)
        return keys

    def verify(self, entry: Entry) -> None:
        """Check the signature(s) of ``entry``, which is not (yet) in this log,
        against its table's keys; LogError if they fail. Checked once: when it
        comes to its place, it is not checked again."""
        if entry not in self._verified:
            _verify_one(entry, self._keys, entry.seq)
            self._remember(entry)

    def _remember(self, entry: Entry) -> None:
        # Bounded in bytes: a peer may send any number of signed entries the
        # table refuses. Forgetting only costs checking a signature again.
        if self._verified_bytes + len(entry.raw) > _MAX_REMEMBERED_BYTES:
            self._verified.clear()
            self._verified_bytes = 0
        if entry not in self._verified:
            self._verified.add(entry)
            self._verified_bytes += len(entry.raw)

    def truncate(self, length: int) -> list[Entry]:
        """Drop the entries from ``length`` on (never the table entry) and
        return them; their signatures stay checked, should they come back."""
        if not 1 <= length <= len(self._entries):
            raise ValueError(f"cannot cut a log of {len(self._entries)} entries to {length}")
        dropped = self._entries[length:]
        del self._entries[length:]  # in place: a thread may be reading the entries before ``length``
        for entry in dropped:
            self._remember(entry)
        return dropped

    def append(self, entry: Entry | bytes) -> Entry:
        """Check and accept the next entry (an Entry or its raw bytes)."""
        if not isinstance(entry, Entry):
            entry = Entry.from_wire(entry, self.next_seq)
        self._accept(entry, self._check_and_keys(entry))
        return entry

    def extend(self, entries: Iterable[Entry | bytes], *, workers: int | None = None,
               trust_end: bool = False) -> None:
        """Append many entries, verifying their signatures in parallel. On a bad
        entry the valid ones before it are kept and LogError is raised.

        ``trust_end``: when the entries close with an end entry signed by every
        seat, check only that entry's signatures (and the table's), not each
        entry's. Every player then attested the whole chain of bodies (who
        wrote what included), which is what the per-entry signatures prove;
        what goes unchecked is only a signature swapped for garbage after the
        game. About 20x faster; off by default."""
        err = self._extend(entries, workers, trust_end)
        if err is not None:
            raise err

    def _extend(self, entries: Iterable[Entry | bytes], workers: int | None,
                trust_end: bool = False, signatures: bool = True) -> LogError | None:
        # Structure and chain first (cheap, sequential: each needs the previous
        # hash), then all signatures at once; the first failure of either wins.
        staged: list[Entry] = []
        seq, head, table, finished = self.next_seq, self.head_hash, self._table, self.is_finished
        keys = self._keys
        struct_err: LogError | None = None
        for item in entries:
            try:
                e = item if isinstance(item, Entry) else Entry.from_wire(item, seq)
                new_keys = self._check_structure(e, seq, head, table, finished)
            except LogError as err:
                struct_err = err
                break
            if new_keys is not None:
                # The table entry is signed by the keys it introduces; verify it now
                # so a bad table entry is reported before anything built on it.
                try:
                    _verify_one(e, new_keys, seq)
                except LogError as err:
                    struct_err = err
                    break
                # Entry 0 is always first in the batch, so nothing is staged yet.
                self._accept(e, new_keys)
                keys, table = new_keys, self._table
            else:
                staged.append(e)
            seq, head, finished = seq + 1, e.hash, e.kind == END
        start = self.next_seq
        if (trust_end and struct_err is None and staged and staged[-1].kind == END
                and all(sig is not None for sig in staged[-1].signature)):
            try:
                _verify_one(staged[-1], keys, start + len(staged) - 1)
                self._entries.extend(staged)
                return None
            except LogError:
                pass  # no attestation to trust: check everything, to find the first fault
        if not signatures:  # checked by the caller (parse_log(signatures=False))
            self._entries.extend(staged)
            return struct_err
        sig_err = _first_bad_signature(staged, keys, start, workers or default_workers())
        good = staged if sig_err is None else staged[: sig_err.index - start]
        self._entries.extend(good)
        return sig_err if sig_err is not None else struct_err

    def _check_structure(self, e: Entry, seq: int, head: bytes, table: TableInfo | None,
                         finished: bool) -> list[Ed25519Key] | None:
        """Check ``e`` as entry ``seq`` after ``head``; for the table entry,
        return the keys it introduces (its signatures are checked with them)."""
        if finished:
            raise LogError(seq, N_("the log already ended; nothing may follow the end entry"))
        if e.seq != seq:
            raise LogError(seq, N_("sequence number {found} where {seq} was expected (missing, repeated or reordered entry)",
                                   found=e.seq, seq=seq))
        if e.prev_hash != head:
            raise LogError(seq, N_("prev_hash does not match the previous entry's hash (broken chain)"))
        check_size(e, seq)
        if e.kind == TABLE:
            info = TableInfo.from_payload(e.payload, seq)
            if self._expect_game is not None and info.game != self._expect_game:
                raise LogError(seq, N_("this log is of game {game}, not {expected}",
                                       game=repr(info.game), expected=repr(self._expect_game)))
            if self._expect_session is not None and info.session != self._expect_session:
                raise LogError(seq, N_("this log is of another session"))
            if self._expect_keys is not None and info.keys != self._expect_keys:
                raise LogError(seq, N_("the players' keys are not the expected ones"))
            if len(e.signature) != len(info.players):
                raise LogError(seq, N_("{count} signatures for {players} players",
                                       count=len(e.signature), players=len(info.players)))
            return [_public_key(k, s) for s, k in enumerate(info.keys)]
        if table is None:
            raise LogError(seq, N_("the log does not start with a table entry"))
        if e.kind == END:
            if len(e.signature) != len(table.players):
                raise LogError(seq, N_("{count} signatures for {players} players",
                                       count=len(e.signature), players=len(table.players)))
            if not isinstance(e.payload, dict):
                raise LogError(seq, N_("the end payload must be a map"))
        else:
            if e.author >= len(table.players):
                raise LogError(seq, N_("author seat {seat} does not exist at a table of {players}",
                                       seat=e.author, players=len(table.players)))
            if self._kinds is not None and e.kind not in self._kinds:
                raise LogError(seq, N_("unknown entry kind {kind}", kind=repr(e.kind)))
        return None

    def _accept(self, entry: Entry, keys: list[Ed25519Key] | None = None) -> None:
        """Add a checked entry; ``keys`` are the ones a table entry introduced."""
        if entry.kind == TABLE:
            self._table = TableInfo.from_payload(entry.payload)
            self._keys = keys if keys is not None else [_public_key(k, s) for s, k in enumerate(self._table.keys)]
        self._entries.append(entry)
        if entry in self._verified:
            self._verified.discard(entry)
            self._verified_bytes -= len(entry.raw)

    def prefix(self, length: int) -> "GameLog":
        """A log of this one's first ``length`` entries, checked already (not again)."""
        log = copy.copy(self)
        log._entries = self._entries[:length]
        log.cut = None
        log._verified, log._verified_at = None, -1
        return log

    # -- bytes
    def to_bytes(self) -> bytes:
        """The whole log in the file format."""
        return HEADER + b"".join(_frame(e) for e in self._entries)


def _frame(e: Entry) -> bytes:
    return _FRAME_LEN.pack(len(e.raw)) + e.raw


def verify_log(entries: Iterable[Entry | bytes], *, session: bytes | None = None, game: str | None = None,
               keys: Sequence[bytes] | None = None, kinds: Iterable[str] | None = None,
               workers: int | None = None, trust_end: bool = False, signatures: bool = True) -> GameLog:
    """Verify a whole log (entries or their raw bytes) and return it; raise
    LogError naming the first bad entry. ``trust_end``: see GameLog.extend."""
    log = GameLog(session=session, game=game, keys=keys, kinds=kinds)
    log.extend(entries, workers=workers, trust_end=trust_end)
    return log


# ---------------------------------------------------------------- files


def _split_frames(data: bytes) -> tuple[list[bytes], Cut | None]:
    """The entries of a file's bytes, and where (if anywhere) framing broke."""
    if len(data) < len(HEADER) or data[: len(MAGIC)] != MAGIC:
        raise LogError(None, N_("not a p2pcards log file (bad magic bytes)"))
    if data[len(MAGIC)] != FORMAT_VERSION:
        raise LogError(None, N_("log file format {found} (this program reads {version})",
                                found=data[len(MAGIC)], version=FORMAT_VERSION))
    frames: list[bytes] = []
    pos = len(HEADER)
    while pos < len(data):
        left = len(data) - pos
        if left < _FRAME_LEN.size:
            return frames, Cut(len(frames), pos, left, N_("truncated: {left} stray bytes where a length prefix belongs",
                                                       left=left))
        (n,) = _FRAME_LEN.unpack_from(data, pos)
        if n > MAX_ENTRY_SIZE:
            return frames, Cut(len(frames), pos, left, N_("length {n} exceeds the maximum entry size {most}",
                                                       n=n, most=MAX_ENTRY_SIZE))
        if n > left - _FRAME_LEN.size:
            return frames, Cut(len(frames), pos, left,
                               N_("truncated: the file ends {left} bytes into a {n}-byte entry",
                                  left=left - _FRAME_LEN.size, n=n))
        frames.append(data[pos + _FRAME_LEN.size: pos + _FRAME_LEN.size + n])
        pos += _FRAME_LEN.size + n
    return frames, None


def log_progress(data: bytes) -> tuple[int, "Entry | None"]:
    """How far a log file got, cheaply (nothing verified: for listing games,
    not for trusting them): its count of whole entries and the last one."""
    frames, _ = _split_frames(bytes(data))
    for index in range(len(frames) - 1, -1, -1):
        try:
            return len(frames), Entry.from_wire(frames[index], index)
        except LogError:
            continue
    return len(frames), None


def parse_log(data: bytes, *, strict: bool = True, finished: bool = False, session: bytes | None = None,
              game: str | None = None, keys: Sequence[bytes] | None = None, kinds: Iterable[str] | None = None,
              workers: int | None = None, trust_end: bool = False, signatures: bool = True) -> GameLog:
    """A log from the bytes of a file. Strict: any fault raises LogError.
    Not strict (recovery after a crash): the longest valid prefix, with
    ``log.cut`` saying what was dropped and why (None if nothing was).
    ``finished`` also refuses a log without its end entry (for the audit: a
    log cut at an entry boundary is otherwise a valid, unfinished log).
    ``trust_end`` (strict reads only): see GameLog.extend. Without
    ``signatures`` (strict reads only) the entries' signatures but the table
    entry's are left to the caller: ``signatures_hold`` (the audit has them
    checked by another process while it walks the log)."""
    frames, cut = _split_frames(bytes(data))
    log = GameLog(session=session, game=game, keys=keys, kinds=kinds)
    err = log._extend(frames, workers, trust_end and strict, signatures or not strict)
    if err is not None:
        offset = len(HEADER) + sum(_FRAME_LEN.size + len(f) for f in frames[: len(log)])
        cut = Cut(len(log), offset, len(data) - offset, err.reason)
    if cut is not None:
        if strict:
            raise LogError(cut.index, cut.reason)
        log.cut = cut
    if finished and not log.is_finished:
        raise LogError(len(log), N_("the log is unfinished: it has no end entry"))
    return log


def signed_parts(log: GameLog) -> tuple[list[tuple], list[Ed25519Key]]:
    """What checking the signatures of every entry after the table entry
    needs, as plain data for another process: (seq, author, kind, body,
    signature) of each, and the seats' keys (``signatures_hold``)."""
    return [(e.seq, e.author, e.kind, e.body, e.signature) for e in log.entries[1:]], list(log._keys)


def signatures_hold(parts: list[tuple], keys: list[Ed25519Key], threads: int | None = 1) -> bool:
    """Every signature of ``signed_parts`` verifies (what ``parse_log(signatures=False)``
    left out), checked by ``threads`` threads (None: as parse_log does)."""
    entries = [Entry(b"", body, signature, seq, b"", author, kind, None, b"")
               for seq, author, kind, body, signature in parts]
    return _first_bad_signature(entries, keys, 1, threads or default_workers()) is None


def read_bytes(path: str | os.PathLike) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise LogError(None, cannot_read(path, e)) from None


def read_table(path: str | os.PathLike) -> tuple[GameLog, int]:
    """Entry 0 of a log file alone, verified (signed by every player), and how
    many entries the file frames: enough to show the table while the rest of
    the file is read (a replay opens at once)."""
    data = read_bytes(path)
    frames, _ = _split_frames(data)
    log = GameLog()
    err = log._extend(frames[:1], None)
    if err is not None:
        raise err
    if len(log) == 0:
        raise LogError(0, N_("the file holds no entry"))
    return log, len(frames)


def read_log(path: str | os.PathLike, *, strict: bool = True, **expect: Any) -> GameLog:
    """Read and verify a log file; see :func:`parse_log` for the arguments."""
    data = read_bytes(path)
    return parse_log(data, strict=strict, **expect)


def _fsync_dir(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LogFile:
    """A log on disk that grows one durable entry at a time: an entry is
    verified, written, flushed and fsync'ed before ``append`` returns, so an
    accepted entry survives a crash. ``append`` blocks on the disk; from trio,
    call it through ``trio.to_thread.run_sync``."""

    def __init__(self, path: str, fd: int, log: GameLog, size: int):
        self.path, self._fd, self.log, self._size = path, fd, log, size
        # Entries in the file. ``log`` may grow past them (a seat's log holds
        # entries not yet final): ``append`` then writes its next entry as
        # ``log`` checked it, without checking it again.
        self.count = len(log)

    @classmethod
    def create(cls, path: str | os.PathLike, log: GameLog | None = None) -> "LogFile":
        """A new file (refusing to replace one) holding ``log``'s entries, if any."""
        path = os.fspath(path)
        log = log if log is not None else GameLog()
        data = log.to_bytes()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise LogError(None, N_("{path} already exists; open it to carry on, or choose another name",
                                    path=path)) from None
        except OSError as e:
            raise LogError(None, N_("cannot create {path}: {error}", path=path, error=str(e.strerror or e))) from None
        try:
            _write_all(fd, data)
            os.fsync(fd)
            _fsync_dir(path)  # the file's name must survive a crash too
        except OSError as e:
            os.close(fd)
            raise LogError(None, N_("cannot write {path}: {error}", path=path, error=str(e.strerror or e))) from None
        return cls(path, fd, log, len(data))

    @classmethod
    def open(cls, path: str | os.PathLike, *, repair: bool = False, **expect: Any) -> "LogFile":
        """Carry on with an existing file. With ``repair``, a torn or invalid
        tail is cut off the file (``log.cut`` says what); without, it is an error."""
        path = os.fspath(path)
        log = read_log(path, strict=not repair, **expect)
        size = len(log.to_bytes())
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError as e:
            raise LogError(None, N_("cannot open {path} for writing: {error}",
                                    path=path, error=str(e.strerror or e))) from None
        if log.cut is not None:
            try:
                os.ftruncate(fd, size)
                os.fsync(fd)
            except OSError as e:
                os.close(fd)
                raise LogError(None, N_("cannot cut the torn tail off {path}: {error}",
                                        path=path, error=str(e.strerror or e))) from None
        return cls(path, fd, log, size)

    def append(self, entry: Entry | bytes) -> Entry:
        if self._fd < 0:
            raise LogError(None, N_("{path} is closed", path=self.path))
        if not isinstance(entry, Entry):
            entry = Entry.from_wire(entry, self.count)
        following = self.count < len(self.log)
        if following:
            if entry != self.log[self.count]:
                raise LogError(entry.seq, N_("not entry {count} of the log this file follows", count=self.count))
            keys = None
        else:
            keys = self.log._check_and_keys(entry)
        frame = _frame(entry)
        try:
            os.lseek(self._fd, self._size, os.SEEK_SET)
            _write_all(self._fd, frame)
            os.fsync(self._fd)
        except OSError as e:
            # Undo a partial write so the file stays a valid log.
            try:
                os.ftruncate(self._fd, self._size)
            except OSError:
                pass
            raise LogError(entry.seq, N_("cannot write to {path}: {error}",
                                         path=self.path, error=str(e.strerror or e))) from None
        self._size += len(frame)
        self.count += 1
        if not following:
            self.log._accept(entry, keys)
        return entry

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "LogFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_log(path: str | os.PathLike, log: GameLog) -> None:
    """Write a whole log to a new file, durably."""
    LogFile.create(path, log).close()


# ---------------------------------------------------------------- equivocation


@dataclasses.dataclass(frozen=True)
class EquivocationProof:
    """Two different entries with the same seq, both validly signed by the same
    seat: that seat told different peers different things."""

    first: Entry
    second: Entry

    @property
    def seat(self) -> int:
        return self.first.author

    @property
    def seq(self) -> int:
        return self.first.seq

    def verify(self, public_key: bytes) -> None:
        """Raise LogError unless this proves equivocation by the holder of ``public_key``."""
        a, b = self.first, self.second
        if a.multisig or b.multisig:
            raise LogError(a.seq, N_("table and end entries are not single-author entries"))
        if a.seq != b.seq or a.author != b.author:
            raise LogError(a.seq, N_("the two entries differ in seq or author"))
        if a.body == b.body:
            raise LogError(a.seq, N_("the two entries say the same thing"))
        key = _public_key(public_key, a.author)
        for e in (a, b):
            try:
                key.verify(e.signature, e.body)
            except InvalidSignature:
                raise LogError(e.seq, N_("signature does not verify for seat {seat}", seat=e.author)) from None

    def to_wire(self) -> bytes:
        return msgpack.packb([self.first.raw, self.second.raw], use_bin_type=True)

    @classmethod
    def from_wire(cls, data: bytes, public_key: bytes) -> "EquivocationProof":
        """Parse and verify a proof received from a peer or read from a file."""
        if not isinstance(data, (bytes, bytearray)) or len(data) > 2 * MAX_ENTRY_SIZE + 16:
            raise LogError(None, N_("an equivocation proof must be bytes of bounded size"))
        try:
            pair = _unpack(bytes(data))
        except Exception as e:
            raise LogError(None, N_("equivocation proof is not msgpack ({error})", error=str(e))) from None
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, bytes) for x in pair)):
            raise LogError(None, N_("an equivocation proof is the array [entry, entry]"))
        proof = cls(Entry.from_wire(pair[0]), Entry.from_wire(pair[1]))
        proof.verify(public_key)
        return proof


def equivocation(a: Entry, b: Entry, public_key: bytes) -> EquivocationProof | None:
    """The proof that ``a`` and ``b`` equivocate, or None if they do not (same
    body, different seq or author, or a signature that does not verify)."""
    proof = EquivocationProof(a, b)
    try:
        proof.verify(public_key)
    except LogError:
        return None
    return proof
