"""Helpers shared by the tests (no tests here): one place for what several
test modules need, so no test module imports another.

- rule tests: ``act``, ``refused``, ``meld``, ``canasta_deal``, ``crafted``;
- matches between seat drivers in one process, entries passed by hand (the
  table protocol without the network): ``make_genesis``, ``run_match``,
  ``play_out``, ``frames``;
- real peers over loopback TCP in one trio run: ``play_network_match``;
- the network layer: ``new_key``, ``frame``, ``poke``, ``Recorder``,
  ``reasons``, ``net_logging``, ``make_table``, ``Seats``;
- the command as a person runs it: ``run_cli``, ``environment``;
- a real terminal: ``Terminal`` (tmux);
- waiting on a condition inside trio: ``until``.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import os
import pty
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgpack
import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2pcards import mental
from p2pcards.bots import Bot
from p2pcards.bots.strong.arena import KnowledgeTable
from p2pcards.cards import canasta_deck
from p2pcards.games import IllegalAction, get_game
from p2pcards.games.canasta import KIND, Meld
from p2pcards.identity import Identity
from p2pcards.net import open_endpoint
from p2pcards.protocol import log as L
from p2pcards.protocol.log import HEADER, Player, assemble, entry_hash, sign_body, table_body
from p2pcards.protocol.machine import ACTION, END, REKEY, SHUFFLE
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.knowledge import token_deck

if TYPE_CHECKING:
    from fuzz import kit

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCAL = "127.0.0.1"


# ----- waiting -----------------------------------------------------------------------------------
async def until(predicate, timeout: float = 60, step: float = 0.002):
    """Wait for ``predicate()``; ``timeout`` is a safety net for a hung test,
    not a timing assertion."""
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(step)


# ----- rule tests --------------------------------------------------------------------------------
def act(game, state, *actions):
    for a in actions:
        state = game.apply(state, a)
    return state


def refused(game, state, action, words):
    """``action`` is refused with ``words`` and leaves ``state`` as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction, match=words):
        game.apply(state, action)
    assert state == before


def meld(*cards):
    return {"type": "meld", "cards": list(cards)}


def canasta_deal(game, deck, players, **kw):
    """A canasta deal from ``deck``, its forced red 3 setup done."""
    return finish_setup(game, game.start(players, deck=deck, **kw))


def finish_setup(game, state):
    """Play the forced red 3 setup of a canasta deal (kanaszta's only)."""
    while state.phase == "setup":
        (only,) = game.legal_actions(state)
        state = game.apply(state, only)
    return state


def crafted(game, melds=(), hands=None, red3s=None, went_out=-1, concealed=False, players=4, options=None,
            seed=1):
    """A finished canasta deal set up directly, for the scoring rules: melds
    are (seat, cards), or (seat, rank, cards) where the first card does not
    name the rank (a meld of wild cards); the owner is the seat's side."""
    s = game.start(players, seed=seed, options=options).evolve()
    s.phase = "over"
    s.melds = []
    s.meld_value_by = [0] * players
    for seat, *rank, cards in melds:
        wild = sum(c == "JK" or c[:-1] == "2" for c in cards)
        rank = rank[0] if rank else cards[0][:-1]
        s.melds.append(Meld(game.owner_of(s, seat), seat, rank, list(cards), len(cards) - wild, wild))
        s.meld_value_by[seat] += sum(game.value(c) for c in cards)
    s.hands = hands if hands is not None else [[] for _ in range(players)]
    s.red3s = red3s if red3s is not None else [[] for _ in range(players)]
    s.went_out, s.concealed = went_out, concealed
    return s


# ----- matches between seat drivers in one process -----------------------------------------------
def public_bytes(key) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def make_genesis(game_id, players, options=None, signers=None):
    signers = signers or [Ed25519PrivateKey.generate() for _ in range(players)]
    opts = get_game(game_id).options(players, options or {})
    seated = [Player(f"player{i}", public_bytes(k), os.urandom(32)) for i, k in enumerate(signers)]
    body = table_body(game_id, opts, seated, os.urandom(16), extra={})
    return assemble(body, [sign_body(body, k) for k in signers]), signers


def run_match(game_id, players, options=None, strategy="random", seed=0, max_entries=200000):
    genesis, signers = make_genesis(game_id, players, options)
    drivers = [SeatDriver(genesis, i, signers[i]) for i in range(players)]
    bots = [Bot(strategy, seed * 100 + i) for i in range(players)]
    return play_out(drivers, bots, max_entries)


