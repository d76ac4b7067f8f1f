"""The full mesh: every pair of players holds one direct, authenticated TCP
connection. Seat i dials every seat j < i and redials with backoff when the
connection breaks; seat j accepts, and a fresh connection from the same seat
replaces the old one. The driver sees one ordered stream of events:
``Message``, ``PeerUp``, ``PeerDown``; every event carries the connection's
epoch, so nothing from a replaced connection can pass for the new one's."""

from __future__ import annotations

import logging
import math
import random
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator

import trio

from .. import limits
from ..i18n import N_
from .endpoint import Endpoint
from .errors import HandshakeError, MeshError, NetError, ProtocolError
from .framing import pack_message
from .handshake import Channel, Hello
from .outbox import Outbox
from .messages import get_text
from .agreement import SeatInfo, TableDescription
from .tasks import background_tasks

log = logging.getLogger("p2pcards.net.mesh")

# The words of this module a player may read: English here and on the wire
# (a refusal goes to the peer refused); shown through i18n.known(text, WORDS).
NOT_A_PLAYER = N_("key is not a player of this table")
WRONG_DIRECTION = N_("seat {seat} must not dial seat {mine} (higher seats dial lower)")
CLOSING = N_("this mesh is closing")
OFFLINE = N_("this peer is offline for a moment")
NEVER_CONNECTED = N_("never connected")
# Translators: {seats} lists the seats, each as: number (name: why).
NOT_CONNECTED = N_("not connected after {seconds}s to seat(s) {seats}")
WORDS = (NOT_A_PLAYER, WRONG_DIRECTION, CLOSING, OFFLINE, NEVER_CONNECTED, NOT_CONNECTED)


@dataclass(frozen=True)
class Message:
    seat: int
    msg: Any
    epoch: int
    size: int = 0  # bytes on the wire, for the inbox's bound


@dataclass(frozen=True)
class PeerUp:
    seat: int
    epoch: int


@dataclass(frozen=True)
class PeerDown:
    seat: int
    epoch: int
    reason: str
    final: bool  # the peer closed its mesh on purpose ('bye'); we will not redial


MeshEvent = Message | PeerUp | PeerDown


@dataclass(frozen=True)
class PeerStatus:
    seat: int
    name: str
    connected: bool
    since: float  # trio.current_time() of the last change
    epoch: int  # connections so far; 0 = never connected
    reason: str | None  # why it last went down
    queued: int  # frames waiting in its send queue
    queued_bytes: int = 0  # their bytes


class _Peer:
    def __init__(self, info: SeatInfo, dial: bool) -> None:
        self.info = info
        self.dial = dial
        self.epoch = 0
        self.channel: Channel | None = None
        self.queue: Outbox | None = None
        self.scope: trio.CancelScope | None = None
        self.since = trio.current_time()
        self.reason: str | None = None
        self.left = False
        self.lost = trio.Event()  # set when the current connection ends (wakes the dialer)
        self.ended = trio.Event()


