"""Shared machinery of the hostile-input fuzzing (tests/test_fuzz_*.py and
fuzz/*.py): genuine signed logs of real matches, and mutators of entries.

A *genuine* log comes from whole matches between seat drivers (the table
protocol without the network, as in ``tests.helpers``), keeping every seat's
signing key and deal seeds so a mutated entry can be re-signed by the right
key, the wrong key, or not at all.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import pickle
import random
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.bots import Bot
from p2pcards.games import get_game
from p2pcards.protocol.log import Entry, LogError, Player, assemble, sign_body, table_body
from p2pcards.protocol.machine import ABORT, Violation
from p2pcards.protocol.driver import SeatDriver
from tests.helpers import play_out, public_bytes

# (game, players, options, extra): small matches, every kind of entry.
MATCHES = {
    "bura2": ("bura", 2, {"rounds": 1}, {}),
    "bura3": ("bura", 3, {"rounds": 1}, {}),
    "warkocz3": ("warkocz", 3, {"target": 3}, {}),
    "kanasta2": ("kanasta", 2, {}, {"deals": 1}),
    "kanaszta2": ("kanaszta", 2, {}, {"deals": 1}),
}


@dataclasses.dataclass
class Match:
    name: str
    game: str
    players: int
    entries: list[Entry]
    signers: list[Ed25519PrivateKey]
    seeds: list[dict[int, bytes]]
    codes: list[list[str] | None]  # per deal: every position's true card (after the final reveal)

    @property
    def genesis(self) -> Entry:
        return self.entries[0]

    def raw_file(self) -> bytes:
        from p2pcards.protocol.log import HEADER
        return HEADER + b"".join(len(e.raw).to_bytes(4, "big") + e.raw for e in self.entries)


def make_genesis(game_id, players, options, extra, rng: random.Random):
    signers = [Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)) for _ in range(players)]
    opts = get_game(game_id).options(players, options or {})
    seated = [Player(f"player{i}", public_bytes(k), rng.randbytes(32)) for i, k in enumerate(signers)]
    body = table_body(game_id, opts, seated, rng.randbytes(16), extra=dict(extra))
    return assemble(body, [sign_body(body, k) for k in signers]), signers


def play(name: str, seed: int = 0, max_entries: int = 20000) -> Match:
    """A whole match between seat drivers (as tests.helpers.run_match, with ``extra``)."""
    game_id, players, options, extra = MATCHES[name]
    rng = random.Random(f"{name}/{seed}")
    genesis, signers = make_genesis(game_id, players, options, extra, rng)
    seeds = [{d: rng.randbytes(32) for d in range(64)} for _ in range(players)]
    drivers = [SeatDriver(genesis, i, signers[i], seeds=seeds[i]) for i in range(players)]
    bots = [Bot("random", seed * 100 + i) for i in range(players)]
    play_out(drivers, bots, max_entries)
    m = drivers[0].machine
    return Match(name, game_id, players, list(drivers[0].log.entries), signers,
                 [dict(d.me.seeds) for d in drivers], [d.codes for d in m.deals])


@functools.cache
def match(name: str, seed: int = 0) -> Match:
    return play(name, seed)


# ------------------------------------------------------------------ entries


def raw_entry(seq, prev_hash, author, kind, payload, signer, *, body: bytes | None = None) -> bytes:
    """The wire bytes of an entry; no check at all (hostile peers don't check)."""
    if body is None:
        body = msgpack.packb([seq, prev_hash, author, kind, payload], use_bin_type=True)
    sig = signer.sign(body) if signer is not None else bytes(64)
    return msgpack.packb([body, sig], use_bin_type=True)


def fields(entry: Entry) -> list:
    return [entry.seq, entry.prev_hash, entry.author, entry.kind, copy.deepcopy(entry.payload)]


# ------------------------------------------------------------------ state fingerprints


def fingerprint(driver: SeatDriver) -> tuple:
    """Everything a refused entry must leave as it was."""
    m = driver.machine
    want = None if m.finished else m.expect()
    me = None if driver.me is None else pickle.dumps(driver.me.__dict__)
    return (len(driver.log), driver.log.head_hash, m.seq, m.head_hash, want, pickle.dumps(m.__dict__), me)


class Snapshot:
    """A driver's log, machine and seat knowledge, to restore after an accepted probe."""

    def __init__(self, driver: SeatDriver):
        self.entries = list(driver.log._entries)
        self.verified = (set(driver.log._verified), driver.log._verified_bytes)
        self.machine = copy.deepcopy(driver.machine)
        self.me = copy.deepcopy(driver.me)

    def restore(self, driver: SeatDriver) -> None:
        driver.log._entries = list(self.entries)
        driver.log._verified, driver.log._verified_bytes = set(self.verified[0]), self.verified[1]
        driver.walk.machine = copy.deepcopy(self.machine)
        driver.me = copy.deepcopy(self.me)


# ------------------------------------------------------------------ payload mutation

CODES_SAMPLE = ["AS", "KH", "QD", "JC", "TS", "9H", "2C", "3H", "3D", "JK", "7S", "8D", "XX", "?3", "?0", "?999", ""]
TYPES_SAMPLE = ["draw", "take_pile", "meld", "add", "swap", "red3", "discard", "play", "pass", "lead", "beat",
                "throw", "declare", "bessa", "abort", ""]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys/indices) into a payload, containers included."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:40]):
            out += paths(v, prefix + (i,))
    return out


