"""Resuming from a checkpoint: the seat comes back to exactly the state a
replay of its whole log gives, and a checkpoint that does not fit (another
log, another seat, another key, changed bytes, other code, a hostile
snapshot) is ignored for a full replay, never trusted, never a crash."""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import pickle

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards.bots import Bot
from p2pcards.protocol import checkpoint
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.log import HEADER, Player, assemble, sign_body, table_body
from p2pcards.protocol.machine import ACTION, END
from p2pcards.games import get_game
from tests.helpers import SeatOrder, public_bytes, sign_the_end


def _genesis(game_id: str, players: int, signers, deals: int = 1):
    options = get_game(game_id).options(players, {})
    seated = [Player(f"player{i}", public_bytes(k), os.urandom(32)) for i, k in enumerate(signers)]
    body = table_body(game_id, options, seated, os.urandom(16), extra={"deals": deals})
    return assemble(body, [sign_body(body, k) for k in signers])


def _same(a, b, path="state", seen=None) -> None:
    """Deep equality of two object graphs, attribute by attribute."""
    seen = set() if seen is None else seen
    assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, (int, float, str, bytes, bool, type(None))):
        assert a == b, f"{path}: {a!r} vs {b!r}"
        return
    if (id(a), id(b)) in seen:
        return
    seen.add((id(a), id(b)))
    if isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: keys {set(a) ^ set(b)}"
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]", seen)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]", seen)
    elif isinstance(a, (set, frozenset)):
        assert a == b, f"{path}: {a ^ b}"
    elif isinstance(a, BaseException):
        assert a.args == b.args, path
        _same(vars(a), vars(b), path, seen)
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", seen)
        if hasattr(a, "__dict__"):
            _same(vars(a), vars(b), path, seen)
    elif hasattr(a, "__dict__"):
        _same(vars(a), vars(b), path, seen)
    else:
        assert a is b, f"{path}: cannot compare {type(a).__name__}"


class PlayedMatch:
    """A match played in-process; seat ``seat`` keeps its log file, and both
    the file as it stood and a checkpoint are kept at many places."""

    def __init__(self, tmp_path, game_id: str, players: int, seed: int, seat: int = 0, every: int = 17):
        self.signers = [Ed25519PrivateKey.generate() for _ in range(players)]
        self.seat = seat
        self.path = tmp_path / f"{game_id}-{seed}.p2plog"
        genesis = _genesis(game_id, players, self.signers)
        drivers = [SeatDriver(genesis, i, self.signers[i], log_path=self.path if i == seat else None)
                   for i in range(players)]
        bots = [Bot("greedy", seed * 10 + i) for i in range(players)]
        mine = drivers[seat]
        self.files: dict[int, bytes] = {}  # entries -> the file's bytes then
        self.checkpoints: dict[int, bytes] = {}  # entries -> a checkpoint made then
        while not mine.machine.finished:
            want = mine.machine.expect()
            if want.kind == END:
                sign_the_end(drivers)
            else:
                author = drivers[want.author]
                action = bots[want.author].choose(mine.game, author.my_state()) if want.kind == ACTION else None
                entry = author.write(action)
                for d in drivers:
                    if d is not author:
                        d.receive(entry)
            mine.finalize()
            mine.write_final()
            n = len(mine.log)
            if n % every == 0 or mine.machine.finished:
                self.files[n] = self.path.read_bytes()
                self.checkpoints[n] = checkpoint.make(mine.machine, mine.me, self.signers[seat])
        self.seeds = dict(mine.me.seeds)
        mine.close()

    def reopen(self, tmp_path, length: int, data: bytes | None) -> SeatDriver:
        cut = tmp_path / f"cut-{length}.p2plog"
        cut.write_bytes(self.files[length])
        driver = SeatDriver.reopen(cut, self.seat, self.signers[self.seat], self.seeds, checkpoint=data)
        driver.close()
        return driver


