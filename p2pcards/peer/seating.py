"""Running one seat over the network, from the lobby to the finished log.

    endpoint -> lobby (host or join) -> mesh -> entry 0 signed by all -> TablePeer

The table options agreed in the lobby hold the game's rules options plus the
table's own, prefixed ``table.``: ``table.turn_timeout`` (seconds, default 120) and
``table.deals`` (stop after that many deals; 0: play the match out), ``table.pauses``
(pauses each player may ask for in a match, default 2) and ``table.pause_time`` (seconds a
pause may last, default 300).
"""

from __future__ import annotations

import contextlib
import sys
import dataclasses
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from p2pcards.bots import Bot
from p2pcards.games import IllegalAction, get_game
from p2pcards.protocol.log import Entry, LogError, Player, assemble, check_body_signature, sign_body, table_body
from p2pcards.net.agreement import final_msg
from p2pcards.net.tasks import background_tasks
from p2pcards.peer.table_peer import PeerHooks, PeerOptions, TablePeer
from p2pcards.files import REASONS as FILE_REASONS
from p2pcards.files import write_atomically
from p2pcards.i18n import N_, _, known, shown
from p2pcards.peer.seatlock import SeatInUse, hold_new_seat, take_seat
from p2pcards.peer.statefile import SeatState, StateError, state_path
from p2pcards.peer.statefile import damaged as damaged_state
from p2pcards.peer.statefile import load as load_state
from p2pcards.peer.statefile import save as save_state
from p2pcards.protocol.checkpoint import MAX_CHECKPOINT_SIZE, checkpoint_path
from p2pcards.protocol.driver import SeatDriver
from p2pcards.protocol.machine import DEFAULT_PAUSE_TIME, DEFAULT_PAUSES

log = logging.getLogger("p2pcards.peer.seating")

TABLE_PREFIX = "table."
TABLE_DEFAULTS = {"turn_timeout": 120, "rejoin_timeout": 120, "deals": 0, "pauses": DEFAULT_PAUSES,
                  "pause_time": DEFAULT_PAUSE_TIME}
# Settings of earlier versions that no longer exist, and why.
REMOVED_SETTINGS = {
    "proof_rounds": N_("the dealing proofs of protocol version 2 always have full strength "
                       "(2^-128 soundness) and cannot be made weaker"),
}
GENESIS_TIMEOUT = 30.0

if sys.version_info < (3, 11):  # Python 3.10: trio depends on the backport
    from exceptiongroup import BaseExceptionGroup



class RunError(Exception):
    """The seat could not take part or carry on (printed to the user)."""


def split_options(options: dict) -> tuple[dict, dict]:
    """(the game's rules options, the table's own settings with defaults)."""
    rules, table = {}, dict(TABLE_DEFAULTS)
    for key, value in options.items():
        if key.startswith(TABLE_PREFIX):
            name = key[len(TABLE_PREFIX):]
            if name in REMOVED_SETTINGS:
                raise IllegalAction(_("the table setting {key} was removed: {why}").format(
                    key=repr(key), why=_(REMOVED_SETTINGS[name])))
            if name not in TABLE_DEFAULTS:
                raise IllegalAction(_("unknown table setting {key} (settings: {settings})").format(
                    key=repr(key), settings=", ".join(TABLE_PREFIX + k for k in TABLE_DEFAULTS)))
            if type(value) is not int or value < 0:
                raise IllegalAction(_("{key} must be a whole number ≥ 0").format(key=key))
            table[name] = value
        else:
            rules[key] = value
    if table["turn_timeout"] < 1 or table["rejoin_timeout"] < 1:
        raise IllegalAction(_("table.turn_timeout and table.rejoin_timeout must be at least 1 second"))
    return rules, table


