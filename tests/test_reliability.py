"""Issue 12: failures are one clear line; no seated player or stranger can
stall or crash the others; peers catch up, give up, and survive a full disk.
Real processes and real sockets on loopback."""

from __future__ import annotations

import math
import os
import shutil
import socket
import subprocess
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.limits import MAX_ENTRY
from p2pcards.protocol.log import Entry, make_entry
from p2pcards.net import Message
from p2pcards.peer.seating import SeatConfig, agree_genesis, run_seat, split_options
from tests.helpers import MeshWrapper, SeatOrder, environment, frame, run_cli

LOCAL = "127.0.0.1"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind((LOCAL, 0))
        return s.getsockname()[1]


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """A process's resident memory now, or with ``field="VmHWM"`` at its
    highest so far (the kernel's high-water mark: no peak is missed)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field}")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


# ----- a bot host in its own process ---------------------------------------------------------

@dataclass
class HostProcess:
    proc: trio.Process
    port: int
    lines: list[str]
    stderr_path: str

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stderr(self) -> str:
        with open(self.stderr_path, errors="replace") as f:
            return f.read()


@asynccontextmanager
async def bot_host(tmp_path, game="bura", players=2, options=("table.turn_timeout=6",), name="host"):
    """``p2pcards host GAME --bot greedy`` as a process; yields once it listens."""
    home = tmp_path / f"{name}-home"
    command = [sys.executable, "-m", "p2pcards", "host", game, "--players", str(players), "--bot", "greedy",
               "--print-port", "--bind", LOCAL, "--port", "0", "--log-dir", str(tmp_path / f"{name}-logs"),
               "--name", name, "--seed", "1"]
    for option in options:
        command += ["-o", option]
    err_path = str(tmp_path / f"{name}.err")
    with open(err_path, "wb") as err:
        async with trio.open_nursery() as nursery:
            proc = await nursery.start(lambda task_status=trio.TASK_STATUS_IGNORED: trio.run_process(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, env=environment(home),
                check=False, task_status=task_status))
            lines: list[str] = []
            ready = trio.Event()

            async def read_stdout():
                buffer = b""
                async for chunk in proc.stdout:
                    buffer += chunk
                    *done, buffer = buffer.split(b"\n")
                    lines.extend(line.decode() for line in done)
                    if any(line.startswith("PORT ") for line in lines):
                        ready.set()
                ready.set()

            nursery.start_soon(read_stdout)
            with trio.fail_after(30):
                await ready.wait()
            port = int(next(line for line in lines if line.startswith("PORT ")).split()[1])
            try:
                yield HostProcess(proc, port, lines, err_path)
            finally:
                if proc.returncode is None:
                    proc.kill()


# ----- (a) every failure is one clear line and an exit code ------------------------------

def test_join_to_a_closed_port_is_one_line(tmp_path):
    line = run_cli(["join", f"{LOCAL}:{closed_port()}"], tmp_path, tty=True).one_clear_line()
    assert "cannot connect" in line and "Connection refused" in line


def test_bot_to_a_closed_port_is_one_line(tmp_path):
    line = run_cli(["bot", f"{LOCAL}:{closed_port()}"], tmp_path).one_clear_line()
    assert "Connection refused" in line


def test_play_without_a_terminal_is_one_line(tmp_path):
    outcome = run_cli(["play", "kanasta"], tmp_path, stdin=subprocess.DEVNULL)
    assert "needs a terminal" in outcome.one_clear_line()


def test_resume_of_files_that_are_no_state_file_is_one_line(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# not a state file\n")
    readme.chmod(0o644)  # readable by others, yet what matters is that it is no state file
    line = run_cli(["resume", str(readme)], tmp_path).one_clear_line()
    assert "not a p2pcards state file" in line and "chmod" not in line
    log = tmp_path / "bura-1234-seat1.p2plog"
    shutil.copyfile(os.path.join(os.path.dirname(__file__), "..", "replays", "bura-3p.p2plog"), log)
    log.chmod(0o600)
    line = run_cli(["resume", str(log)], tmp_path).one_clear_line()
    assert "is a game's log" in line and f"{log}.state" in line
    assert "no state file" in run_cli(["resume", str(tmp_path / "gone.state")], tmp_path).one_clear_line()


def _state_file_with(tmp_path, **fields) -> str:
    """A state file whose fields are a sound one's, but for ``fields``."""
    import msgpack

    from p2pcards.peer.statefile import SeatState

    sound = SeatState(str(tmp_path / "bura-1-seat1.p2plog"), 1, "Ada", str(tmp_path / "key"), "127.0.0.1", 4000,
                      {"t": "final"}, {0: b"s" * 32}, None, "greedy", "bot")
    raw = msgpack.unpackb(sound.to_bytes(), raw=False)
    raw.update(fields)
    path = tmp_path / "hostile.state"
    path.write_bytes(msgpack.packb(raw, use_bin_type=True))
    path.chmod(0o600)
    return str(path)


