"""An in-process mesh whose links can be cut and healed: the partition
campaign (tests/test_partitions.py) plays whole matches between real
``TablePeer``s over it, under trio's mock clock, so a cut of minutes costs no
wall time and the outcome does not depend on the machine's load.

It keeps the face of ``p2pcards.net.mesh.Mesh`` the peer uses: ``send``,
``broadcast``, the event stream (``Message``, ``PeerUp``, ``PeerDown``),
``peer_status``, ``all_connected``, ``queued_bytes`` and ``vanish``. Every message goes through msgpack, as on the
wire; a link delivers in order, at once, or (cut) not at all: a cut link is
what a dead TCP connection is once the keep-alive gives up on it.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import msgpack
import trio

from p2pcards.net.mesh import Message, PeerDown, PeerUp


class LinkNet:
    def __init__(self, players: int) -> None:
        self.players = players
        self.meshes = [LinkMesh(self, seat) for seat in range(players)]
        self._up = {frozenset((a, b)): True for a in range(players) for b in range(a + 1, players)}
        self._epoch = {link: 1 for link in self._up}
        self.delivered = 0  # messages delivered, for the campaign's figures
        self.tap = None  # a test's tap(sender, receiver, message) sees every message delivered

    def up(self, a: int, b: int) -> bool:
        return (self._up[frozenset((a, b))] and not self.meshes[a].gone and not self.meshes[b].gone)

    def cut(self, a: int, b: int) -> None:
        link = frozenset((a, b))
        if self._up[link]:
            self._up[link] = False
            for me, other in ((a, b), (b, a)):
                self.meshes[me].post(PeerDown(other, self._epoch[link], "cut", final=False))

    def heal(self, a: int, b: int) -> None:
        link = frozenset((a, b))
        if not self._up[link]:
            self._up[link] = True
            self._epoch[link] += 1
            for me, other in ((a, b), (b, a)):
                self.meshes[me].post(PeerUp(other, self._epoch[link]))

    def leave(self, seat: int, final: bool = True) -> None:
        """The seat's process ended (``final``: it said bye, as a closing mesh does)."""
        mesh = self.meshes[seat]
        if mesh.gone:
            return
        mesh.gone = True
        for other in range(self.players):
            if other != seat and self._up[frozenset((seat, other))]:
                self.meshes[other].post(PeerDown(seat, self._epoch[frozenset((seat, other))], "closed", final))


class LinkMesh:
    def __init__(self, net: LinkNet, seat: int) -> None:
        self.net, self.my_seat = net, seat
        self.gone = False
        self._send, self._recv = trio.open_memory_channel(math.inf)

    def post(self, event) -> None:
        if not self.gone:
            self._send.send_nowait(event)

    async def send(self, seat: int, msg: Any) -> bool:
        if not (0 <= seat < self.net.players) or seat == self.my_seat:
            raise ValueError(f"no peer at seat {seat}")
        body = msgpack.packb(msg, use_bin_type=True)
        await trio.lowlevel.checkpoint()
        if not self.net.up(self.my_seat, seat):
            return False
        link = frozenset((self.my_seat, seat))
        if self.net.tap is not None:
            self.net.tap(self.my_seat, seat, msgpack.unpackb(body, raw=False))
        self.net.meshes[seat].post(Message(self.my_seat, msgpack.unpackb(body, raw=False), self.net._epoch[link],
                                           len(body)))
        self.net.delivered += 1
        return True

    async def broadcast(self, msg: Any) -> dict[int, bool]:
        return {seat: await self.send(seat, msg) for seat in range(self.net.players) if seat != self.my_seat}

    def __aiter__(self) -> "LinkMesh":
        return self

    async def __anext__(self):
        return await self._recv.receive()

    def peer_status(self) -> dict[int, SimpleNamespace]:
        return {seat: SimpleNamespace(queued=0, connected=self.net.up(self.my_seat, seat))
                for seat in range(self.net.players) if seat != self.my_seat}

    def all_connected(self) -> bool:
        return all(self.net.up(self.my_seat, seat) for seat in range(self.net.players) if seat != self.my_seat)

    def queued_bytes(self, seat: int) -> int:
        return 0  # delivered at once: nothing waits in a send queue here

    def vanish(self) -> None:
        self.net.leave(self.my_seat, final=False)
