"""``p2pcards server``: the two magic-wormhole servers an internet table uses,
for whoever runs their own (the ``server`` extra installs them):

- the Mailbox server (``twist wormhole-mailbox``), where invite codes meet;
- the Transit Relay (``twist transitrelay``), which glues two connections
  presenting the same token.

Both are the projects' own programs, started as child processes; this only
starts them, reads the ports they listen on and prints them in one line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass

from p2pcards.i18n import _

# What the servers log once listening (with --port tcp:0 the kernel picks the port).
_MAILBOX_LISTENING = re.compile(r"Site starting on (\d+)")
_RELAY_LISTENING = re.compile(r"(?:Factory|Transit) starting on (\d+)")  # pip's, Debian's


class ServerError(Exception):
    pass


@dataclass
class Servers:
    mailbox: subprocess.Popen
    relay: subprocess.Popen
    mailbox_port: int
    relay_port: int

    def mailbox_url(self, host: str) -> str:
        return f"ws://{host}:{self.mailbox_port}/v1"

    def relay_address(self, host: str) -> str:
        return f"{host}:{self.relay_port}"

    def stop(self) -> None:
        for proc in (self.mailbox, self.relay):
            stop_process(proc)


def stop_process(proc: subprocess.Popen) -> None:
    """Stop a server and whatever it started: it runs in a session of its own
    (``_twist``), so its whole process group is signalled while it is not yet
    reaped (its group id cannot be taken by another process until then)."""
    import signal

    def signal_group(sig: int) -> None:
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    if proc.poll() is None:
        signal_group(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            signal_group(signal.SIGKILL)
            proc.wait()


def _twist_command() -> list[str] | None:
    """How to run Twisted's ``twist`` with both servers' plugins: in our own
    Python (the server extra), else Debian's ``twist3`` (its packages)."""
    import shutil

    try:
        import wormhole_mailbox_server  # noqa: F401
        import wormhole_transit_relay  # noqa: F401
        return [sys.executable, "-m", "twisted"]
    except ImportError:
        twist3 = shutil.which("twist3")
        debian = "/usr/lib/python3/dist-packages/twisted/plugins/"
        if twist3 and all(os.path.exists(debian + plugin) for plugin in (
                "magic_wormhole_mailbox.py", "magic_wormhole_transit_relay.py")):
            return [twist3]
    return None


def installed() -> str | None:
    """None when both servers can be started here, else why not."""
    if _twist_command() is None:
        return _("the servers are not installed: pip install 'p2pcards[server]', or "
                 "apt install python3-magic-wormhole-mailbox-server magic-wormhole-transit-relay")
    return None


def _twist(plugin: str, *options: str, state_dir: str, prefix: list[str] | None = None) -> subprocess.Popen:
    command = _twist_command()
    if command is None:
        raise ServerError(installed())
    return subprocess.Popen([*(prefix or []), *command, plugin, *options],
                            cwd=state_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)


def _port_of(proc: subprocess.Popen, pattern: re.Pattern, what: str, timeout: float) -> int:
    """The port ``proc`` logs it listens on. Its log is read by a thread for
    as long as it runs (a server whose output nobody reads blocks)."""
    import queue
    import threading

    lines: queue.Queue = queue.Queue()

    def drain() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        match = pattern.search(line)
        if match:
            return int(match.group(1))
    stop_process(proc)
    raise ServerError(_("the {what} did not start: {log}").format(what=what, log="".join(seen)[-500:].strip()))


def start_servers(*, mailbox_port: int = 0, relay_port: int = 0, interface: str = "0.0.0.0",
                  state_dir: str | None = None, prefix: list[str] | None = None,
                  timeout: float = 30.0) -> Servers:
    """Start both servers (port 0: any free port); ``prefix`` runs them under
    another command (tests: ``ip netns exec NS``)."""
    state_dir = state_dir or os.getcwd()
    os.makedirs(state_dir, exist_ok=True)
    mailbox = _twist("wormhole-mailbox", f"--port=tcp:{mailbox_port}:interface={interface}",
                     "--channel-db=" + os.path.join(state_dir, "mailbox.sqlite"), state_dir=state_dir, prefix=prefix)
    try:
        mport = _port_of(mailbox, _MAILBOX_LISTENING, _("mailbox server"), timeout)
        relay = _twist("transitrelay", f"--port=tcp:{relay_port}:interface={interface}", state_dir=state_dir,
                       prefix=prefix)
        rport = _port_of(relay, _RELAY_LISTENING, _("transit relay"), timeout)
    except BaseException:
        stop_process(mailbox)
        raise
    return Servers(mailbox, relay, mport, rport)


def restart_relay(servers: Servers, *, interface: str = "0.0.0.0", state_dir: str | None = None,
                  prefix: list[str] | None = None, timeout: float = 30.0) -> None:
    """Start the relay again on the port it had (after it was stopped)."""
    servers.relay = _twist("transitrelay", f"--port=tcp:{servers.relay_port}:interface={interface}",
                           state_dir=state_dir or os.getcwd(), prefix=prefix)
    _port_of(servers.relay, _RELAY_LISTENING, _("transit relay"), timeout)


def cmd_server(args) -> int:
    from p2pcards.cli.args import CliError

    missing = installed()
    if missing:
        raise CliError(missing)
    import signal

    # Stopped by a signal, the servers go too (they run in sessions of their own): the
    # handler is there before they start, and everything after is inside the try, so
    # a SIGTERM at any moment (even right after the line below) stops them.
    signal.signal(signal.SIGTERM, lambda *_args: sys.exit(0))
    servers = None
    try:
        try:
            servers = start_servers(mailbox_port=args.mailbox_port, relay_port=args.relay_port,
                                    interface=args.bind, state_dir=args.state_dir)
        except ServerError as exc:
            raise CliError(str(exc)) from None
        host = args.public or "HOST"
        print(_("mailbox {mailbox}  relay {relay}  (players use: --mailbox {mailbox} --relay {relay})").format(
            mailbox=servers.mailbox_url(host), relay=servers.relay_address(host)), flush=True)
        while servers.mailbox.poll() is None and servers.relay.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        if servers is not None:
            servers.stop()
    return 0