@pytest.mark.parametrize("fields", [
    {"seeds": [[0, (1 << 64) - 1]]},  # the red team's: bytes(n) of a huge n
    {"seeds": [[1 << 62, b"s" * 32]]}, {"seeds": [[0, b"short"]]}, {"seeds": [[0, b"s" * 32, 1]]},
    {"seeds": 7}, {"seat": 1 << 63}, {"seat": "1"}, {"port": -1}, {"port": 1 << 40}, {"log": 12},
    {"log": "x" * 100000}, {"name": "\x1b]0;owned\x07"}, {"name": "x" * 100000}, {"table": []},
    {"pending": "not bytes"}, {"pending": b"x" * (MAX_ENTRY + 1)}, {"strategy": ["greedy"]}, {"key": None},
    {"v": "x" * 100000},
])
def test_a_hostile_state_file_is_one_clear_line(tmp_path, fields):
    line = run_cli(["resume", _state_file_with(tmp_path, **fields)], tmp_path).one_clear_line()
    assert "damaged" in line or "another version" in line, line
    assert len(line) < 400 and "\x1b" not in line



def test_a_hostile_state_file_is_named_in_the_players_language(tmp_path):
    line = run_cli(["--lang", "pl", "resume", _state_file_with(tmp_path, seeds=[[0, (1 << 64) - 1]])],
                   tmp_path).one_clear_line()
    assert "plik stanu jest uszkodzony (tajne ziarna rozdań)" in line, line


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x9b1m"  # a title, a screen clear, colour, a C1 CSI


async def test_a_refusal_with_escape_sequences_is_shown_filtered(tmp_path):
    """Whoever answers a join may refuse it before any authentication; its
    reason is shown, but never its control characters (item 7 of issue 23)."""
    async def refuse(stream) -> None:
        async with stream:
            await stream.receive_some(65536)  # the joiner's hello
            await stream.send_all(frame({"t": "error", "reason": "go away" + ESCAPES}))

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, refuse, 0, host=LOCAL))
        port = listeners[0].socket.getsockname()[1]
        for args, tty in ((["join", f"{LOCAL}:{port}"], True), (["bot", f"{LOCAL}:{port}"], False)):
            line = (await trio.to_thread.run_sync(lambda: run_cli(args, tmp_path, tty=tty))).one_clear_line()
            assert "go away" in line and "red" in line, line
            assert "\x1b" not in line and "\x07" not in line and "\x9b" not in line, repr(line)
        nursery.cancel_scope.cancel()


async def test_joining_a_table_already_in_play_is_one_line(tmp_path):
    async with bot_host(tmp_path, options=("table.turn_timeout=60",)) as host:
        async with seated_intruder(host.port) as _:  # the table is full and in play, held by a silent seat
            for args, tty in ((["join", f"{LOCAL}:{host.port}"], True), (["bot", f"{LOCAL}:{host.port}"], False)):
                outcome = await trio.to_thread.run_sync(lambda: run_cli(args, tmp_path / "other", tty=tty))
                assert "no table is waiting for players here" in outcome.one_clear_line()


# ----- a seated player played by the test ------------------------------------------------------

@dataclass
class Intruder:
    mesh: object
    seat: int
    key: Ed25519PrivateKey
    genesis: Entry
    backlog: list

    async def next_entry(self) -> Entry:
        """The next entry the others send (from the backlog first)."""
        while True:
            event = self.backlog.pop(0) if self.backlog else await self.mesh.receive()
            if isinstance(event, Message) and isinstance(event.msg, dict) and event.msg.get("t") == "entry":
                return Entry.from_wire(event.msg["raw"])

    async def send_paced(self, msg: dict) -> None:
        """Send to the host straight on the connection, at the pace TCP takes it
        (a queue in between would only swell our own memory)."""
        await self.mesh.peers[0].channel.send({"t": "app", "m": msg})


