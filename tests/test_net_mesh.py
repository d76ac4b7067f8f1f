"""The peer mesh over real loopback sockets: exchange, hostile connections,
a cut connection that comes back (with epochs keeping old and new apart),
a misbehaving authenticated peer, and a slow peer that must not block others."""

from __future__ import annotations

import socket

import pytest
import trio

from p2pcards.net import MeshError, Message, PeerDown, PeerUp, open_mesh
from p2pcards.net.framing import HEADER, FramedStream
from p2pcards.net.handshake import Identity, initiate

from tests.helpers import Endpoints, LOCAL, make_table, net_logging, new_key, poke, reasons

FAST = dict(backoff=(0.02, 0.3), keepalive=1.0, dead_after=10.0)



async def exchange(ep, table, seat, rounds, events=None, **opts):
    """Every seat broadcasts ``rounds`` numbered messages and waits for everyone else's."""
    n = len(table.seats)
    got = {s: [] for s in range(n) if s != seat}
    async with open_mesh(ep, table, seat, ready_timeout=10, **FAST, **opts) as mesh:
        for r in range(rounds):
            sent = await mesh.broadcast({"r": r, "pad": b"x" * 200})
            assert all(sent.values())
        while any(len(v) < rounds for v in got.values()):
            ev = await mesh.receive()
            if events is not None:
                events.append(ev)
            if isinstance(ev, Message):
                got[ev.seat].append(ev.msg["r"])
    assert all(v == list(range(rounds)) for v in got.values())


async def test_four_seat_mesh_survives_hostile_connections(caplog):
    net_logging(caplog)
    async with Endpoints(4, handshake_timeout=1.5) as E:
        table = make_table(E.eps)
        other = make_table(E.eps)  # same players, another session
        stranger = Identity(new_key(), "stranger")
        seat1 = Identity(E.keys[1], "seat1")
        target = E.eps[3].port
        outcome = {}

        async def dial(name, ident, session, port=target):
            try:
                ch = await E.eps[0].connect(LOCAL, port, role="mesh", session=session) if ident is None else \
                    await initiate(FramedStream(await trio.open_tcp_stream(LOCAL, port)), ident,
                                   role="mesh", session=session)
                outcome[name] = ch
            except Exception as exc:
                outcome[name] = exc

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                for i, ep in enumerate(E.eps):
                    nursery.start_soon(exchange, ep, table, i, 100)
                nursery.start_soon(dial, "stranger", stranger, table.session_id)
                nursery.start_soon(dial, "wrong-direction", seat1, table.session_id)
                nursery.start_soon(dial, "wrong-session", seat1, other.session_id, E.eps[0].port)
                nursery.start_soon(poke, target, HEADER.pack(12) + b"\xc1" * 12)
                nursery.start_soon(poke, target, HEADER.pack(1 << 30))
                nursery.start_soon(poke, target, b"")  # half-open: never speaks
    for name in ("stranger", "wrong-direction", "wrong-session"):
        assert isinstance(outcome[name], Exception), name
    log = reasons(caplog)
    for expected in ("key is not a player of this table", "seat 1 must not dial seat 3",
                     "no game in progress with this session id", "undecodable frame", "exceeds the maximum",
                     "handshake timed out"):
        assert expected in log, expected


async def test_cut_connection_reconnects_and_the_driver_resends(caplog):
    """Seat 2 streams numbered messages to seat 0 with a minimal resend-on-PeerUp driver;
    the connection is cut mid-stream; all arrive, and the epochs keep old and new apart."""
    net_logging(caplog)
    total = 300
    events0, events2 = [], []
    async with Endpoints(3) as E:
        table = make_table(E.eps)

        async def receiver():
            expected = 0
            cut = False
            async with open_mesh(E.eps[0], table, 0, **FAST) as mesh:
                while expected < total:
                    ev = await mesh.receive()
                    events0.append(ev)
                    if isinstance(ev, Message) and ev.seat == 2:
                        if ev.msg["seq"] == expected:
                            expected += 1
                        await mesh.send(2, {"ack": expected})
                        if expected == total // 3 and not cut:
                            cut = True  # pull the cable under seat 2's connection
                            mesh.peers[2].channel.framed.stream.socket.shutdown(socket.SHUT_RDWR)
                    elif isinstance(ev, PeerUp) and ev.seat == 2:
                        await mesh.send(2, {"ack": expected})
                await mesh.send(2, {"ack": expected})
                await trio.sleep(0.2)

        async def sender():
            acked = nxt = 0
            async with open_mesh(E.eps[2], table, 2, **FAST) as mesh:
                while acked < total:
                    while nxt < total and nxt - acked < 20 and await mesh.send(0, {"seq": nxt}):
                        nxt += 1
                    ev = await mesh.receive()
                    events2.append(ev)
                    if isinstance(ev, Message) and ev.seat == 0:
                        acked = max(acked, ev.msg["ack"])
                    elif isinstance(ev, PeerUp) and ev.seat == 0:
                        nxt = acked  # resend what was not acknowledged

        async def bystander():
            async with open_mesh(E.eps[1], table, 1, **FAST) as mesh:
                await trio.sleep(0.5)

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(receiver)
                nursery.start_soon(sender)
                nursery.start_soon(bystander)

    seat2 = [e for e in events0 if getattr(e, "seat", None) == 2]
    downs = [i for i, e in enumerate(seat2) if isinstance(e, PeerDown)]
    ups = [i for i, e in enumerate(seat2) if isinstance(e, PeerUp)]
    assert downs and len(ups) >= 2, seat2[:5]
    first_down = downs[0]
    assert seat2[first_down].epoch == 1 and not seat2[first_down].final
    # After the first PeerDown, nothing from epoch 1; messages carry the epoch of the last PeerUp.
    epoch = 0
    for e in seat2:
        if isinstance(e, PeerUp):
            epoch = e.epoch
        elif isinstance(e, Message):
            assert e.epoch == epoch
    assert any(isinstance(e, PeerUp) and e.epoch >= 2 for e in events2)
    assert any(isinstance(e, PeerDown) and e.seat == 0 for e in events2)


