"""What coming back to a game costs (``SeatDriver.reopen``), with and without
a checkpoint. Prints one JSON object.

    PYTHONPATH=. python benchmarks/resume.py [FILE] [--at N ...] [--behind B] [--seat S]

FILE defaults to ``replays/kanasta-4p.p2plog`` (a whole 4-player kanasta
match). For each N (default 2,583 and the whole match but its end), the log
is cut after N entries, as a crash would leave it, and seat S (default 0)
reopens it:

- ``signatures_s``: reading the file with every signature and the hash chain
  checked (``read_log``): the floor of any resume;
- ``full_replay_s``: the whole log replayed through a fresh machine (before);
- ``checkpoint_s``: from a checkpoint made B entries (default 32, half the
  interval a live peer keeps, ``peer.CHECKPOINT_EVERY``) before the cut;
- ``checkpoint_bytes``, ``checkpoint_make_s``: its size and the time to make it.

The seat's deal seeds are taken from the reveals of the whole match (a real
seat has them in its state file); the checkpoint's MAC key is a fresh one.
CPU time of the process, best of ``--repeat`` (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from p2pcards.protocol import checkpoint  # noqa: E402
from p2pcards.protocol.driver import SeatDriver  # noqa: E402
from p2pcards.protocol.log import HEADER, read_log  # noqa: E402


def _best(repeat: int, run) -> float:
    """CPU seconds of this process (all its threads), best of ``repeat``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return round(best, 3)


def measure(entries, at: int, behind: int, seat: int, seeds: dict, repeat: int) -> dict:
    signer = Ed25519PrivateKey.generate()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cut.p2plog")
        with open(path, "wb") as f:
            f.write(HEADER + b"".join(len(e.raw).to_bytes(4, "big") + e.raw for e in entries[:at]))
        # The checkpoint as a live seat would have left it, ``behind`` entries before the crash.
        maker = SeatDriver(entries[0], seat, signer, seeds=seeds)
        maker.pipelining = False
        maker.machine.verified_before = at
        for entry in entries[1:at - behind]:
            maker.receive(entry)
        start = time.process_time()
        blob = checkpoint.make(maker.machine, maker.me, signer)
        made = time.process_time() - start

        def reopen(data=None) -> None:
            SeatDriver.reopen(path, seat, signer, seeds, checkpoint=data).close()

        return {"entries": at, "checkpoint_at": at - behind, "signatures_s": _best(repeat, lambda: read_log(path)),
                "full_replay_s": _best(repeat, reopen), "checkpoint_s": _best(repeat, lambda: reopen(blob)),
                "checkpoint_bytes": len(blob), "checkpoint_make_s": round(made, 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?", default="replays/kanasta-4p.p2plog")
    parser.add_argument("--at", type=int, action="append")
    parser.add_argument("--behind", type=int, default=32)
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    entries = list(read_log(args.file).entries)
    seeds = {e.payload["deal"]: e.payload["seed"] for e in entries
             if e.kind == "reveal" and e.author == args.seat}
    points = args.at or [2583, len(entries) - 1]
    print(json.dumps({"file": args.file, "seat": args.seat,
                      "runs": [measure(entries, n, args.behind, args.seat, seeds, args.repeat) for n in points]},
                     indent=1))


if __name__ == "__main__":
    main()
