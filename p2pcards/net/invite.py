"""Tables across the internet: the host hands out invite codes, each good for
one person (a player or a watcher); a code's sealed channel (rendezvous.py)
carries, both ways, what the two need to trust each other and to meet at
the relay (relay.py):

    joiner -> host   {"role": "seat" | "watch", "key": joiner's Ed25519 key,
                      "addr": the address it sees for itself}
    host -> joiner   {"key": host's key, "table": table id, "relay": "HOST:PORT",
                      "addr": its own address, "port": its port,
                      "secret": the table secret}            (a player)
                     {..., "token": this watcher's relay token,
                      "psk": its envelope key}                 (a watcher)

So the code vouches for the host's key to the joiner (who then expects
exactly that key in the handshake) and for the joiner's key to the host
(whose relay connection for that joiner admits exactly that key). The host
keeps one open code per seat it is waiting for; a code once used, or
burned by a wrong guess, is replaced by a new one. Once the table is made,
one code stays open for watchers (a player's request is answered
``{"started": true}``).
"""

from __future__ import annotations

import logging
import secrets
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator, Callable

import trio

from ..i18n import N_
from .errors import ProtocolError
from .messages import KEY_LEN, TABLE_ID_LEN, get_bytes, get_int, get_str
from .relay import MAX_HOST_PORT, SECRET_LEN, RelayRoute, own_address, parse_relay
from .lobby import TABLE_STARTED
from .rendezvous import CodeError, WrongCode, offer_code, redeem_code

log = logging.getLogger("p2pcards.net.invite")

ROLES = ("seat", "watch")
CODE_BURNED = N_("someone typed a wrong invite code: that code is void, a new one is shown")
WORDS = (CODE_BURNED,)


@dataclass(frozen=True)
class Ticket:
    """What an invite code gave a joiner."""

    host_key: bytes
    table_id: bytes
    route: RelayRoute  # a watcher's holds no table secret
    given: tuple[bytes, bytes] | None = None  # a watcher's own relay token and envelope key
    hint: tuple[str, int] = ("", 0)  # the host's own address and port, tried before the relay


class Invitations:
    """The host's open codes. ``run()`` keeps ``slots`` codes open until cancelled;
    ``on_codes(codes)`` is told the open codes whenever they change,
    ``on_notice(text)`` of a burned code or a server in trouble."""

    def __init__(self, endpoint, table_id: bytes, mailbox: str, slots: int, *,
                 on_codes: Callable[[list[str]], None], on_notice: Callable[[str], None] | None = None,
                 on_player: Callable[[bytes, str], None] | None = None,
                 watchers_only: bool = False, retry: tuple[float, float] = (1.0, 30.0)) -> None:
        """``endpoint`` reaches its peers through the relay already (relay.use_relay);
        ``watchers_only``: the table is made, a code now seats nobody."""
        self.endpoint, self.table_id, self.mailbox = endpoint, table_id, mailbox
        self.transport = endpoint.transport
        self.route = self.transport.route
        self.codes: list[str | None] = [None] * slots
        self.on_codes, self.on_notice = on_codes, on_notice or (lambda text: None)
        self.watchers_only = watchers_only
        self.on_player = on_player or (lambda key, address: None)  # a player vouched for, and its own address
        self.retry = retry

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            for slot in range(len(self.codes)):
                nursery.start_soon(self._slot, slot)

    def _show(self, slot: int, code: str | None) -> None:
        self.codes[slot] = code
        self.on_codes([c for c in self.codes if c is not None])

    async def _slot(self, slot: int) -> None:
        delay = self.retry[0]
        while True:
            try:
                async with offer_code(self.mailbox, lambda code: self._show(slot, code)) as channel:
                    self._show(slot, None)
                    await self._serve(channel)
                delay = self.retry[0]
            except WrongCode:
                log.warning("a wrong invite code was tried; making a new one")
                self.on_notice(CODE_BURNED)
            except (CodeError, ProtocolError) as exc:
                # The mailbox server is away, or the other side spoke nonsense: a new code soon.
                log.warning("invite code: %s", exc)
                self._show(slot, None)
                self.on_notice(str(exc))
                await trio.sleep(delay)
                delay = min(delay * 2, self.retry[1])

    async def _serve(self, channel) -> None:
        msg = dict(await channel.receive(), t="invite")
        role = get_str(msg, "role", max_len=8)
        if role not in ROLES:
            raise ProtocolError(f"unknown invite role {role!r}")
        key = get_bytes(msg, "key", KEY_LEN)
        reply = {"key": self.endpoint.identity.public_key, "table": self.table_id, "relay": self.route.address,
                 "addr": own_address(self.route.relay[0]), "port": self.endpoint.port}
        if role == "seat" and self.watchers_only:
            await channel.send({"started": True})
            return
        if role == "seat":
            reply["secret"] = self.route.secret
            self.transport.accept_from(key)
            self.on_player(key, _address(msg))
        else:
            given = secrets.token_bytes(32), secrets.token_bytes(32)
            reply["token"], reply["psk"] = given
            self.transport.accept_from(key, given)
        await channel.send(reply)
        log.info("invite code used by a %s, key %s", "player" if role == "seat" else "watcher", key.hex()[:16])


