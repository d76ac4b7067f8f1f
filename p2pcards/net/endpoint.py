"""One listening socket per peer: every incoming connection is authenticated,
then handed to the service registered for its role (lobby, watch, mesh)."""

from __future__ import annotations

import logging
import os
from contextlib import asynccontextmanager
from typing import AsyncIterator, Protocol

import trio

from .. import limits as field_limits
from ..i18n import N_
from .admission import WaitingRoom
from .errors import HandshakeError, NetError, NotReady
from .framing import FramedStream, Limits
from .ratelog import RateLimitedLog
from .tasks import background_tasks
from .handshake import (DEFAULT_HANDSHAKE_TIMEOUT, REJECTED, TIMED_OUT, UNEXPECTED_KEY, Channel, Hello, Identity, ReplayGuard,
                        initiate, respond, send_error)
from .messages import fingerprint
from .relay import open_envelope

log = logging.getLogger("p2pcards.net.endpoint")
REFUSED_BY_PEER = REJECTED.partition("{")[0]  # how a peer's own refusal begins

DEFAULT_PORT = 7531

# The words of this module a player may read: English here and on the wire
# (a refusal goes to the peer refused); shown through i18n.known(text, WORDS).
NO_GAME_IN_PROGRESS = N_("no game in progress with this session id here")
NO_TABLE_WAITING = N_("no table is waiting for players here (its game may have started)")
NO_GAME_HERE = N_("no game is being played here")
CONNECT_TIMED_OUT = N_("connecting to {address} timed out after {seconds}s")
CANNOT_CONNECT = N_("cannot connect to {address}: {reason}")
CANNOT_LISTEN = N_("cannot listen on {address}: {reason}")
# The system's reasons a connection fails (os.strerror, English in Python), for the reason above.
SYSTEM_REASONS = (N_("Connection refused"), N_("Connection timed out"), N_("No route to host"),
                  N_("Network is unreachable"), N_("Name or service not known"), N_("Address already in use"),
                  N_("Cannot assign requested address"), N_("Permission denied"), N_("Connection reset by peer"))
WORDS = (NO_GAME_IN_PROGRESS, NO_TABLE_WAITING, NO_GAME_HERE, CONNECT_TIMED_OUT, CANNOT_CONNECT, CANNOT_LISTEN,
         *SYSTEM_REASONS)


class Service(Protocol):
    """What the endpoint routes authenticated connections of one role to."""

    def admit(self, hello: Hello) -> bytes | None:
        """Raise HandshakeError to refuse this peer; else return the session to echo."""

    async def handle(self, channel: Channel) -> None:
        """Serve the connection; must not raise (log and close instead)."""


