"""Separate hosts: move latency over a slow, lossy link, and how fast a
crashed peer gets the game moving again. Needs root and ``ip netns``
(``tests/netns.py`` builds the lab: peers A, B, C in their own network
namespaces, a star through a router namespace).

1. **Latency.** A bura match between three bot processes (A hosts, B and C
   join), first with clean links (baseline), then with C's link at
   ``--delay-ms`` (default 50) each way and ``--loss`` (default 5 %) each way
   (``tc netem`` if the kernel has it, else the user-space netem of
   ``tests/netns.py``). Move latency, as in ``benchmarks/table.py``: from the
   moment the author sends an entry to the moment the last other peer has
   taken it in (``P2PCARDS_TRACE`` lines; CLOCK_MONOTONIC is one clock for
   every namespace of the machine), split by whether the impaired peer is
   the author.
2. **Restart.** The same impaired table; C (``--crash-peer``) is SIGKILLed (selfplay's fault
   injection, ``P2PCARDS_CRASH=SEAT:ENTRY``) and started again at once with
   ``p2pcards resume STATEFILE``. Measured from that restart: C's first
   entry taken or written, and the first entry anybody writes (the game
   moving again). The match must then finish with identical logs and a
   clean audit.

    sudo PYTHONPATH=. python benchmarks/netns_latency.py [--rounds 1] [--crashes 20,40]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import netns  # noqa: E402


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else None


def read_traces(work: str, peers=netns.PEERS) -> list[tuple[int, int, str, int, str, int]]:
    rows = []
    for peer in peers:
        d = os.path.join(work, peer, "trace")
        for name in os.listdir(d) if os.path.isdir(d) else []:
            for line in open(os.path.join(d, name)):
                t, seat, event, seq, kind, author, size, _cpu = line.split()
                if event in ("write", "take"):
                    rows.append((int(t), int(seat), event, int(seq), kind, int(author)))
    return rows


def latencies(rows, players: int, slow_seat: int | None) -> dict:
    writes, takes, kinds, authors = {}, defaultdict(list), {}, {}
    for t, seat, event, seq, kind, author in rows:
        if event == "write":
            writes[seq] = min(t, writes.get(seq, t))
            kinds[seq], authors[seq] = kind, author
        else:
            takes[seq].append(t)
    groups = defaultdict(list)
    for seq, t in writes.items():
        if len(takes[seq]) >= players - 1:
            ms = (max(takes[seq]) - t) / 1e6
            groups["all"].append(ms)
            if kinds[seq] == "action":
                groups["action"].append(ms)
                if slow_seat is not None:
                    groups["action_by_slow" if authors[seq] == slow_seat else "action_by_others"].append(ms)

    def summary(values):
        if not values:
            return None
        return {"n": len(values), "p50": round(statistics.median(values), 1),
                "p90": round(percentile(values, 0.9), 1), "p99": round(percentile(values, 0.99), 1),
                "max": round(max(values), 1)}

    return {k: summary(v) for k, v in sorted(groups.items())}


def seat_of_trace(work: str, peer: str) -> int | None:
    path = netns.trace_file(work, peer)
    return int(os.path.basename(path)[len("trace-"):-len(".txt")]) if path else None


def run_match(options: dict, impair: tuple | None, timeout: float) -> dict:
    work = tempfile.mkdtemp(prefix="p2pcards-netns-")
    with netns.Lab() as lab:
        how = lab.impair("C", *impair) if impair else None
        start = time.monotonic()
        peers = netns.start_match(lab, work, "bura", options, trace=True)
        codes = netns.wait_all(peers, timeout)
        wall = time.monotonic() - start
        results = {n: p.result() for n, p in peers.items()}
    logs = [open(r["log"], "rb").read() for r in results.values() if r]
    rows = read_traces(work)
    out = {"impairment": how, "exit_codes": codes, "wall_s": round(wall, 2),
           "entries": max((r[3] for r in rows), default=0),
           "logs_identical": len(logs) == 3 and all(x == logs[0] for x in logs),
           "audit_exit": netns.audit(results["A"]["log"])[0] if results.get("A") else None,
           "latency_ms": latencies(rows, 3, seat_of_trace(work, "C") if impair else None)}
    return out


def run_crash(options: dict, impair: tuple, entry: int, timeout: float, victim: str = "C") -> dict:
    work = tempfile.mkdtemp(prefix="p2pcards-netns-crash-")
    env = dict(os.environ)
    env["P2PCARDS_CRASH"] = f"{netns.PEERS.index(victim)}:{entry}"  # seats: A 0, B 1, C 2 (join order)
    with netns.Lab() as lab:
        lab.impair("C", *impair)
        peers = netns.start_match(lab, work, "bura", options, env=env, trace=True)
        deadline = time.monotonic() + timeout
        c = peers[victim]
        while c.proc.poll() is None and time.monotonic() < deadline:
            if any(p.proc.poll() is not None for p in peers.values()):
                break
            time.sleep(0.01)
        if c.proc.poll() != -9:
            return {"error": f"{victim} did not crash (exit {c.proc.poll()}): {c.stderr_tail(800)}"}
        if c.wait_value("STATE ", 5) is None:
            return {"error": f"{victim} crashed before it had a state file"}
        crashed_ns = time.monotonic_ns()
        c.reader.join(timeout=5)
        state = c.value("STATE ")
        before = max((r[3] for r in read_traces(work)), default=0)
        renv = dict(os.environ)
        renv.pop("P2PCARDS_CRASH", None)
        renv["P2PCARDS_TRACE"] = os.path.join(work, victim, "trace")
        renv["P2PCARDS_LOG"] = "info"
        restart_ns = time.monotonic_ns()
        resumed = netns.Peer(lab, victim, ["resume", state], work, renv)
        peers[victim] = resumed
        codes = netns.wait_all(peers, max(10, deadline - time.monotonic()))
        results = {n: p.result() for n, p in peers.items()}
    rows = read_traces(work)
    seat_c = seat_of_trace(work, victim)
    after = [r for r in rows if r[0] > restart_ns]
    first_c = min((r[0] for r in after if r[1] == seat_c), default=None)
    first_write = min((r[0] for r in after if r[2] == "write"), default=None)
    first_new = min((r[0] for r in after if r[2] == "write" and r[3] > before), default=None)
    logs = [open(r["log"], "rb").read() for r in results.values() if r and "log" in r]
    ms = lambda t: round((t - restart_ns) / 1e6, 1) if t else None  # noqa: E731
    return {"crashed": victim, "crash_at_entry": entry, "log_entries_at_crash": before, "exit_codes": codes,
            "restart_after_crash_ms": round((restart_ns - crashed_ns) / 1e6, 1),
            "restart_to_first_entry_at_resumed_peer_ms": ms(first_c),
            "restart_to_first_write_by_anyone_ms": ms(first_write),
            "restart_to_first_new_entry_ms": ms(first_new),
            "logs_identical": len(logs) == 3 and all(x == logs[0] for x in logs),
            "aborted": results["A"]["result"]["aborted"] if results.get("A") else None,
            "audit_exit": netns.audit(results["A"]["log"])[0] if results.get("A") else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--delay-ms", type=float, default=50)
    ap.add_argument("--loss", type=float, default=0.05)
    ap.add_argument("--crashes", default="20,40", help="entries at which the victim crashes, one match each ('' none)")
    ap.add_argument("--crash-peer", default="C", choices=netns.PEERS, help="who crashes (C: the impaired one)")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    reason = netns.usable()
    if reason:
        print(json.dumps({"skipped": reason}))
        sys.exit(2)
    options = {"rounds": args.rounds,
               "table.turn_timeout": 60, "table.rejoin_timeout": 60}
    impair = (args.delay_ms, args.loss)
    out = {"game": "bura", "players": 3, "options": options, "netem": netns.netem_available()}
    if not args.no_baseline:
        out["baseline"] = run_match(options, None, args.timeout)
    out["impaired"] = run_match(options, impair, args.timeout)
    out["crash_restart"] = [run_crash(options, impair, int(e), args.timeout, args.crash_peer)
                            for e in args.crashes.split(",") if e.strip()]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