@dataclasses.dataclass
class SeatConfig:
    name: str
    private_key: object  # Ed25519PrivateKey (or an identity.Identity's)
    key_path: str | None = None  # where that key is kept (for resume); None: no state file
    game: str | None = None  # host only
    players: int | None = None  # host only
    options: dict = dataclasses.field(default_factory=dict)  # host only: -o overrides
    join: tuple[str, int] | None = None  # joiner: the host's address
    code: str | None = None  # joiner: an invite code instead of an address (an internet table)
    mailbox: str | None = None  # an internet table: the mailbox server where codes meet (ws://...)
    relay: str | None = None  # host of an internet table: the transit relay's HOST:PORT
    on_codes: Callable[[list[str]], None] | None = None  # host: told the open invite codes as they change
    on_notice: Callable[[str], None] | None = None  # host: a burned code, a server in trouble
    on_watch_code: Callable[[list[str]], None] | None = None  # host: the watchers' code, once the table is made
    bind: str = "0.0.0.0"
    port: int = 0
    out: str | None = None
    log_dir: str | None = None
    strategy: str | None = None  # a bot; None: a person through decide()
    seat_strategies: dict = dataclasses.field(default_factory=dict)  # seat -> bot, overriding strategy
    think: float | None = None  # the strong bot's seconds per decision (None: its default)
    bot_seed: object = None
    hooks: Callable[[int], PeerHooks | None] | None = None  # tests: this seat's hooks, made once its seat is known
    on_port: Callable[[int], None] | None = None
    accept: Callable | None = None  # lobby accept hook (None: accept)
    advertise: bool = False  # host: announce the table on the LAN (mDNS) while it fills
    on_update: Callable | None = None
    lobby_chat: object | None = None  # a net.lobby.LobbyChat: the players talk while the table fills
    on_state: Callable[[str], None] | None = None  # told the state file's path once it exists
    origin: str | None = None  # the command taking the seat (play, host, join, bot), kept in the state file


@dataclasses.dataclass
class SeatResult:
    log_path: str
    driver: SeatDriver
    seat: int


def bot_decider(strategy: str, seed=None, think: float | None = None,
                seat_strategies: dict | None = None) -> Callable[[TablePeer], Awaitable[dict]]:
    """The bot of this seat; ``seat_strategies`` (seat -> strategy) picks it
    once the seat is known, for tables whose seats fill in join order."""
    bots: dict[int, Bot] = {}

    async def decide(peer: TablePeer) -> dict:
        await trio.sleep(0)
        if peer.seat not in bots:
            bots[peer.seat] = Bot((seat_strategies or {}).get(peer.seat, strategy), seed, think=think)
        bot = bots[peer.seat]
        state = peer.driver.my_state()
        if bot.strategy == "strong":
            # a search takes up to --think seconds: in a thread, so the peer
            # keeps answering the table meanwhile (states are never changed in place)
            return await trio.to_thread.run_sync(bot.choose, peer.driver.game, state)
        return bot.choose(peer.driver.game, state)

    return decide


async def _always_yes(_proposal) -> bool:
    return True


async def agree_genesis(mesh, table, my_seat: int, signer, rules: dict, settings: dict) -> tuple[Entry, list]:
    """Entry 0, signed by every player; returns it and the mesh events that
    came meanwhile (the first moves of faster peers)."""
    game = get_game(table.game)
    players = len(table.seats)
    try:
        full = game.options(players, rules)
    except IllegalAction as exc:
        raise RunError(_("the table's options are refused: {reason}").format(reason=shown(exc))) from None
    seated = [Player(s.name, s.key, table.contributions[s.seat]) for s in table.seats]
    extra = {"turn_timeout": settings["turn_timeout"], "rejoin_timeout": settings["rejoin_timeout"],
             "deals": settings["deals"], "pauses": settings["pauses"], "pause_time": settings["pause_time"]}
    body = table_body(table.game, full, seated, table.session_id, extra=extra)
    mine = sign_body(body, signer)
    signatures = {my_seat: mine}
    backlog = []
    from p2pcards.net import Message, PeerUp

    await mesh.broadcast({"t": "tablesig", "sig": mine})
    with trio.move_on_after(GENESIS_TIMEOUT):
        while len(signatures) < players:
            event = await mesh.receive()
            if isinstance(event, PeerUp):
                await mesh.send(event.seat, {"t": "tablesig", "sig": mine})
            elif isinstance(event, Message):
                msg = event.msg
                if isinstance(msg, dict) and msg.get("t") == "tablesig":
                    try:
                        check_body_signature(body, table.seats[event.seat].key, msg.get("sig"), event.seat)
                    except LogError as exc:
                        raise RunError(_("seat {seat} signed another table entry: {reason}").format(
                            seat=event.seat, reason=shown(exc))) from None
                    signatures[event.seat] = msg["sig"]
                else:
                    backlog.append(event)
            else:
                backlog.append(event)
    if len(signatures) < players:
        missing = sorted(set(range(players)) - set(signatures))
        raise RunError(_("no signature on the table entry from seat(s) {seats} within {seconds} s").format(
            seats=", ".join(map(str, missing)), seconds=f"{GENESIS_TIMEOUT:g}"))
    return assemble(body, [signatures[s] for s in range(players)]), backlog


