"""Whole matches between real peers over loopback TCP: every peer checks
every entry, and all end with byte-identical, auditable logs."""

import pytest

from p2pcards.audit import audit_file
from tests.helpers import play_network_match

CASES = [
    ("bura", 2, {"rounds": 1}),
    ("bura", 4, {"rounds": 1}),
    ("warkocz", 2, {"target": 4}),
    ("warkocz", 4, {"target": 4}),
    ("kanasta", 4, {"table.deals": 1}),
    ("kanaszta", 3, {"table.deals": 1}),
]


@pytest.mark.parametrize("game,players,options", CASES)
async def test_match_between_real_peers(game, players, options, tmp_path):
    results = await play_network_match(game, players, options, tmp_path)
    logs = [open(r.log_path, "rb").read() for r in results]
    assert all(log == logs[0] for log in logs), "peers' logs differ"
    machine = results[0].driver.machine
    assert machine.finished and not machine.aborted
    report = audit_file(results[0].log_path)
    assert report.exit_code == 0, report.violations
    assert report.deals >= 1


async def test_chat_reaches_everybody_once_and_is_kept_in_the_log(tmp_path):
    import trio
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2pcards.peer.seating import SeatConfig, run_seat

    peers, results = {}, {}
    port_ready, port = trio.Event(), []

    def on_port(p):
        port.append(p)
        port_ready.set()

    async def seat(i):
        config = SeatConfig(name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind="127.0.0.1",
                            log_dir=str(tmp_path / f"l{i}"), strategy="random", bot_seed=i)
        if i == 0:
            config.game, config.players, config.on_port = "warkocz", 2, on_port
            config.options = {"target": 2, "table.turn_timeout": 10}
        else:
            await port_ready.wait()
            config.join = ("127.0.0.1", port[0])

        def on_driver(peer):
            peers[i] = peer
            if i == 1:
                peer.chat_out.append("dzień dobry")  # said before its first entry

        results[i] = await run_seat(config, on_driver=on_driver)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(2):
                nursery.start_soon(seat, i)
    log = results[0].driver.log
    said = [e for e in log if isinstance(e.payload, dict) and e.payload.get("chat")]
    assert len(said) == 1 and said[0].author == 1 and said[0].payload["chat"] == ["dzień dobry"]
    assert peers[0].chat_seen.count((1, "dzień dobry")) == 1
