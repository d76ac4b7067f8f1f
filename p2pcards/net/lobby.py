"""The lobby: the host seats joiners in join order, every player accepts the
table, then all draw the session id together by commit-and-reveal.

A refusal, a leaver, a timeout or a misbehaving joiner sends the table back
to waiting (the offender is removed); the host's own refusal cancels the table.
"""

from __future__ import annotations

import inspect
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import trio

from .. import PROTOCOL_VERSION, limits
from ..i18n import N_
from .endpoint import Endpoint
from .errors import DiscoveryUnavailable, HandshakeError, LobbyError, NetError, ProtocolError, TableRefused
from .admission import WaitingRoom
from .handshake import Channel, Hello
from .ratelog import RateLimitedLog
from .messages import (MAX_PLAYERS, NONCE_LEN, TABLE_ID_LEN, check_options, get_bytes, get_int,
                       get_text)
from .spectate import SpectatorHub
from .tasks import background_tasks
from .agreement import (LobbyView, Proposal, SeatInfo, TableDescription, check_game, commit_of,
                    compute_session_id, final_msg, parse_final_msg, parse_propose_msg, parse_seats_msg,
                    propose_msg, seats_msg)

log = logging.getLogger("p2pcards.net.lobby")

AcceptHook = Callable[[Proposal], "bool | Awaitable[bool]"]
UpdateHook = Callable[[LobbyView], "None | Awaitable[None]"]
CHAT_INTERVAL = 0.5  # seconds: a joiner's chat lines closer than this are dropped (no flood relayed to all)


class LobbyChat:
    """Chat while the table fills and is accepted (wire.md §4.1): the
    player's lines go out through ``say``; ``heard(seat, text)`` is called
    for every line the table hears (one's own too, as the host relays it)."""

    def __init__(self, heard: Callable[[int, str], None] = lambda seat, text: None):
        self.heard = heard
        self._send, self._said = trio.open_memory_channel(16)

    def say(self, text: str) -> None:
        """A line of the player's (dropped if 16 wait to go out already)."""
        text = chat_text(text)
        if text:
            try:
                self._send.send_nowait(text)
            except trio.WouldBlock:
                pass


