"""Whole matches between seat drivers in one process, entries passed by hand:
the table protocol without the network (the network tests run real peers)."""

from __future__ import annotations

import os

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2pcards.bots import Bot
from p2pcards.games import get_game
from p2pcards.protocol.log import HEADER, Player, assemble, sign_body, table_body
from p2pcards.protocol.machine import ACTION, END
from p2pcards.protocol.driver import SeatDriver


def public_bytes(key) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def make_genesis(game_id, players, options=None, signers=None):
    signers = signers or [Ed25519PrivateKey.generate() for _ in range(players)]
    opts = get_game(game_id).options(players, options or {})
    seated = [Player(f"player{i}", public_bytes(k), os.urandom(32)) for i, k in enumerate(signers)]
    body = table_body(game_id, opts, seated, os.urandom(16), extra={})
    return assemble(body, [sign_body(body, k) for k in signers]), signers


def run_match(game_id, players, options=None, strategy="random", seed=0, max_entries=200000):
    genesis, signers = make_genesis(game_id, players, options)
    drivers = [SeatDriver(genesis, i, signers[i]) for i in range(players)]
    bots = [Bot(strategy, seed * 100 + i) for i in range(players)]
    return play_out(drivers, bots, max_entries)


def play_out(drivers, bots, max_entries=200000):
    """Every seat writes its entries in turn and every other seat takes them
    in, to the end of the match; returns the drivers."""
    game = drivers[0].game
    for _ in range(max_entries):
        machine = drivers[0].machine
        if machine.finished:
            return drivers
        want = machine.expect()
        if want.kind == END:
            body = drivers[0].end_body()
            signatures = {d.seat: d.sign_end(body) for d in drivers if d.seat in drivers[0].end_signers()}
            for d in drivers:
                d.finish(body, signatures)
            continue
        author = drivers[want.author]
        action = bots[want.author].choose(game, author.my_state()) if want.kind == ACTION else None
        entry = author.write(action)
        for d in drivers:
            if d is not author:
                d.receive(entry)
    raise AssertionError("the match did not end")


def frames(data: bytes) -> list[bytes]:
    """A log file's entries, each with its 4-byte length prefix (for cutting
    and splicing files in tests)."""
    out, i = [], len(HEADER)
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        out.append(data[i:i + 4 + n])
        i += 4 + n
    return out
