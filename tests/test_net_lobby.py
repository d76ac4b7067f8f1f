"""Lobby over real loopback sockets: a 4-player table, refusals and leavers,
spectators, and hostile connections that must not disturb it."""

from __future__ import annotations


import msgpack
import pytest
import trio

from p2pcards import PROTOCOL_VERSION
from p2pcards.net import (LobbyError, LobbyView, LogEntry, NetError, TableDescription, TableRefused,
                          open_endpoint, watch_table)
from p2pcards.net.framing import HEADER, FramedStream
from p2pcards.net.handshake import Identity, initiate, make_hello
from p2pcards.net.lobby import HostLobby, join_table
from p2pcards.net.mesh import Message, open_mesh

from tests.helpers import LOCAL, Recorder, Seats, frame, net_logging, new_key, poke, reasons

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


async def test_four_players_agree_then_talk_over_the_mesh_while_a_spectator_watches():
    results: dict[int, TableDescription] = {}
    proposals = {}
    watched = []
    seats = Seats()
    delivered = {i: set() for i in range(4)}

    def accept(i):
        def hook(p):
            proposals[i] = p
            return True
        return hook

    async def player(i, host_ep, lobby, ready):
        async with open_endpoint(new_key(), f"player{i}", bind=LOCAL) as ep:
            await seats.wait(i)  # join in a known order: seat = join order
            results[i] = await join_table(ep, LOCAL, host_ep.port, accept=accept(i))
            await ready.wait()
            await talk(ep, results[i], i)

    async def talk(ep, table, seat):
        async with open_mesh(ep, table, seat, ready_timeout=10) as mesh:
            await mesh.broadcast({"from": seat, "kind": "all"})
            for other in range(4):
                if other != seat:
                    assert await mesh.send(other, {"from": seat, "kind": "direct", "to": other})
            while len(delivered[seat]) < 6:
                ev = await mesh.receive()
                if isinstance(ev, Message):
                    assert ev.msg["from"] == ev.seat
                    delivered[seat].add((ev.seat, ev.msg["kind"]))

    async def spectator(host_ep):
        async with watch_table(LOCAL, host_ep.port, name="watcher") as watch:
            async for item in watch:
                watched.append(item)
                if isinstance(item, LogEntry) and item.index == 2:
                    break

    with trio.fail_after(30):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "kanasta", 4, options={"target": 5000, "pairs": True},
                              accept=accept(0), on_update=seats)
            ready = trio.Event()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(spectator, host_ep)
                for i in range(1, 4):
                    nursery.start_soon(player, i, host_ep, lobby, ready)
                results[0] = await lobby.run()
                ready.set()
                for n in range(3):
                    lobby.spectators.publish(b"entry %d" % n)
                await talk(host_ep, results[0], 0)
            lobby.spectators.end("game over")

    tables = [results[i] for i in range(4)]
    assert len({t.session_id for t in tables}) == 1
    assert [s.name for s in tables[0].seats] == ["host", "player1", "player2", "player3"]
    assert all([(s.name, s.key) for s in t.seats] == [(s.name, s.key) for s in tables[0].seats] for t in tables)
    assert tables[1].options == {"target": 5000, "pairs": True} and tables[1].game == "kanasta"
    assert {p.my_seat for i, p in proposals.items() if i} == {1, 2, 3}
    for i in range(4):
        assert delivered[i] == {(o, k) for o in range(4) if o != i for k in ("all", "direct")}
    # The spectator saw the lobby fill up, the final table, and the entries in order.
    views = [w for w in watched if isinstance(w, LobbyView)]
    assert len(views[-1].seats) == 4
    finals = [w for w in watched if isinstance(w, TableDescription)]
    assert finals and finals[0].session_id == tables[0].session_id
    assert [w.data for w in watched if isinstance(w, LogEntry)] == [b"entry 0", b"entry 1", b"entry 2"]


