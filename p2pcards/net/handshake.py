"""The authenticated handshake run on every connection.

    initiator -> responder   hello
    responder -> initiator   hello, auth
    initiator -> responder   auth

Each ``auth`` is an Ed25519 signature over a transcript binding both hellos
(exact bytes: versions, keys, fresh nonces, ephemeral X25519 keys, names,
role, session) and a direction tag, so a signature cannot be replayed into
another connection nor reflected back to its author. Every later frame is
sealed with keys from the X25519 exchange, so it belongs to this connection.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from typing import Callable

import trio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .. import PROTOCOL_VERSION
from ..i18n import N_
from .errors import ConnectionClosed, HandshakeError, NetError, ProtocolError
from .framing import FramedStream, Limits, decode_body
from .messages import (KEY_LEN, MAX_NAME, NONCE_LEN, SESSION_ID_LEN, SIG_LEN, check_name, fingerprint,
                       get_bytes, get_int, get_str, get_text)
import msgpack

# The words of this module a player may read: English here and on the wire
# (the responder's refusal goes to the initiator); shown through i18n.known(text, WORDS).
OTHER_VERSION = N_("peer speaks protocol version {version}, we speak {ours}")
REJECTED = N_("peer rejected us: {reason}")
UNUSABLE_KEY_EXCHANGE = N_("unusable key-exchange value from peer")
REPLAYED = N_("replayed handshake: this nonce was already used")
SILENT_FOR = N_("{peer} silent for {seconds}s")
REFLECTED = N_("peer reflected our own hello")
UNEXPECTED_KEY = N_("unexpected key {key}, expected {expected}")
OTHER_SESSION = N_("peer is in a different session")
BAD_RESPONDER_SIGNATURE = N_("bad handshake signature from responder")
BAD_INITIATOR_SIGNATURE = N_("bad handshake signature from initiator")
OWN_KEY = N_("peer presents our own key")
TIMED_OUT = N_("handshake timed out after {seconds}s")
NOT_A_TABLE = N_("{address} is not a p2pcards table (it answers in another protocol)")
NO_ANSWER = N_("{address} answered nothing in {seconds}s: is it a p2pcards table?")
WORDS = (OTHER_VERSION, REJECTED, UNUSABLE_KEY_EXCHANGE, REPLAYED, SILENT_FOR, REFLECTED, UNEXPECTED_KEY,
         OTHER_SESSION, BAD_RESPONDER_SIGNATURE, BAD_INITIATOR_SIGNATURE, OWN_KEY, TIMED_OUT, NOT_A_TABLE,
         NO_ANSWER)

log = logging.getLogger("p2pcards.net.handshake")

ROLES = ("lobby", "watch", "mesh")
TRANSCRIPT_DOMAIN = b"p2pcards-handshake-v1\x00"
TAG_INITIATOR = b"initiator"
TAG_RESPONDER = b"responder"
FRAME_KEYS_INFO = b"p2pcards-frames-v1"
DEFAULT_HANDSHAKE_TIMEOUT = 10.0


def raw_public_key(private_key: Ed25519PrivateKey) -> bytes:
    return private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Identity:
    """Who we are on the wire: an Ed25519 key and a display name."""

    private_key: Ed25519PrivateKey
    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.private_key, Ed25519PrivateKey):
            raise TypeError("private_key must be an Ed25519PrivateKey")
        try:
            check_name(self.name)
        except ProtocolError as exc:
            raise ValueError(str(exc)) from None

    @property
    def public_key(self) -> bytes:
        return raw_public_key(self.private_key)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


@dataclass(frozen=True)
class Hello:
    version: int
    key: bytes
    nonce: bytes
    name: str
    role: str
    session: bytes | None
    kx: bytes  # ephemeral X25519 public key for the frame keys
    raw: bytes  # the exact frame body, as signed in the transcript


def make_hello(identity: Identity, role: str, session: bytes | None, nonce: bytes, kx: bytes) -> bytes:
    msg = {"t": "hello", "v": PROTOCOL_VERSION, "key": identity.public_key, "nonce": nonce,
           "name": identity.name, "role": role, "session": session, "kx": kx}
    return msgpack.packb(msg, use_bin_type=True)


def parse_hello(body: bytes, limits: Limits = Limits()) -> Hello:
    """Parse a hello frame body. Raises ProtocolError (HandshakeError for a wrong version)."""
    msg = decode_body(body, limits)
    if msg["t"] != "hello":
        raise ProtocolError(f"expected 'hello', got {msg['t']!r}")
    version = get_int(msg, "v", 0, 0xFFFFFFFF)
    if version != PROTOCOL_VERSION:
        # Checked before the other fields: another version may lay them out differently.
        raise HandshakeError(OTHER_VERSION.format(version=version, ours=PROTOCOL_VERSION))
    key = get_bytes(msg, "key", KEY_LEN)
    nonce = get_bytes(msg, "nonce", NONCE_LEN)
    name = check_name(get_str(msg, "name", max_len=MAX_NAME), "peer name")
    role = get_str(msg, "role", max_len=16)
    if role not in ROLES:
        raise ProtocolError(f"unknown role {role!r}")
    session = get_bytes(msg, "session", max_len=SESSION_ID_LEN, optional=True)
    if session is not None and not session:
        raise ProtocolError("empty session id (send nil for none)")
    kx = get_bytes(msg, "kx", KEY_LEN)
    return Hello(version, key, nonce, name, role, session, kx, body)


def parse_auth(body: bytes, limits: Limits = Limits()) -> bytes:
    msg = decode_body(body, limits)
    if msg["t"] == "error":
        raise HandshakeError(REJECTED.format(reason=get_text(msg, "reason")))
    if msg["t"] != "auth":
        raise ProtocolError(f"expected 'auth', got {msg['t']!r}")
    return get_bytes(msg, "sig", SIG_LEN)


def transcript(tag: bytes, hello_initiator: bytes, hello_responder: bytes) -> bytes:
    return (TRANSCRIPT_DOMAIN + tag + b"\x00" + hashlib.sha256(hello_initiator).digest()
            + hashlib.sha256(hello_responder).digest())


def frame_keys(ephemeral: X25519PrivateKey, peer_kx: bytes, hello_initiator: bytes,
               hello_responder: bytes) -> tuple[bytes, bytes]:
    """(initiator->responder key, responder->initiator key) for sealing frames."""
    try:
        shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(peer_kx))
    except ValueError:  # a low-order point gives an all-zero secret: refused
        raise HandshakeError(UNUSABLE_KEY_EXCHANGE) from None
    salt = hashlib.sha256(hello_initiator).digest() + hashlib.sha256(hello_responder).digest()
    okm = HKDF(algorithm=hashes.SHA256(), length=64, salt=salt, info=FRAME_KEYS_INFO).derive(shared)
    return okm[:32], okm[32:]


def _raw_x25519(private: X25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def verify(key: bytes, sig: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, data)
        return True
    except (InvalidSignature, ValueError):
        return False


class ReplayGuard:
    """Remembers recently seen peer nonces; a repeated one is a replayed handshake."""

    def __init__(self, size: int = 4096) -> None:
        self._seen: collections.OrderedDict[bytes, None] = collections.OrderedDict()
        self._size = size

    def check_and_add(self, nonce: bytes) -> None:
        if nonce in self._seen:
            raise HandshakeError(REPLAYED)
        self._seen[nonce] = None
        while len(self._seen) > self._size:
            self._seen.popitem(last=False)


@dataclass(eq=False)
class Channel:
    """An authenticated connection: framed stream + who is on the other end."""

    framed: FramedStream
    peer_key: bytes
    peer_name: str
    role: str
    session: bytes | None
    remote: tuple[str, int] | None = None
    local: tuple[str, int] | None = None
    peer_hello: Hello | None = field(default=None, repr=False)

    @property
    def peer_fingerprint(self) -> str:
        return fingerprint(self.peer_key)

    def describe(self) -> str:
        addr = f"{self.remote[0]}:{self.remote[1]}" if self.remote else "?"
        return f"{self.peer_name!r} [{self.peer_fingerprint}] at {addr}"

    async def send(self, msg: dict) -> None:
        await self.framed.send(msg)

    async def receive(self) -> dict:
        return await self.framed.receive()

    async def receive_live(self, dead_after: float) -> dict:
        """The next non-ping message; a peer silent for ``dead_after`` seconds is dead."""
        while True:
            with trio.move_on_after(dead_after):
                msg = await self.framed.receive()
                if msg["t"] != "ping":
                    return msg
                continue
            raise ConnectionClosed(SILENT_FOR.format(peer=self.describe(), seconds=dead_after))

    async def keepalive(self, interval: float) -> None:
        """Send a ping every ``interval`` seconds until the connection fails or we are cancelled."""
        while True:
            await trio.sleep(interval)
            await self.framed.send({"t": "ping"})

    async def aclose(self, reason: str | None = None) -> None:
        """Close, telling the peer why (best effort, never blocks long)."""
        if reason is not None and not self.framed.closed:
            await send_error(self.framed, reason)
        await self.framed.aclose()


async def send_error(framed: FramedStream, reason: str) -> None:
    with trio.move_on_after(0.5) as scope:
        scope.shield = True
        try:
            await framed.send({"t": "error", "reason": reason[:512]})
        except NetError:
            pass


def _addresses(stream: trio.abc.Stream) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
    sock = getattr(stream, "socket", None)
    if sock is None:
        return None, None
    try:
        return tuple(sock.getpeername()[:2]), tuple(sock.getsockname()[:2])
    except OSError:
        return None, None


async def initiate(framed: FramedStream, identity: Identity, *, role: str, session: bytes | None,
                   expect_key: bytes | None = None, timeout: float = DEFAULT_HANDSHAKE_TIMEOUT) -> Channel:
    """Run the initiator side; returns the channel or raises HandshakeError/ProtocolError/ConnectionClosed."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    nonce = secrets.token_bytes(NONCE_LEN)
    ephemeral = X25519PrivateKey.generate()
    own_hello = make_hello(identity, role, session, nonce, _raw_x25519(ephemeral))
    answered = False
    try:
        with trio.fail_after(timeout):
            await framed.send_body(own_hello)
            try:
                body, msg = await framed.receive_raw()
            except ProtocolError:
                # The first bytes back are no frame of ours ("HTTP/1.1 400", an
                # SSH banner): say so at once, not what the bytes read as.
                raise HandshakeError(NOT_A_TABLE.format(address=framed.peer)) from None
            answered = True
            if msg["t"] == "error":
                raise HandshakeError(REJECTED.format(reason=get_text(msg, "reason")))
            hello = parse_hello(body, framed.limits)
            if hello.key == identity.public_key or hello.nonce == nonce:
                raise HandshakeError(REFLECTED)
            if expect_key is not None and hello.key != expect_key:
                raise HandshakeError(UNEXPECTED_KEY.format(key=fingerprint(hello.key),
                                                           expected=fingerprint(expect_key)))
            if hello.role != role:
                raise HandshakeError(f"peer answered role {hello.role!r} to our {role!r}")
            if session is not None and hello.session != session:
                raise HandshakeError(OTHER_SESSION)
            sig = parse_auth((await framed.receive_raw())[0], framed.limits)
            if not verify(hello.key, sig, transcript(TAG_RESPONDER, own_hello, hello.raw)):
                raise HandshakeError(BAD_RESPONDER_SIGNATURE)
            send_key, receive_key = frame_keys(ephemeral, hello.kx, own_hello, hello.raw)
            own_sig = identity.private_key.sign(transcript(TAG_INITIATOR, own_hello, hello.raw))
            await framed.send({"t": "auth", "sig": own_sig})
            framed.seal_with(send_key, receive_key)
    except trio.TooSlowError:
        if not answered:
            raise HandshakeError(NO_ANSWER.format(address=framed.peer, seconds=f"{timeout:g}")) from None
        raise HandshakeError(TIMED_OUT.format(seconds=timeout)) from None
    remote, local = _addresses(framed.stream)
    return Channel(framed, hello.key, hello.name, role, hello.session, remote, local, hello)


