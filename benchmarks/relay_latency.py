"""What the transit relay adds to a move: the broadcast latency of
``net_latency.py`` (seat 0 broadcasts a signed message, every peer verifies
it and acknowledges; latency is until the last acknowledgement is back, one
message at a time), once with the seats connected directly on loopback and
once with every connection through a real magic-wormhole Transit Relay
process on loopback (relayed connections sealed as in an internet table).
All peers run in this process; the relay in its own. Prints one JSON object.

    PYTHONPATH=. python benchmarks/relay_latency.py [--peers 3] [--messages 500]

Needs the server extra (pip install 'p2pcards[server]').
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from net_latency import LOCAL, broadcaster, inproc, receiver  # noqa: E402
from p2pcards.cli.server import start_servers  # noqa: E402
from p2pcards.net import open_endpoint, open_mesh  # noqa: E402
from p2pcards.net.lobby import host_table, join_table  # noqa: E402
from p2pcards.net.relay import RelayRoute, parse_relay, use_relay  # noqa: E402


async def relayed(peers: int, messages: int, relay: str) -> dict:
    keys = [Ed25519PrivateKey.generate() for _ in range(peers)]
    raw = [k.public_key().public_bytes_raw() for k in keys]
    route = RelayRoute(parse_relay(relay), secrets.token_bytes(32))
    result: dict = {}

    async def seat(i: int) -> None:
        async with open_endpoint(keys[i], f"bench{i}", bind=LOCAL) as ep:
            transport = use_relay(ep, route)
            if i == 0:
                for key in raw[1:]:
                    transport.accept_from(key)
                table = await host_table(ep, "bura", peers)
            else:
                table = await join_table(ep, "relay", 0, expect_key=raw[0])
            me = table.seat_of(raw[i])
            for s in table.seats[me + 1:]:
                transport.accept_from(s.key)
            async with open_mesh(ep, table, me, ready_timeout=60) as mesh:
                if me == 0:
                    result.update(await broadcaster(mesh, keys[i], peers, messages))
                else:
                    await receiver(mesh, table.seats[0].key, messages)

    async with trio.open_nursery() as nursery:
        for i in range(peers):
            nursery.start_soon(seat, i)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, default=3)
    parser.add_argument("--messages", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        servers = start_servers(interface=LOCAL, state_dir=state)
        try:
            through = trio.run(relayed, args.peers, args.messages, servers.relay_address(LOCAL))
        finally:
            servers.stop()
    direct = trio.run(inproc, args.peers, args.messages)
    print(json.dumps({"direct": direct, "relay": through,
                      "added_p50_ms": round(through["p50_ms"] - direct["p50_ms"], 4),
                      "added_p99_ms": round(through["p99_ms"] - direct["p99_ms"], 4)}))


if __name__ == "__main__":
    main()
