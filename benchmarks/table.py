"""A whole 4-player game between bot peers, each in its own OS process, over
loopback TCP (``p2pcards selfplay``), traced: move latency (from the moment a
player sends an action to the moment the last peer has taken it in), wall
time of the game, bytes each peer sends (its answers to ``have`` too, since
protocol 4) and the CPU all peers spend per entry of the play. Prints one
JSON object.

    PYTHONPATH=. python benchmarks/table.py [--game kanasta] [--players 4] [--deals 1]

Timestamps are CLOCK_MONOTONIC (time.monotonic_ns), shared by the processes.
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
from p2pcards import PROTOCOL_VERSION  # noqa: E402
from p2pcards.cli.selfplay import selfplay  # noqa: E402


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _dealing_wall(writes: dict, kinds: dict) -> float | None:
    shuffles = [t for seq, t in writes.items() if kinds[seq] == "shuffle"]
    moves = [t for seq, t in writes.items() if kinds[seq] == "action"]
    if not shuffles or not moves:
        return None
    return round((min(moves) - min(shuffles)) / 1e9, 3)


def _dealing_cpu(cpu_at: dict, kinds: dict) -> float | None:
    """CPU of all peers together from their start to the first move they
    wrote or took in: the dealing's work (the start before it is a few ms)."""
    moves = sorted(seq for seq, kind in kinds.items() if kind == "action")
    if not moves:
        return None
    total = 0
    for seat, marks in cpu_at.items():
        if "start" not in marks or moves[0] not in marks:
            return None
        total += marks[moves[0]] - marks["start"]
    return round(total / 1e9, 3)


def _play_cpu_per_entry(cpu_at: dict, kinds: dict) -> float | None:
    """CPU of all peers together per entry from the first move on (the
    play: writing, checking, signing and acknowledging entries; no dealing),
    in ms: what the latency of a move costs the machine."""
    moves = sorted(seq for seq, kind in kinds.items() if kind == "action")
    if not moves:
        return None
    first = moves[0]
    last = min(max(seq for seq in marks if seq != "start") for marks in cpu_at.values())
    if last <= first or any(first not in marks or last not in marks for marks in cpu_at.values()):
        return None
    total = sum(marks[last] - marks[first] for marks in cpu_at.values())
    return round(total / 1e6 / (last - first), 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="kanasta")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=1)
    args = ap.parse_args()
    trace = tempfile.mkdtemp(prefix="p2pcards-trace-")
    os.environ["P2PCARDS_TRACE"] = trace
    out = os.path.join(trace, "game.p2plog")
    start = time.monotonic()
    summary = selfplay(args.game, args.players, "bench", out,
                       options={"table.deals": args.deals,
                                "table.turn_timeout": 60})
    wall = time.monotonic() - start
    writes, takes, kinds, sent = {}, defaultdict(list), {}, {}
    cpu_at: dict = defaultdict(dict)  # seat -> {"start" or seq: process CPU ns}
    first = last = None
    for name in os.listdir(trace):
        if not name.startswith("trace-"):
            continue
        for line in open(os.path.join(trace, name)):
            t, seat, event, seq, kind, author, size, cpu = line.split()
            t = int(t)
            if event == "bytes":
                sent[int(seat)] = int(seq)
                continue
            if event == "start":
                cpu_at[seat]["start"] = int(cpu)
                continue
            cpu_at[seat].setdefault(int(seq), int(cpu))
            first = t if first is None else min(first, t)
            last = t if last is None else max(last, t)
            if event == "write":
                writes[int(seq)] = t
                kinds[int(seq)] = kind
            else:
                takes[int(seq)].append(t)
    lat = {k: [] for k in ("action", "all")}
    for seq, t in writes.items():
        if len(takes[seq]) == args.players - 1:
            ms = (max(takes[seq]) - t) / 1e6
            lat["all"].append(ms)
            if kinds[seq] == "action":
                lat["action"].append(ms)
    actions = lat["action"]
    print(json.dumps({
        "game": args.game, "players": args.players, "deals": args.deals, "protocol_version": PROTOCOL_VERSION,
        "entries": len(writes),
        "wall_s_total": round(wall, 2),
        "wall_s_first_to_last_entry": round((last - first) / 1e9, 2) if first else None,
        # The dealing: from the first shuffle written to the first move written.
        "dealing_wall_s": _dealing_wall(writes, kinds),
        # All four processes' CPU over the dealing: on c free cores the wall
        # cannot be below this / c.
        "dealing_cpu_s_all_peers": _dealing_cpu(cpu_at, kinds),
        "move_latency_ms_p50": round(statistics.median(actions), 2) if actions else None,
        "move_latency_ms_p99": round(percentile(actions, 0.99), 2) if actions else None,
        "entry_latency_ms_p50": round(statistics.median(lat["all"]), 2),
        "play_cpu_ms_per_entry_all_peers": _play_cpu_per_entry(cpu_at, kinds),
        "bytes_sent_per_peer": {str(k): v for k, v in sorted(sent.items())},
        "log_bytes": os.path.getsize(out),
        "result": summary["result"],
    }))


if __name__ == "__main__":
    main()