def _assert_same_seat(a: SeatDriver, b: SeatDriver) -> None:
    assert [e.hash for e in a.log] == [e.hash for e in b.log]
    _same(a.machine, b.machine, "machine")
    _same(a.me, b.me, "seat")
    assert a.final_len == b.final_len and a.written_len == b.written_len
    if not a.machine.finished:
        assert a.machine.expect() == b.machine.expect()
        assert a.legal_actions() == b.legal_actions()


@pytest.mark.parametrize("game_id,players,seed,seat", [
    ("bura", 2, 1, 0), ("bura", 3, 2, 2), ("warkocz", 3, 3, 1), ("warkocz", 4, 4, 0),
    ("kanasta", 2, 5, 1), ("kanaszta", 2, 6, 0),
])
def test_a_seat_resumed_from_a_checkpoint_is_the_seat_a_full_replay_gives(tmp_path, caplog, game_id, players, seed,
                                                                         seat):
    # The deal's seeds are fresh each run, so the match's length varies: snapshot
    # often, then check at most eight places spread over the whole match.
    game = PlayedMatch(tmp_path, game_id, players, seed, seat, every=7)
    caplog.set_level(logging.WARNING, logger="p2pcards.protocol.driver")
    lengths = sorted(game.files)
    assert len(lengths) >= 3
    step = max(1, len(lengths) // 8)
    for length in sorted(set(lengths[::step]) | {lengths[-1]}):
        full = game.reopen(tmp_path, length, None)
        # The newest checkpoint at or before this place, one further back, and one made right here.
        made = [n for n in lengths if n <= length][-3:]
        for at in made:
            resumed = game.reopen(tmp_path, length, game.checkpoints[at])
            _assert_same_seat(full, resumed)
        assert "not used" not in caplog.text  # every one of them was used
        # Both go on the same way: the seat writes the same next entry.
        if not full.machine.finished and full.due() is not None and full.due().kind != ACTION:
            assert full.me.payload(full.machine, full.due()) == resumed.me.payload(resumed.machine, resumed.due())


@pytest.fixture(scope="module")
def bura(tmp_path_factory):
    return PlayedMatch(tmp_path_factory.mktemp("bura"), "bura", 3, 7, seat=1, every=9)


def _resumed_with(bura, tmp_path, caplog, data) -> str:
    """Reopen the last cut with ``data`` as checkpoint: it must be the full
    replay's seat; returns why the checkpoint was not used ("" if it was)."""
    length = max(n for n in bura.files if n < max(bura.files))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="p2pcards.protocol.driver"):
        resumed = bura.reopen(tmp_path, length, data)
    _assert_same_seat(bura.reopen(tmp_path, length, None), resumed)
    return caplog.text


def _last_checkpoint(bura) -> bytes:
    return bura.checkpoints[max(n for n in bura.files if n < max(bura.files))]


def test_a_fitting_checkpoint_is_used(bura, tmp_path, caplog):
    assert "not used" not in _resumed_with(bura, tmp_path, caplog, _last_checkpoint(bura))


def test_a_checkpoint_past_the_end_of_the_log_is_not_used(bura, tmp_path, caplog):
    # Made after entries that never reached the file (a crash before they were final).
    length = min(bura.files)
    later = bura.checkpoints[max(n for n in bura.files if n < max(bura.files))]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="p2pcards.protocol.driver"):
        resumed = bura.reopen(tmp_path, length, later)
    _assert_same_seat(bura.reopen(tmp_path, length, None), resumed)
    assert "past the end of the log" in caplog.text


def test_a_checkpoint_of_another_game_is_not_used(bura, tmp_path, caplog, tmp_path_factory):
    other = PlayedMatch(tmp_path_factory.mktemp("other"), "bura", 3, 8, seat=1, every=9)
    # Signed with our key, so only the binding to the log can tell.
    machine, me = checkpoint.restore(_last_checkpoint(other), _entries(other), 1, other.signers[1])
    forged = checkpoint.make(machine, me, bura.signers[1])
    assert "not the one it was made at" in _resumed_with(bura, tmp_path, caplog, forged) or \
        "past the end" in caplog.text


