"""Separate hosts on one machine: a small lab of Linux network namespaces
for the reliability tests (``tests/test_netns.py``) and
``benchmarks/netns_latency.py``. Needs root and ``ip`` (iproute2).

Topology (a star through a router namespace, every peer on its own subnet)::

    ns <tag>-A  eth0 10.77.1.2/24 ──veth── rA 10.77.1.1 ┐
    ns <tag>-B  eth0 10.77.2.2/24 ──veth── rB 10.77.2.1 ├ ns <tag>-R (ip_forward)
    ns <tag>-C  eth0 10.77.3.2/24 ──veth── rC 10.77.3.1 ┘

Every address lives only inside these namespaces; nothing leaves the machine.
Each peer's default route goes through R. ``link_down``/``link_up`` take a
peer's own eth0 down and up (unplugging its cable): the kernel deletes its
routes on the way down, ``link_up`` puts them back.

**Impairment** (``impair``): delay and loss on one peer's link, applied in
both directions. With ``tc qdisc ... netem`` when the kernel has it (on both
ends of the veth); otherwise — this sandbox's kernel has no ``sch_netem`` —
by a user-space netem: R routes the peer's traffic (policy routing) through a
tun device ``dly0``; ``python tests/netns.py emulate`` reads each packet from
``dly0``, drops it with the loss probability or holds it for the delay, and
writes it to a second tun ``dly1``, from which R routes it on to its
destination. ``Lab.impairment`` says which one was used.

Games: ``start_match`` runs ``p2pcards host`` in A (bound to 10.77.1.2:7531)
and ``p2pcards bot`` in B then C (seats 0, 1, 2), each with its own key,
log directory and optional ``P2PCARDS_TRACE`` under a work directory;
``Peer`` reads a process's PORT/STATE/result lines; ``audit`` runs
``p2pcards audit --json``. ``sweep()`` removes namespaces left by a killed run.

Everything is removed by ``Lab.close()`` (the processes started through
``Lab.popen`` are killed first); use the lab as a context manager.
"""

from __future__ import annotations

import heapq
import os
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
import uuid

PEERS = ("A", "B", "C")
SUBNET = {"A": 1, "B": 2, "C": 3}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def addr(peer: str) -> str:
    return f"10.77.{SUBNET[peer]}.2"