@asynccontextmanager
async def seated_intruder(port: int):
    """Join the host's table as a real player (lobby, mesh, signed entry 0), then do as the test says."""
    from p2pcards.net import join_table, open_endpoint, open_mesh

    key = Ed25519PrivateKey.generate()
    async with open_endpoint(key, "intruder", bind=LOCAL) as endpoint:
        table = await join_table(endpoint, LOCAL, port)
        rules, settings = split_options(table.options)
        seat = table.seat_of(endpoint.identity.public_key)
        async with open_mesh(endpoint, table, seat, ready_timeout=30) as mesh:
            genesis, backlog = await agree_genesis(mesh, table, seat, key, rules, settings)
            yield Intruder(mesh, seat, key, genesis, backlog)


# ----- (b) a flooding seated player neither swells nor stalls the host ---------------------

JUNK = 1_000_000  # bytes of payload: entries just under the one entry limit


async def test_flooding_seated_player_is_bounded_and_blamed(tmp_path):
    from p2pcards.audit import audit_file

    async with bot_host(tmp_path, options=("table.turn_timeout=60",)) as host:
        async with seated_intruder(host.port) as me:
            first = await me.next_entry()  # the host's shuffle, entry 1; entry 2 is ours
            before = rss_mb(host.pid), open_fds(host.pid)
            peak = list(before)

            def measure():
                peak[0], peak[1] = max(peak[0], rss_mb(host.pid)), max(peak[1], open_fds(host.pid))

            for k in range(300):  # signed by us, for places ahead of the log: at most a few are kept
                junk = make_entry(3 + k, os.urandom(32), me.seat, "action", {"deal": 0, "junk": b"j" * JUNK}, me.key)
                await me.send_paced({"t": "entry", "raw": junk.raw})
                if k % 50 == 0:
                    measure()
            for k in range(300):  # "by the host", for places ahead, signature forged: nothing is kept
                junk = make_entry(3 + k, os.urandom(32), 0, "action", {"deal": 0, "junk": b"f" * JUNK}, me.key)
                await me.send_paced({"t": "entry", "raw": junk.raw})
                if k % 50 == 0:
                    measure()
            for k in range(20000):  # acknowledgements of places far away
                await me.send_paced({"t": "ack", "seq": 3 + k * 499, "hash": os.urandom(32)})
            measure()
            # Then our due entry: an abort with a 600 KB detail (over the limit of every machine).
            bomb = make_entry(2, first.hash, me.seat, "abort",
                              {"culprit": None, "kind": "x", "detail": "d" * 600_000}, me.key)
            await me.send_paced({"t": "entry", "raw": bomb.raw})
            with trio.fail_after(60):
                await host.proc.wait()
    print(f"\nflooding seated player: host RSS {before[0]:.0f} -> peak {peak[0]:.0f} MB, "
          f"fds {before[1]} -> peak {peak[1]}")
    assert host.proc.returncode == 0, host.stderr()
    assert peak[0] - before[0] < 60, (before, peak)
    assert peak[1] - before[1] < 16, (before, peak)
    assert len(host.stderr().splitlines()) < 100  # refusals are logged rate-limited
    log_path = [line for line in host.lines if line.startswith("{")][-1].split('"log": "')[1].split('"')[0]
    report = audit_file(log_path)
    assert [(v["seat"], v["kind"]) for v in report.violations] == [(me.seat, "bad-entry")], report.violations



# Bytes of the one entry an abort carries as evidence: about the most an entry
# quoting nothing may be (log.md §8: MAX_ENTRY less 16 KiB), so the abort fits too.
EVIDENCE_PADDING = MAX_ENTRY - 17 * 1024


async def make_the_log_costly(me) -> None:
    """Our entry at place 2 (after the host's shuffle): an abort naming
    nobody whose evidence is one signed entry of about 1 MB (as the red team
    did), so that every answer to `have` from the start carries 1 MB."""
    from p2pcards.protocol.log import make_entry

    first = await me.next_entry()
    padding = make_entry(1, os.urandom(32), me.seat, "action", {"junk": b"j" * EVIDENCE_PADDING}, me.key)
    abort = make_entry(2, first.hash, me.seat, "abort", {"culprit": None, "kind": "no-card",
                                                         "detail": "see the evidence", "evidence": [padding.raw]},
                       me.key)
    await me.send_paced({"t": "entry", "raw": abort.raw})


async def have_flood(me, deadline: float = math.inf) -> int:
    """Ask the host for its whole log again and again on the current
    connection, as fast as TCP takes it, reading nothing (our mesh's inbox
    fills, then our socket is read no further), until the host drops the
    connection or ``deadline``; returns how many were sent."""
    from p2pcards.net import NetError

    channel, sent = me.mesh.peers[0].channel, 0
    with trio.move_on_at(deadline):
        try:
            while True:
                await channel.send({"t": "app", "m": {"t": "have", "next": 1}})
                sent += 1
        except NetError:
            pass
    return sent


