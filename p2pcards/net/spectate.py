"""Spectators: they connect to the host's port with role ``watch``, see the
lobby, the final table, then every log entry as it is appended. Entries are
public by design, so nothing private can leak through here."""

from __future__ import annotations

import logging
import math
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .. import limits
from ..i18n import N_
from .endpoint import dial
from .errors import ConnectionClosed, HandshakeError, NetError, ProtocolError
from .handshake import DEFAULT_HANDSHAKE_TIMEOUT, Channel, Hello, Identity
from .messages import MAX_PLAYERS, get_bytes, get_int, get_str, get_text
from .outbox import Outbox
from .agreement import LobbyView, TableDescription, parse_final_msg, parse_seats_msg

log = logging.getLogger("p2pcards.net.spectate")

MAX_ENTRY = limits.MAX_ENTRY

# The words of this module a spectator may read: English here and on the wire
# (the host's refusals go to the spectator); shown through i18n.known(text, WORDS).
NO_SUCH_TABLE = N_("no such table here")
GAME_OVER = N_("the game is over")
TOO_MANY_WATCHERS = N_("this table already has {n} spectators")
TOO_MANY_FROM_THERE = N_("at most {n} spectators from one address")
WORDS = (NO_SUCH_TABLE, GAME_OVER, TOO_MANY_WATCHERS, TOO_MANY_FROM_THERE)


NEWS = ("left", "lost", "back")  # a player's connection: gone on purpose, broken, come back


@dataclass(frozen=True)
class LogEntry:
    index: int
    data: bytes  # the entry exactly as the log serialises it; opaque here


@dataclass(frozen=True)
class TableNews:
    """A player's connection went or came back (the host's view)."""

    seat: int
    what: str  # one of NEWS


class SpectatorHub:
    """Host side. ``publish`` never blocks: a watcher that falls ``queue_size``
    messages or ``queue_bytes`` bytes behind, or takes nothing we send for
    ``dead_after`` seconds, is dropped with a logged reason."""

    def __init__(self, table_id: bytes, *, queue_size: int = 4096, queue_bytes: int = limits.MAX_SEND_QUEUE_BYTES,
                 keepalive: float = 10.0, dead_after: float = 35.0, max_watchers: int = 64,
                 max_watchers_per_address: int = 8) -> None:
        self.table_id = table_id
        self.queue_size, self.queue_bytes, self.dead_after = queue_size, queue_bytes, dead_after
        self.max_watchers = max_watchers
        self.max_watchers_per_address = max_watchers_per_address  # so one machine cannot take every seat
        self.keepalive_interval = keepalive
        self._lobby: dict | None = None
        self._final: dict | None = None
        self._entries: list[bytes] = []
        self._away: dict[int, str] = {}  # seat -> "left" | "lost", for watchers who come later
        self._ended: str | None = None
        self._watchers: dict[Channel, Outbox] = {}
        self._sending = 0  # watcher connections still being served (see drain)

    @property
    def watchers(self) -> int:
        return len(self._watchers)

    def admit(self, hello: Hello) -> bytes | None:
        if hello.session is not None and hello.session != self.table_id:
            raise HandshakeError(NO_SUCH_TABLE)
        if self._ended is not None:
            raise HandshakeError(GAME_OVER)
        if len(self._watchers) >= self.max_watchers:
            raise HandshakeError(TOO_MANY_WATCHERS.format(n=self.max_watchers))
        return self.table_id

    def _push(self, msg: dict) -> None:
        size = len(msg.get("e", b"")) + 64  # an entry's bytes, or a small message
        for channel, queue in list(self._watchers.items()):
            if queue.closed:
                self._watchers.pop(channel, None)
            elif not queue.put(msg, size):
                log.warning("dropping spectator %s: %d messages, %d bytes behind", channel.describe(), queue.items,
                            queue.bytes)
                queue.close()
                del self._watchers[channel]

    def set_lobby(self, msg: dict) -> None:
        self._lobby = msg
        self._push(msg)

    def set_final(self, msg: dict) -> None:
        self._final = msg
        self._push(msg)

    def publish(self, entry: bytes) -> int:
        """Hand every watcher the next log entry; returns its index."""
        if not isinstance(entry, bytes) or not 0 < len(entry) <= MAX_ENTRY:
            raise ValueError(f"a log entry is 1..{MAX_ENTRY} bytes")
        index = len(self._entries)
        self._entries.append(entry)
        self._push({"t": "entry", "i": index, "e": entry})
        return index

    def news(self, seat: int, what: str) -> None:
        """A player's connection went (``left`` on purpose, ``lost``) or came
        ``back``: every watcher is told, and later ones hear who is away."""
        if what not in NEWS or type(seat) is not int:
            raise ValueError(f"no such news {what!r} of seat {seat!r}")
        if what == "back":
            self._away.pop(seat, None)
        else:
            self._away[seat] = what
        self._push({"t": "news", "seat": seat, "what": what})

    def end(self, reason: str) -> None:
        """The game is over: tell every watcher and let them go."""
        self._ended = reason
        self._push({"t": "end", "reason": reason})
        for queue in self._watchers.values():
            queue.close()
        self._watchers.clear()

    async def handle(self, channel: Channel) -> None:
        address = channel.remote[0] if channel.remote else None
        if sum(1 for c in self._watchers if c.remote and c.remote[0] == address) >= self.max_watchers_per_address:
            log.info("refusing spectator %s: %d already watch from there", channel.describe(),
                     self.max_watchers_per_address)
            await channel.aclose(TOO_MANY_FROM_THERE.format(n=self.max_watchers_per_address))
            return
        # Snapshot and subscribe with no checkpoint between, so nothing is missed or doubled.
        backlog = [m for m in (self._lobby, self._final) if m is not None]
        backlog += [{"t": "entry", "i": i, "e": e} for i, e in enumerate(self._entries)]
        backlog += [{"t": "news", "seat": s, "what": what} for s, what in self._away.items()]
        queue = Outbox(self.queue_size, self.queue_bytes)
        if self._ended is None:
            self._watchers[channel] = queue
        else:  # admitted just before the end: the whole log, then the end
            backlog.append({"t": "end", "reason": self._ended})
            queue.close()
        channel.framed.send_stall = self.dead_after  # a watcher that does not read is let go
        log.info("spectator %s joined", channel.describe())
        reason = None
        self._sending += 1
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._drain_incoming, channel, nursery.cancel_scope)
                nursery.start_soon(self._keepalive, channel)
                try:
                    for msg in backlog:
                        await channel.send(msg)
                    async for msg in queue:
                        await channel.send(msg)
                except NetError as exc:
                    reason = str(exc)
                    log.info("spectator %s gone: %s", channel.describe(), exc)
                nursery.cancel_scope.cancel()
        finally:
            self._sending -= 1
            self._watchers.pop(channel, None)
            await channel.aclose(reason)

    async def drain(self, timeout: float = 5.0) -> None:
        """After ``end``: give watchers still receiving the log up to
        ``timeout`` seconds to get the rest before the host closes its port."""
        with trio.move_on_after(timeout):
            while self._sending:
                await trio.sleep(0.05)

    async def _keepalive(self, channel: Channel) -> None:
        try:
            await channel.keepalive(self.keepalive_interval)
        except NetError:
            pass

    async def _drain_incoming(self, channel: Channel, scope: trio.CancelScope) -> None:
        """Watchers send nothing but pings; anything else ends the connection."""
        try:
            msg = await channel.receive_live(math.inf)
            if msg["t"] not in ("bye", "error"):
                log.warning("spectator %s sent %r; closing", channel.describe(), msg["t"])
        except NetError as exc:
            log.info("spectator %s: %s", channel.describe(), exc)
        self._watchers.pop(channel, None)
        scope.cancel()