def chat_text(text) -> str | None:
    """A chat line as the lobby takes it: 1..300 printable characters (the log's rule), else None."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    return text if 0 < len(text) <= limits.MAX_CHAT_LEN and text.isprintable() else None

# The lobby's words a player may read: English here and on the wire (the
# host's notices and refusals go to the joiners); shown through i18n.known.
NO_SUCH_TABLE = N_("no such table here")
TABLE_STARTED = N_("the table has already started")
TABLE_FULL = N_("the table is full")
KEY_SEATED = N_("this key is already at the table")
UNEXPECTED_MESSAGE = N_("unexpected message")
PROTOCOL_ERROR = N_("protocol error")
NO_REVEAL = N_("you did not reveal in time")
NO_ACCEPT = N_("you did not accept in time")
HOST_CANCELLED = N_("the host cancelled the table")
HOST_CLOSED = N_("the host closed the table: {reason}")
YOU_REFUSED = N_("you refused the table")
YOU_DID_NOT_ACCEPT = N_("you did not accept the table in time")
# Translators: lobby notices, shown under the seats while a table fills; {name} is a player's.
JOINED = N_("{name} joined")
LEFT = N_("{name} left")
REMOVED = N_("{name} was removed")
REFUSED = N_("{name} refused the table")
A_PLAYER_LEFT = N_("a player left")
A_PLAYER_DID_NOT_REVEAL = N_("a player did not reveal in time")
A_PLAYER_DID_NOT_ANSWER = N_("a player did not answer in time")
TABLE_COMPLETE = N_("the table is complete")
NOTICES = (JOINED, LEFT, REMOVED, REFUSED, A_PLAYER_LEFT, A_PLAYER_DID_NOT_REVEAL, A_PLAYER_DID_NOT_ANSWER,
           TABLE_COMPLETE)
WORDS = (NO_SUCH_TABLE, TABLE_STARTED, TABLE_FULL, KEY_SEATED, UNEXPECTED_MESSAGE, PROTOCOL_ERROR, NO_REVEAL,
         NO_ACCEPT, HOST_CANCELLED, HOST_CLOSED, YOU_REFUSED, YOU_DID_NOT_ACCEPT, *NOTICES)


async def _call(hook: Callable | None, arg: Any) -> Any:
    if hook is None:
        return None
    result = hook(arg)
    if inspect.isawaitable(result):
        result = await result
    return result


@dataclass(eq=False)
class _Joiner:
    channel: Channel
    port: int = 0
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    gone: bool = False
    close_reason: str | None = None  # told to the peer when we close
    chatted_at: float = float("-inf")  # when its last chat line was relayed

    @property
    def name(self) -> str:
        return self.channel.peer_name

    @property
    def key(self) -> bytes:
        return self.channel.peer_key


class HostLobby:
    """Host side of one table. ``await lobby.run()`` returns the final table;
    ``lobby.spectators.publish(entry)`` then feeds the watchers."""

    def __init__(self, endpoint: Endpoint, game: str, players: int, *, options: dict | None = None,
                 accept: AcceptHook | None = None, on_update: UpdateHook | None = None,
                 accept_timeout: float = 300.0, reveal_timeout: float = 15.0, send_timeout: float = 10.0,
                 keepalive: float = 10.0, dead_after: float = 35.0, advertise: bool = False,
                 advertise_interfaces: list[str] | None = None, chat: LobbyChat | None = None) -> None:
        """``advertise``: announce the table on the LAN (mDNS) while it waits for players;
        if that is impossible here the lobby goes on and says why in the log."""
        try:
            check_game(game)
            options = check_options(options or {})
        except ProtocolError as exc:
            raise ValueError(str(exc)) from None
        if not 2 <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be 2..{MAX_PLAYERS}")
        self.endpoint = endpoint
        self.game, self.players, self.options = game, players, options
        self.accept_hook, self.on_update = accept, on_update
        self.chat = chat
        self.accept_timeout, self.reveal_timeout, self.send_timeout = accept_timeout, reveal_timeout, send_timeout
        self.keepalive, self.dead_after = keepalive, dead_after
        self.table_id = secrets.token_bytes(TABLE_ID_LEN)
        self.spectators = SpectatorHub(self.table_id, keepalive=keepalive)
        self.joiners: list[_Joiner] = []
        self._unjoined = WaitingRoom()  # authenticated connections that have not sent 'join' yet
        self.refusals = RateLimitedLog(log)
        self.view: LobbyView | None = None
        self._events_send, self._events_recv = trio.open_memory_channel(256)
        self.advertise, self.advertise_interfaces = advertise, advertise_interfaces
        self._advertiser = None
        self._done = False
        self._round = 0
        # key -> the address a joiner sees for itself, told through its invite code (its
        # connection's own address is the relay's); the others try it before the relay.
        self.address_hints: dict[bytes, str] = {}

    # -- the endpoint's side: admission and one task per joiner ---------------
    def admit(self, hello: Hello) -> bytes | None:
        if hello.session is not None and hello.session != self.table_id:
            raise HandshakeError(NO_SUCH_TABLE)
        if self._done:
            raise HandshakeError(TABLE_STARTED)
        if len(self.joiners) >= self.players - 1:
            raise HandshakeError(TABLE_FULL)
        if any(j.key == hello.key for j in self.joiners):
            raise HandshakeError(KEY_SEATED)
        return self.table_id

    async def handle(self, channel: Channel) -> None:
        j = _Joiner(channel)
        reason = None
        with j.scope:
            try:
                # Until its 'join', a connection is a stranger's: it waits in a bounded
                # room where newcomers push out the oldest (p2pcards.net.admission).
                token, pushed_out = object(), trio.CancelScope()
                self._unjoined.enter(token, channel.remote[0] if channel.remote else "?", pushed_out)
                msg = None
                try:
                    with pushed_out, trio.fail_after(self.endpoint.pre_auth_timeout):
                        msg = await channel.receive()
                finally:
                    self._unjoined.leave(token)
                if msg is None:
                    raise trio.TooSlowError
                if msg["t"] != "join":
                    raise ProtocolError(f"expected 'join', got {msg['t']!r}")
                j.port = get_int(msg, "port", 1, 65535)
                await self._events_send.send(("joined", j, None))
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._ping, j)
                    try:
                        while True:
                            msg = await channel.receive_live(self.dead_after)
                            if channel.framed.last_size > limits.MAX_LOBBY_MESSAGE:
                                # What waits for the host's lobby loop stays small (256 events of this at most).
                                raise ProtocolError(f"a lobby message of {channel.framed.last_size} bytes "
                                                    f"(at most {limits.MAX_LOBBY_MESSAGE})")
                            await self._events_send.send(("msg", j, msg))
                    except ProtocolError as exc:
                        self.refusals.warning("lobby connection %s broke the protocol: %s", channel.describe(), exc)
                        reason = str(exc)
                        j.close_reason = f"protocol error: {exc}"
                    except NetError as exc:
                        reason = str(exc)
                    nursery.cancel_scope.cancel()
            except trio.TooSlowError:
                reason = "no 'join' in time"
            except NetError as exc:
                reason = str(exc)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                pass  # the lobby is over
        if reason is not None and j.close_reason is None and j.port == 0:
            # Never seated: nobody else reports it, so log it and tell the peer here.
            self.refusals.warning("lobby connection %s closed: %s", channel.describe(), reason)
            j.close_reason = reason
        if reason is not None and not j.gone:
            try:
                await self._events_send.send(("left", j, reason))
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                pass
        await channel.aclose(j.close_reason)

    async def _ping(self, j: _Joiner) -> None:
        try:
            await j.channel.keepalive(self.keepalive)
        except NetError:
            pass

    # -- the coordinator ------------------------------------------------------
    async def run(self) -> TableDescription:
        """Wait for players, get everyone's acceptance, return the final table.

        Raises TableRefused if the host's own accept hook says no."""
        if self._done:
            raise LobbyError("this lobby has already run; make a new HostLobby")
        self.endpoint.register("lobby", self)
        self.endpoint.register("watch", self.spectators)
        try:
            async with self._events_recv, background_tasks() as nursery:
                if self.advertise:
                    nursery.start_soon(self._advertise)
                if self.chat is not None:
                    nursery.start_soon(self._host_chat)
                await self._announce(None)
                while True:
                    while len(self.joiners) < self.players - 1:
                        await self._waiting_event(await self._events_recv.receive())
                    table = await self._proposal_round()
                    if table is not None:
                        return table
        finally:
            self._done = True
            self.endpoint.register("lobby", None)
            for j in self.joiners:
                j.scope.cancel()

    async def _advertise(self) -> None:
        """Runs until the lobby ends; the advertisement goes with it."""
        from . import discovery

        bind = self.endpoint.bind_host
        try:
            async with discovery.advertise(
                    game=self.game, wanted=self.players, seated=len(self._seats()),
                    host_name=self.endpoint.identity.name, port=self.endpoint.port, table_id=self.table_id,
                    addresses=None if bind in ("0.0.0.0", "::", "") else [bind],
                    interfaces=self.advertise_interfaces) as advertiser:
                self._advertiser = advertiser
                await self._update_advertisement()
                await trio.sleep_forever()
        except DiscoveryUnavailable as exc:
            log.warning("not advertising the table on the LAN: %s", exc)
        finally:
            self._advertiser = None

    async def _update_advertisement(self) -> None:
        if self._advertiser is not None:
            try:
                await self._advertiser.update(seated=len(self._seats()))
            except Exception as exc:  # zeroconf trouble must not stop the lobby
                log.warning("could not update the LAN advertisement: %s", exc)

    def _drop(self, j: _Joiner, why: str, tell: str | None) -> None:
        """Remove a joiner; ``why`` goes to our log, ``tell`` to the peer."""
        if j.gone:
            return
        log.info("removing %s from the table: %s", j.channel.describe(), why)
        j.gone = True
        if tell is not None:
            j.close_reason = tell
        j.scope.cancel()
        if j in self.joiners:
            self.joiners.remove(j)

    async def _send(self, j: _Joiner, msg: dict) -> None:
        with trio.move_on_after(self.send_timeout):
            try:
                await j.channel.send(msg)
                return
            except NetError as exc:
                self._drop(j, f"send failed: {exc}", None)
                return
        self._drop(j, "send timed out", None)

    def _seats(self, with_addr: bool = False) -> tuple[SeatInfo, ...]:
        me = self.endpoint.identity
        seats = [SeatInfo(0, me.name, me.public_key, self.endpoint.bind_host, self.endpoint.port)]
        for i, j in enumerate(self.joiners, 1):
            host = (self.address_hints.get(j.key) or (j.channel.remote[0] if j.channel.remote else "")
                    if with_addr else "")
            seats.append(SeatInfo(i, j.name, j.key, host, j.port if with_addr else 0))
        return tuple(seats)

    async def _announce(self, notice: str | None) -> None:
        """Tell everyone who sits at the table now. Drops on the way are announced too."""
        for _ in range(MAX_PLAYERS + 1):
            before = len(self.joiners)
            self.view = LobbyView(self.table_id, self.game, self.options, self.players, self._seats(), notice)
            msg = seats_msg(self.view)
            self.spectators.set_lobby(msg)
            for j in list(self.joiners):
                await self._send(j, msg)
            if len(self.joiners) == before:
                break
            notice = A_PLAYER_LEFT
        await self._update_advertisement()
        await _call(self.on_update, self.view)

    async def _host_chat(self) -> None:
        """The host's own lines go through the coordinator, as seat 0's."""
        async for text in self.chat._said:
            await self._events_send.send(("say", None, text))

    @staticmethod
    def _is_chat(kind: str, j, payload) -> bool:
        return kind == "say" or (kind == "msg" and payload.get("t") == "chat")

    async def _chat(self, kind: str, j: _Joiner | None, payload) -> None:
        """A line said at the table (the host's, or a joiner's), to every
        player, the sayer too, and to the host's screen. A joiner's lines are
        relayed at most every CHAT_INTERVAL seconds; one that is no chat line
        (too long, control characters) is a protocol breach (ProtocolError)."""
        if kind == "say":
            seat, text = 0, payload
        else:
            if j not in self.joiners:
                return
            text = chat_text(payload.get("text"))
            if text is None:
                raise ProtocolError("a chat line must be 1..300 printable characters")
            now = trio.current_time()
            if now - j.chatted_at < CHAT_INTERVAL:
                return
            j.chatted_at = now
            seat = self.joiners.index(j) + 1
        if self.chat is not None:
            self.chat.heard(seat, text)
        for other in list(self.joiners):
            await self._send(other, {"t": "chat", "seat": seat, "text": text})

    async def _waiting_event(self, event: tuple) -> None:
        kind, j, payload = event
        if kind == "joined":
            if len(self.joiners) >= self.players - 1 or any(o.key == j.key for o in self.joiners):
                self._drop(j, "table full or key already seated", TABLE_FULL)
                return
            self.joiners.append(j)
            log.info("%s joined at seat %d", j.channel.describe(), len(self.joiners))
            await self._announce(JOINED.format(name=j.name))
        elif kind == "left":
            if j in self.joiners:
                self._drop(j, payload, None)
                await self._announce(LEFT.format(name=j.name))
        elif self._is_chat(kind, j, payload):
            before = len(self.joiners)
            try:
                await self._chat(kind, j, payload)
            except ProtocolError as exc:
                self._drop(j, str(exc), PROTOCOL_ERROR)
                await self._announce(REMOVED.format(name=j.name))
                return
            if len(self.joiners) < before:  # one it could not be sent to is gone
                await self._announce(A_PLAYER_LEFT)
        elif kind == "msg" and j in self.joiners and payload["t"] not in ("accept", "refuse", "reveal"):
            # Answers to an earlier round may arrive late; anything else is a protocol breach.
            self._drop(j, f"unexpected {payload['t']!r} while waiting", UNEXPECTED_MESSAGE)
            await self._announce(REMOVED.format(name=j.name))

    async def _host_accept(self, proposal: Proposal) -> None:
        try:
            ok = bool(await _call(self.accept_hook, proposal)) if self.accept_hook else True
        except Exception as exc:  # a failing hook ends the table, reported by run()
            ok = exc
        await self._events_send.send(("host", None, (proposal.round, ok)))

    async def _proposal_round(self) -> TableDescription | None:
        """One proposal round; None means back to waiting (already announced)."""
        self._round += 1
        rnd = self._round
        joiners = list(self.joiners)
        seats = self._seats()
        n = len(seats)
        proposal = Proposal(rnd, self.table_id, self.game, self.options, seats, 0)
        for j in joiners:
            await self._send(j, propose_msg(proposal))
        if len(self.joiners) != len(joiners):
            await self._announce(A_PLAYER_LEFT)
            return None
        seat_of = {id(j): i for i, j in enumerate(joiners, 1)}
        host_contrib = secrets.token_bytes(NONCE_LEN)
        commits: dict[int, bytes] = {0: commit_of(host_contrib)}
        failure: BaseException | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._host_accept, proposal)
            try:
                outcome = await self._collect_accepts(rnd, joiners, seat_of, commits, n)
            except Exception as exc:  # re-raised below, outside the nursery, unwrapped
                failure = exc
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise failure
        if outcome is not None:
            await self._announce(outcome)
            return None
        # Everyone said yes: publish the commitments, then collect the reveals.
        commits_msg = {"t": "commits", "round": rnd, "commits": [commits[i] for i in range(n)]}
        for j in joiners:
            await self._send(j, commits_msg)
        contribs: dict[int, bytes] = {0: host_contrib}
        outcome = None
        if len(self.joiners) != len(joiners):
            outcome = A_PLAYER_LEFT
        with trio.move_on_after(self.reveal_timeout) as scope:
            while outcome is None and len(contribs) < n:
                kind, j, payload = await self._events_recv.receive()
                outcome = self._reveal_event(kind, j, payload, rnd, joiners, seat_of, commits, contribs)
        if scope.cancelled_caught:
            for j in joiners:
                if seat_of[id(j)] not in contribs:
                    self._drop(j, "no reveal in time", NO_REVEAL)
            outcome = A_PLAYER_DID_NOT_REVEAL
        if outcome is not None:
            await self._announce(outcome)
            return None
        return await self._finish(rnd, joiners, [contribs[i] for i in range(n)])

    async def _collect_accepts(self, rnd: int, joiners: list[_Joiner], seat_of: dict, commits: dict,
                               n: int) -> str | None:
        host_ok = False
        with trio.move_on_after(self.accept_timeout) as scope:
            while not (host_ok and len(commits) == n):
                kind, j, payload = await self._events_recv.receive()
                if kind == "host":
                    r, ok = payload
                    if r != rnd:
                        continue
                    if ok is not True:
                        for o in list(self.joiners):
                            self._drop(o, "host refused the table", HOST_CANCELLED)
                        if isinstance(ok, Exception):
                            raise ok
                        raise TableRefused(YOU_REFUSED)
                    host_ok = True
                elif self._is_chat(kind, j, payload):  # the players talk while they decide
                    before = len(self.joiners)
                    try:
                        await self._chat(kind, j, payload)
                    except ProtocolError as exc:
                        self._drop(j, str(exc), PROTOCOL_ERROR)
                        return REMOVED.format(name=j.name)
                    if len(self.joiners) < before:
                        return A_PLAYER_LEFT
                elif kind == "joined":
                    self._drop(j, "arrived during a proposal", TABLE_FULL)
                elif kind == "left":
                    if j in self.joiners:
                        self._drop(j, payload, None)
                        return LEFT.format(name=j.name)
                elif kind == "msg" and j in self.joiners:
                    t = payload["t"]
                    try:
                        if t in ("accept", "refuse", "reveal") and get_int(payload, "round", 0, 1 << 31) < rnd:
                            continue  # a late answer to an earlier round
                        if t == "refuse":
                            why = get_text(payload, "reason", optional=True) or "no reason given"
                            self._drop(j, f"refused: {why}", None)
                            return REFUSED.format(name=j.name)
                        if t != "accept" or payload["round"] != rnd or seat_of[id(j)] in commits:
                            raise ProtocolError(f"unexpected {t!r} during the proposal")
                        commits[seat_of[id(j)]] = get_bytes(payload, "commit", 32)
                    except ProtocolError as exc:
                        self._drop(j, str(exc), PROTOCOL_ERROR)
                        return REMOVED.format(name=j.name)
        if scope.cancelled_caught:
            for j in joiners:
                if seat_of[id(j)] not in commits:
                    self._drop(j, "no answer in time", NO_ACCEPT)
            if not host_ok:
                for o in list(self.joiners):
                    self._drop(o, "host did not answer", HOST_CANCELLED)
                raise TableRefused(YOU_DID_NOT_ACCEPT)
            return A_PLAYER_DID_NOT_ANSWER
        return None

    def _reveal_event(self, kind, j, payload, rnd, joiners, seat_of, commits, contribs) -> str | None:
        if kind == "joined":
            self._drop(j, "arrived during the draw", TABLE_FULL)
        elif kind == "left" and j in self.joiners:
            self._drop(j, payload, None)
            return LEFT.format(name=j.name)
        elif kind == "msg" and j in self.joiners:
            try:
                t = payload["t"]
                if t == "chat":  # said as the draw runs (a few seconds): not relayed, not a fault
                    return None
                if t != "reveal" or get_int(payload, "round", 1, 1 << 31) != rnd:
                    raise ProtocolError(f"unexpected {t!r} during the draw")
                seat = seat_of[id(j)]
                nonce = get_bytes(payload, "nonce", NONCE_LEN)
                if seat in contribs or commit_of(nonce) != commits[seat]:
                    raise ProtocolError("reveal does not match its commitment")
                contribs[seat] = nonce
            except ProtocolError as exc:
                self._drop(j, str(exc), str(exc))
                return REMOVED.format(name=j.name)
        return None

    async def _finish(self, rnd: int, joiners: list[_Joiner], contribs: list[bytes]) -> TableDescription:
        seats = self._seats(with_addr=True)
        session = compute_session_id(self.table_id, PROTOCOL_VERSION, self.game, self.options, seats, contribs)
        table = TableDescription(self.table_id, self.game, self.options, PROTOCOL_VERSION, seats,
                                 tuple(contribs), session)
        self._done = True
        for j in joiners:
            # The host's address hint is the one this joiner reached us on.
            host = j.channel.local[0] if j.channel.local else self.endpoint.bind_host
            hinted = (SeatInfo(0, seats[0].name, seats[0].key, host, self.endpoint.port),) + seats[1:]
            await self._send(j, final_msg(rnd, TableDescription(
                table.table_id, table.game, table.options, table.version, hinted, table.contributions, session)))
        self.spectators.set_final(final_msg(rnd, table))
        # Joiners close first once they have 'final' (closing here could reset it away).
        with trio.move_on_after(self.send_timeout):
            pending = {id(j) for j in joiners if not j.gone}
            while pending:
                kind, j, _ = await self._events_recv.receive()
                if kind == "left":
                    pending.discard(id(j))
        log.info("table %s final: session %s", self.table_id.hex(), session.hex()[:16])
        await _call(self.on_update, LobbyView(self.table_id, self.game, self.options, self.players,
                                              self._seats(), TABLE_COMPLETE))
        return table