async def test_a_have_flood_by_a_seated_player_that_stops_reading_costs_the_host_little(tmp_path):
    """Issue 23, item 4 through real peers: the host answers within its
    bounds and drops the connection of a peer that reads nothing (a lost
    connection, no blame). The red team measured +560 to +680 MiB here;
    benchmarks/have_flood.py measures it over a minute."""
    async with bot_host(tmp_path, options=("table.turn_timeout=600", "table.rejoin_timeout=600")) as host:
        async with seated_intruder(host.port) as me:
            await make_the_log_costly(me)
            before = peak = rss_mb(host.pid)

            def read_peak() -> bool:  # the high-water mark only grows: its last reading is the peak
                nonlocal peak
                try:
                    peak = rss_mb(host.pid, "VmHWM")
                    return True
                except (AssertionError, OSError):
                    return False  # the host has ended (a table that refuses our abort may end the match)

            async def watch() -> None:
                while read_peak():
                    await trio.sleep(0.2)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(watch)
                with trio.fail_after(180):
                    sent = await have_flood(me)  # until the host drops us
                read_peak()
                nursery.cancel_scope.cancel()
            if host.proc.returncode is None:
                host.proc.kill()
    print(f"\nhave flood: {sent} asked; host RSS {before:.0f} -> peak {peak:.0f} MB")
    assert sent > 0
    assert peak - before < 64, (before, peak)


class _StuckMesh:
    """A mesh whose queue to the asking seat drains only when the test says."""

    def __init__(self) -> None:
        self.queued, self.entries = 0, 0

    def queued_bytes(self, seat: int) -> int:
        return self.queued

    async def send(self, seat: int, msg: dict) -> bool:
        if msg["t"] == "entry":
            self.queued += len(msg["raw"])
            self.entries += 1
        else:
            self.queued += len(msg["ack"])
            self.others += 1
        return True

    others = 0


class _Sized:
    def __init__(self, size: int) -> None:
        self.raw = b"e" * size


async def test_have_answers_are_limited_in_rate_and_bytes_and_an_honest_asker_still_gets_everything(
        autojump_clock):
    """Issue 23, item 4, at the asked seat: a seat asking again and again, and
    reading nothing, gets at most HAVE_BURST answers at once and HAVE_RATE a
    second after, and never more than HAVE_QUEUE_BYTES (and one entry) queued;
    a seat that reads what comes and asks again gets the whole log."""
    from p2pcards.limits import HAVE_BURST, HAVE_QUEUE_BYTES, HAVE_RATE, MAX_AHEAD
    from p2pcards.peer.answers import HaveAnswers

    log = [_Sized(300_000) for _ in range(2 * MAX_AHEAD)]
    flooded = _StuckMesh()
    answers = HaveAnswers(flooded)
    for _ in range(10_000):
        await answers.answer(1, log, 1)
    assert flooded.queued <= HAVE_QUEUE_BYTES + MAX_ENTRY
    assert answers.refused >= 10_000 - HAVE_BURST
    refused = answers.refused
    await trio.sleep(10)  # the virtual clock: ten seconds, then another flood
    for _ in range(10_000):
        await answers.answer(1, log, 1)
    assert 10_000 - (answers.refused - refused) <= HAVE_BURST + 1  # the bucket holds at most a burst
    assert flooded.queued <= HAVE_QUEUE_BYTES + MAX_ENTRY

    honest = _StuckMesh()
    answers, have = HaveAnswers(honest), 1
    while have < len(log):
        have += await answers.answer(1, log, have)
        honest.queued = 0  # it read them all
        await trio.sleep(1 / HAVE_RATE)  # and asks again when the gap watch does
    assert honest.entries == len(log) - 1


async def test_the_acks_of_a_have_answer_count_under_its_limits(autojump_clock):
    """Protocol 4: a `have` answer carries acknowledgements after its entries
    (table.md §5); they take a token of the same bucket and stop at the same
    bytes, so asking for them again and again costs the asked seat no more
    than asking for entries."""
    from p2pcards.limits import HAVE_BURST, HAVE_QUEUE_BYTES, MAX_AHEAD
    from p2pcards.peer.answers import HaveAnswers

    acks = [{"t": "ack", "ack": b"a" * 100_000} for _ in range(MAX_AHEAD)]
    flooded = _StuckMesh()
    answers = HaveAnswers(flooded)
    for _ in range(1_000):
        assert await answers.answer(1, [], 1, also=acks) == 0  # no entries: only acks
    assert flooded.queued <= HAVE_QUEUE_BYTES + 100_000
    assert answers.refused >= 1_000 - HAVE_BURST
    # Entries first, then the acks, while the asker's queue has room.
    log = [_Sized(300) for _ in range(5)]
    fresh = _StuckMesh()
    assert await HaveAnswers(fresh).answer(1, log, 1, also=acks[:3]) == 4
    assert (fresh.entries, fresh.others) == (4, 3)