def sign_the_end(drivers) -> None:
    """Every seat not blamed signs the end body; every driver takes the end entry."""
    body = drivers[0].end_body()
    signatures = {d.seat: d.sign_end(body) for d in drivers if d.seat in drivers[0].end_signers()}
    for d in drivers:
        d.finish(body, signatures)


def play_out(drivers, bots, max_entries=200000):
    """Every seat writes its entries in turn and every other seat takes them
    in, to the end of the match; returns the drivers."""
    game = drivers[0].game
    for _ in range(max_entries):
        machine = drivers[0].machine
        if machine.finished:
            return drivers
        want = machine.expect()
        if want.kind == END:
            sign_the_end(drivers)
            continue
        author = drivers[want.author]
        action = bots[want.author].choose(game, author.my_state()) if want.kind == ACTION else None
        entry = author.write(action)
        for d in drivers:
            if d is not author:
                d.receive(entry)
    raise AssertionError("the match did not end")


def frames(data: bytes) -> list[bytes]:
    """A log file's entries, each with its 4-byte length prefix (for cutting
    and splicing files in tests)."""
    out, i = [], len(HEADER)
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        out.append(data[i:i + 4 + n])
        i += 4 + n
    return out


# ----- real peers over loopback ------------------------------------------------------------------
class SeatOrder:
    """A hosted table filled in seat order: seat 0 opens it, seat i joins once
    the lobby shows seat i - 1 seated (waiting on the lobby's own updates)."""

    def __init__(self, players: int, host: str = LOCAL):
        self.host = host
        self.port: list[int] = []
        self._port_ready = trio.Event()
        self._seated = [trio.Event() for _ in range(players)]
        self._seated[0].set()

    def _opened(self, port: int) -> None:
        self.port.append(port)
        self._port_ready.set()

    async def place(self, config, i: int, game: str, players: int, options: dict) -> None:
        """Make ``config`` seat ``i``'s: the host's table, or a join in its turn."""
        if i == 0:
            config.game, config.players, config.options, config.on_port = game, players, options, self._opened
            return
        await self._port_ready.wait()
        await self._seated[i - 1].wait()
        config.join = (self.host, self.port[0])
        config.on_update = lambda view: self._seated[i].set() if len(view.seats) > i else None


async def play_network_match(game, players, options=None, tmp_path=None, strategy="random", cheat=None,
                             cheater=None, seed=0, turn_timeout=5, fail_after=300):
    """Each seat runs the same ``run_seat`` a player's process runs (lobby,
    mesh, signed entry 0, TablePeer)."""
    from p2pcards.peer.seating import SeatConfig, run_seat
    from p2pcards.testing import seat_hooks

    options = dict(options or {})
    options.setdefault("table.turn_timeout", turn_timeout)
    options.setdefault("table.rejoin_timeout", turn_timeout)
    results = {}
    order = SeatOrder(players)

    async def seat(i):
        config = SeatConfig(
            name=f"p{i}", private_key=Ed25519PrivateKey.generate(), bind=LOCAL, port=0,
            log_dir=str(tmp_path / f"logs{i}"), strategy=strategy, bot_seed=f"{seed}:{i}",
            hooks=seat_hooks(cheat, cheater),
        )
        await order.place(config, i, game, players, options)
        results[i] = await run_seat(config)

    with trio.fail_after(fail_after):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(seat, i)
    return [results[i] for i in range(players)]


# ----- the network layer -------------------------------------------------------------------------
def new_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def frame(msg) -> bytes:
    from p2pcards.net.framing import HEADER

    body = msgpack.packb(msg, use_bin_type=True)
    return HEADER.pack(len(body)) + body


async def poke(port: int, data: bytes, *, wait: float = 5.0, host: str = LOCAL) -> bytes:
    """Send raw bytes to a port; return what came back before the peer closed (or ``wait`` ran out)."""
    stream = await trio.open_tcp_stream(host, port)
    got = b""
    async with stream:
        if data:
            try:
                await stream.send_all(data)
            except trio.BrokenResourceError:
                return got
        with trio.move_on_after(wait):
            while len(got) < 1 << 20:
                try:
                    chunk = await stream.receive_some(65536)
                except trio.BrokenResourceError:
                    break
                if not chunk:
                    break
                got += chunk
    return got