async def host_table(endpoint: Endpoint, game: str, players: int, **kwargs) -> TableDescription:
    """Shortcut for ``await HostLobby(endpoint, game, players, **kwargs).run()``."""
    return await HostLobby(endpoint, game, players, **kwargs).run()


async def join_table(endpoint: Endpoint, host: str, port: int, *, accept: AcceptHook | None = None,
                     on_update: UpdateHook | None = None, table_id: bytes | None = None,
                     keepalive: float = 10.0, dead_after: float = 35.0,
                     chat: LobbyChat | None = None, expect_key: bytes | None = None) -> TableDescription:
    """Join the table hosted at ``host:port`` (by the host holding ``expect_key``,
    if given: an invite code vouched for it); returns the final table.

    Raises TableRefused if our accept hook says no, LobbyError if the host
    closes the table, NetError subclasses for connection/protocol trouble."""
    channel = await endpoint.connect(host, port, role="lobby", session=table_id, expect_key=expect_key)
    state = _JoinState(endpoint, channel, accept, on_update, dead_after, chat)
    try:
        await channel.send({"t": "join", "port": endpoint.port})
        async with trio.open_nursery() as nursery:
            state.nursery = nursery

            async def ping() -> None:
                try:
                    await channel.keepalive(keepalive)
                except NetError:
                    pass
            nursery.start_soon(ping)
            if chat is not None:
                nursery.start_soon(state.say)
            try:
                state.result = await state.loop()
            except (NetError, Exception) as exc:  # surface it after the nursery, unwrapped
                state.error = exc
            nursery.cancel_scope.cancel()
    finally:
        await channel.aclose()
    if state.error is not None:
        raise state.error
    return state.result