def _check_writable(directory: Path) -> None:
    """RunError unless this seat can keep its log and state file in ``directory``."""
    probe = directory / f".p2pcards-probe-{os.getpid()}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"\0" * 4096)  # a full disk refuses this, not just the name
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise RunError(_("cannot keep the game's log in {directory}: {reason} "
                         "(choose another place with --log-dir, or free some space)").format(
            directory=directory, reason=known(str(exc.strerror or exc), FILE_REASONS))) from None


def default_log_dir() -> Path:
    from p2pcards.identity import data_dir

    return data_dir() / "games"


async def run_seat(config: SeatConfig, decide=None, on_driver: Callable[[TablePeer], None] | None = None,
                   on_change: Callable[[], None] | None = None) -> SeatResult:
    """Take a seat (host or join), play the match, return the finished log."""
    from p2pcards.net import WORDS, MeshError, NetError, join_table, open_endpoint, open_mesh
    from p2pcards.net.lobby import HostLobby

    accept = config.accept or _always_yes
    directory = Path(config.log_dir) if config.log_dir else default_log_dir()
    _check_writable(directory)  # before anybody waits for us
    try:
        async with (contextlib.AsyncExitStack() as seat_lock,  # outermost: dropped once the port is closed
                    open_endpoint(config.private_key, config.name, bind=config.bind, port=config.port) as endpoint):
            if config.on_port is not None:
                config.on_port(endpoint.port)
            lobby = None
            if config.join is None and config.code is None:
                rules, _ = split_options(config.options)
                get_game(config.game).options(config.players, rules)  # refuse bad options before anyone joins
                lobby = HostLobby(endpoint, config.game, config.players, options=config.options,
                                  accept=accept, on_update=config.on_update,
                                  advertise=config.advertise and config.relay is None, chat=config.lobby_chat)
                table = await _host_lobby(lobby, config)
            elif config.code is not None:
                table = await _join_by_code(endpoint, config, accept)
            else:
                host, port = config.join
                table = await join_table(endpoint, host, port, accept=accept, on_update=config.on_update,
                                         chat=config.lobby_chat)
            rules, settings = split_options(table.options)
            my_seat = table.seat_of(endpoint.identity.public_key)
            if endpoint.transport is not None:
                _through_relay(endpoint, table, my_seat)
            async with open_mesh(endpoint, table, my_seat) as mesh:
                genesis, backlog = await agree_genesis(mesh, table, my_seat, config.private_key, rules, settings)
                path = directory / f"{table.game}-{table.session_id.hex()[:16]}-seat{my_seat}.p2plog"
                driver = SeatDriver(genesis, my_seat, config.private_key, log_path=path)
                seat_lock.enter_context(hold_new_seat(str(path)))  # held until the port is closed
                if lobby is not None:
                    lobby.spectators.publish(genesis.raw)  # spectators verify from entry 0 (wire.md §5)
                auto_play = None
                if decide is None:
                    decide = bot_decider(config.strategy or "greedy", config.bot_seed, config.think,
                                         config.seat_strategies)
                else:  # a person: when idle, their own client plays for them
                    auto_play = bot_decider("greedy")
                hooks = config.hooks(my_seat) if config.hooks is not None else None
                persist = None
                if config.key_path is not None:
                    state = SeatState(str(path), my_seat, config.name, str(config.key_path), config.bind,
                                      endpoint.port, final_msg(1, table),
                                      strategy=config.seat_strategies.get(my_seat, config.strategy),
                                      origin=config.origin)
                    if endpoint.transport is not None:  # to come back through the same relay
                        state.relay = endpoint.transport.route.address
                        state.relay_secret = endpoint.transport.route.secret
                    persist = _persister(state, driver)
                    persist(None)
                    if config.on_state is not None:
                        config.on_state(str(state_path(path)))
                peer = TablePeer(driver, mesh, decide, peer_options(settings),
                                 on_change=on_change, backlog=backlog, persist=persist, hooks=hooks,
                                 publish=lobby.spectators.publish if lobby is not None else None,
                                 news=lobby.spectators.news if lobby is not None else None,
                                 auto_play=auto_play, checkpoint=_checkpointer(str(path)) if persist else None)
                await _play(peer, on_driver, str(state_path(path)) if persist is not None else None)
                if lobby is not None:
                    lobby.spectators.end("the game is over")
                    await lobby.spectators.drain()  # let slow watchers get the rest before the port closes
    except (NetError, MeshError) as exc:
        raise RunError(known(str(exc), WORDS)) from None
    except (OSError, LogError, StateError) as exc:  # setting up this seat's files
        raise RunError(_storage_failure(exc)) from None
    if config.out:
        _copy_out(path, config.out)
    return SeatResult(str(path), driver, my_seat)


