"""A seated player that stops reading and floods ``have``: how much memory it
costs the player it floods (issue 23, item 4; target: at most 64 MB more).

A bot host (``p2pcards host bura --players 2 --bot greedy``, its own process)
and an intruder seated at its table (this process: a real lobby, mesh and
signed entry 0). The intruder first makes the host's log as costly to send
as it can: its entry at place 2 is an abort naming nobody, carrying one
signed entry of about 1 MB as evidence (what the red team did; where the
table refuses it, the log stays small and the figure says so). Then it stops
reading (its mesh's inbox fills and its socket is read no further) and sends
``{"t": "have", "next": 1}`` as fast as TCP takes it, for ``--seconds``;
whenever the host drops the connection, it reads what is left, redials and
floods again. The host's RSS is read
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
from p2pcards.net import Message, PeerDown  # noqa: E402
from tests.test_reliability import bot_host, have_flood, make_the_log_costly, rss_mb, seated_intruder  # noqa: E402


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
            await make_the_log_costly(me)
            await trio.sleep(2)
            per_answer = await answer_bytes(me)
            before = rss_mb(host.pid)
            haves, connections = 0, set()
            end = trio.current_time() + seconds
            while trio.current_time() < end:
                peer = me.mesh.peers[0]
                if peer.channel is None or peer.epoch in connections:
                    await trio.sleep(0.05)  # dropped by the host: our mesh redials
                    continue
                connections.add(peer.epoch)
                haves += await have_flood(me, end)
                with trio.move_on_at(end):  # dropped: read what is left, so our mesh sees it and redials
                    while not isinstance(await me.mesh.receive(), PeerDown):
                        pass
            peak, after = rss_mb(host.pid, "VmHWM"), rss_mb(host.pid)
            alive = host.proc.returncode is None
        host.proc.kill()
    return {
        "flood_s": seconds, "log_answer_bytes": per_answer, "haves_sent": haves, "connections": len(connections),
        "host_rss_mb": {"before": round(before, 1), "peak": round(peak, 1), "after": round(after, 1)},
        "rise_mb": round(peak - before, 1), "host_alive": alive,
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