async def test_misbehaving_player_key_only_loses_its_own_connection(caplog):
    """Someone holding seat 2's key opens a second connection to seat 0 and sends junk:
    that connection is closed with a reason, seat 2's real dialler comes back, and
    seats 0 and 1 keep talking throughout without a hiccup."""
    net_logging(caplog)
    async with Endpoints(3) as E:
        table = make_table(E.eps)
        rogue = Identity(E.keys[2], "seat2")
        meshes = {}
        up = trio.Event()
        done = trio.Event()
        events0 = []

        async def seat(i):
            async with open_mesh(E.eps[i], table, i, **FAST) as mesh:
                meshes[i] = mesh
                if len(meshes) == 3:
                    up.set()
                await done.wait()

        async def attack():
            ch = await initiate(FramedStream(await trio.open_tcp_stream(LOCAL, E.eps[0].port)), rogue,
                                role="mesh", session=table.session_id, expect_key=E.eps[0].identity.public_key)
            await ch.send({"t": "weird", "x": 1})
            with trio.move_on_after(5):
                try:
                    while True:
                        await ch.receive()
                except Exception:
                    pass
            await ch.aclose()

        async def chat_0_1():
            for r in range(50):
                assert await meshes[1].send(0, {"r": r})
            got = []
            while len(got) < 50:
                ev = await meshes[0].receive()
                events0.append(ev)
                if isinstance(ev, Message) and ev.seat == 1:
                    got.append(ev.msg["r"])
            assert got == list(range(50))

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                for i in range(3):
                    nursery.start_soon(seat, i)
                await up.wait()
                async with trio.open_nursery() as inner:
                    inner.start_soon(attack)
                    inner.start_soon(chat_0_1)
                # Seat 2's genuine connection was replaced, then the rogue was thrown out:
                # the real seat 2 redials and the pair works again.
                while not any(isinstance(e, PeerUp) and e.seat == 2 and e.epoch >= 3 for e in events0):
                    events0.append(await meshes[0].receive())
                await meshes[2].send(0, {"back": True})
                while True:
                    ev = await meshes[0].receive()
                    if isinstance(ev, Message) and ev.seat == 2:
                        break
                    if isinstance(ev, PeerUp) and ev.seat == 2:
                        await meshes[2].send(0, {"back": True})
                done.set()
    log = reasons(caplog)
    assert "unexpected 'weird' on the mesh" in log
    assert "replaced by a new connection" in log
    assert not any(isinstance(e, PeerDown) and e.seat == 1 for e in events0)


async def test_slow_peer_overflows_only_its_own_queue(caplog):
    net_logging(caplog)
    async with Endpoints(3) as E:
        table = make_table(E.eps)
        down = trio.Event()
        result = {}

        async def fast_sender():
            async with open_mesh(E.eps[0], table, 0, queue_size=4, **FAST) as mesh:
                big = b"z" * (512 * 1024)
                for _ in range(200):
                    if not await mesh.send(1, {"big": big}):
                        break
                    await trio.sleep(0)
                # Seat 2 still gets its messages although seat 1 is stuck.
                assert await mesh.send(2, {"hi": 1})
                while True:
                    ev = await mesh.receive()
                    if isinstance(ev, PeerDown) and ev.seat == 1:
                        result["reason"] = ev.reason
                    if isinstance(ev, Message) and ev.seat == 2:
                        result["from2"] = ev.msg
                        break
                down.set()

        async def stuck():
            async with open_mesh(E.eps[1], table, 1, inbox_size=1, **FAST) as mesh:
                await down.wait()  # never reads its mesh

        async def normal():
            async with open_mesh(E.eps[2], table, 2, **FAST) as mesh:
                while True:
                    ev = await mesh.receive()
                    if isinstance(ev, Message) and ev.seat == 0:
                        await mesh.send(0, {"ok": True})
                        break
                await down.wait()

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(fast_sender)
                nursery.start_soon(stuck)
                nursery.start_soon(normal)
    assert result["from2"] == {"ok": True}
    assert "send queue overflow" in reasons(caplog)


