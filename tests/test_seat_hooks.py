"""The test machinery reaches a peer only through its hooks: which seat gets
which cheat and fault (selfplay's processes cannot know their seat in advance)."""

from p2pcards.peer import PeerHooks
from p2pcards.testing import SeatHooks, seat_hooks


def test_the_cheat_goes_to_the_cheating_seat_only(monkeypatch):
    monkeypatch.delenv("P2PCARDS_CRASH", raising=False)
    monkeypatch.delenv("P2PCARDS_DROP", raising=False)
    make = seat_hooks("phantom-card", 1)
    assert make(0) is None
    hooks = make(1)
    assert isinstance(hooks, SeatHooks) and isinstance(hooks, PeerHooks)
    assert hooks.cheater.kind == "phantom-card" and hooks.faults is None
    assert seat_hooks()(0) is None  # an honest seat runs with the peer's no-op hooks


def test_faults_from_the_environment_go_to_the_named_seat(monkeypatch):
    monkeypatch.setenv("P2PCARDS_CRASH", "2:17")
    monkeypatch.setenv("P2PCARDS_DROP", "0:9")
    make = seat_hooks()
    assert make(1) is None
    crash, drop = make(2), make(0)
    assert (crash.faults.crash_at, crash.faults.drop_at, crash.cheater) == (17, None, None)
    assert (drop.faults.crash_at, drop.faults.drop_at) == (None, 9)


def test_malformed_fault_variables_inject_nothing(monkeypatch):
    for value in ("", "1", "1:", ":5", "x:5", "1:-3", "one:two"):
        monkeypatch.setenv("P2PCARDS_CRASH", value)
        monkeypatch.delenv("P2PCARDS_DROP", raising=False)
        assert seat_hooks()(1) is None, value


def test_a_dropping_seat_drops_once(monkeypatch):
    monkeypatch.delenv("P2PCARDS_CRASH", raising=False)
    monkeypatch.setenv("P2PCARDS_DROP", "0:3")
    hooks = seat_hooks()(0)

    class Peer:
        seat = 0
        drops: list = []

        class driver:
            log = [None] * 2

        class mesh:
            @staticmethod
            def drop(seconds):
                Peer.drops.append(seconds)

    hooks.acking(Peer, None)
    assert Peer.drops == []  # entry 3 not reached yet
    Peer.driver.log = [None] * 3
    hooks.acking(Peer, None)
    hooks.acking(Peer, None)
    assert Peer.drops == [3.0]
