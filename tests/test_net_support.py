"""Helpers for the network tests (no tests here)."""

from __future__ import annotations

import logging

import msgpack
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.net.framing import HEADER

LOCAL = "127.0.0.1"


def new_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def frame(msg) -> bytes:
    body = msgpack.packb(msg, use_bin_type=True)
    return HEADER.pack(len(body)) + body


async def poke(port: int, data: bytes, *, wait: float = 5.0, host: str = LOCAL) -> bytes:
    """Send raw bytes to a port; return what came back before the peer closed (or ``wait`` ran out)."""
    stream = await trio.open_tcp_stream(host, port)
    got = b""
    async with stream:
        if data:
            try:
                await stream.send_all(data)
            except trio.BrokenResourceError:
                return got
        with trio.move_on_after(wait):
            while len(got) < 1 << 20:
                try:
                    chunk = await stream.receive_some(65536)
                except trio.BrokenResourceError:
                    break
                if not chunk:
                    break
                got += chunk
    return got



class Recorder(trio.abc.Stream):
    """A stream wrapper that keeps a copy of everything sent through it."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.sent = bytearray()

    async def send_all(self, data) -> None:
        self.sent += data
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes=None) -> bytes:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


def reasons(caplog) -> str:
    """All net log messages, joined, for `in` checks."""
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("p2pcards.net"))


def net_logging(caplog) -> None:
    caplog.set_level(logging.INFO, logger="p2pcards.net")


def make_table(endpoints, game: str = "bura", options=None):
    """A final table for endpoints already listening, without running a lobby."""
    import secrets

    from p2pcards import PROTOCOL_VERSION
    from p2pcards.net.agreement import SeatInfo, TableDescription, compute_session_id

    seats = tuple(SeatInfo(i, ep.identity.name, ep.identity.public_key, LOCAL, ep.port)
                  for i, ep in enumerate(endpoints))
    contribs = tuple(secrets.token_bytes(32) for _ in seats)
    tid = secrets.token_bytes(16)
    options = options or {}
    return TableDescription(tid, game, options, PROTOCOL_VERSION, seats, contribs,
                            compute_session_id(tid, PROTOCOL_VERSION, game, options, seats, contribs))


class Seats:
    """Lets a test wait until the host's lobby shows a given number of seats."""

    def __init__(self) -> None:
        self.views = []
        self._changed = trio.Event()

    def __call__(self, view) -> None:
        self.views.append(view)
        self._changed.set()
        self._changed = trio.Event()

    async def wait(self, n: int) -> None:
        while not self.views or len(self.views[-1].seats) != n:
            await self._changed.wait()