async def test_an_entry_too_big_to_be_evidence_does_not_crash_the_referee(tmp_path):
    """Our due entry, a broken abort of the greatest size an entry may have: it
    cannot go into the host's abort as evidence; the host goes on, and when our
    turn's time is up it attests our silence (alone of two players: a minority,
    so the game stops unfinished and nobody is convicted)."""
    from p2pcards.audit import UNFINISHED, audit_file

    async with bot_host(tmp_path, options=("table.turn_timeout=3", "table.rejoin_timeout=3")) as host:
        async with seated_intruder(host.port) as me:
            first = await me.next_entry()
            bomb = make_entry(2, first.hash, me.seat, "abort",
                              {"culprit": None, "kind": "x", "detail": "d" * (MAX_ENTRY - 200)}, me.key)
            assert MAX_ENTRY - 100 < len(bomb.raw) <= MAX_ENTRY
            await me.send_paced({"t": "entry", "raw": bomb.raw})
            with trio.fail_after(60):
                await host.proc.wait()
    assert host.proc.returncode == 0, host.stderr()
    log_path = [line for line in host.lines if line.startswith("{")][-1].split('"log": "')[1].split('"')[0]
    report = audit_file(log_path)
    # We never acknowledged the host's entry either: "silent" (nothing came from us in time).
    assert report.exit_code == UNFINISHED and not report.violations, report.violations

# ----- (b) a flood of strangers' connections locks nobody out ------------------------------

@asynccontextmanager
async def idle_connections(port: int, count: int):
    """``count`` TCP connections to ``port`` that never say a word."""
    streams = []
    try:
        for _ in range(count):
            streams.append(await trio.open_tcp_stream(LOCAL, port))
        yield streams
    finally:
        for stream in streams:
            with trio.move_on_after(1) as scope:
                scope.shield = True
                await stream.aclose()


async def test_500_idle_connections_do_not_lock_the_lobby(tmp_path):
    async with bot_host(tmp_path) as host:
        before = rss_mb(host.pid), open_fds(host.pid)
        async with idle_connections(host.port, 500):
            during = rss_mb(host.pid), open_fds(host.pid)
            joiner = await trio.to_thread.run_sync(lambda: run_cli(
                ["bot", f"{LOCAL}:{host.port}", "--log-dir", str(tmp_path / "joiner"), "--seed", "2"],
                tmp_path / "joiner-home", timeout=120))
            with trio.fail_after(60):
                await host.proc.wait()
    print(f"\n500 idle connections: host RSS {before[0]:.0f} -> {during[0]:.0f} MB, fds {before[1]} -> {during[1]}")
    assert joiner.code == 0, joiner.stderr
    assert host.proc.returncode == 0, host.stderr()
    assert during[1] - before[1] <= 80, (before, during)  # the waiting room's bound, not 500
    assert during[0] - before[0] < 30, (before, during)
    assert len(host.stderr().splitlines()) < 100, host.stderr()[-2000:]


async def test_silent_connections_do_not_keep_a_player_from_coming_back(caplog):
    """During play, a flood of silent connections to a seat; another seat's
    connection breaks and comes back through it at once."""
    from p2pcards.net import open_mesh
    from tests.helpers import Endpoints, make_table

    async with Endpoints(2) as E:
        table = make_table(E.eps)
        async with open_mesh(E.eps[0], table, 0, ready_timeout=None) as mesh0, \
                open_mesh(E.eps[1], table, 1, ready_timeout=None, backoff=(0.01, 0.05)) as mesh1:
            await mesh0.wait_all_connected(10)
            async with idle_connections(E.eps[0].port, 500):
                mesh1.drop(0.01)  # seat 1 loses its connection and redials
                with trio.fail_after(4):  # sooner than any of the flood's connections times out
                    while not (mesh1.peer_status()[0].connected and mesh1.peer_status()[0].epoch >= 2):
                        await mesh1._changed.wait()


# ----- (c) a peer that missed an entry asks for it ----------------------------------------------