class _JoinState:
    def __init__(self, endpoint: Endpoint, channel: Channel, accept, on_update, dead_after: float,
                 chat: LobbyChat | None = None) -> None:
        self.endpoint, self.channel = endpoint, channel
        self.chat = chat
        self.accept, self.on_update, self.dead_after = accept, on_update, dead_after
        self.nursery: trio.Nursery | None = None
        self.result: TableDescription | None = None
        self.error: BaseException | None = None
        self.proposal: Proposal | None = None
        self.asking: trio.CancelScope | None = None
        self.answered = False
        self.contribution = b""
        self.commits: list[bytes] | None = None
        self.loop_scope = trio.CancelScope()

    async def say(self) -> None:
        """The player's lines to the host, which relays them to everybody."""
        async for text in self.chat._said:
            try:
                await self.channel.send({"t": "chat", "text": text})
            except NetError:
                return

    def _abandon_proposal(self) -> None:
        if self.asking is not None:
            self.asking.cancel()
        self.proposal, self.asking, self.answered, self.commits = None, None, False, None

    async def _ask(self, proposal: Proposal, scope: trio.CancelScope) -> None:
        with scope:
            try:
                ok = bool(await _call(self.accept, proposal)) if self.accept else True
                if ok:
                    # Answered before the send returns: the host's 'commits' may
                    # reach the loop task before this task runs again.
                    self.answered = True
                    await self.channel.send({"t": "accept", "round": proposal.round,
                                             "commit": commit_of(self.contribution)})
                    return
                await self.channel.send({"t": "refuse", "round": proposal.round, "reason": "declined"})
                self.error = TableRefused(YOU_REFUSED)
            except Exception as exc:  # also a failing UI hook: report it from join_table
                self.error = exc
            self.loop_scope.cancel()

    async def loop(self) -> TableDescription:
        me = self.endpoint.identity.public_key
        with self.loop_scope:
            while True:
                msg = await self.channel.receive_live(self.dead_after)
                t = msg["t"]
                if t == "seats":
                    self._abandon_proposal()
                    await _call(self.on_update, parse_seats_msg(msg))
                elif t == "propose":
                    self._abandon_proposal()
                    self.proposal = parse_propose_msg(msg, me)
                    self.contribution = secrets.token_bytes(NONCE_LEN)
                    self.asking = trio.CancelScope()
                    self.nursery.start_soon(self._ask, self.proposal, self.asking)
                elif t == "commits":
                    self._on_commits(msg)
                    await self.channel.send({"t": "reveal", "round": self.proposal.round,
                                             "nonce": self.contribution})
                elif t == "final":
                    return self._on_final(msg)
                elif t == "chat":
                    text = chat_text(msg.get("text"))
                    seat = get_int(msg, "seat", 0, MAX_PLAYERS - 1)
                    if text is None:
                        raise ProtocolError("a chat line must be 1..300 printable characters")
                    if self.chat is not None:
                        self.chat.heard(seat, text)
                elif t == "error":
                    raise LobbyError(HOST_CLOSED.format(reason=get_text(msg, "reason")))
                else:
                    raise ProtocolError(f"unexpected {t!r} from the host")
        raise self.error  # the accept hook ended the loop

    def _on_commits(self, msg: dict) -> None:
        p = self.proposal
        if p is None or not self.answered or get_int(msg, "round", 1, 1 << 31) != p.round:
            raise ProtocolError("'commits' without an accepted proposal")
        commits = msg.get("commits")
        if (not isinstance(commits, list) or len(commits) != len(p.seats)
                or not all(isinstance(c, bytes) and len(c) == 32 for c in commits)):
            raise ProtocolError("'commits' must hold one 32-byte commitment per seat")
        if commits[p.my_seat] != commit_of(self.contribution):
            raise ProtocolError("'commits' does not hold our commitment")
        self.commits = commits

    def _on_final(self, msg: dict) -> TableDescription:
        p = self.proposal
        rnd, table = parse_final_msg(msg)
        if p is None or self.commits is None or rnd != p.round:
            raise ProtocolError("'final' before the draw")
        if (table.table_id, table.game, table.options) != (p.table_id, p.game, p.options) or \
                [(s.name, s.key) for s in table.seats] != [(s.name, s.key) for s in p.seats]:
            raise ProtocolError("'final' differs from the table we accepted")
        if [commit_of(c) for c in table.contributions] != self.commits:
            raise ProtocolError("'final' contributions do not match the commitments")
        if table.contributions[p.my_seat] != self.contribution:
            raise ProtocolError("'final' lacks our contribution")
        return table