async def test_refusal_and_leaver_send_the_table_back_to_waiting(caplog):
    net_logging(caplog)
    seats = Seats()
    outcome = {}

    async def joiner(name, host_port, accept, key=None):
        async with open_endpoint(key or new_key(), name, bind=LOCAL) as ep:
            try:
                outcome[name] = await join_table(ep, LOCAL, host_port, accept=accept)
            except NetError as exc:
                outcome[name] = exc

    blocked = trio.Event()

    async def never(p):
        blocked.set()
        await trio.sleep_forever()

    with trio.fail_after(30):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 3, on_update=seats)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: _run(lobby, outcome))
                nursery.start_soon(joiner, "stays", host_ep.port, lambda p: True)
                await seats.wait(2)
                nursery.start_soon(joiner, "refuser", host_ep.port, lambda p: False)
                await seats.wait(3)
                await seats.wait(2)  # the refusal emptied seat 2 again
                async with trio.open_nursery() as leaver:
                    leaver.start_soon(joiner, "leaver", host_ep.port, never)
                    await blocked.wait()
                    leaver.cancel_scope.cancel()  # walks away while asked to accept
                await seats.wait(2)
                nursery.start_soon(joiner, "late", host_ep.port, lambda p: True)
    assert isinstance(outcome["refuser"], TableRefused)
    table = outcome["host"]
    assert [s.name for s in table.seats] == ["host", "stays", "late"]
    assert outcome["stays"].session_id == outcome["late"].session_id == table.session_id
    notices = [v.notice for v in seats.views]
    assert "refuser refused the table" in notices and "leaver left" in notices


async def _run(lobby, outcome):
    try:
        outcome["host"] = await lobby.run()
    except NetError as exc:
        outcome["host"] = exc


async def test_host_refusal_cancels_the_table_for_everyone():
    outcome = {}
    seats = Seats()
    with trio.fail_after(20):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 2, accept=lambda p: False, on_update=seats)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_run, lobby, outcome)
                async with open_endpoint(new_key(), "j", bind=LOCAL) as ep:
                    with pytest.raises(LobbyError, match="host cancelled the table"):
                        await join_table(ep, LOCAL, host_ep.port)
    assert isinstance(outcome["host"], TableRefused)


async def test_slow_acceptor_is_removed_and_extra_joiner_is_turned_away(caplog):
    net_logging(caplog)
    outcome = {}
    seats = Seats()

    async def joiner(name, port, accept):
        async with open_endpoint(new_key(), name, bind=LOCAL) as ep:
            try:
                outcome[name] = await join_table(ep, LOCAL, port, accept=accept)
            except NetError as exc:
                outcome[name] = exc

    async def slow(p):
        await trio.sleep(60)

    with trio.fail_after(30):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            # The slow acceptor must still hold its seat when "extra" knocks: a
            # timeout a loaded machine's handshake cannot outlast (0.5 s could).
            lobby = HostLobby(host_ep, "bura", 2, on_update=seats, accept_timeout=5)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_run, lobby, outcome)
                nursery.start_soon(joiner, "slow", host_ep.port, slow)
                await seats.wait(2)
                await joiner("extra", host_ep.port, lambda p: True)  # table full right now
                await seats.wait(1)
                nursery.start_soon(joiner, "quick", host_ep.port, lambda p: True)
    assert "full" in str(outcome["extra"])
    assert "did not accept in time" in str(outcome["slow"])
    assert [s.name for s in outcome["host"].seats] == ["host", "quick"]


async def test_hostile_connections_are_refused_while_the_lobby_completes(caplog):
    net_logging(caplog)
    outcome = {}
    replies = {}
    seats = Seats()

    async def hostile(name, port, data):
        replies[name] = await poke(port, data, wait=10)

    async def replayer(port):
        # Record a real player's handshake, then play the same bytes again.
        ident = Identity(new_key(), "victim")
        stream = Recorder(await trio.open_tcp_stream(LOCAL, port))
        ch = await initiate(FramedStream(stream), ident, role="watch", session=None)
        await ch.aclose()
        replies["replay"] = await poke(port, bytes(stream.sent), wait=10)

    async def joiner(name, port):
        async with open_endpoint(new_key(), name, bind=LOCAL) as ep:
            outcome[name] = await join_table(ep, LOCAL, port)

    async def no_join(port):
        # Authenticates properly, then skips 'join'.
        ch = await initiate(FramedStream(await trio.open_tcp_stream(LOCAL, port)), Identity(new_key(), "rude"),
                            role="lobby", session=None)
        await ch.send({"t": "accept", "round": 1, "commit": b"c" * 32})
        with trio.move_on_after(10):
            replies["no-join"] = await ch.receive()
        await ch.aclose()

    wrong_version = msgpack.unpackb(make_hello(Identity(new_key(), "old"), "lobby", None, b"v" * 32, b"x" * 32))
    wrong_version["v"] = PROTOCOL_VERSION + 7
    with trio.fail_after(40):
        async with open_endpoint(new_key(), "host", bind=LOCAL, handshake_timeout=1.5) as host_ep:
            lobby = HostLobby(host_ep, "warkocz", 4, on_update=seats)
            port = host_ep.port
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_run, lobby, outcome)
                nursery.start_soon(joiner, "a", port)
                nursery.start_soon(hostile, "garbage", port, HEADER.pack(32) + b"\xc1" + bytes(range(31)))
                nursery.start_soon(hostile, "oversize", port, HEADER.pack(50 << 20) + b"x" * 100)
                nursery.start_soon(hostile, "version", port, frame(wrong_version))
                nursery.start_soon(hostile, "not-hello", port, frame({"t": "join", "port": 1}))
                nursery.start_soon(hostile, "half-open", port, b"")
                nursery.start_soon(replayer, port)
                nursery.start_soon(no_join, port)
                nursery.start_soon(joiner, "b", port)
                nursery.start_soon(joiner, "c", port)
    assert len({outcome[k].session_id for k in ("host", "a", "b", "c")}) == 1
    log = reasons(caplog)
    for expected in ("undecodable frame", "exceeds the maximum", f"protocol version {PROTOCOL_VERSION + 7}",
                     "expected 'hello', got 'join'", "handshake timed out", "replayed handshake",
                     "expected 'join', got 'accept'"):
        assert expected in log, expected
    # Each hostile peer was told why before the close.
    assert b"protocol version" in replies["version"] and b"replayed handshake" in replies["replay"]
    assert b"timed out" in replies["half-open"]
    assert replies["no-join"]["t"] == "error" and "expected 'join'" in replies["no-join"]["reason"]