def _address(msg: dict) -> str:
    """The sender's own address, if it is one (an IP address: no name is looked up); else ""."""
    import ipaddress

    text = get_str(msg, "addr", max_len=64, optional=True) or ""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return ""


async def redeem(mailbox: str, code: str, my_key: bytes, role: str = "seat",
                 answer_timeout: float | None = None, my_address: str = "") -> Ticket:
    """The joiner's side of a code. Raises CodeError (WrongCode for a wrong guess)."""
    kwargs = {} if answer_timeout is None else {"answer_timeout": answer_timeout}
    async with redeem_code(mailbox, code, **kwargs) as channel:
        await channel.send({"role": role, "key": my_key, "addr": my_address})
        msg = dict(await channel.receive(), t="invite")
    if msg.get("started") is True:
        raise CodeError(TABLE_STARTED)
    try:
        host_key = get_bytes(msg, "key", KEY_LEN)
        table_id = get_bytes(msg, "table", TABLE_ID_LEN)
        relay = parse_relay(get_str(msg, "relay", max_len=MAX_HOST_PORT))
        hint = (_address(msg), get_int(msg, "port", 0, 65535, optional=True) or 0)
        if role == "seat":
            return Ticket(host_key, table_id, RelayRoute(relay, get_bytes(msg, "secret", SECRET_LEN)), hint=hint)
        return Ticket(host_key, table_id, RelayRoute(relay, b""),
                      (get_bytes(msg, "token", 32), get_bytes(msg, "psk", 32)), hint)
    except ValueError as exc:  # parse_relay's
        raise ProtocolError(str(exc)) from None


@asynccontextmanager
async def watch_by_code(mailbox: str, code: str, *, private_key=None, name: str = "spectator",
                        timeout: float = 30.0, dead_after: float = 35.0) -> AsyncIterator:
    """``spectate.watch_table`` for a table across the internet: the code gives the
    host's key, the table and this watcher's own relay token and envelope key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from .endpoint import handshake_over
    from .framing import Limits
    from .handshake import Identity
    from .relay import relay_connect_within
    from .spectate import Watch

    identity = Identity(private_key or Ed25519PrivateKey.generate(), name)
    ticket = await redeem(mailbox, code, identity.public_key, role="watch")
    token, psk = ticket.given
    stream = await relay_connect_within(ticket.route.relay, token, timeout)
    channel = await handshake_over(stream, identity, ticket.route.address, role="watch", session=ticket.table_id,
                               expect_key=ticket.host_key, timeout=timeout, limits=Limits(), envelope=psk)
    try:
        yield Watch(channel, dead_after)
    finally:
        await channel.aclose()
