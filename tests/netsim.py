"""Real peers over loopback TCP in one trio run: each seat runs the same
``run_seat`` a player's process runs (lobby, mesh, signed entry 0, TablePeer)."""

from __future__ import annotations

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.peer.seating import SeatConfig, run_seat
from p2pcards.testing import seat_hooks


async def play_network_match(game, players, options=None, tmp_path=None, strategy="random", cheat=None,
                             cheater=None, seed=0, turn_timeout=5, fail_after=300):
    options = dict(options or {})
    options.setdefault("table.turn_timeout", turn_timeout)
    options.setdefault("table.rejoin_timeout", turn_timeout)
    results = {}
    port_ready = trio.Event()
    port = []

    def on_port(p):
        port.append(p)
        port_ready.set()

    async def seat(i):
        config = SeatConfig(
            name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind="127.0.0.1", port=0,
            log_dir=str(tmp_path / f"logs{i}"), strategy=strategy, bot_seed=f"{seed}:{i}",
            hooks=seat_hooks(cheat, cheater),
        )
        if i == 0:
            config.game, config.players, config.options, config.on_port = game, players, options, on_port
        else:
            await port_ready.wait()
            await trio.sleep(0.05 * i)  # join in seat order
            config.join = ("127.0.0.1", port[0])
        results[i] = await run_seat(config)

    with trio.fail_after(fail_after):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    return [results[i] for i in range(players)]