async def _host_lobby(lobby, config: SeatConfig):
    """The host's lobby; for an internet table with invite codes open meanwhile."""
    if config.relay is None:
        return await lobby.run()
    import secrets

    from p2pcards.net.invite import Invitations
    from p2pcards.net.relay import SECRET_LEN, RelayRoute, parse_relay, use_relay

    use_relay(lobby.endpoint, RelayRoute(parse_relay(config.relay), secrets.token_bytes(SECRET_LEN)))
    invitations = Invitations(lobby.endpoint, lobby.table_id, config.mailbox, config.players - 1,
                              on_codes=config.on_codes or (lambda codes: None), on_notice=config.on_notice,
                              on_player=lambda key, address: lobby.address_hints.__setitem__(key, address))
    async with background_tasks() as nursery:
        nursery.start_soon(invitations.run)
        table = await lobby.run()
    # From now on one code for watchers, as long as this seat plays.
    watching = Invitations(lobby.endpoint, lobby.table_id, config.mailbox, 1, on_notice=config.on_notice,
                           on_codes=config.on_watch_code or (lambda codes: None), watchers_only=True)
    lobby.endpoint.start_soon(watching.run)
    return table


async def _join_by_code(endpoint, config: SeatConfig, accept):
    """Redeem the invite code, then join the host it vouches for (directly if
    its own address answers, else through the relay)."""
    from urllib.parse import urlsplit

    from p2pcards.net import join_table
    from p2pcards.net.invite import redeem
    from p2pcards.net.relay import own_address, use_relay

    me = own_address(urlsplit(config.mailbox).hostname or "")
    ticket = await redeem(config.mailbox, config.code, endpoint.identity.public_key, my_address=me)
    use_relay(endpoint, ticket.route)
    host, port = ticket.hint  # tried directly first, then through the relay
    return await join_table(endpoint, host, port, accept=accept, on_update=config.on_update,
                            chat=config.lobby_chat, table_id=ticket.table_id, expect_key=ticket.host_key)


def _through_relay(endpoint, table, my_seat: int, relay: str | None = None, secret: bytes | None = None) -> None:
    """An internet table's mesh: the higher seats dial us through the relay, we
    wait there for them (``relay`` and ``secret``: a seat coming back sets up
    the relay it had)."""
    if relay is not None:
        from p2pcards.net.relay import RelayRoute, parse_relay, use_relay

        use_relay(endpoint, RelayRoute(parse_relay(relay), secret))
    for seat in table.seats[my_seat + 1:]:
        endpoint.transport.accept_from(seat.key)


def peer_options(settings: dict) -> PeerOptions:
    """The table's timeouts."""
    return PeerOptions(turn_timeout=float(settings["turn_timeout"]),
                       rejoin_timeout=float(settings.get("rejoin_timeout", settings["turn_timeout"])))