async def respond(framed: FramedStream, identity: Identity, *, admit: Callable[[Hello], bytes | None],
                  replay: ReplayGuard | None = None,
                  timeout: float = DEFAULT_HANDSHAKE_TIMEOUT) -> Channel:
    """Run the responder side. ``admit(hello)`` raises HandshakeError to refuse the
    peer, else returns the session value to echo in our hello."""
    nonce = secrets.token_bytes(NONCE_LEN)
    ephemeral = X25519PrivateKey.generate()
    try:
        with trio.fail_after(timeout):
            body, _ = await framed.receive_raw()
            hello = parse_hello(body, framed.limits)
            if hello.key == identity.public_key:
                raise HandshakeError(OWN_KEY)
            if replay is not None:
                replay.check_and_add(hello.nonce)
            session = admit(hello)
            own_hello = make_hello(identity, hello.role, session, nonce, _raw_x25519(ephemeral))
            receive_key, send_key = frame_keys(ephemeral, hello.kx, hello.raw, own_hello)
            own_sig = identity.private_key.sign(transcript(TAG_RESPONDER, hello.raw, own_hello))
            await framed.send_body(own_hello)
            await framed.send({"t": "auth", "sig": own_sig})
            sig = parse_auth((await framed.receive_raw())[0], framed.limits)
            if not verify(hello.key, sig, transcript(TAG_INITIATOR, hello.raw, own_hello)):
                raise HandshakeError(BAD_INITIATOR_SIGNATURE)
            framed.seal_with(send_key, receive_key)
    except trio.TooSlowError:
        raise HandshakeError(TIMED_OUT.format(seconds=timeout)) from None
    remote, local = _addresses(framed.stream)
    return Channel(framed, hello.key, hello.name, hello.role, session, remote, local, hello)