class Recorder(trio.abc.Stream):
    """A stream wrapper that keeps a copy of everything sent through it."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.sent = bytearray()

    async def send_all(self, data) -> None:
        self.sent += data
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes=None) -> bytes:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


def reasons(caplog) -> str:
    """All net log messages, joined, for `in` checks."""
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("p2pcards.net"))


def net_logging(caplog) -> None:
    caplog.set_level(logging.INFO, logger="p2pcards.net")


def make_table(endpoints, game: str = "bura", options=None):
    """A final table for endpoints already listening, without running a lobby."""
    import secrets

    from p2pcards import PROTOCOL_VERSION
    from p2pcards.net.agreement import SeatInfo, TableDescription, compute_session_id

    seats = tuple(SeatInfo(i, ep.identity.name, ep.identity.public_key, LOCAL, ep.port)
                  for i, ep in enumerate(endpoints))
    contribs = tuple(secrets.token_bytes(32) for _ in seats)
    tid = secrets.token_bytes(16)
    options = options or {}
    return TableDescription(tid, game, options, PROTOCOL_VERSION, seats, contribs,
                            compute_session_id(tid, PROTOCOL_VERSION, game, options, seats, contribs))


class Seats:
    """Lets a test wait until the host's lobby shows a given number of seats."""

    def __init__(self) -> None:
        self.views = []
        self._changed = trio.Event()

    def __call__(self, view) -> None:
        self.views.append(view)
        self._changed.set()
        self._changed = trio.Event()

    async def wait(self, n: int) -> None:
        while not self.views or len(self.views[-1].seats) != n:
            await self._changed.wait()


# ----- the command as a person runs it -----------------------------------------------------------
@dataclass
class Outcome:
    code: int
    stderr: str

    def one_clear_line(self) -> str:
        """The error, checked to be one line and no traceback; returns it."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        assert "Traceback" not in self.stderr, self.stderr
        assert len(lines) == 1, self.stderr
        assert self.code != 0
        return lines[0]


def environment(home) -> dict:
    env = dict(os.environ, P2PCARDS_HOME=str(home), TERM="xterm", PYTHONUNBUFFERED="1")
    env.pop("P2PCARDS_LOG", None)
    return env


def run_cli(args: list[str], home, *, tty: bool = False, stdin=subprocess.DEVNULL, timeout: float = 90) -> Outcome:
    """Run the p2pcards command in a real process, optionally on a
    pseudo-terminal (the table needs one); stderr comes back apart."""
    command = [sys.executable, "-m", "p2pcards", *args]
    if not tty:
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=environment(home), timeout=timeout, text=True)
        return Outcome(done.returncode, done.stderr)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=environment(home),
                                text=True)
    finally:
        os.close(slave)

    def drain() -> None:  # the screen's output must go somewhere or the app blocks
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return Outcome(proc.returncode, err)


# ----- a real terminal ---------------------------------------------------------------------------
class Terminal:
    """A terminal on a tmux server of its own (``-L``): no race with other
    tests' servers starting or stopping, in this process or another."""

    def __init__(self, name: str, command: str, columns: int = 80, rows: int = 24):
        self.name = name
        self.tmux = ["tmux", "-L", name]
        subprocess.run(self.tmux + ["new-session", "-d", "-s", name, "-x", str(columns), "-y", str(rows), command],
                       check=True)

    def screen(self) -> str:
        return subprocess.run(self.tmux + ["capture-pane", "-p", "-t", self.name],
                              capture_output=True, text=True).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(self.tmux + ["send-keys", "-t", self.name, *keys], check=True)

    def wait_for(self, predicate, what: str, timeout: float = 60.0) -> str:
        # A safety net for a hung game, not a timing assertion.
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"never saw {what}; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(self.tmux + ["kill-server"], capture_output=True)