def _checkpointer(log_path: str):
    """A function that keeps the seat's latest checkpoint beside its state
    file. One that cannot be saved leaves the one before, which still fits."""
    target = checkpoint_path(log_path)

    def save_checkpoint(data: bytes) -> None:
        try:
            write_atomically(target, data, private=True)
        except OSError as exc:
            log.warning("cannot save the checkpoint %s: %s", target, exc.strerror or exc)

    return save_checkpoint


def _read_checkpoint(log_path: str) -> bytes | None:
    """The seat's checkpoint, if there is one (restore checks it)."""
    try:
        with open(checkpoint_path(log_path), "rb") as f:
            return f.read(MAX_CHECKPOINT_SIZE + 1)
    except OSError:
        return None


def _forget_checkpoint(log_path: str) -> None:
    """A finished game needs no checkpoint."""
    try:
        os.unlink(checkpoint_path(log_path))
    except OSError:
        pass


def _persister(state: SeatState, driver: SeatDriver):
    """A function that saves the seat's state file: the deal seeds so far
    and the entry about to be sent."""
    target = state_path(state.log_path)

    def persist(pending: bytes | None) -> None:
        state.seeds = dict(driver.me.seeds)
        state.pending = pending
        save_state(target, state)

    return persist


async def resume_seat(state_file: str, decide=None, strategy: str | None = "greedy", bot_seed=None,
                      on_driver=None, on_change=None, out: str | None = None, hooks=None) -> SeatResult:
    """A seat coming back to its game after a crash or a lost connection."""
    from p2pcards import identity
    from p2pcards.net.errors import ProtocolError
    from p2pcards.net.agreement import parse_final_msg

    try:
        state = load_state(state_file)
        ident = identity.load(state.key_path)
        table = parse_final_msg(state.table)[1]
        if state.seat >= len(table.seats):
            raise damaged_state("seat")
        if table.seats[state.seat].key != ident.public_bytes:
            raise damaged_state("key")
    except (StateError, identity.IdentityError, ProtocolError) as exc:
        raise RunError(_("cannot resume from {path}: {reason}").format(path=state_file, reason=shown(exc))) from None
    # Before the log is read: an earlier process of this seat (a window just
    # closed) may still be writing it and holding this seat's port.
    try:
        seat_lock = await take_seat(state.log_path)
    except SeatInUse as exc:
        raise RunError(str(exc)) from None
    except OSError as exc:
        raise RunError(_("cannot resume from {path}: cannot open {log}: {reason}").format(
            path=state_file, log=state.log_path, reason=known(exc.strerror or str(exc), FILE_REASONS))) from None
    try:
        return await _resume_held_seat(state, state_file, ident, table, decide, strategy, bot_seed,
                                       on_driver, on_change, out, hooks)
    finally:
        os.close(seat_lock)  # only now: the port and the log are closed


