"""People at network tables: ``play`` (you and bot peers on this machine),
``host``, ``join`` and ``tables``, each on the full-screen terminal table."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import trio

from p2pcards.cli import CliError
from p2pcards.games import get_game
from p2pcards.net.tasks import background_tasks

BOT_NAMES = ["Ada", "Bolek", "Cili", "Dorka", "Emil", "Franek"]


def _identity(key_path=None):
    from p2pcards import identity

    try:
        return identity.load_or_create(key_path)
    except identity.IdentityError as exc:
        raise CliError(str(exc)) from None


def run_table_app(main, ascii: bool = False):
    """The full-screen table (``p2pcards.ui.app.run_app``), refused with one
    clear line when there is no terminal to show it on."""
    from p2pcards.ui.app import run_app

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("the table is shown full-screen and needs a terminal; this one's input or output "
                       "is not a terminal (a game between bots: p2pcards selfplay; a bot seat: p2pcards bot)")
    return run_app(main, ascii=ascii)


class GameFailed(Exception):
    """The game stopped for a reason the player was shown at the table."""


def _proposal_lines(proposal) -> list[str]:
    from p2pcards.runner import split_options

    rules, settings = split_options(proposal.options)
    game = get_game(proposal.game)
    full = game.options(len(proposal.seats), rules)
    lines = [f"Table: {proposal.game} for {len(proposal.seats)}"]
    for seat in proposal.seats:
        me = "  (you)" if seat.seat == proposal.my_seat else ""
        lines.append(f"  seat {seat.seat}: {seat.name:<16} key {seat.fingerprint}{me}")
    lines.append("Rules: " + ", ".join(f"{k}={v}" for k, v in sorted(full.items())))
    lines.append("Table: " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items())))
    lines.append("Compare the key fingerprints with the players in person. Accept this table? (yes/no)")
    return lines


def _lobby_lines(view) -> list[str]:
    lines = [f"Waiting for players: {view.game}, {len(view.seats)} of {view.wanted} seated"]
    for seat in view.seats:
        lines.append(f"  seat {seat.seat}: {seat.name:<16} key {seat.fingerprint}")
    if view.notice:
        lines.append(view.notice)
    return lines


async def _stopped(ui, session, words: str, exc: Exception) -> None:
    """The seat cannot go on. Before any table was shown there is nothing to
    look at: the screen closes and the reason is the command's one line of
    error. At a table, the player reads why and quits when ready."""
    if session.peer is None:
        raise CliError(str(exc)) from None
    ui.leave_table(words, "Type quit to leave.")
    try:
        await trio.sleep_forever()
    finally:
        raise GameFailed(str(exc))


def _run_and_report(main, ascii: bool) -> int:
    """Run the table screen; a game that stopped on an error ends the command
    with that reason (one line) and exit code 1, once the player has quit."""
    try:
        run_table_app(main, ascii=ascii)
    except GameFailed as exc:
        print(f"p2pcards: the game stopped: {exc}", file=sys.stderr)
        return 1
    return 0


async def _run_with_ui(ui, config, game_id: str, extra_tasks=None) -> None:
    from p2pcards.netsession import NetworkSession
    from p2pcards.runner import RunError, run_seat

    session = NetworkSession(game_id)

    def on_driver(peer) -> None:
        session.attach(peer)
        ui.show(session)

    async def accept(proposal) -> bool:
        return await ui.ask(_proposal_lines(proposal))

    async def on_update(view) -> None:
        ui.set_status(*_lobby_lines(view))

    if config.accept is None:
        config.accept = accept
    config.on_update = on_update
    try:
        async with background_tasks() as nursery:
            if extra_tasks is not None:
                nursery.start_soon(extra_tasks, nursery)
            result = await run_seat(config, decide=session.decide, on_driver=on_driver, on_change=session.changed)
    except RunError as exc:
        await _stopped(ui, session, f"The game could not go on: {exc}", exc)
    session.changed()
    ui.say(f"The log is kept in {result.log_path}. Audit it with: p2pcards audit {result.log_path}. Type quit to leave.",
           "class:label")
    await trio.sleep_forever()  # the screen stays until the player quits


def play(args) -> int:
    """You against bot peers over loopback: every bot its own process and key."""
    from p2pcards.cli import parse_options
    from p2pcards.runner import SeatConfig, split_options

    game = get_game(args.game)
    bots = args.bots if args.bots is not None else game.max_players - 1
    players = bots + 1
    options = parse_options(args.option)
    if args.turn_timeout is not None:
        options["table.turn_timeout"] = args.turn_timeout
    try:
        rules, _ = split_options(options)
        game.options(players, rules)
    except Exception as exc:
        raise CliError(str(exc)) from None
    ident = _identity()
    work = tempfile.mkdtemp(prefix="p2pcards-play-")
    port_box: list[int] = []
    port_ready = trio.Event()

    async def always(_proposal) -> bool:
        return True  # you chose the game and options on the command line

    config = SeatConfig(name=args.name or os.environ.get("USER", "You")[:32] or "You", private_key=ident.private_key,
                        game=args.game, players=players, options=options, bind="127.0.0.1", port=0,
                        accept=always, on_port=lambda p: (port_box.append(p), port_ready.set()))

    async def start_bots(nursery) -> None:
        await port_ready.wait()
        for i in range(bots):
            command = [sys.executable, "-m", "p2pcards", "bot", f"127.0.0.1:{port_box[0]}",
                       "--strategy", args.strategy, "--name", BOT_NAMES[i % len(BOT_NAMES)],
                       "--key", os.path.join(work, f"bot{i}.pem"), "--log-dir", os.path.join(work, f"bot{i}")]
            if args.seed is not None:
                command += ["--seed", f"{args.seed}:{i}"]
            nursery.start_soon(_run_bot, command, os.path.join(work, f"bot{i}.err"))
            await trio.sleep(0.2)  # seats in order: Ada, Bolek, ...

    async def main(ui) -> None:
        ui.set_status(f"Opening a {args.game} table on this machine for you and {bots} bot(s)…")
        await _run_with_ui(ui, config, args.game, extra_tasks=start_bots)

    return _run_and_report(main, args.ascii)


async def _run_bot(command: list[str], errfile: str) -> None:
    """A bot peer in its own process; its errors go to a file, not the screen."""
    with open(errfile, "wb") as err:
        await trio.run_process(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, check=False)


def host_interactive(args) -> int:
    from p2pcards.cli import parse_options
    from p2pcards.runner import SeatConfig, split_options

    options = parse_options(args.option)
    if args.turn_timeout is not None:
        options["table.turn_timeout"] = args.turn_timeout
    try:
        rules, _ = split_options(options)
        get_game(args.game).options(args.players, rules)
    except Exception as exc:
        raise CliError(str(exc)) from None
    ident = _identity(args.key)
    config = SeatConfig(name=args.name or "host", private_key=ident.private_key, game=args.game,
                        players=args.players, options=options, bind=args.bind, port=args.port,
                        out=args.out, log_dir=args.log_dir, advertise=True)

    async def main(ui) -> None:
        ui.set_status(f"Hosting {args.game} for {args.players} on {args.bind}:{args.port}. "
                      f"Others join with: p2pcards join <this machine's address>:{args.port}",
                      f"Your key fingerprint: {ident.fingerprint}")
        await _run_with_ui(ui, config, args.game)

    return _run_and_report(main, args.ascii)


def join_interactive(args) -> int:
    from p2pcards.runner import SeatConfig

    address = args.address
    if address is None:
        address = _pick_table()
    if args.watch:
        from p2pcards.spectator import watch

        return watch(address, args)
    ident = _identity(args.key)
    config = SeatConfig(name=args.name or "player", private_key=ident.private_key, join=address,
                        out=args.out, log_dir=args.log_dir)

    async def main(ui) -> None:
        ui.set_status(f"Joining the table at {address[0]}:{address[1]}…", f"Your key fingerprint: {ident.fingerprint}")
        # The game id comes with the table; the session is made once it is known.
        await _run_with_ui(ui, config, None)

    return _run_and_report(main, args.ascii)


def _pick_table() -> tuple[str, int]:
    tables = _browse(3.0)
    if not tables:
        raise CliError("no table found on the LAN; join one by address: p2pcards join ADDR:PORT")
    for i, t in enumerate(tables, 1):
        print(f"{i}. {t.describe()}")
    choice = input("Join which table? (number) ").strip()
    if not choice.isdigit() or not 1 <= int(choice) <= len(tables):
        raise CliError("no table chosen")
    t = tables[int(choice) - 1]
    return t.address, t.port


def _browse(seconds: float):
    try:
        from p2pcards.net.discovery import browse_blocking
    except ImportError as exc:
        raise CliError(f"LAN discovery is not available: {exc}") from None
    from p2pcards.net import DiscoveryUnavailable

    try:
        return browse_blocking(seconds)
    except DiscoveryUnavailable as exc:
        raise CliError(str(exc)) from None


def list_tables(args) -> int:
    tables = _browse(args.seconds)
    if not tables:
        print("no table found on the LAN (tables are found over mDNS; join one by address with p2pcards join ADDR:PORT)")
        return 0
    for t in tables:
        print(t.describe())
    return 0


def resume_interactive(args) -> int:
    """A person back at the table after a crash or a lost connection."""
    from p2pcards.netsession import NetworkSession
    from p2pcards.runner import RunError, resume_seat

    async def main(ui) -> None:
        session = NetworkSession(None)
        ui.set_status(f"Coming back to the game of {args.statefile}…", "Reconnecting to the other players.")

        def on_driver(peer) -> None:
            session.attach(peer)
            ui.show(session)

        try:
            result = await resume_seat(args.statefile, decide=session.decide, on_driver=on_driver,
                                       on_change=session.changed)
        except RunError as exc:
            await _stopped(ui, session, f"Cannot come back: {exc}", exc)
        session.changed()
        ui.say(f"The log is kept in {result.log_path}. Type quit to leave.", "class:label")
        await trio.sleep_forever()

    return _run_and_report(main, args.ascii)