class Mesh:
    """Use through ``open_mesh``. All methods are for the seat driver's task(s)."""

    def __init__(self, endpoint: Endpoint, table: TableDescription, my_seat: int, *, queue_size: int = 1024,
                 queue_bytes: int = limits.MAX_SEND_QUEUE_BYTES, inbox_size: int = 1024,
                 inbox_bytes: int = limits.MAX_INBOX_BYTES, keepalive: float = 3.0, dead_after: float = 20.0,
                 backoff: tuple[float, float] = (0.05, 5.0), dial_timeout: float = 5.0) -> None:
        if not 0 <= my_seat < len(table.seats):
            raise MeshError(f"seat {my_seat} is not at this {len(table.seats)}-seat table")
        if table.seats[my_seat].key != endpoint.identity.public_key:
            raise MeshError(f"seat {my_seat} belongs to another key than this endpoint's")
        self.endpoint, self.table, self.my_seat = endpoint, table, my_seat
        # A peer's send queue holds at most queue_size frames and queue_bytes bytes; a peer
        # that takes none of our bytes for dead_after seconds is cut, as one silent that long.
        self.queue_size, self.queue_bytes = queue_size, queue_bytes
        self.keepalive, self.dead_after = keepalive, dead_after
        self.backoff, self.dial_timeout = backoff, dial_timeout
        self.peers = {s.seat: _Peer(s, dial=s.seat < my_seat) for s in table.seats if s.seat != my_seat}
        # Unbounded so PeerUp/PeerDown are never lost; instead each peer's reader stops
        # while inbox_size of its messages are undelivered, so a flooding peer only
        # holds itself up.
        self.inbox_size = inbox_size
        self.inbox_bytes = inbox_bytes  # and while that many bytes of them are
        self._undelivered = {seat: 0 for seat in self.peers}
        self._undelivered_bytes = {seat: 0 for seat in self.peers}
        self._inbox_send, self._inbox_recv = trio.open_memory_channel(math.inf)
        self._space = trio.Event()
        self._changed = trio.Event()
        self._closing = False
        self._vanishing = False
        self._paused_until = -math.inf  # drop(): no connections before this time

    # -- driver API ------------------------------------------------------------
    async def send(self, seat: int, msg: Any) -> bool:
        """Queue ``msg`` for ``seat``. False if that peer is not connected now (resend
        after its PeerUp). Raises ValueError for an unencodable or oversize message."""
        if seat not in self.peers:
            raise ValueError(f"no peer at seat {seat}")
        body = pack_message({"t": "app", "m": msg}, self.endpoint.limits)
        await trio.lowlevel.checkpoint()
        return self._enqueue(self.peers[seat], body)

    async def broadcast(self, msg: Any) -> dict[int, bool]:
        """Queue ``msg`` for every peer; returns seat -> queued (as ``send``)."""
        body = pack_message({"t": "app", "m": msg}, self.endpoint.limits)
        await trio.lowlevel.checkpoint()
        return {seat: self._enqueue(peer, body) for seat, peer in self.peers.items()}

    async def receive(self) -> MeshEvent:
        """The next event. Raises MeshError once the mesh is closed."""
        try:
            event = await self._inbox_recv.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise MeshError("the mesh is closed") from None
        if isinstance(event, Message):
            self._undelivered[event.seat] -= 1
            self._undelivered_bytes[event.seat] -= event.size
            if not self._inbox_full(event.seat):
                self._space.set()
                self._space = trio.Event()
        return event

    def __aiter__(self) -> "Mesh":
        return self

    async def __anext__(self) -> MeshEvent:
        try:
            return await self.receive()
        except MeshError:
            raise StopAsyncIteration from None

    def peer_status(self) -> dict[int, PeerStatus]:
        return {seat: PeerStatus(seat, p.info.name, p.channel is not None, p.since, p.epoch, p.reason,
                                 p.queue.items if p.queue else 0, p.queue.bytes if p.queue else 0)
                for seat, p in self.peers.items()}

    def queued_bytes(self, seat: int) -> int:
        """Bytes waiting in ``seat``'s send queue (0 when it is not connected)."""
        queue = self.peers[seat].queue
        return queue.bytes if queue is not None else 0

    def all_connected(self) -> bool:
        return all(p.channel is not None for p in self.peers.values())

    async def wait_all_connected(self, timeout: float) -> None:
        """Raise MeshError naming the missing seats if not all are connected in time."""
        with trio.move_on_after(timeout):
            while not self.all_connected():
                await self._changed.wait()
            return
        missing = [f"{s} ({p.info.name}: {p.reason or NEVER_CONNECTED})"
                   for s, p in self.peers.items() if p.channel is None]
        raise MeshError(NOT_CONNECTED.format(seconds=timeout, seats=", ".join(missing)))

    async def wait_any_connected(self, timeout: float) -> bool:
        """Whether some peer is (or gets) connected within ``timeout`` seconds."""
        with trio.move_on_after(timeout):
            while not any(p.channel is not None for p in self.peers.values()):
                await self._changed.wait()
            return True
        return False

    def drop(self, seconds: float) -> None:
        """Cut every connection and stay offline for ``seconds`` (a Wi-Fi drop,
        for fault injection); then the usual redialling brings the mesh back."""
        self._paused_until = trio.current_time() + seconds
        for peer in self.peers.values():
            self._cut(peer, f"dropped for {seconds:g} s (fault injection)")

    # -- internals ------------------------------------------------------------
    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _post(self, event: MeshEvent) -> None:
        try:
            self._inbox_send.send_nowait(event)
        except trio.ClosedResourceError:
            pass

    def _inbox_full(self, seat: int) -> bool:
        return self._undelivered[seat] >= self.inbox_size or self._undelivered_bytes[seat] >= self.inbox_bytes

    async def _post_message(self, event: Message) -> None:
        while self._inbox_full(event.seat):
            await self._space.wait()
        self._undelivered[event.seat] += 1
        self._undelivered_bytes[event.seat] += event.size
        self._post(event)

    def _enqueue(self, peer: _Peer, body: bytes) -> bool:
        if peer.queue is None or peer.queue.closed:
            return False  # the connection is ending; its PeerDown follows
        if peer.queue.put(body, len(body)):
            return True
        self._cut(peer, f"send queue overflow ({peer.queue.items} frames, {peer.queue.bytes} bytes waiting; "
                        f"at most {self.queue_size} frames, {self.queue_bytes} bytes): peer too slow")
        return False

    def _cut(self, peer: _Peer, reason: str) -> None:
        if peer.scope is not None and peer.scope.cancel_called:
            return  # already being cut: one line per connection, however many sends fail meanwhile
        log.warning("[seat %d] seat %d (%s): dropping the connection: %s", self.my_seat, peer.info.seat,
                    peer.info.name, reason)
        peer.reason = reason
        if peer.scope is not None:
            peer.scope.cancel()

    # Service interface, for connections the endpoint accepts.
    def admit(self, hello: Hello) -> bytes | None:
        seat = self.table.seat_of(hello.key)
        if seat is None:
            raise HandshakeError(NOT_A_PLAYER)
        if seat not in self.peers or self.peers[seat].dial:
            raise HandshakeError(WRONG_DIRECTION.format(seat=seat, mine=self.my_seat))
        if self._closing:
            raise HandshakeError(CLOSING)
        if trio.current_time() < self._paused_until:
            raise HandshakeError(OFFLINE)
        return self.table.session_id

    async def handle(self, channel: Channel) -> None:
        if self._closing:  # closed between admission and now
            await channel.aclose(CLOSING)
            return
        await self._run_connection(self.peers[self.table.seat_of(channel.peer_key)], channel)

    async def _run_connection(self, peer: _Peer, channel: Channel) -> None:
        seat = peer.info.seat
        if peer.scope is not None:
            # Cancel the old connection's tasks before announcing the new one, so none of
            # its frames can follow the new PeerUp.
            peer.scope.cancel()
            if peer.channel is not None:
                self._down(peer, "replaced by a new connection", False)
        peer.epoch += 1
        epoch = peer.epoch
        queue = Outbox(self.queue_size, self.queue_bytes)
        channel.framed.send_stall = self.dead_after  # a peer that does not read is cut, like a silent one
        scope = trio.CancelScope()
        peer.channel, peer.queue, peer.scope = channel, queue, scope
        peer.left, peer.reason, peer.since = False, None, trio.current_time()
        peer.lost, peer.ended = trio.Event(), trio.Event()
        ended = peer.ended
        log.info("[seat %d] seat %d (%s) connected, epoch %d", self.my_seat, seat, peer.info.name, epoch)
        self._post(PeerUp(seat, epoch))
        self._notify()
        outcome: list[tuple[str, bool, bool]] = []  # (reason, final, tell the peer)
        with scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._reader, peer, channel, epoch, outcome, nursery.cancel_scope)
                nursery.start_soon(self._writer, channel, queue, outcome, nursery.cancel_scope)
                nursery.start_soon(self._pinger, channel, outcome, nursery.cancel_scope)
        reason, final, tell = outcome[0] if outcome else (peer.reason or "connection cancelled", False, False)
        if peer.epoch == epoch:
            if tell:
                log.warning("[seat %d] seat %d (%s): closing: %s", self.my_seat, seat, peer.info.name, reason)
            self._down(peer, reason, final)
        queue.close()
        ended.set()
        await channel.aclose(reason if tell else None)

    def _down(self, peer: _Peer, reason: str, final: bool) -> None:
        log.info("[seat %d] seat %d (%s) down (epoch %d): %s", self.my_seat, peer.info.seat, peer.info.name,
                 peer.epoch, reason)
        self._post(PeerDown(peer.info.seat, peer.epoch, reason, final))
        peer.channel, peer.queue, peer.scope = None, None, None
        peer.reason, peer.left, peer.since = reason, final, trio.current_time()
        peer.lost.set()
        self._notify()

    async def _reader(self, peer: _Peer, channel: Channel, epoch: int, outcome: list,
                      scope: trio.CancelScope) -> None:
        try:
            while True:
                msg = await channel.receive_live(self.dead_after)
                t = msg["t"]
                if t == "app":
                    if "m" not in msg:
                        raise ProtocolError("'app' message without 'm'")
                    await self._post_message(Message(peer.info.seat, msg["m"], epoch, channel.framed.last_size))
                elif t == "bye":
                    outcome.append(("peer closed the mesh: " + (get_text(msg, "reason", optional=True) or ""),
                                    True, False))
                    break
                elif t == "error":
                    outcome.append((f"peer closed with error: {get_text(msg, 'reason')}", False, False))
                    break
                else:
                    raise ProtocolError(f"unexpected {t!r} on the mesh")
        except ProtocolError as exc:
            outcome.append((str(exc), False, True))
        except NetError as exc:
            outcome.append((str(exc), False, False))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            outcome.append(("mesh closed", False, False))
        scope.cancel()

    async def _writer(self, channel: Channel, queue: Outbox, outcome: list, scope: trio.CancelScope) -> None:
        try:
            async for body in queue:  # sealed on the way out, per connection
                await channel.framed.send_body(body)
            return  # queue closed by aclose(): the reader waits for the peer's bye/EOF
        except NetError as exc:
            outcome.append((str(exc), False, False))
        scope.cancel()

    async def _pinger(self, channel: Channel, outcome: list, scope: trio.CancelScope) -> None:
        try:
            await channel.keepalive(self.keepalive)
        except NetError as exc:
            # A broken connection the reader sees too (and says why: a bye, an
            # error); but a peer that takes no bytes, not even our pings, only
            # the sending side can see.
            if channel.framed.stalled:
                outcome.append((str(exc), False, False))
                scope.cancel()

    async def _dialer(self, peer: _Peer) -> None:
        delay = self.backoff[0]
        attempt = 0
        while not self._closing and not peer.left:
            if peer.channel is not None:
                await peer.lost.wait()
                continue
            if trio.current_time() < self._paused_until:
                await trio.sleep_until(self._paused_until)
                continue
            attempt += 1
            try:
                channel = await self.endpoint.connect(
                    peer.info.host, peer.info.port, role="mesh", session=self.table.session_id,
                    expect_key=peer.info.key, timeout=self.dial_timeout)
            except NetError as exc:
                if attempt == 1 or attempt % 10 == 0:
                    log.info("[seat %d] dialling seat %d (%s) at %s:%d failed (attempt %d): %s",
                             self.my_seat, peer.info.seat,
                             peer.info.name, peer.info.host, peer.info.port, attempt, exc)
                peer.reason = str(exc)
                await trio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self.backoff[1])
                continue
            delay, attempt = self.backoff[0], 0
            await self._run_connection(peer, channel)

    def vanish(self) -> None:
        """Close without a bye, as a crash would: the others keep redialling
        this seat, which means to come back (``p2pcards resume``)."""
        self._vanishing = True

    async def _close(self, timeout: float) -> None:
        """Say bye to every peer after flushing its queue, then wait briefly for theirs."""
        self._closing = True
        if self._vanishing:
            for p in self.peers.values():
                if p.scope is not None:
                    p.scope.cancel()
            return
        live = [p for p in self.peers.values() if p.queue is not None]
        bye = pack_message({"t": "bye", "reason": "mesh closed"})
        for p in live:
            p.queue.put(bye, len(bye))  # a full queue ends without it
            p.queue.close()
        with trio.move_on_after(timeout):
            for p in live:
                await p.ended.wait()
        for p in self.peers.values():
            if p.scope is not None:
                p.scope.cancel()


@asynccontextmanager
async def open_mesh(endpoint: Endpoint, table: TableDescription, my_seat: int, *,
                    ready_timeout: float | None = 30.0, close_timeout: float = 2.0,
                    **options) -> AsyncIterator[Mesh]:
    """Join the mesh of ``table`` as ``my_seat`` through ``endpoint`` (whose key must be that seat's).

    With ``ready_timeout`` (seconds), waits until every peer is connected or raises
    MeshError; None returns at once. ``options`` go to ``Mesh`` (queue_size,
    inbox_size, keepalive, dead_after, backoff, dial_timeout)."""
    mesh = Mesh(endpoint, table, my_seat, **options)
    endpoint.register_mesh(table.session_id, mesh)
    try:
        async with background_tasks() as nursery:
            for peer in mesh.peers.values():
                if peer.dial:
                    nursery.start_soon(mesh._dialer, peer)
            try:
                if ready_timeout is not None:
                    await mesh.wait_all_connected(ready_timeout)
                yield mesh
            finally:
                with trio.CancelScope(shield=True):
                    await mesh._close(close_timeout)
    finally:
        endpoint.register_mesh(table.session_id, None)
        mesh._inbox_send.close()