class LosesOneEntry(MeshWrapper):
    """A seat's mesh that loses one entry (the first by ``author`` at or past
    ``seq``) on its way in, as if it had never been sent to this seat: every
    copy of it (the author's and the ones the others relay) until this seat
    asks for it."""

    def __init__(self, mesh, author: int, seq: int):
        super().__init__(mesh)
        self.author, self.seq = author, seq
        self.lost: int | None = None
        self.asked: list[int] = []

    async def __anext__(self):
        while True:
            event = await self._mesh.__anext__()
            msg = event.msg if isinstance(event, Message) else None
            if isinstance(msg, dict) and msg.get("t") == "entry":
                entry = Entry.from_wire(msg["raw"])
                if self.lost is None and entry.author == self.author and entry.seq >= self.seq:
                    self.lost = entry.seq
                    continue
                if entry.seq == self.lost and not any(start <= self.lost for start in self.asked):
                    continue
            return event

    async def send(self, seat, msg):
        if isinstance(msg, dict) and msg.get("t") == "have":
            self.asked.append(msg["next"])
        return await self._mesh.send(seat, msg)


async def test_a_peer_that_missed_an_entry_asks_for_it(tmp_path):
    players, lossy = 3, {}
    order, results = SeatOrder(players), {}

    async def seat(i):
        config = SeatConfig(name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind=LOCAL,
                            log_dir=str(tmp_path / f"l{i}"), strategy="random", bot_seed=i)
        await order.place(config, i, "bura", players, {"rounds": 1, "table.turn_timeout": 20})

        def on_driver(peer):
            if i == 2:
                peer.mesh = lossy[i] = LosesOneEntry(peer.mesh, author=1, seq=5)

        results[i] = await run_seat(config, on_driver=on_driver)

    # Stuck, seat 2 would be blamed "silent" after the 20 s turn time; it catches up and nobody is blamed.
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    assert [results[i].seat for i in range(players)] == [0, 1, 2]
    assert lossy[2].lost is not None and lossy[2].lost in lossy[2].asked
    machine = results[0].driver.machine
    assert machine.finished and not machine.aborted
    logs = [open(results[i].log_path, "rb").read() for i in range(players)]
    assert logs[0] == logs[1] == logs[2]


# ----- (c) coming back to a table that is over, or from a log cut short --------------------------

async def test_resume_after_the_table_ended_gives_up_with_one_line(tmp_path):
    options = ("table.turn_timeout=2", "table.rejoin_timeout=2")
    async with bot_host(tmp_path, options=options) as host:
        env = dict(environment(tmp_path / "joiner-home"), P2PCARDS_CRASH="1:6")  # the joiner dies at entry 6
        joiner = await trio.run_process(
            [sys.executable, "-m", "p2pcards", "bot", f"{LOCAL}:{host.port}", "--print-port",
             "--log-dir", str(tmp_path / "joiner"), "--seed", "2"],
            stdin=subprocess.DEVNULL, capture_stdout=True, capture_stderr=True, env=env, check=False)
        assert joiner.returncode == -9
        with trio.fail_after(60):
            await host.proc.wait()  # the host blamed the joiner for leaving and finished
    state = next(line.split(" ", 1)[1] for line in joiner.stdout.decode().splitlines() if line.startswith("STATE "))
    started = trio.current_time()
    outcome = await trio.to_thread.run_sync(lambda: run_cli(["resume", state, "--bot"], tmp_path / "joiner-home"))
    assert "nobody from this table answered" in outcome.one_clear_line()
    assert trio.current_time() - started < 30  # bounded, not 600 s of redialling

    from p2pcards.protocol.log import HEADER
    log_path = state[: -len(".state")]
    with open(log_path, "wb") as f:
        f.write(HEADER)  # the log cut to its header
    line = run_cli(["resume", state, "--bot"], tmp_path / "joiner-home").one_clear_line()
    assert "holds not even the table entry" in line


# ----- (c) a full disk stops a seat as a crash would, and it comes back ----------------------

