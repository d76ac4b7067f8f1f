"""Broadcast latency over the real stack: N peers on loopback (one process each
by default), seated through the real lobby, connected by the real mesh. Seat 0
broadcasts a small Ed25519-signed message; every peer verifies it and notes the
arrival time; the latency of a message is the time until the *last* peer has it.
Messages go one at a time (the next after every peer acknowledged), so this
measures latency, not throughput. Prints one JSON object.

    PYTHONPATH=. python benchmarks/net_latency.py [--peers 4] [--messages 1000] [--inproc]

Timestamps are time.monotonic_ns(), i.e. CLOCK_MONOTONIC, which is shared by all
processes of one Linux machine, so cross-process differences are meaningful.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from p2pcards.net import Message, open_endpoint, open_mesh  # noqa: E402
from p2pcards.net.handshake import verify  # noqa: E402
from p2pcards.net.lobby import host_table, join_table  # noqa: E402

LOCAL = "127.0.0.1"


async def run_seat(seat: int, peers: int, messages: int, host_port_box, report) -> dict | None:
    """One peer. Seat 0 hosts; ``host_port_box`` is an async callable giving the host port
    (seat 0 is handed a callback that publishes it instead)."""
    key = Ed25519PrivateKey.generate()
    async with open_endpoint(key, f"bench{seat}", bind=LOCAL) as ep:
        if seat == 0:
            await host_port_box(ep.port)
            table = await host_table(ep, "bura", peers)
        else:
            table = await join_table(ep, LOCAL, await host_port_box())
        pub = {s.seat: s.key for s in table.seats}
        seat = table.seat_of(ep.identity.public_key)  # joiners sit in join order
        async with open_mesh(ep, table, seat, ready_timeout=30) as mesh:
            if seat == 0:
                return await broadcaster(mesh, key, peers, messages)
            await receiver(mesh, pub[0], messages)
    return None


async def broadcaster(mesh, key, peers: int, messages: int) -> dict:
    latencies = []
    for i in range(-20, messages):  # 20 warm-up messages, not counted
        body = b"move %d" % i
        t0 = time.monotonic_ns()
        await mesh.broadcast({"i": i, "t0": t0, "body": body, "sig": key.sign(body)})
        arrivals = {}
        while len(arrivals) < peers - 1:
            ev = await mesh.receive()
            if isinstance(ev, Message) and ev.msg.get("ack") == i:
                arrivals[ev.seat] = ev.msg["at"]
        if i >= 0:
            latencies.append((max(arrivals.values()) - t0) / 1e6)
    await mesh.broadcast({"done": True})
    latencies.sort()
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    return {"peers": peers, "messages": messages, "p50_ms": round(q[49], 4), "p99_ms": round(q[98], 4),
            "mean_ms": round(statistics.fmean(latencies), 4), "max_ms": round(latencies[-1], 4)}


async def receiver(mesh, host_key: bytes, messages: int) -> None:
    while True:
        ev = await mesh.receive()
        if not isinstance(ev, Message):
            continue
        m = ev.msg
        if m.get("done"):
            return
        at = time.monotonic_ns()
        if not verify(host_key, m["sig"], m["body"]):
            raise SystemExit("bad signature on a broadcast")
        await mesh.send(0, {"ack": m["i"], "at": at})


async def inproc(peers: int, messages: int) -> dict:
    port_sent, port_recv = trio.open_memory_channel(peers)
    result = {}

    async def publish(port):
        for _ in range(peers - 1):
            port_sent.send_nowait(port)

    async def fetch():
        return await port_recv.receive()

    async def seat(i):
        r = await run_seat(i, peers, messages, publish if i == 0 else fetch, None)
        if r:
            result.update(r)

    async with trio.open_nursery() as nursery:
        for i in range(peers):
            nursery.start_soon(seat, i)
    return result


async def child(seat: int, peers: int, messages: int) -> None:
    async def publish(port):
        print(json.dumps({"port": port}), flush=True)

    async def fetch():
        line = await trio.to_thread.run_sync(sys.stdin.readline)
        return int(json.loads(line)["port"])

    r = await run_seat(seat, peers, messages, publish if seat == 0 else fetch, None)
    if r:
        print(json.dumps({"result": r}), flush=True)


def multiprocess(peers: int, messages: int, timeout: float) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--peers", str(peers), "--messages", str(messages)]
    procs = [subprocess.Popen(cmd + ["--child", str(i)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for i in range(peers)]
    try:
        port = json.loads(procs[0].stdout.readline())["port"]
        for p in procs[1:]:
            p.stdin.write(json.dumps({"port": port}) + "\n")
            p.stdin.flush()
        line = procs[0].stdout.readline()
        for p in procs:
            p.wait(timeout=timeout)
        if not line:
            raise SystemExit("seat 0 produced no result")
        return json.loads(line)["result"]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--inproc", action="store_true", help="all peers in one process (one trio run)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peers < 2 or args.messages < 2:
        ap.error("need at least 2 peers and 2 messages")
    if args.child is not None:
        trio.run(child, args.child, args.peers, args.messages)
        return
    if args.inproc:
        result = trio.run(inproc, args.peers, args.messages)
        result["mode"] = "one process"
    else:
        result = multiprocess(args.peers, args.messages, args.timeout)
        result["mode"] = f"{args.peers} processes"
    result["cpus"] = os.cpu_count()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