def _ipv6_loopback() -> bool:
    import socket
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback (::1) here")
async def test_lobby_and_mesh_over_ipv6_loopback():
    results = {}
    with trio.fail_after(20):
        async with open_endpoint(new_key(), "host6", bind="::1") as host_ep:
            async def joiner():
                async with open_endpoint(new_key(), "joiner6", bind="::1") as ep:
                    table = await join_table(ep, "::1", host_ep.port)
                    assert table.seats[0].host == "::1"  # the address this joiner reached the host on
                    async with open_mesh(ep, table, 1, ready_timeout=10) as mesh:
                        await mesh.send(0, {"v6": True})
                        results["joiner"] = table

            async with trio.open_nursery() as nursery:
                nursery.start_soon(joiner)
                table = await HostLobby(host_ep, "bura", 2).run()
                async with open_mesh(host_ep, table, 0, ready_timeout=10) as mesh:
                    while True:
                        ev = await mesh.receive()
                        if isinstance(ev, Message):
                            assert ev.msg == {"v6": True}
                            break
    assert results["joiner"].session_id == table.session_id and table.seats[1].host == "::1"


async def test_late_spectator_gets_the_backlog_then_live_entries_then_the_end():
    with trio.fail_after(20):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 2)
            async with trio.open_nursery() as nursery:
                async def joiner():
                    async with open_endpoint(new_key(), "j", bind=LOCAL) as ep:
                        await join_table(ep, LOCAL, host_ep.port)
                nursery.start_soon(joiner)
                table = await lobby.run()
            for n in range(3):
                lobby.spectators.publish(b"old %d" % n)
            items = []
            async with watch_table(LOCAL, host_ep.port, private_key=new_key(), name="late watcher",
                                   table_id=table.table_id) as watch:
                async for item in watch:
                    items.append(item)
                    if isinstance(item, LogEntry) and item.index == 2:
                        lobby.spectators.publish(b"new 3")
                    if isinstance(item, LogEntry) and item.index == 3:
                        lobby.spectators.end("game over")
                assert watch.ended == "game over"
            # After the end, no one else may watch.
            with pytest.raises(NetError, match="the game is over"):
                async with watch_table(LOCAL, host_ep.port):
                    pass
    assert isinstance(items[0], LobbyView) and isinstance(items[1], TableDescription)
    assert items[1].session_id == table.session_id
    assert [(i.index, i.data) for i in items[2:]] == [(0, b"old 0"), (1, b"old 1"), (2, b"old 2"), (3, b"new 3")]


