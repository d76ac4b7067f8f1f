"""Move latency across the internet: the NAT lab of ``tests/test_internet_nat.py``
(three homes behind masquerading routers, the real magic-wormhole Mailbox
server and Transit Relay in a public namespace), a bura match between three
bot processes joined by invite codes, every pair of seats through the relay.

Conditions, one match each: clean links; every home's link at
``--delay-ms`` ± ``--jitter-ms`` each way with ``--loss`` each way (``tc
netem`` if the kernel has it, else the user-space netem of tests/netns.py),
so from home to home through the relay twice that; and clean links with the
relay cutting homes 2 and 3 apart at ``--cut-at`` (tests/cutting_relay.py),
so that every message between those two seats goes round through the host.
Move latency as in ``benchmarks/netns_latency.py``: from the author's write
to the last other seat's take (``P2PCARDS_TRACE``; one monotonic clock for
every namespace).

    sudo PYTHONPATH=. python benchmarks/internet_latency.py [--deals 3]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.netns_latency import latencies, read_traces  # noqa: E402
from tests import netns  # noqa: E402
from tests import test_internet_nat as nat  # noqa: E402


def run_match(options: dict, impair: tuple | None, cut_at: int | None, timeout: float) -> dict:
    work = tempfile.mkdtemp(prefix="p2pcards-internet-")
    with nat.nat_lab(os.path.join(work, "servers")) as lab:
        how = lab.impair(*impair) if impair else None
        cutter = nat.Cutter(lab) if cut_at is not None else None
        start = time.monotonic()
        peers = nat._start(lab, work, "bura", options, relay=cutter and cutter.address)
        if cutter is not None:
            nat._wait_entry(work, peers, cut_at)
            cutter.say("CUT 10.88.2.2 10.88.3.2")
        codes = netns.wait_all(peers, timeout)
        wall = time.monotonic() - start
        results = {n: p.result() for n, p in peers.items()}
    logs = [open(r["log"], "rb").read() for r in results.values() if r]
    rows = read_traces(work, nat.HOMES)
    return {"impairment": how and {"delay_ms": impair[0], "jitter_ms": impair[1], "loss": impair[2], "how": how},
            "cut_at": cut_at, "exit_codes": codes, "wall_s": round(wall, 2),
            "entries": max((r[3] for r in rows), default=0),
            "logs_identical": len(logs) == 3 and all(x == logs[0] for x in logs),
            "audit_exit": netns.audit(results["h1"]["log"])[0] if results.get("h1") else None,
            "latency_ms": latencies(rows, 3, None)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--delay-ms", type=float, default=100)
    ap.add_argument("--jitter-ms", type=float, default=50)
    ap.add_argument("--loss", type=float, default=0.05)
    ap.add_argument("--cut-at", type=int, default=15)
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    reason = nat._skip_reason()
    if reason:
        print(json.dumps({"skipped": reason}))
        sys.exit(2)
    options = {"table.deals": args.deals, "table.turn_timeout": 60, "table.rejoin_timeout": 120}
    out = {"game": "bura", "players": 3, "options": options, "netem": netns.netem_available(),
           "clean": run_match(options, None, None, args.timeout),
           "impaired": run_match(options, (args.delay_ms, args.jitter_ms, args.loss), None, args.timeout),
           "pair_cut": run_match(options, None, args.cut_at, args.timeout)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