# ----- moved from test_canasta_props.py -------------------------------------
def build_deck(game_id, players, hands, after=(), dealer=0):
    """A whole deck dealing ``hands`` ({seat: [codes]}, topped up with plain
    naturals) and then ``after`` (the upcard(s), then the stock from the top)."""
    game = get_game(game_id)
    pool = canasta_deck()
    for cards in list(hands.values()) + [list(after)]:
        for c in cards:
            pool.remove(c)
    # Fillers: naturals first, spread over ranks so that they make few melds;
    # 3s and wilds last, deep in the stock.
    pool.sort(key=lambda c: (KIND[c] != "N", c[-1], c[:-1]))
    full = {s: list(hands.get(s, [])) for s in range(players)}
    for s in range(players):
        while len(full[s]) < game.hand_size:
            full[s].append(pool.pop(0))
    deck = []
    for k in range(game.hand_size):
        for j in range(players):
            deck.append(full[(dealer + 1 + j) % players][k])
    return deck + list(after) + pool


MELDING = ("meld", "add", "take_pile", "swap")


def card_class(card: str) -> str:
    """A card up to suit equivalence inside a meld: its rank (a 2 is a 2, a joker a joker)."""
    return card if card == "JK" or card.startswith("?") else card[:-1]


def action_class(action: dict):
    """What ``legal_actions`` lists once: melding actions up to the suits of
    their cards, every other action as it is."""
    if action.get("type") not in MELDING:
        return repr(sorted(action.items()))
    return (action["type"], action.get("meld"), card_class(action["wild"]) if "wild" in action else None,
            tuple(sorted(card_class(c) for c in action.get("cards", []))))


def listed(action: dict, legal: list[dict]) -> bool:
    """Is ``action`` among ``legal`` up to suit equivalence?"""
    want = action_class(action)
    return any(action_class(a) == want for a in legal)


def places(game, state):
    """Every card of the deal, wherever it lies."""
    out = Counter()
    for h in state.hands:
        out.update(h)
    out.update(state.stock)
    out.update(state.pile)
    for m in state.melds:
        out.update(m.cards)
    for r in state.red3s:
        out.update(r)
    return out


# ----- moved from test_strong_bot.py ----------------------------------------
def opening_state(game, players, deck):
    """The state of the seat to act at the start of a deal from ``deck``,
    built the way a peer builds it (public tokens plus what it was shown)."""
    match = game.new_match(players, None, 0)
    table = KnowledgeTable(game, players, deck)
    public, _, _ = table.retrying(
        lambda d, _: game.start(players, deck=d, dealer=match.dealer, options=match.options,
                                scores=list(match.scores), **game.deal_context(match)),
        token_deck(len(deck)))
    public = table.settle(public)
    seat = game.to_act(public)
    return seat, table, table.seat_state(public, seat)


# ----- moved from test_log.py -----------------------------------------------
def ids_for(n, salt=b""):
    """Deterministic keys, so failures reproduce."""
    return [Identity.from_seed(hashlib.sha256(b"test key %d" % i + salt).digest()) for i in range(n)]


def genesis(ids, game="bura", session=b"session-0123", options=None, nonce_salt=b""):
    players = [L.Player(f"player {i}", x.public_bytes, hashlib.sha256(b"nonce%d" % i + nonce_salt).digest())
               for i, x in enumerate(ids)]
    body = L.table_body(game, options or {"target": 7}, players, session)
    return L.assemble(body, [L.sign_body(body, x) for x in ids])


def build_log(n_players=3, moves=10, end=True, salt=b"", session=b"session-0123", game="bura"):
    """A real log: table entry, ``moves`` entries in seat rotation, end entry."""
    ids = ids_for(n_players, salt)
    log = L.GameLog()
    log.append(genesis(ids, game=game, session=session, nonce_salt=salt))
    for i in range(moves):
        seat = i % n_players
        log.append(log.make_next(seat, "move", {"type": "play", "cards": ["KH"], "i": i}, ids[seat]))
    if end:
        body = log.end_body({"result": "finished", "scores": [1, -1, 0][:n_players]})
        log.append(L.assemble(body, [x.sign(body) for x in ids]))
    return log, ids