async def test_a_full_disk_stops_the_seat_without_a_bye_and_it_comes_back(tmp_path, monkeypatch):
    """Seat 1 of 3 runs out of disk space mid-match: it stops with a clear
    error, leaves no temporary file, and does not say bye, so seat 2 keeps
    redialling it; resumed, it finishes the match with the others, nobody blamed."""
    import errno

    from p2pcards import identity

    from p2pcards.protocol import log as logmod
    from p2pcards.peer.seating import RunError, resume_seat

    players, results, failure = 3, {}, []
    order = SeatOrder(players)
    full = {"fd": None, "after": 8}
    write_all = logmod._write_all

    def disk(fd, data):
        if fd == full["fd"]:
            full["after"] -= 1
            if full["after"] < 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write_all(fd, data)

    monkeypatch.setattr(logmod, "_write_all", disk)
    key1 = identity.load_or_create(tmp_path / "seat1.pem")

    async def seat(i):
        config = SeatConfig(name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind=LOCAL,
                            log_dir=str(tmp_path / f"l{i}"), strategy="random", bot_seed=i)
        if i == 1:
            config.private_key, config.key_path = key1.private_key, str(key1.path)
            config.on_state = lambda path: failure.append(path)
        await order.place(config, i, "bura", players,
                          {"rounds": 1, "table.turn_timeout": 30, "table.rejoin_timeout": 60})

        def on_driver(peer):
            if i == 1:
                full["fd"] = peer.driver.file._fd

        if i != 1:
            results[i] = await run_seat(config, on_driver=on_driver)
            return
        with pytest.raises(RunError) as stopped:
            await run_seat(config, on_driver=on_driver)
        failure.append(str(stopped.value))
        full["fd"] = None  # room on the disk again
        results[i] = await resume_seat(failure[0])

    with trio.fail_after(180):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    state_file, error = failure
    assert results[1].seat == 1  # the seat that seat 2 must keep redialling
    assert "No space left on device" in error and f"p2pcards resume {state_file}" in error
    assert not [p for p in os.listdir(tmp_path / "l1") if p.endswith(".tmp")]
    machine = results[0].driver.machine
    assert machine.finished and not machine.aborted, machine.aborts
    logs = [open(results[i].log_path, "rb").read() for i in range(players)]
    assert logs[0] == logs[1] == logs[2]


