"""The command line of internet tables: which servers (flags, environment,
config file, default), ``p2pcards server``, and an invite code where an
address goes."""

import os
import signal
import socket
import subprocess
import sys
from types import SimpleNamespace

import pytest

from p2pcards.cli.args import CliError
from p2pcards.cli.internet import DEFAULT_MAILBOX, DEFAULT_RELAY, InviteCode, servers
from tests.helpers import run_cli
from tests.internet_lab import servers_missing


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    monkeypatch.delenv("P2PCARDS_MAILBOX", raising=False)
    monkeypatch.delenv("P2PCARDS_RELAY", raising=False)
    return tmp_path


def test_the_servers_come_from_flags_then_environment_then_config_then_the_default(home, monkeypatch):
    none = SimpleNamespace(mailbox=None, relay=None)
    assert servers(none) == (DEFAULT_MAILBOX, DEFAULT_RELAY)
    (home / "servers.conf").write_text("# ours\nmailbox = ws://conf.example:4000/v1\nrelay = conf.example:4001\n")
    assert servers(none) == ("ws://conf.example:4000/v1", "conf.example:4001")
    monkeypatch.setenv("P2PCARDS_RELAY", "env.example:5001")
    assert servers(none) == ("ws://conf.example:4000/v1", "env.example:5001")
    flags = SimpleNamespace(mailbox="ws://flag.example:1/v1", relay="flag.example:2")
    assert servers(flags) == ("ws://flag.example:1/v1", "flag.example:2")


@pytest.mark.parametrize("mailbox,relay,words", [("http://x:1/v1", "x:2", "not a mailbox server"),
                                                 ("ws://x:1/v1", "x", "not a relay address")])
def test_a_bad_server_address_is_refused_in_one_line(home, mailbox, relay, words):
    with pytest.raises(CliError, match=words):
        servers(SimpleNamespace(mailbox=mailbox, relay=relay))


def test_join_takes_an_invite_code_or_an_address():
    from p2pcards.cli.subcommands import _address_or_code

    assert isinstance(_address_or_code("7-1234-5678"), InviteCode)
    assert _address_or_code("10.0.0.2:7531") == ("10.0.0.2", 7531)


def test_a_mistyped_code_is_refused_in_the_players_language(home):
    out = run_cli(["--lang", "pl", "bot", "7-1234-567", "--mailbox", "ws://127.0.0.1:9/v1"], home)
    assert out.code != 0 and "'7-1234-567' nie jest kodem zaproszenia" in out.stderr, out.stderr


@pytest.mark.skipif(servers_missing() is not None, reason=str(servers_missing()))
def test_p2pcards_server_starts_both_servers_and_prints_their_ports_in_one_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    proc = subprocess.Popen([sys.executable, "-m", "p2pcards", "server", "--mailbox-port", "0", "--relay-port", "0",
                             "--bind", "127.0.0.1", "--public", "127.0.0.1", "--state-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        words = line.split()
        mailbox = next(w for w in words if w.startswith("ws://"))
        relay = words[words.index("relay") + 1]
        for port in (int(mailbox.split(":")[2].split("/")[0]), int(relay.rsplit(":", 1)[1])):
            socket.create_connection(("127.0.0.1", port), 5).close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, proc.stderr.read()
    # ...and took both servers down with it (it waits for them before it exits):
    # no process is left working in their directory.
    assert not [pid for pid in os.listdir("/proc") if pid.isdigit() and _cwd(pid) == str(tmp_path)]


def _cwd(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


@pytest.mark.parametrize("text", ["relay.example", "relay.example:0", "relay.example:99999", "\x1b[2J:4001",
                                  "a b:4001", ":4001"])
def test_a_relay_address_must_be_host_and_port(text):
    from p2pcards.net.relay import parse_relay

    with pytest.raises(ValueError):
        parse_relay(text)
    assert parse_relay("tcp:relay.example:4001") == ("relay.example", 4001)
    assert parse_relay("[::1]:4001") == ("::1", 4001)


def test_a_state_file_keeps_the_relay_and_refuses_half_of_it(tmp_path):
    from p2pcards.peer.statefile import SeatState, StateError

    state = SeatState(str(tmp_path / "g.p2plog"), 1, "Ala", "k.pem", "0.0.0.0", 7531, {}, relay="relay.example:4001",
                      relay_secret=b"s" * 32)
    back = SeatState.from_bytes(state.to_bytes())
    assert (back.relay, back.relay_secret) == ("relay.example:4001", b"s" * 32)
    state.relay_secret = None
    with pytest.raises(StateError, match="the table secret"):
        SeatState.from_bytes(state.to_bytes())