# ----- moved from test_fuzz_entries.py --------------------------------------
def rebuild(m: kit.Match, entries: list[list], start: int, end_sigs: list[bool] | None = None) -> bytes:
    """The file of ``entries`` (body fields), re-signed and re-chained from
    ``start`` on. A shuffle proof is bound to the hash before it, so every
    shuffle after ``start`` is proved again (with the seat's true secrets) for
    its new place, as the colluding players would have to; so is every re-key
    after ``start`` (the one at ``start`` keeps its place, and a change to it
    must stand as made)."""
    from p2pcards.protocol import dealing

    session = m.genesis.payload["session"]
    raws = [e.raw for e in m.entries[:start]]
    prev = m.entries[start - 1].hash

    def deck_before(i: int) -> list[bytes]:
        for e in reversed(entries[:i]):
            if e[3] == REKEY and e[2] < entries[i][2] and entries[i][3] == REKEY:
                blob = e[4]["rekey"]["deck"]
                break
            if e[3] == SHUFFLE:
                if entries[i][3] == SHUFFLE and e[2] >= entries[i][2]:
                    return dealing.initial_deck(m.game)
                blob = e[4]["shuffle"]["deck"]
                break
        else:
            return dealing.initial_deck(m.game)
        return [blob[j:j + 33] for j in range(0, len(blob), 33)]

    for i, f in enumerate(entries[start:], start=start):
        f = copy.deepcopy(list(f))
        f[0], f[1] = i, prev
        step = f[3] if f[3] in (SHUFFLE, REKEY) and (f[3] == SHUFFLE or i > start) else None
        if step and isinstance(f[4], dict) and f[4].get("deal") in m.seeds[f[2]]:
            deal, seat = f[4]["deal"], f[2]
            entries[i] = f
            deck_in = deck_before(i) if seat > 0 or step == REKEY else dealing.initial_deck(m.game)
            ctx = dealing.context(session, deal, seat, step, prev)
            secrets = mental.DealSecrets(m.seeds[seat][deal])
            if step == SHUFFLE:
                f[4]["shuffle"] = mental.shuffle_step(secrets, deck_in, ctx)
            else:
                f[4]["rekey"] = mental.rekey_step(secrets, deck_in, ctx)
            entries[i] = f
        body = msgpack.packb(f, use_bin_type=True)
        if f[3] == END:
            sigs = [k.sign(body) if (end_sigs is None or end_sigs[s]) else None for s, k in enumerate(m.signers)]
        else:
            sigs = m.signers[f[2]].sign(body)
        raws.append(msgpack.packb([body, sigs], use_bin_type=True))
        prev = entry_hash(body)
    return HEADER + b"".join(len(r).to_bytes(4, "big") + r for r in raws)


# ----- moved from test_net_mesh.py ------------------------------------------
class Endpoints:
    """Open n endpoints on loopback for the duration of a block."""

    def __init__(self, n: int, **kwargs) -> None:
        self.n, self.kwargs, self.keys = n, kwargs, [new_key() for _ in range(n)]

    async def __aenter__(self):
        self._stack = trio.open_nursery()
        self.eps = []
        self._cms = [open_endpoint(k, f"seat{i}", bind=LOCAL, **self.kwargs) for i, k in enumerate(self.keys)]
        for cm in self._cms:
            self.eps.append(await cm.__aenter__())
        return self

    async def __aexit__(self, *exc):
        for cm in reversed(self._cms):
            await cm.__aexit__(None, None, None)


# ----- moved from test_net_discovery.py -------------------------------------
def multicast_loopback_problem() -> str | None:
    """None if a multicast datagram sent on 127.0.0.1 comes back to us here, else why not."""
    group = "224.0.0.251"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
            rx.bind(("", 0))
            rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                          struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("127.0.0.1")))
            rx.settimeout(1.0)
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            tx.sendto(b"probe", (group, rx.getsockname()[1]))
            return None if rx.recv(64) == b"probe" else "multicast probe came back altered"
    except OSError as exc:
        return f"multicast on loopback does not work here: {exc}"


class FakeMesh:
    """A mesh that only records what a peer sends: (seat, message), seat None for a broadcast."""

    def __init__(self):
        self.sent: list[tuple[int | None, dict]] = []

    async def broadcast(self, msg):
        self.sent.append((None, msg))

    async def send(self, seat, msg):
        self.sent.append((seat, msg))
        return True

    def queued_bytes(self, seat):
        return 0


class MeshWrapper:
    """A seat's mesh with some of its traffic changed by a subclass (a cheat,
    a lost message): whatever the subclass does not override goes to the
    real mesh, incoming events included."""

    def __init__(self, mesh):
        self._mesh = mesh

    def __getattr__(self, name):
        return getattr(self._mesh, name)

    def __aiter__(self):
        return self

    async def __anext__(self):
        return await self._mesh.__anext__()
