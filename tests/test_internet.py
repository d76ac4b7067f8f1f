"""Internet tables over loopback, through the real magic-wormhole Mailbox
server and Transit Relay (started as processes): invite codes, the relay
between every pair of seats (``relay_only``: on loopback every seat could
reach every other directly), direct connections where they can, a wrong
code, the relay restarted mid-game, a watcher, what the relay sees. The NAT
lab is test_internet_nat.py, the command line test_internet_cli.py."""

import pytest
import trio

from p2pcards.audit import audit_file
from tests.helpers import new_key
from tests.internet_lab import LOCAL, local_servers, servers_missing

pytestmark = pytest.mark.skipif(servers_missing() is not None, reason=str(servers_missing()))


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    running = local_servers(str(tmp_path_factory.mktemp("servers")))
    yield running
    running.stop()


@pytest.fixture
def relay_only(monkeypatch):
    """No direct connection is tried (on loopback every seat could reach every
    other): everything goes through the relay, as between homes behind NAT."""
    monkeypatch.setattr("p2pcards.net.relay.DIRECT_FIRST_TIMEOUT", 0)


class Codes:
    """The host's open invite codes, handed out one per joiner."""

    def __init__(self) -> None:
        self.open: list[str] = []
        self.given: set[str] = set()
        self.changed = trio.Event()

    def __call__(self, codes: list[str]) -> None:
        self.open = list(codes)
        self.changed.set()
        self.changed = trio.Event()

    async def take(self) -> str:
        while True:
            fresh = [c for c in self.open if c not in self.given]
            if fresh:
                self.given.add(fresh[0])
                return fresh[0]
            await self.changed.wait()


async def play_internet_match(servers, game, players, options, tmp_path, fail_after=120, on_change=None,
                              watcher=None):
    from p2pcards.peer.seating import SeatConfig, run_seat

    options = dict(options)
    options.setdefault("table.turn_timeout", 10)
    options.setdefault("table.rejoin_timeout", 10)
    codes, results = Codes(), {}
    mailbox = servers.mailbox_url(LOCAL)

    async def seat(i):
        config = SeatConfig(name=f"Zuzanna Kowalska {i}", private_key=new_key(), bind=LOCAL, port=0, mailbox=mailbox,
                            log_dir=str(tmp_path / f"logs{i}"), strategy="random", bot_seed=f"net:{i}")
        if i == 0:
            config.game, config.players, config.options = game, players, options
            config.relay, config.on_codes, config.on_watch_code = servers.relay_address(LOCAL), codes, codes
        else:
            if watcher is not None:
                await watcher_in.wait()  # a code for the watcher first: it must not come after the game
            config.code = await codes.take()
        results[i] = await run_seat(config, on_driver=lambda peer: peers.append(peer),
                                    on_change=on_change and (lambda: on_change(peers)))

    peers, watcher_in = [], trio.Event()
    with trio.fail_after(fail_after):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
            if watcher is not None:
                nursery.start_soon(watcher, codes, mailbox, watcher_in)
    return [results[i] for i in range(players)]


@pytest.mark.parametrize("game,options", [("warkocz", {"target": 4}), ("bura", {"rounds": 1}),
                                          ("kanasta", {"table.deals": 1}), ("kanaszta", {"table.deals": 1})])
async def test_a_match_through_codes_and_the_relay(servers, tmp_path, relay_only, game, options):
    results = await play_internet_match(servers, game, 3, options, tmp_path)
    logs = [open(r.log_path, "rb").read() for r in results]
    assert all(log == logs[0] for log in logs)
    assert results[0].driver.machine.finished and not results[0].driver.machine.aborted
    report = audit_file(results[0].log_path)
    assert report.exit_code == 0, report.violations


async def test_a_wrong_code_burns_the_code_and_the_host_makes_a_new_one(servers, tmp_path):
    from p2pcards.net.invite import CODE_BURNED, Invitations, redeem
    from p2pcards.net.relay import RelayRoute, parse_relay, use_relay
    from p2pcards.net.rendezvous import CodeError, WrongCode
    from p2pcards.net import open_endpoint

    mailbox = servers.mailbox_url(LOCAL)
    codes, notices = Codes(), []
    async with open_endpoint(new_key(), "host", bind=LOCAL) as endpoint:
        route = RelayRoute(parse_relay(servers.relay_address(LOCAL)), b"s" * 32)
        use_relay(endpoint, route)
        invitations = Invitations(endpoint, b"t" * 16, mailbox, 1, on_codes=codes, on_notice=notices.append)
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(invitations.run)
                first = await codes.take()
                nameplate, _, password = first.partition("-")
                guess = f"{nameplate}-{'0000-0000' if password != '0000-0000' else '1111-1111'}"
                with pytest.raises(WrongCode):
                    await redeem(mailbox, guess, new_key().public_key().public_bytes_raw())
                second = await codes.take()  # the host shows a new code...
                assert second != first and notices == [CODE_BURNED]
                # ...and the right code, typed after the wrong guess, gives nothing.
                with pytest.raises(CodeError) as stale:
                    await redeem(mailbox, first, new_key().public_key().public_bytes_raw(), answer_timeout=2)
                # (Had the new code the old one's number, that attempt was one more wrong guess, burning it too.)
                latest = await codes.take() if isinstance(stale.value, WrongCode) else second
                joiner = new_key().public_key().public_bytes_raw()
                ticket = await redeem(mailbox, latest, joiner)
                assert ticket.host_key == endpoint.identity.public_key and ticket.table_id == b"t" * 16
                assert ticket.route.secret == b"s" * 32 and ticket.route.relay == route.relay
                nursery.cancel_scope.cancel()


