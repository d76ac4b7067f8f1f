"""The magic-wormhole servers for the internet-table tests: the real Mailbox
server and Transit Relay, started as processes (the ``server`` extra), on
loopback or inside a lab namespace. Nothing here reaches a public server."""

from __future__ import annotations

from p2pcards.cli.server import installed, start_servers

LOCAL = "127.0.0.1"


def servers_missing() -> str | None:
    return installed()


def local_servers(state_dir: str):
    return start_servers(interface=LOCAL, state_dir=state_dir)