def test_a_state_file_that_cannot_be_saved_leaves_no_temporary_file(tmp_path, monkeypatch):
    import errno

    from p2pcards.peer import statefile

    state = statefile.SeatState(str(tmp_path / "g.p2plog"), 1, "p1", "k.pem", LOCAL, 1, {})
    target = statefile.state_path(state.log_path)
    statefile.save(target, state)
    real_fsync = os.fsync

    def full_disk(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    state.name = "changed"
    with pytest.raises(statefile.StateError, match="No space left on device"):
        statefile.save(target, state)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert sorted(os.listdir(tmp_path)) == ["g.p2plog.state"]
    assert statefile.load(target).name == "p1"  # the last good state stays


def test_a_log_directory_that_cannot_be_written_is_one_line(tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the log directory should be")
    line = run_cli(["bot", f"{LOCAL}:{closed_port()}", "--log-dir", str(blocked / "games")], tmp_path).one_clear_line()
    assert "cannot keep the game's log in" in line


# ----- (b) strings from the network are printable before they reach a terminal --------------

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[31mEve\x9b"


def printable_only(text: str) -> bool:
    return all(c.isprintable() for c in text)


def test_advertised_fields_are_made_printable():
    from p2pcards.net import discovery

    class Info:
        name = "x._p2pcards._tcp.local."
        properties = {b"game": ("bura" + HOSTILE).encode(), b"wanted": b"2", b"seated": b"1",
                      b"host": HOSTILE.encode(), b"v": b"1"}
        port = 7531

        def parsed_addresses(self):
            return ["10.0.0.1"]

    ad = discovery._parse_ad(Info())
    assert printable_only(ad.describe()) and "Eve" in ad.describe()


async def test_a_hostile_advertisement_reaches_tables_printable(monkeypatch):
    """A real mDNS record on loopback whose TXT fields (which may hold any bytes) carry escapes."""
    from p2pcards.net import discovery
    from tests.helpers import multicast_loopback_problem

    if not discovery.available():
        pytest.skip("zeroconf is not installed")
    problem = await trio.to_thread.run_sync(multicast_loopback_problem)
    if problem:
        pytest.skip(problem)
    lo = ["127.0.0.1"]
    tid = os.urandom(16)
    # The instance name may not hold controls (zeroconf refuses it); the TXT fields may.
    monkeypatch.setattr(discovery, "_instance_name", lambda *_: f"hostile {tid.hex()[:8]}.{discovery.SERVICE_TYPE}")
    with trio.fail_after(30):
        async with discovery.advertise(game="bura" + HOSTILE, wanted=2, seated=1, host_name=HOSTILE, port=7531,
                                       table_id=tid, addresses=lo, interfaces=lo):
            found = [a for a in await discovery.browse(2.5, interfaces=lo) if a.table_id == tid]
    assert len(found) == 1 and printable_only(found[0].describe()) and "Eve" in found[0].describe()


def test_chat_and_abort_texts_must_be_printable():
    from p2pcards.protocol.machine import TableMachine, Violation

    with pytest.raises(Violation, match="printable"):
        TableMachine._check_chat(1, ["hi" + HOSTILE])
    assert TableMachine._check_chat(1, ["dzień dobry"]) == ["dzień dobry"]


# ----- (a) a game that stops at the table: the player reads why, quits, and gets the line ---------

def test_a_game_stopped_at_the_table_ends_with_its_reason_once_the_player_quits():
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from p2pcards.cli import CliError
    from p2pcards.cli.play import GameFailed, _stopped
    from p2pcards.ui.app import run_app

    class Seated:
        peer = object()  # a table was shown

    class NotSeated:
        peer = None

    for session, expected in ((Seated(), GameFailed), (NotSeated(), CliError)):
        with create_pipe_input() as pipe:
            output = Vt100_Output(io.StringIO(), lambda: Size(rows=20, columns=80), term="xterm")

            async def main(ui):
                pipe.send_text("quit\r")
                await _stopped(ui, session, "The game could not go on: seat 1 vanished", RuntimeError("seat 1 vanished"))

            with pytest.raises(expected, match="seat 1 vanished"):
                run_app(main, input=pipe, output=output)


def test_hosting_on_a_port_in_use_is_one_line(tmp_path):
    with socket.socket() as busy:
        busy.bind((LOCAL, 0))
        busy.listen()
        port = busy.getsockname()[1]
        for args, tty in ((["host", "bura", "--players", "2", "--bind", LOCAL, "--port", str(port)], True),
                          (["host", "bura", "--players", "2", "--bind", LOCAL, "--port", str(port), "--bot", "greedy"],
                           False)):
            assert "cannot listen on" in run_cli(args, tmp_path, tty=tty).one_clear_line()


def test_the_ahead_buffer_keeps_the_nearest_places_within_its_bounds():
    from p2pcards.peer.ahead import AheadBuffer

    key = Ed25519PrivateKey.generate()

    def entry(seq, author=1, size=10):
        return make_entry(seq, bytes(32), author, "action", {"deal": 0, "pad": b"p" * size}, key)

    buffer = AheadBuffer(per_author=2, bytes_per_author=10_000, window=50)
    assert buffer.offer(entry(9), 4) and buffer.offer(entry(7), 4)
    assert buffer.offer(entry(6), 4)  # nearer: pushes out place 9
    assert not buffer.offer(entry(8), 4)  # farther than both kept
    assert not buffer.offer(entry(60), 4) and not buffer.offer(entry(4), 4)  # outside the window
    assert buffer.offer(entry(8, author=2), 4)  # another author has its own room
    assert not buffer.offer(entry(5, author=3, size=20_000), 4)  # over the bytes of one author
    assert len(buffer) == 3 and [e.seq for e in buffer.take(6)] == [6] and len(buffer) == 2
    assert sorted(e.author for e in buffer.take(8)) == [2] and len(buffer) == 0  # place 7 forgotten
    # 3,000 bytes of empty arrays decode to 3,000 objects: counted as what they hold, not as their bytes.
    hollow = make_entry(5, bytes(32), 4, "action", {"deal": 0, "pad": [[]] * 3_000}, key)
    assert len(hollow.raw) < 10_000 and not buffer.offer(hollow, 4)
    assert buffer.offer(entry(5, author=4, size=3_000), 4)


async def test_one_address_cannot_take_every_spectator_seat():
    from contextlib import AsyncExitStack

    from p2pcards.net import open_endpoint
    from p2pcards.net.spectate import SpectatorHub, watch_table
    from p2pcards.net.agreement import LobbyView, SeatInfo, seats_msg

    async with open_endpoint(Ed25519PrivateKey.generate(), "host", bind=LOCAL) as endpoint:
        hub = SpectatorHub(os.urandom(16))
        me = endpoint.identity
        hub.set_lobby(seats_msg(LobbyView(hub.table_id, "bura", {}, 2, (SeatInfo(0, me.name, me.public_key),), None)))
        endpoint.register("watch", hub)
        with trio.fail_after(20):
            async with AsyncExitStack() as stack:
                for _ in range(8):
                    watch = await stack.enter_async_context(watch_table(LOCAL, endpoint.port))
                    assert isinstance(await watch.__anext__(), LobbyView)  # it is watching
                async with watch_table(LOCAL, endpoint.port) as ninth:
                    assert [item async for item in ninth] == []
                assert "at most 8 spectators from one address" in ninth.ended
                assert hub.watchers == 8
                hub.end("over")