async def test_a_mistyped_code_is_refused_in_one_line(servers):
    from p2pcards.net.invite import redeem
    from p2pcards.net.rendezvous import CodeError

    with pytest.raises(CodeError, match="not an invite code"):
        await redeem(servers.mailbox_url(LOCAL), "7-12-3", b"k" * 32)


async def test_the_relay_killed_and_restarted_mid_game_and_the_table_goes_on(tmp_path, relay_only):
    from p2pcards.cli.server import restart_relay, stop_process

    running = local_servers(str(tmp_path / "servers"))
    try:
        restarted = trio.Event()
        cut, seen = [], []

        def on_change(peers):
            seen[:] = peers
            # Once the game is well under way (entries beyond the deal), kill the relay once.
            if not cut and peers and len(peers[0].driver.log) >= 40:
                cut.append(True)
                stop_process(running.relay)
                restart_relay(running, interface=LOCAL, state_dir=str(tmp_path / "servers"))
                restarted.set()

        results = await play_internet_match(running, "warkocz", 3, {"target": 6, "table.turn_timeout": 30,
                                                                    "table.rejoin_timeout": 30},
                                            tmp_path, on_change=on_change)
        assert restarted.is_set(), "the game ended before the relay was cut"
        # Every connection went through the relay, so every one was cut and made again.
        assert all(status.epoch >= 2 for peer in seen for status in peer.mesh.peer_status().values())
        logs = [open(r.log_path, "rb").read() for r in results]
        assert all(log == logs[0] for log in logs)
        machine = results[0].driver.machine
        assert machine.finished and not machine.aborted
        report = audit_file(results[0].log_path)
        assert report.exit_code == 0, report.violations
    finally:
        running.stop()


class RecordingProxy:
    """A TCP proxy in front of the relay keeping every byte either way: what
    the relay sees."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.seen = target, bytearray()
        self.port = 0

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host=LOCAL)
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._serve, listeners)

    async def _serve(self, client) -> None:
        async with client, await trio.open_tcp_stream(*self.target) as upstream:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._copy, client, upstream, nursery.cancel_scope)
                nursery.start_soon(self._copy, upstream, client, nursery.cancel_scope)

    async def _copy(self, source, sink, scope) -> None:
        try:
            while data := await source.receive_some(65536):
                self.seen += data
                await sink.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        scope.cancel()


async def match_recorded_at_the_relay(servers, tmp_path):
    """A warkocz match whose players know the proxy as their relay: (the seats'
    results, every byte the relay carried)."""
    host, port = servers.relay_address(LOCAL).rsplit(":", 1)
    proxy = RecordingProxy((host, int(port)))
    async with trio.open_nursery() as nursery:
        await nursery.start(proxy.run)

        class Through:  # the servers as the players know them: the relay is the proxy
            mailbox_url = servers.mailbox_url

            @staticmethod
            def relay_address(_host):
                return f"{LOCAL}:{proxy.port}"

        results = await play_internet_match(Through, "warkocz", 3, {"target": 2}, tmp_path)
        nursery.cancel_scope.cancel()
    return results, bytes(proxy.seen)


def _windows(data: bytes, size: int) -> set[bytes]:
    return {data[i:i + size] for i in range(len(data) - size + 1)}


async def test_the_relay_sees_no_name_key_card_or_move(servers, tmp_path, relay_only):
    """Everything the relay carried for a whole match: none of the players'
    names, keys or fingerprints, no message type, and not one 12-byte piece
    of the match's log (which holds every card dealt open and every move)."""
    from p2pcards.net.messages import fingerprint

    results, seen = await match_recorded_at_the_relay(servers, tmp_path)
    assert len(seen) > 10_000  # the whole match went through it
    log = open(results[0].log_path, "rb").read()
    driver = results[0].driver
    for seat in driver.log.table.players:
        for secret in (seat.name.encode(), seat.key, fingerprint(seat.key).encode()):
            assert secret not in seen, secret
    for word in (b"hello", b"auth", b"entry", b"tablesig", b"warkocz", b"kanasta"):
        assert word not in seen, word
    assert not _windows(log, 12) & _windows(seen, 12), "a piece of the log crossed the relay in the clear"


