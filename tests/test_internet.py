"""Internet tables over loopback, through the real magic-wormhole Mailbox
server and Transit Relay (started as processes): invite codes, the relay
between every pair of seats, a wrong code. The NAT lab is test_internet_nat.py."""

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


async def play_internet_match(servers, game, players, options, tmp_path, fail_after=300):
    from p2pcards.peer.seating import SeatConfig, run_seat

    options = dict(options)
    options.setdefault("table.turn_timeout", 10)
    options.setdefault("table.rejoin_timeout", 10)
    codes, results = Codes(), {}
    mailbox = servers.mailbox_url(LOCAL)

    async def seat(i):
        config = SeatConfig(name=f"p{i}", private_key=new_key(), bind=LOCAL, port=0, mailbox=mailbox,
                            log_dir=str(tmp_path / f"logs{i}"), strategy="random", bot_seed=f"net:{i}")
        if i == 0:
            config.game, config.players, config.options = game, players, options
            config.relay, config.on_codes = servers.relay_address(LOCAL), codes
        else:
            config.code = await codes.take()
        results[i] = await run_seat(config)

    with trio.fail_after(fail_after):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    return [results[i] for i in range(players)]


async def test_a_match_through_codes_and_the_relay(servers, tmp_path):
    results = await play_internet_match(servers, "warkocz", 3, {"target": 4}, tmp_path)
    logs = [open(r.log_path, "rb").read() for r in results]
    assert all(log == logs[0] for log in logs)
    assert results[0].driver.machine.finished and not results[0].driver.machine.aborted
    report = audit_file(results[0].log_path)
    assert report.exit_code == 0, report.violations