async def _resume_held_seat(state, state_file, ident, table, decide, strategy, bot_seed, on_driver, on_change,
                            out, hooks) -> SeatResult:
    from p2pcards.net import WORDS, MeshError, NetError, open_endpoint, open_mesh

    try:
        driver = SeatDriver.reopen(state.log_path, state.seat, ident.private_key, state.seeds,
                                   checkpoint=_read_checkpoint(state.log_path))
    except LogError as exc:
        raise RunError(_("cannot resume from {path}: {reason}").format(path=state_file, reason=shown(exc))) from None
    if driver.machine.finished:
        raise RunError(_("the game of {path} is already over").format(path=state.log_path))
    extra = driver.log.table.extra if isinstance(driver.log.table.extra, dict) else {}
    settings = {"turn_timeout": extra.get("turn_timeout", TABLE_DEFAULTS["turn_timeout"]),
                "rejoin_timeout": extra.get("rejoin_timeout", TABLE_DEFAULTS["rejoin_timeout"])}
    auto_play = None
    if decide is None:
        decide = bot_decider(state.strategy or strategy or "greedy", bot_seed)
    else:  # a person: when idle, their own client plays for them
        auto_play = bot_decider("greedy")
    persist = _persister(state, driver)
    try:
        async with open_endpoint(ident.private_key, state.name, bind=state.bind, port=state.port) as endpoint:
            if state.relay is not None:
                _through_relay(endpoint, table, state.seat, state.relay, state.relay_secret)
            async with open_mesh(endpoint, table, state.seat, ready_timeout=None) as mesh:
                log.info("seat %d: resuming %s at entry %d", state.seat, state.log_path, len(driver.log))
                spectators = _serve_spectators_again(endpoint, table, driver) if state.seat == 0 else None
                peer = TablePeer(driver, mesh, decide, peer_options(settings), on_change=on_change,
                                 persist=persist, pending=state.pending, auto_play=auto_play,
                                 hooks=hooks(state.seat) if hooks is not None else None,
                                 checkpoint=_checkpointer(state.log_path),
                                 publish=spectators.publish if spectators is not None else None,
                                 news=spectators.news if spectators is not None else None)
                peer._publish_final()  # the log so far, for spectators who come back with the host
                with trio.CancelScope() as alone:
                    async with background_tasks() as nursery:
                        nursery.start_soon(_give_up_if_alone, mesh, settings["rejoin_timeout"], alone)
                        await _play(peer, on_driver, state_file)
                if spectators is not None and peer.machine.finished:
                    spectators.end("the game is over")
                    await spectators.drain()
                if alone.cancelled_caught:
                    raise RunError(_("nobody from this table answered for {seconds} s, as long as the others "
                                     "wait for a player to come back: the game is over without this seat; its "
                                     "log so far is {path}").format(seconds=f"{settings['rejoin_timeout']:g}",
                                                                    path=state.log_path))
    except (NetError, MeshError) as exc:
        raise RunError(known(str(exc), WORDS)) from None
    if out:
        _copy_out(state.log_path, out)
    return SeatResult(state.log_path, driver, state.seat)


def _serve_spectators_again(endpoint, table, driver):
    """The host back at its game: spectators watch at its port again (wire.md
    §5), from entry 0, as they did before it left."""
    from p2pcards.net.spectate import SpectatorHub

    hub = SpectatorHub(table.table_id)
    endpoint.register("watch", hub)
    hub.set_final(final_msg(1, table))
    hub.publish(driver.log[0].raw)
    return hub


async def _give_up_if_alone(mesh, timeout: float, scope: trio.CancelScope) -> None:
    """A seat coming back waits for the others as long as they wait for it;
    if none of them answers by then, they have finished without it."""
    if not await mesh.wait_any_connected(timeout):
        scope.cancel()


async def _play(peer: TablePeer, on_driver, state_file: str | None = None) -> None:
    """Play on to the end of the match; the log file is closed whatever happens.
    A disk that refuses the log or the state file stops this seat as a crash
    would (no bye), so it can come back once there is room."""
    if on_driver is not None:
        on_driver(peer)
    try:
        await peer.run()
    except BaseException as exc:
        failure = _storage_failure(exc)
        if failure is None:
            raise
        peer.mesh.vanish()
        if state_file:
            raise RunError(_("the game stopped here: {reason}; once it can, come back with: "
                             "p2pcards resume {path}").format(reason=failure, path=state_file)) from None
        raise RunError(_("the game stopped here: {reason}").format(reason=failure)) from None
    finally:
        peer.driver.close()
    if peer.machine.finished and peer.driver.file is not None:
        _forget_checkpoint(peer.driver.file.path)


def _storage_failure(exc: BaseException) -> str | None:
    """What went wrong writing the seat's files, if that is why ``exc`` came
    (it may come wrapped in exception groups from the peer's tasks)."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _storage_failure(inner)
            if found is not None:
                return found
        return None
    if isinstance(exc, (LogError, StateError)):
        return str(exc)
    if isinstance(exc, OSError):
        reason = known(str(exc.strerror or exc), FILE_REASONS)
        if exc.filename:
            return _("cannot write {path}: {reason}").format(path=exc.filename, reason=reason)
        return _("cannot write: {reason}").format(reason=reason)
    return None


def _copy_out(path, out) -> None:
    out = Path(out)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, Path(path).read_bytes())
