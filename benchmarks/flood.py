"""A seat flooding the table with signed entries for places ahead (issue 23,
item 5), three bot peers over loopback in one process. Prints one JSON
object per run.

    PYTHONPATH=. python benchmarks/flood.py [--entries N] [--chunk C] [--turn-timeout S]

Each run plays one bura deal (3 players) with seat 1 sending N entries
(default 20,000), C of them (default: all at once) each time another seat is
to play: ``flood-ahead`` builds them on the log's last entry (misplaced: the
flooder is convicted at the first), ``flood-ahead-unbound`` on nothing the
log holds (no proof: dropped within the ahead bounds). Reported: the match's
wall time, each seat's verdict and audit exit code, and the process's peak
RSS (all three peers).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import trio  # noqa: E402

from p2pcards.audit import audit_file  # noqa: E402
from p2pcards.testing import cheats  # noqa: E402
from tests.helpers import play_network_match  # noqa: E402


async def run(kind: str, turn_timeout: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="p2pcards-flood-"))
    start = time.monotonic()
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp, cheat=kind, cheater=1,
                                       turn_timeout=turn_timeout, fail_after=3600)
    wall = time.monotonic() - start
    return {"cheat": kind, "wall_s": round(wall, 2),
            "verdicts": {r.seat: [(v.seat, v.kind) for _, v in r.driver.machine.aborts] for r in results},
            "audit_exit": {r.seat: audit_file(r.log_path).exit_code for r in results},
            "entries": len(results[0].driver.log),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=0, help="entries sent each idle turn (0: all at once)")
    parser.add_argument("--turn-timeout", type=int, default=120)
    args = parser.parse_args()
    cheats.FLOOD_AHEAD = args.entries
    cheats.FLOOD_CHUNK = args.chunk or args.entries
    for kind in ("flood-ahead", "flood-ahead-unbound"):
        print(json.dumps(trio.run(run, kind, args.turn_timeout)))


if __name__ == "__main__":
    main()
