"""Reading + verifying a 10,000-entry log: entries/s, serial and with threads.

    PYTHONPATH=. python benchmarks/log_verify.py [--entries N] [--players P] [--repeat R]

Ed25519 verification dominates; `cryptography` has no batch verification, but
it releases the GIL while verifying, so a thread pool scales with cores. The
parse-only figure is the ceiling once signatures are free, and about what
``trust_end=True`` reaches on a log every player attested.
"""

from __future__ import annotations

import argparse
import os
import time

from p2pcards.protocol import log as L
from p2pcards.identity import Identity


def build(entries: int, players: int) -> bytes:
    ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(players)]
    ps = [L.Player(f"p{i}", x.public_bytes, os.urandom(32)) for i, x in enumerate(ids)]
    body = L.table_body("kanasta", {}, ps, os.urandom(16))
    log = L.GameLog()
    log.append(L.assemble(body, [x.sign(body) for x in ids]))
    for i in range(entries - 2):
        seat = i % players
        # a typical move: a few cards and a per-card key or two
        payload = {"type": "discard", "cards": ["KH", "7S"], "keys": [os.urandom(32), os.urandom(32)]}
        log._accept(log.make_next(seat, "move", payload, ids[seat]))  # built by us: skip re-verifying
    end = log.end_body({"result": "finished"})
    log.append(L.assemble(end, [x.sign(end) for x in ids]))
    return log.to_bytes()


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = build(args.entries, args.players)
    n = args.entries
    print(f"{n} entries, {len(data) / 1e6:.2f} MB, {L.default_workers()} usable cores")

    frames, _ = L._split_frames(data)
    t = best(lambda: [L.Entry.from_wire(f) for f in frames], args.repeat)
    print(f"parse only (no signatures):        {n / t:10,.0f} entries/s")

    keys = [L._public_key(k, i) for i, k in enumerate(L.parse_log(data).public_keys)]
    entries = [L.Entry.from_wire(f) for f in frames]
    t = best(lambda: [L._verify_one(e, keys, i) for i, e in enumerate(entries)], args.repeat)
    print(f"signatures only, one thread:       {n / t:10,.0f} entries/s")

    def one_by_one():
        log = L.GameLog()
        for f in frames:
            log.append(f)
    t = best(one_by_one, args.repeat)
    print(f"GameLog.append one by one (live):  {n / t:10,.0f} entries/s")

    for workers in sorted({1, 2, 4, L.default_workers()}):
        t = best(lambda: L.parse_log(data, finished=True, workers=workers), args.repeat)
        print(f"parse_log, {workers} worker(s):            {n / t:10,.0f} entries/s")
    t = best(lambda: L.parse_log(data, finished=True, trust_end=True), args.repeat)
    print(f"parse_log, trust_end (agreed log): {n / t:10,.0f} entries/s")


if __name__ == "__main__":
    main()