async def test_the_relay_itself_holding_a_token_learns_nobody(servers):
    """Whoever knows a pair's token (the relay sees it) but not the table
    secret gets no handshake: the waiting seat's envelope does not open, it
    reveals nothing, and it keeps waiting for the real peer, who gets through."""
    from p2pcards.net import NetError, open_endpoint
    from p2pcards.net.endpoint import handshake_over
    from p2pcards.net.relay import RelayRoute, pair_token, parse_relay, relay_connect, use_relay

    route = RelayRoute(parse_relay(servers.relay_address(LOCAL)), b"s" * 32)
    waiting_key, real_key = new_key(), new_key()
    async with open_endpoint(waiting_key, "waiting", bind=LOCAL) as waiting, \
            open_endpoint(real_key, "real", bind=LOCAL) as real:
        waiting.register("lobby", _Echo())
        use_relay(waiting, route).accept_from(real.identity.public_key)
        token = pair_token(route.secret, waiting.identity.public_key, real.identity.public_key)
        with trio.fail_after(30):
            for _attempt in range(2):  # also a second time: the seat waits again after a failure
                stream = await relay_connect(route.relay, token)
                with pytest.raises(NetError):
                    await handshake_over(stream, real.identity, "relay", role="lobby", session=None,
                                     expect_key=waiting.identity.public_key, timeout=5, limits=real.limits,
                                     envelope=b"guessed" * 4 + b"!!!!")
            use_relay(real, route)
            channel = await real.connect("relay", 0, role="lobby", session=None, expect_key=waiting.identity.public_key)
            assert channel.peer_name == "waiting"
            await channel.aclose()


class _Echo:
    def admit(self, hello):
        return None

    async def handle(self, channel):
        await channel.aclose()


async def test_a_watcher_follows_the_table_with_a_code(servers, tmp_path):
    """A code used by a watcher while the table fills: it gets the table and
    every entry of the log through the relay; the host makes a new code for
    the seat that code was for."""
    from p2pcards.net import LogEntry, TableDescription
    from p2pcards.net.invite import watch_by_code

    seen = {"entries": 0, "table": None}

    async def watcher(codes, mailbox, watcher_in):
        code = await codes.take()
        watcher_in.set()
        async with watch_by_code(mailbox, code, name="Ciocia Hela") as watch:
            async for item in watch:
                if isinstance(item, TableDescription):
                    seen["table"] = item
                elif isinstance(item, LogEntry):
                    seen["entries"] += 1

    results = await play_internet_match(servers, "warkocz", 3, {"target": 2}, tmp_path, watcher=watcher)
    assert seen["table"] is not None and seen["table"].session_id == results[0].driver.log.table.session
    assert seen["entries"] == len(results[0].driver.log)


async def test_seats_that_reach_each_other_connect_directly_and_spare_the_relay(servers, tmp_path):
    """Direct first: on loopback every seat answers at the address it sees for
    itself, so the relay carries nothing of the match: waiting connections
    knocking at it and at most a few handshakes refused while a seat was still
    starting (a relayed match carries far more: the test above)."""
    results, seen = await match_recorded_at_the_relay(servers, tmp_path)
    assert audit_file(results[0].log_path).exit_code == 0
    knocks = sum(len(line) for line in seen.replace(b"\n", b"\n\0").split(b"\0")
                 if line.startswith(b"please relay "))
    assert len(seen) - knocks < 5_000, len(seen) - knocks


async def test_a_hostile_mailbox_server_cannot_write_to_the_terminal():
    """The server's error text reaches the player: controls (ESC) become '?'."""
    from trio_websocket import serve_websocket

    from p2pcards.net.invite import redeem
    from p2pcards.net.rendezvous import CodeError

    async def hostile(request):
        ws = await request.accept()
        await ws.send_message('{"type": "welcome", "welcome": {}}')
        await ws.get_message()  # bind
        await ws.send_message('{"type": "error", "error": "\\u001b[2Jgone"}')
        await ws.get_message()

    async with trio.open_nursery() as nursery:
        server = await nursery.start(serve_websocket, hostile, LOCAL, 0, None)
        with pytest.raises(CodeError) as refused:
            await redeem(f"ws://{LOCAL}:{server.port}/v1", "7-1234-5678", b"k" * 32)
        nursery.cancel_scope.cancel()
    assert "\x1b" not in str(refused.value) and "?[2Jgone" in str(refused.value)
