"""A seated player that stops reading and floods ``have``: how much memory it
costs the player it floods (issue 23, item 4; target: at most 64 MB more).

A bot host (``p2pcards host bura --players 2 --bot greedy``, its own process)
and an intruder seated at its table (this process: a real lobby, mesh and
signed entry 0). The intruder first makes the host's log as costly to send
as it can: its entry at place 2 is an abort naming nobody, carrying one
signed entry of about 1 MB as evidence (what the red team did; where the
table refuses it, the log stays small and the figure says so). Then it stops
reading (its mesh's inbox fills and its socket is read no further) and sends
``{"t": "have", "next": 1}`` as fast as TCP takes it, for ``--seconds``,
redialling whenever the host drops the connection. The host's RSS is read
from /proc (VmHWM: the kernel's high-water mark, so no peak is missed).

    PYTHONPATH=. python benchmarks/have_flood.py [--seconds 60]

The host runs the code of the current directory (``python -m p2pcards``):
to measure another checkout's host, run this file from that checkout
(``cd OTHER && PYTHONPATH=. python /path/to/benchmarks/have_flood.py``; the
intruder stays this file's checkout). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from p2pcards.limits import MAX_ENTRY  # noqa: E402
from p2pcards.net import Message  # noqa: E402
from p2pcards.protocol.log import make_entry  # noqa: E402
from tests.test_reliability import bot_host, seated_intruder  # noqa: E402

EVIDENCE = MAX_ENTRY - 8 * 1024  # bytes of padding in the one evidence entry


def memory_mb(pid: int) -> dict[str, float]:
    """The process's resident memory now (VmRSS) and at its highest so far
    (VmHWM, kept by the kernel: no peak is missed between two readings)."""
    found = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                found[line.split(":")[0]] = int(line.split()[1]) / 1024
    return found


async def answer_bytes(me, seconds: float = 3.0) -> int:
    """What one ``have next=1`` brings back while we still read."""
    await me.send_paced({"t": "have", "next": 1})
    got = 0
    with trio.move_on_after(seconds):
        while True:
            event = me.backlog.pop(0) if me.backlog else await me.mesh.receive()
            if isinstance(event, Message) and isinstance(event.msg, dict) and event.msg.get("t") == "entry":
                got += len(event.msg["raw"])
    return got


async def flood(seconds: float, tmp: Path) -> dict:
    async with bot_host(tmp, options=("table.turn_timeout=600", "table.rejoin_timeout=600")) as host:
        async with seated_intruder(host.port) as me:
            first = await me.next_entry()  # the host's shuffle, entry 1; entry 2 is ours
            padding = make_entry(1, os.urandom(32), me.seat, "action", {"junk": b"j" * EVIDENCE}, me.key)
            abort = make_entry(2, first.hash, me.seat, "abort",
                               {"culprit": None, "kind": "no-card", "detail": "see the evidence",
                                "evidence": [padding.raw]}, me.key)
            await me.send_paced({"t": "entry", "raw": abort.raw})
            await trio.sleep(2)
            per_answer = await answer_bytes(me)
            await trio.sleep(1)
            baseline = memory_mb(host.pid)
            haves, cuts = 0, 0
            end = trio.current_time() + seconds
            # From here on nothing reads our mesh: its inbox fills, then our socket.
            while trio.current_time() < end:
                channel = me.mesh.peers[0].channel
                if channel is None:
                    await trio.sleep(0.05)  # dropped by the host: our mesh redials
                    continue
                try:
                    with trio.move_on_at(end):
                        while True:
                            await channel.send({"t": "app", "m": {"t": "have", "next": 1}})
                            haves += 1
                except Exception:  # the host dropped us
                    cuts += 1
                    await trio.sleep(0.05)
            await trio.sleep(1)
            after = memory_mb(host.pid)
            alive = host.proc.returncode is None
        host.proc.kill()
    return {
        "flood_s": seconds, "log_answer_bytes": per_answer, "haves_sent": haves, "connections_lost": cuts,
        "host_rss_mb": {"before": round(baseline["VmRSS"], 1), "peak_before": round(baseline["VmHWM"], 1),
                        "peak": round(after["VmHWM"], 1), "after": round(after["VmRSS"], 1)},
        "rise_mb": round(after["VmHWM"] - baseline["VmRSS"], 1), "host_alive": alive,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        result = trio.run(flood, args.seconds, Path(tmp))
        result["wall_s"] = round(time.monotonic() - started, 1)
        result["load"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