def _entries(game) -> list:
    from p2pcards.protocol.log import parse_log

    return list(parse_log(game.files[max(n for n in game.files if n < max(game.files))]).entries)


def test_a_checkpoint_of_another_seat_or_key_is_not_used(bura, tmp_path, caplog):
    entries = _entries(bura)
    machine, me = checkpoint.restore(_last_checkpoint(bura), entries, 1, bura.signers[1])
    # Another seat's key: the MAC does not hold for this seat.
    assert "not made by this seat's key" in _resumed_with(
        bura, tmp_path, caplog, checkpoint.make(machine, me, bura.signers[0]))
    # Our key, but the snapshot says it is another seat's.
    me.seat = 0
    assert "another seat" in _resumed_with(bura, tmp_path, caplog, checkpoint.make(machine, me, bura.signers[1]))


@pytest.mark.parametrize("damage", ["flip", "cut", "empty", "garbage", "mac only"])
def test_damaged_checkpoint_bytes_are_not_used(bura, tmp_path, caplog, damage):
    good = _last_checkpoint(bura)
    bad = {"flip": good[:200] + bytes([good[200] ^ 1]) + good[201:], "cut": good[:len(good) // 2],
           "empty": b"", "garbage": os.urandom(5000), "mac only": good[-32:]}[damage]
    assert "not used" in _resumed_with(bura, tmp_path, caplog, bad)


def test_a_checkpoint_of_other_code_is_not_used(bura, tmp_path, caplog, monkeypatch):
    good = _last_checkpoint(bura)
    monkeypatch.setattr(checkpoint, "code_fingerprint", lambda: b"\0" * 32)
    assert "another version of p2pcards" in _resumed_with(bura, tmp_path, caplog, good)


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_a_hostile_snapshot_builds_nothing_foreign_even_with_a_valid_mac(bura, tmp_path, caplog, monkeypatch):
    """Defence in depth: even a snapshot under the right key may name only
    p2pcards' own classes and plain data."""
    monkeypatch.chdir(tmp_path)
    good = _last_checkpoint(bura)
    start = len(checkpoint.MAGIC) + 4
    length = int.from_bytes(good[len(checkpoint.MAGIC):start], "big")
    out = io.BytesIO()
    pickle.Pickler(out).dump(_Boom())
    import hashlib
    import hmac

    body = good[:start + length] + out.getvalue()
    hostile = body + hmac.new(checkpoint._mac_key(bura.signers[1]), body, hashlib.sha256).digest()
    assert "damaged snapshot" in _resumed_with(bura, tmp_path, caplog, hostile)
    assert not (tmp_path / "pwned").exists()


async def test_a_peer_that_crashed_comes_back_from_its_checkpoint_and_the_match_ends_as_one(tmp_path, monkeypatch,
                                                                                              caplog):
    """Real peers on loopback: seat 1 keeps checkpoints while it plays,
    crashes (no goodbye) some entries after one, and comes back from it; the
    three logs end byte-identical, nobody blamed, and the finished game's
    checkpoint is gone."""
    import trio

    from p2pcards import identity
    from p2pcards.peer import table_peer as peer_module
    from p2pcards.peer import seating
    from p2pcards.peer.seating import SeatConfig, resume_seat, run_seat

    monkeypatch.setattr(peer_module, "CHECKPOINT_EVERY", 4)
    local = "127.0.0.1"
    players, results = 3, {}
    order = SeatOrder(players, local)
    saved = []  # the entries seat 1's checkpoints were made at (only the first is kept)
    state_files = []
    real_checkpointer = seating._checkpointer

    def first_checkpoint_only(log_path):
        save = real_checkpointer(log_path)

        def save_once(data):
            if "seat1" not in log_path or not saved:
                save(data)
            if "seat1" in log_path:
                saved.append(data)
        return save_once

    monkeypatch.setattr(seating, "_checkpointer", first_checkpoint_only)
    key1 = identity.load_or_create(tmp_path / "seat1.pem")

    async def seat(i):
        config = SeatConfig(name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind=local,
                            log_dir=str(tmp_path / f"l{i}"), strategy="random", bot_seed=i)
        if i == 1:
            config.private_key, config.key_path = key1.private_key, str(key1.path)
            config.on_state = state_files.append
        await order.place(config, i, "bura", players,
                          {"table.deals": 1, "table.turn_timeout": 30, "table.rejoin_timeout": 60})
        if i != 1:
            results[i] = await run_seat(config)
            return
        peers = []

        def crash_some_entries_after_the_checkpoint():
            if saved and peers and peers[0].driver.written_len >= 8 + _entry_of(saved[0]):
                peers[0].mesh.vanish()  # a crash: no goodbye
                crashed.cancel()

        with trio.CancelScope() as crashed:
            await run_seat(config, on_driver=peers.append, on_change=crash_some_entries_after_the_checkpoint)
        assert crashed.cancelled_caught
        with caplog.at_level(logging.INFO, logger="p2pcards.protocol.driver"):
            results[i] = await resume_seat(state_files[0])

    with trio.fail_after(180):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    assert "resumed from the checkpoint at entry" in caplog.text and "not used" not in caplog.text
    machine = results[0].driver.machine
    assert machine.finished and not machine.aborted, machine.aborts
    logs = [open(results[i].log_path, "rb").read() for i in range(players)]
    assert logs[0] == logs[1] == logs[2]
    assert not checkpoint.checkpoint_path(results[1].log_path).exists()


def _entry_of(data: bytes) -> int:
    """The entry a checkpoint was made at (its header)."""
    import msgpack

    start = len(checkpoint.MAGIC) + 4
    length = int.from_bytes(data[len(checkpoint.MAGIC):start], "big")
    return msgpack.unpackb(data[start:start + length])["entry"]


def _pickle_naming(module: str, name: str, argument: str) -> bytes:
    """A protocol-4 pickle that calls module.name(argument), where name may be
    dotted (protocol 4 resolves dotted names, so a module's imports are reachable)."""
    def text(s: str) -> bytes:
        raw = s.encode()
        return pickle.SHORT_BINUNICODE + bytes([len(raw)]) + raw

    return (pickle.PROTO + b"\x04" + text(module) + text(name) + pickle.STACK_GLOBAL + text(argument)
            + pickle.TUPLE1 + pickle.REDUCE + pickle.STOP)


@pytest.mark.parametrize("module,name", [
    ("p2pcards.files", "os.system"),  # a module of ours that imports os
    ("p2pcards.protocol.checkpoint", "os.system"),
    ("p2pcards.protocol.machine", "TableMachine.__init__.__globals__"),
    ("p2pcards", "__builtins__"),
    ("builtins", "eval"),
    ("posix", "system"),
])
def test_a_snapshot_naming_anything_off_the_allow_list_is_refused_even_with_a_valid_mac(bura, tmp_path, caplog,
                                                                                       monkeypatch, module, name):
    """The red team's attack (issue 23): ``os.system`` reached through a
    p2pcards module's imports. The snapshot's classes come from a fixed table."""
    import hashlib
    import hmac

    monkeypatch.chdir(tmp_path)
    good = _last_checkpoint(bura)
    start = len(checkpoint.MAGIC) + 4
    length = int.from_bytes(good[len(checkpoint.MAGIC):start], "big")
    body = good[:start + length] + _pickle_naming(module, name, "touch pwned")
    hostile = body + hmac.new(checkpoint._mac_key(bura.signers[1]), body, hashlib.sha256).digest()
    assert "damaged snapshot" in _resumed_with(bura, tmp_path, caplog, hostile)
    assert not (tmp_path / "pwned").exists()