@pytest.mark.parametrize("misdeed", ["garbage", "oversize"])
async def test_seated_joiner_breaking_the_protocol_is_removed_and_the_table_goes_on(caplog, misdeed):
    """Junk, or (issue 23, item 4) a message over MAX_LOBBY_MESSAGE: what
    waits for the host's lobby loop stays small in bytes."""
    from p2pcards.limits import MAX_LOBBY_MESSAGE

    net_logging(caplog)
    outcome = {}
    seats = Seats()

    async def joiner(name, port):
        async with open_endpoint(new_key(), name, bind=LOCAL) as ep:
            outcome[name] = await join_table(ep, LOCAL, port)

    with trio.fail_after(20):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 3, on_update=seats)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_run, lobby, outcome)
                nursery.start_soon(joiner, "good", host_ep.port)
                await seats.wait(2)
                rogue = await initiate(FramedStream(await trio.open_tcp_stream(LOCAL, host_ep.port)),
                                       Identity(new_key(), "rogue"), role="lobby", session=None)
                await rogue.send({"t": "join", "port": 9})
                await seats.wait(3)  # seated; now a proposal is out and the rogue answers
                if misdeed == "garbage":
                    await rogue.framed.send_body(b"\xc1\xc1\xc1")  # sealed, so it gets as far as msgpack
                else:
                    await rogue.send({"t": "refuse", "round": 1, "reason": "x", "pad": b"p" * MAX_LOBBY_MESSAGE})
                await seats.wait(2)
                await rogue.aclose()
                nursery.start_soon(joiner, "late", host_ep.port)
    assert [s.name for s in outcome["host"].seats] == ["host", "good", "late"]
    assert "rogue left" in [v.notice for v in seats.views]
    assert {"garbage": "broke the protocol: undecodable frame",
            "oversize": "a lobby message of"}[misdeed] in reasons(caplog)


async def test_the_players_chat_while_the_table_fills_and_while_they_decide():
    """Lobby chat (wire.md §4.1): a joiner's line goes to the host, which
    relays it to every player with the sayer's seat, its own too; the host
    says lines as seat 0. Talking during the proposal does not disturb it."""
    from p2pcards.net.lobby import LobbyChat

    heard = {i: [] for i in range(3)}
    chats = {i: LobbyChat(lambda seat, text, i=i: heard[i].append((seat, text))) for i in range(3)}
    seats = Seats()
    asked = {i: trio.Event() for i in range(3)}
    answer = trio.Event()

    def accept(i):
        async def hook(proposal):
            asked[i].set()
            await answer.wait()
            return True
        return hook

    async def player(i, port, results):
        async with open_endpoint(new_key(), f"player{i}", bind=LOCAL) as ep:
            await seats.wait(i)
            results[i] = await join_table(ep, LOCAL, port, accept=accept(i), chat=chats[i])

    async def until_heard(n):
        while not all(len(heard[i]) >= n for i in range(3)):
            await trio.sleep(0.01)

    results = {}
    with trio.fail_after(30):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 3, accept=accept(0), on_update=seats, chat=chats[0])
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_run_into, lobby, results)
                nursery.start_soon(player, 1, host_ep.port, results)
                await seats.wait(2)
                chats[1].say("hello, who else comes?")
                chats[0].say("Ola is on her way")
                while not (len(heard[0]) >= 2 and len(heard[1]) >= 2):
                    await trio.sleep(0.01)
                nursery.start_soon(player, 2, host_ep.port, results)
                for event in asked.values():
                    await event.wait()
                chats[2].say("bura it is")
                await until_heard(1)
                answer.set()
    assert heard[0][:2] == heard[1][:2]  # in the host's order, for everybody
    assert set(heard[0][:2]) == {(1, "hello, who else comes?"), (0, "Ola is on her way")}
    assert heard[0][-1] == heard[1][-1] == heard[2][-1] == (2, "bura it is")
    assert len({results[i].session_id for i in range(3)}) == 1


async def _run_into(lobby, results):
    results[0] = await lobby.run()


async def test_a_chat_line_with_control_characters_removes_its_sayer_and_a_flood_is_not_relayed():
    """What a joiner says goes to every screen: a line with control
    characters (an escape sequence) is a protocol breach, and lines closer
    than CHAT_INTERVAL are dropped, not relayed to everybody."""
    from p2pcards.net.lobby import LobbyChat

    heard = []
    seats = Seats()
    with trio.fail_after(30):
        async with open_endpoint(new_key(), "host", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 3, on_update=seats, chat=LobbyChat(lambda s, t: heard.append(t)))
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lobby.run)
                async with open_endpoint(new_key(), "rude", bind=LOCAL) as ep:
                    channel = await ep.connect(LOCAL, host_ep.port, role="lobby", session=None)
                    await channel.send({"t": "join", "port": ep.port})
                    await seats.wait(2)
                    for n in range(20):
                        await channel.send({"t": "chat", "text": f"spam {n}"})
                    await channel.send({"t": "chat", "text": "\x1b[2Jgotcha"})
                    await seats.wait(1)
                    assert "was removed" in seats.views[-1].notice
                nursery.cancel_scope.cancel()
    assert 1 <= len(heard) < 20 and heard[0] == "spam 0" and not any("\x1b" in t for t in heard)