async def test_missing_peers_fail_ready_naming_their_seats():
    async with Endpoints(3) as E:
        table = make_table(E.eps)
        with trio.fail_after(10):
            with pytest.raises(MeshError, match=r"seat\(s\) 1 \(seat1: never connected\), 2 \(seat2"):
                async with open_mesh(E.eps[0], table, 0, ready_timeout=1.0, **FAST):
                    pass


async def test_bye_is_final_and_not_redialled(caplog):
    net_logging(caplog)
    async with Endpoints(2) as E:
        table = make_table(E.eps)
        seen = []
        closed = trio.Event()

        async def leaver():
            async with open_mesh(E.eps[0], table, 0, **FAST) as mesh:
                assert await mesh.send(1, {"last": True})
            closed.set()

        async def stayer():
            async with open_mesh(E.eps[1], table, 1, **FAST) as mesh:
                while True:
                    ev = await mesh.receive()
                    seen.append(ev)
                    if isinstance(ev, PeerDown):
                        break
                await closed.wait()
                await trio.sleep(0.5)  # the dialler would have retried within this
                status = mesh.peer_status()[0]
                assert not status.connected and status.epoch == 1 and "peer closed the mesh" in status.reason

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(leaver)
                nursery.start_soon(stayer)
    assert isinstance(seen[0], PeerUp)
    assert [e.msg for e in seen if isinstance(e, Message)] == [{"last": True}]
    assert isinstance(seen[-1], PeerDown) and seen[-1].final
    assert "dialling seat 0" not in reasons(caplog)


async def test_a_flooding_peer_does_not_crowd_out_the_others():
    """Seat 2 floods seat 0, whose driver is busy; seat 1's later messages still get
    into the inbox, because each peer may only have inbox_size messages undelivered."""
    async with Endpoints(3) as E:
        table = make_table(E.eps)
        order = []
        sent, done = trio.Event(), trio.Event()

        async def busy_reader():
            async with open_mesh(E.eps[0], table, 0, inbox_size=50, **FAST) as mesh:
                await sent.wait()
                await trio.sleep(0.5)  # busy: seat 2's reader hits its limit meanwhile
                while sum(1 for s in order if s == 1) < 5 or len(order) < 505:
                    ev = await mesh.receive()
                    if isinstance(ev, Message):
                        order.append(ev.seat)
                done.set()

        async def flooder():
            async with open_mesh(E.eps[2], table, 2, **FAST) as mesh:
                for i in range(500):
                    assert await mesh.send(0, {"flood": i})
                await trio.sleep(0.2)
                sent.set()
                await done.wait()

        async def polite():
            async with open_mesh(E.eps[1], table, 1, **FAST) as mesh:
                await sent.wait()
                for i in range(5):
                    assert await mesh.send(0, {"polite": i})
                await done.wait()

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(busy_reader)
                nursery.start_soon(flooder)
                nursery.start_soon(polite)
    last_polite = max(i for i, s in enumerate(order) if s == 1)
    assert last_polite < 60, last_polite  # right after the 50 queued flood messages, not after 500


@pytest.mark.parametrize("paced", [True, False])
async def test_a_peer_that_does_not_read_is_cut_and_its_queue_stays_within_its_bytes(caplog, paced):
    """Issue 23, item 4. Seat 1 connects, keeps pinging and reads nothing.
    Paced, seat 0 only ever queues half its byte bound, so only the stall can
    cut (no byte taken for dead_after seconds); unpaced, the byte bound is hit
    first. Either way the queue never holds more than its bound, and the cut
    is a lost connection (PeerDown), no more."""
    net_logging(caplog)
    bound = 1 << 20
    piece = {"pad": b"x" * (64 * 1024)}
    async with Endpoints(2) as E:
        table = make_table(E.eps)
        async with open_mesh(E.eps[0], table, 0, ready_timeout=None, queue_bytes=bound,
                             **dict(FAST, dead_after=2.0)) as mesh:
            channel = await E.eps[1].connect(LOCAL, E.eps[0].port, role="mesh", session=table.session_id,
                                             expect_key=E.eps[0].identity.public_key, timeout=10)
            most = 0
            async with trio.open_nursery() as nursery:
                nursery.start_soon(channel.keepalive, 0.3)  # alive, never reading

                async def send_until_cut() -> None:
                    nonlocal most
                    while True:
                        if not paced or mesh.queued_bytes(1) < bound // 2:
                            if not await mesh.send(1, piece):
                                return  # cut: the connection is gone
                        else:
                            await trio.sleep(0.01)  # pacing only; nothing here waits for a time to pass
                        most = max(most, mesh.queued_bytes(1))

                with trio.fail_after(60):
                    while not isinstance(event := await mesh.receive(), PeerUp):
                        pass
                    nursery.start_soon(send_until_cut)
                    while not isinstance(event := await mesh.receive(), PeerDown):
                        pass
                nursery.cancel_scope.cancel()
            await channel.aclose()
    assert most <= bound
    assert ("took nothing we sent for 2s" if paced else "send queue overflow") in event.reason, event.reason
    assert not event.final
