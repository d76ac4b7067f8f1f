"""Connections through a magic-wormhole Transit Relay, for seats that cannot
reach each other's port (home routers, NAT).

The relay's protocol: a client opens TCP and sends ``please relay TOKEN for
side SIDE\\n`` (TOKEN 64 hex digits, SIDE 16); when a second connection
presents the same token from another side, the relay answers ``ok\\n`` to
both and from then on copies bytes between them. Nothing else: the
project's handshake and sealed frames run unchanged through it, so the relay
sees ciphertext only.

Each pair of seats has its own token, derived from the table secret that only
the seated players hold (it travelled inside the invite code's sealed
channel) and the pair's two keys: a stranger cannot make one, and the token
tells the relay nothing about who is talking. Of each pair the seat that is
dialled (the host for a joiner in the lobby, the lower seat in the mesh)
keeps one connection waiting at the relay and hands each one the relay pairs
to the endpoint as if it had been accepted on its port; the other seat dials
through the relay whenever it would dial the port.
"""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
from dataclasses import dataclass

import trio

from ..i18n import N_
from .errors import ConnectionClosed, NetError
from .framing import CLOSED, RECEIVE_FAILED
from .messages import fingerprint

log = logging.getLogger("p2pcards.net.relay")

TOKEN_DOMAIN = b"p2pcards-relay-token-v1\x00"
PSK_DOMAIN = b"p2pcards-relay-psk-v1\x00"
ENVELOPE_INFO = b"p2pcards-relay-envelope-v1"
SALT_LEN = 32
# Seconds a direct connection to a peer's own address may take before the relay is used.
DIRECT_FIRST_TIMEOUT = 1.0
# Refusals in a row at a peer's own address (it is still starting?) before it is reached through the
# relay only: across the internet a private address may be another machine's.
DIRECT_REFUSALS = 5
SECRET_LEN = 32
MAX_HOST_PORT = 300  # characters of a relay address read off the wire
MAX_ANSWER = 64  # bytes of the relay's answer line we read before giving up on it

RELAY_REFUSED = N_("the relay {relay} refused the connection")
CANNOT_REACH_RELAY = N_("cannot reach the relay {relay}: {reason}")
RELAY_TIMED_OUT = N_("the other player did not come to the relay {relay} within {seconds}s")
BAD_RELAY = N_("{text} is not a relay address (HOST:PORT)")
WORDS = (RELAY_REFUSED, CANNOT_REACH_RELAY, RELAY_TIMED_OUT, BAD_RELAY)