def _run(*args: str, check: bool = True, timeout: float = 20) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise LabError(f"{' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc


class LabError(RuntimeError):
    pass


def usable() -> str | None:
    """None when a lab can be built here, else the reason it cannot."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2 ('ip') is not installed"
    name = f"p2pc-probe-{uuid.uuid4().hex[:8]}"
    try:
        probe = _run("ip", "netns", "add", name, check=False)
        if probe.returncode != 0:
            return f"'ip netns add' does not work here: {probe.stderr.strip()}"
        veth = _run("ip", "-n", name, "link", "add", "p0", "type", "veth", "peer", "name", "p1", check=False)
        if veth.returncode != 0:
            return f"veth links do not work here: {veth.stderr.strip()}"
        run = _run("ip", "netns", "exec", name, sys.executable, "-c", "pass", check=False)
        if run.returncode != 0:
            return f"'ip netns exec' does not work here: {run.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"network namespaces do not work here: {exc}"
    finally:
        _run("ip", "netns", "del", name, check=False)
    return None


def netem_available() -> bool:
    """Does this kernel have the netem qdisc? (probed on a throw-away veth)"""
    name = f"p2pc-probe-{uuid.uuid4().hex[:8]}"
    try:
        if _run("ip", "netns", "add", name, check=False).returncode != 0:
            return False
        _run("ip", "-n", name, "link", "add", "p0", "type", "veth", "peer", "name", "p1", check=False)
        return _run("ip", "netns", "exec", name, "tc", "qdisc", "add", "dev", "p0", "root", "netem",
                    "delay", "10ms", check=False).returncode == 0
    finally:
        _run("ip", "netns", "del", name, check=False)


class Lab:
    """Three peer namespaces A, B, C and a router R; see the module docstring."""

    def __init__(self, tag: str | None = None):
        self.tag = tag or f"p2pc{uuid.uuid4().hex[:6]}"
        self.ns = {p: f"{self.tag}-{p}" for p in PEERS}
        self.router = f"{self.tag}-R"
        self.procs: list[subprocess.Popen] = []
        self.emulator: subprocess.Popen | None = None
        self.impairment: dict | None = None
        self._made: list[str] = []

    # ----- building and tearing down
    def __enter__(self) -> "Lab":
        try:
            self.build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _sysctl(self, ns: str, key: str, value: str) -> None:
        _run("ip", "netns", "exec", ns, "sh", "-c", f"echo {value} > /proc/sys/{key.replace('.', '/')}")

    def build(self) -> None:
        for ns in (self.router, *self.ns.values()):
            _run("ip", "netns", "add", ns)
            self._made.append(ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
            self._sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
            self._sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")
        self._sysctl(self.router, "net.ipv4.ip_forward", "1")
        self._sysctl(self.router, "net.ipv4.conf.all.rp_filter", "0")
        self._sysctl(self.router, "net.ipv4.conf.default.rp_filter", "0")
        for p, ns in self.ns.items():
            n = SUBNET[p]
            _run("ip", "-n", self.router, "link", "add", f"r{p}", "type", "veth", "peer", "name", "eth0", "netns", ns)
            _run("ip", "-n", self.router, "addr", "add", f"10.77.{n}.1/24", "dev", f"r{p}")
            _run("ip", "-n", self.router, "link", "set", f"r{p}", "up")
            _run("ip", "-n", ns, "addr", "add", f"{addr(p)}/24", "dev", "eth0")
            self.link_up(p)

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        if self.emulator is not None:
            if self.emulator.poll() is None:
                self.emulator.kill()
            try:
                self.emulator.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for ns in reversed(self._made):  # deleting a namespace deletes its veth ends
            _run("ip", "netns", "del", ns, check=False)
        self._made.clear()

    # ----- links
    def link_up(self, peer: str) -> None:
        ns = self.ns[peer]
        _run("ip", "-n", ns, "link", "set", "eth0", "up")
        _run("ip", "-n", ns, "route", "replace", "default", "via", f"10.77.{SUBNET[peer]}.1", "dev", "eth0")

    def link_down(self, peer: str) -> None:
        _run("ip", "-n", self.ns[peer], "link", "set", "eth0", "down")

    def _blackhole(self, action: str, a: str, b: str) -> None:
        for src, dst in ((a, b), (b, a)):
            _run("ip", "-n", self.router, "rule", action, "from", f"10.77.{SUBNET[src]}.0/24",
                 "to", f"10.77.{SUBNET[dst]}.0/24", "blackhole")

    def cut(self, a: str, b: str) -> None:
        """Only the path between peers a and b goes dark (the router drops it
        both ways); each still reaches the third."""
        self._blackhole("add", a, b)

    def heal(self, a: str, b: str) -> None:
        self._blackhole("del", a, b)

    def impair(self, peer: str, delay_ms: float, loss: float, *, force_userspace: bool = False,
               seed: int = 1) -> dict:
        """Delay (ms, each direction) and loss (0..1, each direction) on ``peer``'s link."""
        if self.impairment is not None:
            raise LabError("one impaired link per lab")
        if not force_userspace and netem_available():
            for ns, dev in ((self.ns[peer], "eth0"), (self.router, f"r{peer}")):
                _run("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "netem",
                     "delay", f"{delay_ms}ms", "loss", f"{loss * 100}%")
            self.impairment = {"peer": peer, "delay_ms": delay_ms, "loss": loss, "how": "tc netem"}
            return self.impairment
        self.emulator = start_emulator(self.router, delay_ms, loss, seed=seed)
        r, n = self.router, SUBNET[peer]
        for dev in ("dly0", "dly1"):
            _run("ip", "-n", r, "link", "set", dev, "up")
            self._sysctl(r, f"net.ipv4.conf.{dev}.rp_filter", "0")
        # Toward the peer: main table -> dly0; its packets: rule iif r<peer> -> table 101 -> dly0.
        # Out of the emulator (iif dly1): table 100, the plain routes to every peer.
        _run("ip", "-n", r, "route", "replace", f"10.77.{n}.0/24", "dev", "dly0")
        for p in PEERS:
            _run("ip", "-n", r, "route", "add", f"10.77.{SUBNET[p]}.0/24", "dev", f"r{p}", "table", "100")
        _run("ip", "-n", r, "route", "add", "default", "dev", "dly0", "table", "101")
        _run("ip", "-n", r, "rule", "add", "iif", "dly1", "lookup", "100", "pref", "100")
        _run("ip", "-n", r, "rule", "add", "iif", f"r{peer}", "lookup", "101", "pref", "101")
        self.impairment = {"peer": peer, "delay_ms": delay_ms, "loss": loss,
                           "how": "user-space netem (tun; this kernel has no sch_netem)"}
        return self.impairment

    # ----- processes
    def popen(self, peer: str, args: list[str], env: dict | None = None, **kwargs) -> subprocess.Popen:
        """Start ``args`` inside ``peer``'s namespace; killed by ``close()``.
        ``ip netns exec`` execs the command, so the pid is the command's own."""
        proc = subprocess.Popen(["ip", "netns", "exec", self.ns[peer], *args], env=env, **kwargs)
        self.procs.append(proc)
        return proc

    def p2pcards(self, peer: str, args: list[str], env: dict | None = None, **kwargs) -> subprocess.Popen:
        """``python -m p2pcards ARGS`` inside ``peer``'s namespace, this checkout on PYTHONPATH."""
        env = dict(os.environ if env is None else env)
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.setdefault("PYTHONUNBUFFERED", "1")
        return self.popen(peer, [sys.executable, "-m", "p2pcards", *args], env=env, **kwargs)


class Peer:
    """One ``p2pcards host/bot/resume`` process in a namespace; a thread reads
    its stdout (``PORT``, ``STATE``, the JSON result line)."""

    def __init__(self, lab: "Lab", name: str, args: list[str], work: str, env: dict | None = None):
        import threading

        self.name = name
        self.lines: list[str] = []
        self.errfile = os.path.join(work, f"{name}.err")
        self.started = time.monotonic()
        with open(self.errfile, "ab") as err:
            self.proc = lab.p2pcards(name, args, env=env, stdout=subprocess.PIPE, stderr=err,
                                     stdin=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def value(self, prefix: str) -> str | None:
        for line in list(self.lines):
            if line.startswith(prefix):
                return line[len(prefix):].strip()
        return None

    def wait_value(self, prefix: str, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.value(prefix)
            if value is not None or (self.proc.poll() is not None and not self.reader.is_alive()):
                return value
            time.sleep(0.02)
        return None

    def result(self) -> dict | None:
        self.reader.join(timeout=5)
        for line in reversed(self.lines):
            if line.startswith("{"):
                import json

                try:
                    return json.loads(line)
                except ValueError:
                    return None
        return None

    def stderr_tail(self, n: int = 2000) -> str:
        try:
            with open(self.errfile, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""


def option_args(options: dict) -> list[str]:
    out: list[str] = []
    for key, value in options.items():
        out += ["-o", f"{key}={value}"]
    return out


def start_match(lab: Lab, work: str, game: str, options: dict, *, env: dict | None = None,
                trace: bool = False, port: int = 7531, start_timeout: float = 60) -> dict[str, Peer]:
    """A hosts (seat 0) on its own address; B then C join as bots. Each keeps
    its key and logs in ``work/<peer>``; with ``trace``, ``P2PCARDS_TRACE``
    is ``work/<peer>/trace`` (``trace-<seat>.txt`` there). Returns the peers."""
    peers: dict[str, Peer] = {}
    for i, name in enumerate(PEERS):
        home = os.path.join(work, name)
        os.makedirs(os.path.join(home, "trace"), exist_ok=True)
        penv = dict(os.environ if env is None else env)
        penv["P2PCARDS_HOME"] = home
        penv.setdefault("P2PCARDS_LOG", "info")
        if trace:
            penv["P2PCARDS_TRACE"] = os.path.join(home, "trace")
        common = ["--name", f"peer{name}", "--key", os.path.join(home, "key.pem"),
                  "--log-dir", os.path.join(home, "logs"), "--seed", f"netns:{name}", "--print-port"]
        if name == PEERS[0]:
            args = ["host", game, "--players", str(len(PEERS)), "--bot", "greedy", "--bind", addr(name),
                    "--port", str(port), *common, *option_args(options)]
        else:
            args = ["bot", f"{addr(PEERS[0])}:{port}", "--strategy", "greedy", *common]
        peer = Peer(lab, name, args, work, penv)
        peers[name] = peer
        if peer.wait_value("PORT ", start_timeout) is None:
            raise LabError(f"peer {name} did not start: {peer.stderr_tail()}")
        if name != PEERS[0]:
            # Take the seats in order (B seat 1, C seat 2): wait until this one is seated.
            _wait_seated(peers[PEERS[0]], i, start_timeout)
    return peers


def _wait_seated(host: Peer, seat: int, timeout: float) -> None:
    """Until the host's stderr (P2PCARDS_LOG=info) says somebody took ``seat``, at most ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and host.proc.poll() is None:
        if f"joined at seat {seat}" in host.stderr_tail(1 << 20):
            return
        time.sleep(0.05)


def wait_all(peers: dict[str, Peer], timeout: float) -> dict[str, int | None]:
    """Wait for every process, at most ``timeout`` s in all; returns exit codes (None: still running)."""
    deadline = time.monotonic() + timeout
    for peer in peers.values():
        try:
            peer.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    return {name: peer.proc.poll() for name, peer in peers.items()}


def seat_log(peer: Peer) -> str | None:
    """The peer's log file (from its result line, else its log directory)."""
    result = peer.result()
    if result and "log" in result:
        return result["log"]
    home = os.path.join(os.path.dirname(peer.errfile), peer.name, "logs")
    names = [n for n in os.listdir(home) if n.endswith(".p2plog")] if os.path.isdir(home) else []
    return os.path.join(home, names[0]) if names else None


def trace_file(work: str, peer: str) -> str | None:
    d = os.path.join(work, peer, "trace")
    names = [n for n in os.listdir(d) if n.startswith("trace-")] if os.path.isdir(d) else []
    return os.path.join(d, names[0]) if names else None


def last_seq(path: str | None) -> int:
    """The highest entry number in a trace file (0 if none yet)."""
    best = 0
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 7 and parts[2] in ("write", "take"):
                    best = max(best, int(parts[3]))
    return best


def audit(log_path: str, timeout: float = 120) -> tuple[int, dict | None]:
    """``p2pcards audit --json``: (exit code, the report)."""
    import json

    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "audit", "--json", log_path], capture_output=True,
                          text=True, timeout=timeout, env=env)
    try:
        return proc.returncode, json.loads(proc.stdout)
    except ValueError:
        return proc.returncode, None


def sweep(prefix: str = "p2pc") -> None:
    """Remove namespaces left behind by a lab whose process was killed (best effort)."""
    out = _run("ip", "netns", "list", check=False).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(prefix) and (name.endswith(("-A", "-B", "-C", "-R")) or "probe" in name):
            pids = _run("ip", "netns", "pids", name, check=False).stdout.split()
            if not pids:
                _run("ip", "netns", "del", name, check=False)


# ----- the user-space netem ---------------------------------------------------

def start_emulator(router: str, delay_ms: float, loss: float, jitter_ms: float = 0.0,
                   seed: int = 1) -> subprocess.Popen:
    """``emulate`` running in namespace ``router`` on new tun devices dly0 -> dly1
    (down: the caller routes through them and sets them up), once it is ready."""
    emulator = subprocess.Popen(
        ["ip", "netns", "exec", router, sys.executable, os.path.abspath(__file__), "emulate",
         "dly0", "dly1", str(delay_ms), str(loss), str(seed), str(jitter_ms)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    line = ""
    ready, _, _ = select.select([emulator.stdout], [], [], 15)
    if ready:
        line = emulator.stdout.readline()
    if line.strip() != "READY":
        emulator.kill()
        err = emulator.stderr.read()
        raise LabError(f"the user-space netem did not start: {line!r} {err[-500:]}")
    return emulator


TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def _open_tun(name: str) -> int:
    import fcntl

    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", name.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def emulate(dev_in: str, dev_out: str, delay_ms: float, loss: float, seed: int = 1,
            jitter_ms: float = 0.0, max_seconds: float = 3600.0, limit: int = 1000) -> None:
    """Forward every packet read from tun ``dev_in`` to tun ``dev_out`` after
    ``delay_ms`` (plus or minus up to ``jitter_ms``, uniformly: as with netem's
    jitter, packets may overtake each other), dropping each with probability
    ``loss``; at most ``limit`` packets held."""
    fd_in, fd_out = _open_tun(dev_in), _open_tun(dev_out)
    rng = random.Random(seed)
    delay, jitter = delay_ms / 1000.0, jitter_ms / 1000.0
    held: list = []  # a heap of (release time, arrival number, packet)
    arrivals = 0
    stop = time.monotonic() + max_seconds
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("READY", flush=True)
    while time.monotonic() < stop:
        now = time.monotonic()
        timeout = max(0.0, held[0][0] - now) if held else 0.5
        readable, _, _ = select.select([fd_in, fd_out], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            while True:
                try:
                    packet = os.read(fd, 65536)
                except (BlockingIOError, OSError):
                    break
                if fd == fd_out or not packet:
                    continue  # nothing is routed into dly1; discard strays
                if rng.random() < loss or len(held) >= limit:
                    continue
                arrivals += 1
                heapq.heappush(held, (now + max(0.0, delay + rng.uniform(-jitter, jitter)), arrivals, packet))
        while held and held[0][0] <= now:
            _, _, packet = heapq.heappop(held)
            try:
                os.write(fd_out, packet)
            except OSError:
                pass


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "emulate":
        a = sys.argv[2:]
        emulate(a[0], a[1], float(a[2]), float(a[3]), int(a[4]) if len(a) > 4 else 1,
                float(a[5]) if len(a) > 5 else 0.0)
    else:
        print("usage: netns.py emulate DEV_IN DEV_OUT DELAY_MS LOSS [SEED [JITTER_MS]]", file=sys.stderr)
        sys.exit(2)