def get_path(value, path):
    for p in path:
        value = value[p]
    return value


def set_path(value, path, new):
    if not path:
        return new
    parent = get_path(value, path[:-1])
    parent[path[-1]] = new
    return value


def junk(rng: random.Random, old: Any, pool: list) -> Any:
    """A value to put where ``old`` was: near it, of another type, or from elsewhere."""
    r = rng.random()
    if r < 0.15 and pool:
        return copy.deepcopy(rng.choice(pool))
    if isinstance(old, bool):
        return rng.choice([not old, int(old), None])
    if isinstance(old, int):
        return rng.choice([old + 1, old - 1, -old - 1, 0, -1, 2**63, -(2**63), 2**64 - 1, rng.randrange(120),
                           True, False, float(old), str(old), None, [old]])
    if isinstance(old, bytes):
        if old and r < 0.6:
            b = bytearray(old)
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
            return bytes(b)
        return rng.choice([old[:-1], old + b"\x00", bytes(len(old)), b"\xff" * len(old), rng.randbytes(len(old)),
                           b"", old.hex(), None, list(old[:4])])
    if isinstance(old, str):
        return rng.choice(CODES_SAMPLE + TYPES_SAMPLE + [old + "x", old.lower(), old * 2, "a" * 301, None, 0,
                                                         old.encode()])
    if isinstance(old, list):
        lst = copy.deepcopy(old)
        op = rng.randrange(7)
        if op == 0 and lst:
            lst.pop(rng.randrange(len(lst)))
        elif op == 1 and lst:
            lst.insert(rng.randrange(len(lst) + 1), copy.deepcopy(rng.choice(lst)))
        elif op == 2 and len(lst) > 1:
            i, j = rng.sample(range(len(lst)), 2)
            lst[i], lst[j] = lst[j], lst[i]
        elif op == 3:
            lst = []
        elif op == 4:
            lst = lst[::-1]
        elif op == 5:
            return {str(i): v for i, v in enumerate(lst)}
        else:
            lst.append(rng.choice([None, 0, "?0", b"\x00" * 32, [0, b"\x01" * 32]]))
        return lst
    if isinstance(old, dict):
        d = copy.deepcopy(old)
        op = rng.randrange(4)
        if op == 0 and d:
            d.pop(rng.choice(list(d)))
        elif op == 1:
            d[rng.choice(["x", "type", "cards", "as", "meld", "freeze", "deal", "chat", "keys", "positions"])] = \
                rng.choice([None, 1, "x", [], {}, True, "?0"])
        elif op == 2:
            return list(d.values())
        else:
            return dict(reversed(list(d.items())))  # same value, other byte encoding
        return d
    if old is None:
        return rng.choice([0, "", [], {}, False, b"", "?0", "AS"])
    return None


def mutate_payload(rng: random.Random, payload: Any, pool: list) -> tuple[Any, tuple]:
    """(a changed copy of the payload, the path changed)."""
    p = copy.deepcopy(payload)
    path = rng.choice(paths(p))
    new = junk(rng, get_path(p, path), pool)
    return set_path(p, path, new), path


def value_pool(entries: list[Entry], rng: random.Random, size: int = 60) -> list:
    """Leaves and subtrees of real payloads, to graft elsewhere."""
    pool = []
    for e in rng.sample(entries[1:-1], min(len(entries) - 2, 30)):
        for path in rng.sample(paths(e.payload), min(4, len(paths(e.payload)))):
            v = get_path(e.payload, path)
            if len(msgpack.packb(v, use_bin_type=True)) < 4096:
                pool.append(v)
    return pool[:size]


def valid_chat(chat: Any) -> bool:
    return chat is None or (isinstance(chat, list) and len(chat) <= 4
                            and all(isinstance(t, str) and 0 < len(t) <= 300 for t in chat))


REFUSALS = (LogError, Violation)
__all__ = ["ABORT", "REFUSALS", "os"]