def parse_relay(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (also ``tcp:HOST:PORT``, magic-wormhole's spelling) -> (host, port)."""
    body = text.strip()
    if body.startswith("tcp:"):
        body = body[4:]
    host, sep, port = body.rpartition(":")
    # (A host name is what a resolver takes: no space, no control; it may come from another player.)
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 \
            or not host.isprintable() or any(c.isspace() for c in host):
        raise ValueError(BAD_RELAY.format(text=repr(text)))
    return host.strip("[]"), int(port)


def pair_token(secret: bytes, key_a: bytes, key_b: bytes) -> bytes:
    """The relay token of the two seats holding ``key_a`` and ``key_b`` (either order)."""
    low, high = sorted((key_a, key_b))
    return hashlib.sha256(TOKEN_DOMAIN + secret + low + high).digest()


def pair_psk(secret: bytes, key_a: bytes, key_b: bytes) -> bytes:
    """The pair's key for the envelope (never sent: the relay, which sees the
    token, cannot derive this from it)."""
    low, high = sorted((key_a, key_b))
    return hashlib.sha256(PSK_DOMAIN + secret + low + high).digest()


def envelope_keys(psk: bytes, salt_initiator: bytes, salt_responder: bytes) -> tuple[bytes, bytes]:
    """(initiator -> responder, responder -> initiator) keys of one relayed connection."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    okm = HKDF(algorithm=hashes.SHA256(), length=64, salt=salt_initiator + salt_responder,
               info=ENVELOPE_INFO).derive(psk)
    return okm[:32], okm[32:]


async def open_envelope(framed, psk: bytes, *, initiator: bool) -> None:
    """Seal a relayed connection before its handshake, so the relay does not see
    the hellos' names and keys: each side sends SALT_LEN fresh random bytes
    (raw, before any frame), both derive the two directions' keys from the
    pair's key and both salts (fresh keys for every connection), and every
    frame from then on, the handshake's too, is sealed. The handshake then
    seals with its own keys as always."""
    mine = secrets.token_bytes(SALT_LEN)
    try:
        await framed.stream.send_all(mine)
        theirs = b""
        while len(theirs) < SALT_LEN:
            chunk = await framed.stream.receive_some(SALT_LEN - len(theirs))
            if not chunk:
                raise ConnectionClosed(CLOSED.format(peer=framed.peer))
            theirs += chunk
    except (OSError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise ConnectionClosed(RECEIVE_FAILED.format(peer=framed.peer, reason=str(exc))) from None
    initiator_to_responder, responder_to_initiator = (envelope_keys(psk, mine, theirs) if initiator
                                                      else envelope_keys(psk, theirs, mine))
    if initiator:
        framed.seal_with(initiator_to_responder, responder_to_initiator)
    else:
        framed.seal_with(responder_to_initiator, initiator_to_responder)


async def relay_connect(relay: tuple[str, int], token: bytes) -> trio.SocketStream:
    """A stream glued by the relay to the other connection presenting ``token``.
    Waits as long as the caller lets it (the partner may come much later)."""
    where = f"{relay[0]}:{relay[1]}"
    try:
        stream = await trio.open_tcp_stream(*relay)
    except OSError as exc:
        raise NetError(CANNOT_REACH_RELAY.format(relay=where, reason=exc.strerror or str(exc))) from None
    try:
        await stream.send_all(b"please relay %s for side %s\n" % (token.hex().encode(),
                                                                    secrets.token_hex(8).encode()))
        # One byte at a time: whatever follows the answer is already the partner's.
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < MAX_ANSWER:
            byte = await stream.receive_some(1)
            if not byte:
                break
            answer += byte
        if answer != b"ok\n":
            raise NetError(RELAY_REFUSED.format(relay=where))
    except (OSError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        await stream.aclose()
        raise NetError(CANNOT_REACH_RELAY.format(relay=where, reason=str(exc))) from None
    except BaseException:
        await stream.aclose()
        raise
    return stream


async def relay_connect_within(relay: tuple[str, int], token: bytes, timeout: float) -> trio.SocketStream:
    """``relay_connect``, giving up if the partner has not come within ``timeout`` seconds."""
    with trio.move_on_after(timeout):
        return await relay_connect(relay, token)
    raise NetError(RELAY_TIMED_OUT.format(relay=f"{relay[0]}:{relay[1]}", seconds=f"{timeout:g}"))


@dataclass(frozen=True)
class RelayRoute:
    """What a seat of an internet table knows about reaching the others."""

    relay: tuple[str, int]
    secret: bytes  # the table secret (seated players only)

    @property
    def address(self) -> str:
        return f"{self.relay[0]}:{self.relay[1]}"


class RelayTransport:
    """An endpoint's way to its peers through the relay (``open_transport``)."""

    def __init__(self, endpoint, route: RelayRoute, backoff: tuple[float, float] = (0.1, 5.0)) -> None:
        self.endpoint, self.route = endpoint, route
        self.backoff = backoff
        self._accepting: dict[bytes, bytes] = {}  # peer key -> token we wait with
        self._tokens: dict[bytes, tuple[bytes, bytes]] = {}  # peer key -> (token, psk) given, not derived
        self._refusals: dict[bytes, int] = {}  # peer key -> refusals in a row at its own address

    def token_for(self, key: bytes) -> bytes:
        if key in self._tokens:
            return self._tokens[key][0]
        return pair_token(self.route.secret, self.endpoint.identity.public_key, key)

    def psk_for(self, key: bytes) -> bytes:
        if key in self._tokens:
            return self._tokens[key][1]
        return pair_psk(self.route.secret, self.endpoint.identity.public_key, key)

    async def direct_stream(self, key: bytes, hint: tuple[str, int] | None) -> trio.SocketStream | None:
        """A plain connection to the peer's own address, if it answers at once
        (a player in the same house); None: use the relay."""
        if hint is None or not hint[0] or not 0 < hint[1] < 65536 or DIRECT_FIRST_TIMEOUT <= 0 \
                or self._refusals.get(key, 0) >= DIRECT_REFUSALS:
            return None
        with trio.move_on_after(DIRECT_FIRST_TIMEOUT):
            try:
                return await trio.open_tcp_stream(*hint)
            except OSError:
                return None
        return None

    def direct_answered(self, key: bytes, refused: bool) -> bool:
        """Note how the peer's own address answered; True while a refusal there
        is still worth another direct try."""
        self._refusals[key] = self._refusals.get(key, 0) + 1 if refused else 0
        return self._refusals[key] < DIRECT_REFUSALS

    async def open_stream(self, key: bytes, timeout: float) -> trio.SocketStream:
        """Dial the peer holding ``key`` through the relay."""
        return await relay_connect_within(self.route.relay, self.token_for(key), timeout)

    def accept_from(self, key: bytes, given: tuple[bytes, bytes] | None = None) -> None:
        """Keep a connection waiting at the relay for the peer holding ``key``
        (with its pair token and key, or the ``given`` ones) until the endpoint closes."""
        if key in self._accepting:
            return
        if given is not None:
            self._tokens[key] = given
        self._accepting[key] = self.token_for(key)
        self.endpoint.start_soon(self._wait_for, key)

    async def _wait_for(self, key: bytes) -> None:
        delay = self.backoff[0]
        while True:
            try:
                stream = await relay_connect(self.route.relay, self._accepting[key])
            except NetError as exc:
                # The relay is down or restarting: the table's own timeouts decide
                # how long that may last; here we only keep knocking.
                log.info("waiting at the relay for %s: %s", fingerprint(key), exc)
                await trio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.endpoint.start_soon(self.endpoint.serve_stream, stream, key, self.psk_for(key))


def own_address(toward: str) -> str:
    """The address this machine uses toward ``toward`` (no packet is sent:
    connecting a UDP socket only picks the route); "" if there is none."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((toward, 9))
            return probe.getsockname()[0]
    except OSError:
        return ""


def use_relay(endpoint, route: RelayRoute, tokens: dict[bytes, tuple[bytes, bytes]] | None = None) -> RelayTransport:
    """From now on ``endpoint`` reaches the peers it expects through the relay
    (``tokens``: peer key -> (token, envelope key) given for it rather than derived)."""
    endpoint.transport = RelayTransport(endpoint, route)
    endpoint.transport._tokens.update(tokens or {})
    return endpoint.transport