class Watch:
    """Client side: iterate to get LobbyView, TableDescription, LogEntry items; ends at 'end'."""

    def __init__(self, channel: Channel, dead_after: float) -> None:
        self.channel = channel
        self.dead_after = dead_after
        self.table: TableDescription | None = None
        self.ended: str | None = None
        self.lost = False  # the connection broke (no 'end' from the host): it may come back
        self._next_index = 0

    def __aiter__(self) -> "Watch":
        return self

    async def __anext__(self) -> LobbyView | TableDescription | LogEntry:
        if self.ended is not None:
            raise StopAsyncIteration
        try:
            msg = await self.channel.receive_live(self.dead_after)
        except ConnectionClosed as exc:
            self.ended, self.lost = str(exc), True
            raise StopAsyncIteration from None
        t = msg["t"]
        if t == "seats":
            return parse_seats_msg(msg)
        if t == "final":
            if self.table is not None:
                raise ProtocolError("a second 'final' from the host")
            self.table = parse_final_msg(msg)[1]
            return self.table
        if t == "entry":
            index = get_int(msg, "i", 0, 1 << 40)
            if self.table is None or index != self._next_index:
                raise ProtocolError(f"entry {index} out of order (expected {self._next_index})")
            self._next_index += 1
            return LogEntry(index, get_bytes(msg, "e", max_len=MAX_ENTRY))
        if t == "news":
            what = get_str(msg, "what")
            if what not in NEWS:
                raise ProtocolError(f"no such news {what!r}")
            return TableNews(get_int(msg, "seat", 0, MAX_PLAYERS - 1), what)
        if t in ("end", "error"):
            self.ended = get_text(msg, "reason")
            raise StopAsyncIteration
        raise ProtocolError(f"unexpected {t!r} message to a spectator")


@asynccontextmanager
async def watch_table(host: str, port: int, *, private_key: Ed25519PrivateKey | None = None,
                      name: str = "spectator", table_id: bytes | None = None,
                      handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
                      dead_after: float = 35.0) -> AsyncIterator[Watch]:
    """Connect to a host as a spectator (a throwaway key is made if none is given).
    ``async for item in watch`` yields the lobby views, the final TableDescription,
    then LogEntry items; the loop ends at the host's 'end' (reason in ``watch.ended``)."""
    identity = Identity(private_key or Ed25519PrivateKey.generate(), name)
    channel = await dial(identity, host, port, role="watch", session=table_id, timeout=handshake_timeout)
    try:
        yield Watch(channel, dead_after)
    finally:
        await channel.aclose()