class Endpoint:
    """Our identity plus our listening socket. Create with ``open_endpoint``."""

    def __init__(self, identity: Identity, listener: trio.SocketListener, *, limits: Limits,
                 handshake_timeout: float) -> None:
        self.identity = identity
        self.limits = limits
        self.handshake_timeout = handshake_timeout
        self._listener = listener
        self.replay = ReplayGuard()
        self._services: dict[str, Service] = {}
        self._meshes: dict[bytes, Service] = {}
        self.waiting = WaitingRoom()  # connections not authenticated yet
        self.refusals = RateLimitedLog(log)  # a flood of connections must not become a flood of log lines
        # A stranger has this long to authenticate; a LAN handshake takes milliseconds.
        self.pre_auth_timeout = min(handshake_timeout, field_limits.PRE_AUTH_TIMEOUT)
        self._nursery: trio.Nursery | None = None
        # An internet table's way to its peers (p2pcards.net.relay); None: their ports.
        self.transport = None
        sockname = listener.socket.getsockname()
        self.bind_host: str = sockname[0]
        self.port: int = sockname[1]

    # -- registration -------------------------------------------------------
    def register(self, role: str, service: Service | None) -> None:
        """Route incoming ``lobby``/``watch`` connections to ``service`` (None: refuse them)."""
        if role not in ("lobby", "watch"):
            raise ValueError(f"register() takes 'lobby' or 'watch', not {role!r}")
        if service is None:
            self._services.pop(role, None)
        else:
            self._services[role] = service

    def register_mesh(self, session_id: bytes, service: Service | None) -> None:
        if service is None:
            self._meshes.pop(session_id, None)
        else:
            self._meshes[session_id] = service

    def _route(self, hello: Hello) -> Service:
        if hello.role == "mesh":
            service = self._meshes.get(hello.session or b"")
            if service is None:
                # The dialler may simply be faster than our driver; it retries.
                raise NotReady(NO_GAME_IN_PROGRESS)
            return service
        service = self._services.get(hello.role)
        if service is None:
            raise HandshakeError(NO_TABLE_WAITING if hello.role == "lobby" else NO_GAME_HERE)
        return service

    # -- outgoing -----------------------------------------------------------
    async def connect(self, host: str, port: int, *, role: str, session: bytes | None,
                      expect_key: bytes | None = None, timeout: float | None = None) -> Channel:
        """Dial ``host:port`` as this endpoint's identity (see ``dial``); a peer
        whose key we know is reached through our transport, if we have one."""
        if self.transport is not None and expect_key is not None:
            timeout = self.handshake_timeout if timeout is None else timeout
            # The peer's own address first (the same house); the relay where that fails.
            direct = await self.transport.direct_stream(expect_key, (host, port))
            if direct is not None:
                try:
                    channel = await handshake_over(direct, self.identity, f"{host}:{port}", role=role,
                                                   session=session, expect_key=expect_key, timeout=timeout,
                                                   limits=self.limits)
                    self.transport.direct_answered(expect_key, refused=False)
                    return channel
                except NetError as exc:
                    # Refused ("no game in progress" while the peer is starting): the caller
                    # retries, directly again, a few times. At a private address across the
                    # internet another machine may answer and refuse every time: the relay then.
                    if str(exc).startswith(REFUSED_BY_PEER) and self.transport.direct_answered(expect_key,
                                                                                               refused=True):
                        raise
                    log.info("direct connection to %s:%s failed (%s); through the relay", host, port, exc)
            stream = await self.transport.open_stream(expect_key, timeout)
            return await handshake_over(stream, self.identity, f"{host}:{port}", role=role, session=session,
                                    expect_key=expect_key, timeout=timeout, limits=self.limits,
                                    envelope=self.transport.psk_for(expect_key))
        return await dial(self.identity, host, port, role=role, session=session, expect_key=expect_key,
                          timeout=self.handshake_timeout if timeout is None else timeout, limits=self.limits)

    def start_soon(self, fn, *args) -> None:
        """Run ``fn(*args)`` until the endpoint closes."""
        self._nursery.start_soon(fn, *args)

    async def serve_stream(self, stream: trio.SocketStream, expect_key: bytes, envelope: bytes) -> None:
        """Serve a connection that reached us through a relay as if accepted on
        our port; only the peer holding ``expect_key`` may use it, inside the
        envelope sealed with that pair's key (p2pcards.net.relay.open_envelope)."""
        await self._incoming(stream, expect_key, envelope)

    # -- incoming -----------------------------------------------------------
    async def _serve(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            while True:
                try:
                    stream = await self._listener.accept()
                except OSError as exc:  # e.g. EMFILE: back off instead of spinning
                    self.refusals.warning("accept failed: %s", exc)
                    await trio.sleep(0.1)
                    continue
                nursery.start_soon(self._incoming, stream)

    async def _incoming(self, stream: trio.SocketStream, expect_key: bytes | None = None,
                        envelope: bytes | None = None) -> None:
        try:
            peer = "%s:%s" % tuple(stream.socket.getpeername()[:2])
        except OSError:
            peer = "?"
        framed = FramedStream(stream, self.limits, peer=peer)
        token, pushed_out = object(), trio.CancelScope()
        self.waiting.enter(token, peer.rpartition(":")[0], pushed_out)
        try:
            holder: list[Service] = []

            def admit(hello: Hello) -> bytes | None:
                if expect_key is not None and hello.key != expect_key:
                    raise HandshakeError(UNEXPECTED_KEY.format(key=fingerprint(hello.key),
                                                               expected=fingerprint(expect_key)))
                service = self._route(hello)
                session = service.admit(hello)
                holder.append(service)
                if hello.role == "mesh":
                    self.waiting.leave(token)  # one of the table's own players: never pushed out
                return session

            channel = None
            with pushed_out:
                if envelope is not None:
                    await _sealed_by(framed, envelope, False, self.pre_auth_timeout)
                channel = await respond(framed, self.identity, admit=admit, replay=self.replay,
                                        timeout=self.pre_auth_timeout)
            if channel is None:
                self.refusals.info("dropped a connection from %s that had not authenticated, to make room", peer)
                await framed.aclose()
                return
        except NetError as exc:
            self.refusals.log(logging.INFO if isinstance(exc, NotReady) else logging.WARNING,
                         "rejected connection from %s: %s", peer, exc)
            await send_error(framed, str(exc))
            await framed.aclose()
            return
        finally:
            self.waiting.leave(token)
        try:
            await holder[0].handle(channel)
        except Exception:  # a bug in one service must not take the listener down
            log.exception("service for %s failed", channel.describe())
            await channel.aclose("internal error")


async def dial(identity: Identity, host: str, port: int, *, role: str, session: bytes | None,
               expect_key: bytes | None = None, timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
               limits: Limits = Limits()) -> Channel:
    """Connect to ``host:port`` and run the handshake as initiator; no listener needed.

    Raises NetError (ConnectionClosed/HandshakeError/ProtocolError) with the reason."""
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise NetError(CONNECT_TIMED_OUT.format(address=f"{host}:{port}", seconds=timeout)) from None
    except OSError as exc:
        raise NetError(CANNOT_CONNECT.format(address=f"{host}:{port}", reason=_why_not(exc))) from None
    return await handshake_over(stream, identity, f"{host}:{port}", role=role, session=session,
                            expect_key=expect_key, timeout=timeout, limits=limits)


async def handshake_over(stream: trio.abc.Stream, identity: Identity, peer: str, *, role: str,
                         session: bytes | None, expect_key: bytes | None, timeout: float, limits: Limits,
                         envelope: bytes | None = None) -> Channel:
    """The initiator's handshake on a connected ``stream`` (inside the relay's
    envelope keyed with ``envelope``, if given); the stream is closed on failure."""
    framed = FramedStream(stream, limits, peer=peer)
    try:
        if envelope is not None:
            await _sealed_by(framed, envelope, True, timeout)
        return await initiate(framed, identity, role=role, session=session, expect_key=expect_key, timeout=timeout)
    except BaseException:
        await framed.aclose()
        raise


async def _sealed_by(framed: FramedStream, envelope: bytes, initiator: bool, timeout: float) -> None:
    with trio.move_on_after(timeout) as scope:
        await open_envelope(framed, envelope, initiator=initiator)
    if scope.cancelled_caught:
        raise HandshakeError(TIMED_OUT.format(seconds=timeout))


def _why_not(exc: OSError) -> str:
    """The reason a connection failed, in the system's words ("Connection
    refused"); trio wraps the reasons of its attempts in a group."""
    attempts = getattr(exc.__cause__, "exceptions", None) or [exc]
    reasons = dict.fromkeys(os.strerror(e.errno) if isinstance(e.errno, int) and e.errno > 0
                            else (e.strerror or str(e)) for e in attempts if isinstance(e, OSError))
    return ", ".join(reasons) or str(exc)


@asynccontextmanager
async def open_endpoint(private_key, name: str, *, bind: str = "0.0.0.0", port: int = 0,
                        limits: Limits = Limits(),
                        handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT) -> AsyncIterator[Endpoint]:
    """Listen on ``bind:port`` (0: the OS picks) as ``name`` with the Ed25519 ``private_key``.

    Raises NetError with a clear reason if the address cannot be bound."""
    identity = Identity(private_key, name)
    try:
        listeners = await trio.open_tcp_listeners(port, host=bind)
    except OSError as exc:
        raise NetError(CANNOT_LISTEN.format(address=f"{bind}:{port}", reason=exc.strerror or exc)) from None
    listener = listeners[0]
    for extra in listeners[1:]:
        await extra.aclose()
    endpoint = Endpoint(identity, listener, limits=limits, handshake_timeout=handshake_timeout)
    async with listener:
        async with background_tasks() as nursery:
            await nursery.start(endpoint._serve)
            yield endpoint
