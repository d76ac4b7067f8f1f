"""The NAT lab: three homes, each a player's namespace behind its own router
that masquerades (iptables MASQUERADE) and lets nothing in that the home did
not open; one public namespace runs the real magic-wormhole Mailbox server
and Transit Relay as processes. No home can reach another home's port, so
a table exists only through the invite codes and the relay.

    home h1 192.168.1.2 ── r1 (NAT) 10.88.1.2 ┐
    home h2 192.168.2.2 ── r2 (NAT, a new random port per connection) ├ core ── pub 10.88.100.2
    home h3 192.168.3.2 ── r3 (NAT) 10.88.3.2 ┘                (mailbox, relay)

Home 2's router maps every connection to a fresh random port
(``--random-fully``): the per-destination-port ("symmetric") NAT that
defeats hole punching. Needs root, ``ip netns`` and ``iptables`` (skipped
otherwise, with the reason). Every namespace and process is removed at the end.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
import time

import pytest

from p2pcards.cli.server import installed, start_servers
from tests import netns

HOMES = ("h1", "h2", "h3")
PUBLIC = "10.88.100.2"
MATCH_TIMEOUT = 240


def _skip_reason() -> str | None:
    reason = netns.usable()
    if reason:
        return reason
    if shutil.which("iptables") is None:
        return "iptables is not installed"
    return installed()


class NatLab(netns.Lab):
    """Homes behind NAT routers and a public namespace (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.ns = {name: f"{self.tag}-{name}" for name in (*HOMES, "pub")}
        self.routers = {home: f"{self.tag}-r{home[1:]}" for home in HOMES}
        self.router = f"{self.tag}-core"

    def build(self) -> None:
        run = netns._run
        for ns in (self.router, *self.routers.values(), *self.ns.values()):
            run("ip", "netns", "add", ns)
            self._made.append(ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
            self._sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
        for ns in (self.router, *self.routers.values()):
            self._sysctl(ns, "net.ipv4.ip_forward", "1")
        self._link(self.router, "pub0", "10.88.100.1", self.ns["pub"], PUBLIC, 24)
        for home in HOMES:
            n, router = home[1:], self.routers[home]
            self._link(self.router, f"wan{n}", f"10.88.{n}.1", router, f"10.88.{n}.2", 24)
            self._link(router, "lan0", f"192.168.{n}.1", self.ns[home], f"192.168.{n}.2", 24)
            run("ip", "-n", router, "route", "add", "default", "via", f"10.88.{n}.1")
            run("ip", "-n", self.ns[home], "route", "add", "default", "via", f"192.168.{n}.1")
            masquerade = ["-j", "MASQUERADE"] + (["--random-fully"] if home == "h2" else [])
            for rule in (["-t", "nat", "-A", "POSTROUTING", "-o", "eth0", *masquerade],
                         ["-A", "FORWARD", "-i", "eth0", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED",
                          "-j", "ACCEPT"],
                         ["-A", "FORWARD", "-i", "eth0", "-j", "DROP"]):
                run("ip", "netns", "exec", router, "iptables", *rule)
        run("ip", "-n", self.ns["pub"], "route", "add", "default", "via", "10.88.100.1")

    def impair(self, delay_ms: float, jitter_ms: float, loss: float, seed: int = 1) -> str:
        """Every home's link to the internet (its router's WAN side) gets
        ``delay_ms`` ± ``jitter_ms`` and ``loss`` (0..1) in each direction, so
        a byte from one home reaches another through the relay in twice that.
        With ``tc netem`` when the kernel has it, else the user-space netem of
        tests/netns.py in the core router. Returns which one was used."""
        run = netns._run
        if netns.netem_available():
            for home in HOMES:
                n = home[1:]
                for ns, dev in ((self.routers[home], "eth0"), (self.router, f"wan{n}")):
                    run("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "netem",
                        "delay", f"{delay_ms}ms", f"{jitter_ms}ms", "loss", f"{loss * 100}%")
            return "tc netem"
        self.emulator = netns.start_emulator(self.router, delay_ms, loss, jitter_ms, seed)
        core = self.router
        for dev in ("dly0", "dly1"):
            run("ip", "-n", core, "link", "set", dev, "up")
            self._sysctl(core, f"net.ipv4.conf.{dev}.rp_filter", "0")
        for key in ("all", "default"):
            self._sysctl(core, f"net.ipv4.conf.{key}.rp_filter", "0")
        # Out of the emulator (iif dly1): table 100, the plain routes. Into it: whatever
        # a home sends (rule iif wanN -> table 101) and whatever goes to a home (main table).
        run("ip", "-n", core, "route", "add", "10.88.100.0/24", "dev", "pub0", "table", "100")
        run("ip", "-n", core, "route", "add", "default", "dev", "dly0", "table", "101")
        run("ip", "-n", core, "rule", "add", "iif", "dly1", "lookup", "100", "pref", "100")
        for home in HOMES:
            n = home[1:]
            run("ip", "-n", core, "route", "add", f"10.88.{n}.0/24", "dev", f"wan{n}", "table", "100")
            run("ip", "-n", core, "route", "replace", f"10.88.{n}.0/24", "dev", "dly0")
            run("ip", "-n", core, "rule", "add", "iif", f"wan{n}", "lookup", "101", "pref", "101")
        return "user-space netem (tun; this kernel has no sch_netem)"

    def _link(self, ns_a: str, name_a: str, addr_a: str, ns_b: str, addr_b: str, bits: int) -> None:
        """A veth from ``ns_a`` (``name_a``) to ``ns_b`` (always ``eth0`` there)."""
        run = netns._run
        run("ip", "-n", ns_a, "link", "add", name_a, "type", "veth", "peer", "name", "eth0", "netns", ns_b)
        run("ip", "-n", ns_a, "addr", "add", f"{addr_a}/{bits}", "dev", name_a)
        run("ip", "-n", ns_b, "addr", "add", f"{addr_b}/{bits}", "dev", "eth0")
        run("ip", "-n", ns_a, "link", "set", name_a, "up")
        run("ip", "-n", ns_b, "link", "set", "eth0", "up")


@contextlib.contextmanager
def nat_lab(state_dir: str):
    """A built NatLab with both servers running in its public namespace (also
    for benchmarks/internet_latency.py); everything removed at the end."""
    lab = NatLab()
    servers = None
    try:
        lab.build()
        servers = start_servers(interface="0.0.0.0", state_dir=state_dir,
                                prefix=["ip", "netns", "exec", lab.ns["pub"]])
        lab.servers = servers
        yield lab
    finally:
        if servers is not None:
            servers.stop()
        lab.close()


@pytest.fixture
def lab(tmp_path):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    with nat_lab(str(tmp_path / "servers")) as lab:
        yield lab


def _start(lab: NatLab, work: str, game: str, options: dict, env: dict | None = None,
           relay: str | None = None) -> dict[str, netns.Peer]:
    """Home 1 hosts with --internet; homes 2 and 3 join as bots with the codes it prints.
    The table's relay is the lab's, or ``relay`` (HOST:PORT)."""
    peers: dict[str, netns.Peer] = {}
    servers = ["--mailbox", lab.servers.mailbox_url(PUBLIC)]
    for name in HOMES:
        home = os.path.join(work, name)
        os.makedirs(home, exist_ok=True)
        penv = dict(os.environ, **(env or {}), P2PCARDS_HOME=home, P2PCARDS_LOG="info",
                    P2PCARDS_TRACE=os.path.join(home, "trace"))
        os.makedirs(penv["P2PCARDS_TRACE"], exist_ok=True)
        common = ["--name", f"player{name[1:]}", "--key", os.path.join(home, "key.pem"),
                  "--log-dir", os.path.join(home, "logs"), "--seed", f"nat:{name}", "--print-port", *servers]
        if name == "h1":
            args = ["host", game, "--players", "3", "--bot", "greedy", "--internet",
                    "--relay", relay or lab.servers.relay_address(PUBLIC), "--port", "0", *common,
                    *netns.option_args(options)]
        else:
            codes = _both_codes(peers["h1"])
            args = ["bot", codes[0 if name == "h2" else 1], "--strategy", "greedy", *common]
        peers[name] = netns.Peer(lab, name, args, work, penv)
    return peers


def _both_codes(host: netns.Peer, timeout: float = 60) -> list[str]:
    """The first line in which the host shows a code for each of the two seats."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and host.proc.poll() is None:
        for line in list(host.lines):
            if line.startswith("CODES ") and len(line.split()) == 3:
                return line.split()[1:]
        time.sleep(0.05)
    raise AssertionError(f"the host printed no two invite codes: {host.lines} {host.stderr_tail()}")


def _finish(peers: dict) -> dict:
    """Once every process has finished the match cleanly: their logs are the
    same and audit clean, nobody blamed. Returns the audit's report."""
    codes = netns.wait_all(peers, MATCH_TIMEOUT)
    details = {n: (codes[n], p.stderr_tail(1500)) for n, p in peers.items() if codes[n] != 0}
    assert all(c == 0 for c in codes.values()), f"not every process finished cleanly: {details}"
    results = [p.result() for p in peers.values()]
    for result in results:
        assert not result["result"].get("unfinished") and not result["result"]["aborted"], result
    data = [open(r["log"], "rb").read() for r in results]
    assert all(d == data[0] for d in data), "the homes' logs differ"
    code, report = netns.audit(results[0]["log"])
    assert code == 0 and report["deals"] >= 1, report
    assert not report["violations"] and not any(s["stands"] for s in report.get("silences", [])), report
    return report


def _wait_entry(work: str, peers: dict, seq: int, timeout: float = 120) -> None:
    """Until home 1's trace shows entry ``seq``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if netns.last_seq(netns.trace_file(work, "h1")) >= seq:
            return
        dead = {n: p.proc.poll() for n, p in peers.items() if p.proc.poll() is not None}
        assert not dead, f"a player stopped before entry {seq}: {dead}"
        time.sleep(0.02)
    pytest.fail(f"the table did not reach entry {seq} in {timeout} s")


def test_homes_cannot_reach_each_other_directly(lab):
    """The lab is what it claims: from home 2, home 1's address does not answer."""
    probe = lab.popen("h2", ["python3", "-c", "import socket; socket.create_connection(('192.168.1.2', 7531), 2)"],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert probe.wait(30) != 0


def test_a_match_across_three_nats_through_codes_and_the_relay(lab, tmp_path):
    _finish(_start(lab, str(tmp_path), "warkocz", {"target": 4, "table.turn_timeout": 30}))


def test_the_relay_killed_and_restarted_mid_game_and_the_table_goes_on(lab, tmp_path):
    from p2pcards.cli.server import restart_relay, stop_process

    work = str(tmp_path)
    peers = _start(lab, work, "warkocz", {"target": 6, "table.turn_timeout": 60, "table.rejoin_timeout": 60})
    _wait_entry(work, peers, 20)
    stop_process(lab.servers.relay)
    restart_relay(lab.servers, state_dir=str(tmp_path / "servers"), prefix=["ip", "netns", "exec", lab.ns["pub"]])
    _finish(peers)


def test_a_player_who_crashed_comes_back_through_the_relay_with_resume(lab, tmp_path):
    """Seat 2 is killed at entry 20 (the fault injection of selfplay); ``p2pcards
    resume`` in its home brings it back through the relay it had."""
    work = str(tmp_path)
    peers = _start(lab, work, "warkocz", {"target": 4, "table.turn_timeout": 60, "table.rejoin_timeout": 60},
                   env={"P2PCARDS_CRASH": "2:20"})
    deadline = time.monotonic() + MATCH_TIMEOUT
    crashed = None
    while crashed is None and time.monotonic() < deadline:
        crashed = next((n for n, p in peers.items() if p.proc.poll() is not None), None)
        time.sleep(0.02)
    assert crashed and peers[crashed].proc.poll() == -9, {n: p.stderr_tail() for n, p in peers.items()}
    state = peers[crashed].wait_value("STATE ", 5)
    assert state, "the crashed player printed no state file"
    home = os.path.join(work, crashed)
    env = dict(os.environ, P2PCARDS_HOME=home, P2PCARDS_TRACE=os.path.join(home, "trace"))
    peers[crashed] = netns.Peer(lab, crashed, ["resume", state], work, env)
    _finish(peers)


def _impaired_match(lab: NatLab, tmp_path, delay_ms: float, jitter_ms: float, loss: float) -> None:
    """A whole bura deal between the three homes, every home's link delayed,
    jittered and lossy: the same logs, a clean audit, nobody blamed."""
    if not netns.netem_available() and not os.path.exists("/dev/net/tun"):
        pytest.skip("neither the netem qdisc nor /dev/net/tun (for the user-space netem) is available")
    how = lab.impair(delay_ms, jitter_ms, loss)
    # The lab is what it claims: a TCP handshake from home 1 to the relay takes a round trip.
    probe = lab.popen("h1", [sys.executable, "-c", "import socket, sys, time; t = time.monotonic(); "
                             f"socket.create_connection(('{PUBLIC}', {lab.servers.relay_port}), 30); "
                             "print(time.monotonic() - t)"], stdout=subprocess.PIPE, text=True)
    out, _ = probe.communicate(timeout=60)
    assert float(out) >= 2 * (delay_ms - jitter_ms) / 1000, (how, out)
    _finish(_start(lab, str(tmp_path), "bura", {"table.deals": 1, "table.turn_timeout": 60,
                                                "table.rejoin_timeout": 120}))


def test_a_match_over_internet_links_changes_nothing_but_timing(lab, tmp_path):
    """100 ms one way between homes (50 ± 10 ms on each home's link), 1 % loss
    on each link (about 2 % from home to home, through the relay)."""
    _impaired_match(lab, tmp_path, 50, 10, 0.01)


@pytest.mark.slow
def test_a_match_over_bad_internet_links_changes_nothing_but_timing(lab, tmp_path):
    """100 to 300 ms one way between homes (100 ± 50 ms on each home's link),
    5 % loss on each home's link."""
    _impaired_match(lab, tmp_path, 100, 50, 0.05)


CUTTER_PORT = 4100


class Cutter:
    """tests/cutting_relay.py in the public namespace, in front of the lab's relay."""

    def __init__(self, lab: NatLab) -> None:
        self.proc = lab.popen("pub", [sys.executable, os.path.join(netns.ROOT, "tests", "cutting_relay.py"),
                                      PUBLIC, str(CUTTER_PORT), PUBLIC, str(lab.servers.relay_port)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = f"{PUBLIC}:{CUTTER_PORT}"
        assert self.answer() == "READY", "the cutting relay did not start"

    def answer(self, timeout: float = 30) -> str:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline().strip() if ready else ""

    def say(self, line: str) -> str:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.answer()

CUT_AT = 15  # an entry of the first deal (a bura deal here is about 20 entries)


@pytest.mark.parametrize("pair", [("h2", "h3"), ("h1", "h2")], ids=["joiners", "host-and-joiner"])
def test_a_relay_cutting_one_pair_of_seats_leaves_the_table_running(lab, tmp_path, pair):
    """The relay (tests/cutting_relay.py in front of the real one) kills the
    connection between two homes (the two joiners, or the host and a joiner)
    in the first of three deals and refuses it from then on, while it relays
    the other pairs: the signed messages between those two seats go round
    through the third (protocol/table.md §5), so the match finishes, the logs
    are the same and nobody is blamed."""
    work = str(tmp_path)
    cutter = Cutter(lab)
    peers = _start(lab, work, "bura", {"table.deals": 3, "table.turn_timeout": 60, "table.rejoin_timeout": 60},
                   relay=cutter.address)
    _wait_entry(work, peers, CUT_AT)
    wan = [f"10.88.{home[1:]}.2" for home in pair]  # each home's address as the relay sees it (its router's)
    assert cutter.say(f"CUT {wan[0]} {wan[1]}") == "CUT 1", f"the relay saw no connection between {pair} to cut"
    report = _finish(peers)
    assert report["entries"] > CUT_AT + 20, report
    refused = cutter.say("REFUSED")
    assert refused.startswith("REFUSED ") and int(refused.split()[1]) >= 1, \
        f"{pair} never tried to come back through the relay ({refused!r}): was the pair cut at all?"
