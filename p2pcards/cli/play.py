"""People at network tables: ``play`` (you and bot peers on this machine),
``host``, ``join`` and ``tables``, each on the full-screen terminal table."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import trio

from p2pcards.cli.args import CliError, default_name, load_identity
from p2pcards.games import get_game
from p2pcards import i18n
from p2pcards.i18n import _, known, ngettext, shown
from p2pcards.net.lobby import NOTICES as LOBBY_NOTICES
from p2pcards.net.tasks import background_tasks
from p2pcards.ui.lobby import join_addresses, options_lines

BOT_NAMES = ["Ada", "Bolek", "Cili", "Dorka", "Emil", "Franek"]
LOBBY_CHAT_LINES = 6  # the lobby's latest chat lines on its screen


def run_table_app(main, ascii: bool = False, summary=None):
    """The full-screen table (``p2pcards.ui.app.run_app``), refused with one
    clear line when there is no terminal to show it on."""
    from p2pcards.ui.app import run_app

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError(_("the table is shown full-screen and needs a terminal; this one's input or output "
                         "is not a terminal (a game between bots: p2pcards selfplay; a bot seat: p2pcards bot)"))
    return run_app(main, ascii=ascii, summary=summary)


class GameFailed(Exception):
    """The game stopped for a reason the player was shown at the table."""


def _proposal_lines(proposal) -> list[str]:
    from p2pcards.peer.seating import split_options

    rules, settings = split_options(proposal.options)
    game = get_game(proposal.game)
    full = game.options(len(proposal.seats), rules)
    # Translators: the table put to a player for acceptance; {players} is a number.
    lines = [_("Table: {game} for {players}").format(game=proposal.game, players=len(proposal.seats))]
    for seat in proposal.seats:
        line = _seat_line(seat)
        lines.append(_("{seat_line}  (you)").format(seat_line=line) if seat.seat == proposal.my_seat else line)
    lines += options_lines(full, settings, proposal.game)
    lines.append(_("Compare the key fingerprints with the players in person. Accept this table? (yes/no)"))
    return lines


def _lobby_lines(view) -> list[str]:
    from p2pcards.peer.seating import split_options

    lines = [_("Waiting for players: {game}, {seated} of {wanted} seated").format(
        game=view.game, seated=len(view.seats), wanted=view.wanted)]
    for seat in view.seats:
        lines.append(_seat_line(seat))
    try:
        rules, settings = split_options(view.options)
        lines += options_lines(get_game(view.game).options(view.wanted, rules), settings, view.game)
    except Exception:  # a game or options no rules accept: the proposal will say so
        pass
    if view.notice:
        lines.append(known(view.notice, LOBBY_NOTICES))  # the host's words, in English on the wire
    return lines


def _seat_line(seat) -> str:
    # Translators: one seat in the lobby; the name is padded to 16 columns before it is inserted.
    return _("  seat {seat}: {name}  key {fingerprint}").format(
        seat=seat.seat, name=f"{seat.name:<16}", fingerprint=seat.fingerprint)


async def _stopped(ui, session, words: str, exc: Exception) -> None:
    """The seat cannot go on. Before any table was shown there is nothing to
    look at: the screen closes and the reason is the command's one line of
    error. At a table, the player reads why and quits when ready."""
    if session.peer is None:
        raise CliError(shown(exc)) from None
    ui.leave_table(words, _("Type quit to leave."))
    try:
        await trio.sleep_forever()
    finally:
        raise GameFailed(str(exc))


def _run_and_report(main, ascii: bool) -> int:
    """Run the table screen; a game that stopped on an error ends the command
    with that reason (one line) and exit code 1, once the player has quit."""
    try:
        run_table_app(main, ascii=ascii, summary=sys.stdout)  # the score sheet stays in the shell
    except GameFailed as exc:
        print("p2pcards: " + _("the game stopped: {reason}").format(reason=exc), file=sys.stderr)
        return 1
    return 0


async def _run_with_ui(ui, config, game_id: str, extra_tasks=None, pinned: list[str] | None = None,
                       on_finish=None) -> None:
    """``pinned``: lines that stay at the top of the lobby screen (the host's
    own address); the list may change while the lobby runs."""
    from p2pcards.ui.network_session import NetworkSession
    from p2pcards.peer.seating import RunError, run_seat

    from p2pcards.net.lobby import LobbyChat

    session = NetworkSession(game_id)
    shown_now: list[str] = []  # the lobby's lines, or the table put to the player
    said: list[str] = []  # the lobby's chat, the latest last
    names: list[str] = []

    def screen() -> list[str]:
        chat = ["", _("Chat (chat TEXT says something to the table):"), *("  " + line for line in said)] if said else []
        return [*shown_now, *chat]

    def show_lobby(lines: list[str] | None = None) -> None:
        if lines is not None:
            shown_now[:] = lines
        ui.set_status(*screen())

    def heard(seat: int, text: str) -> None:
        said.append(f"{names[seat] if seat < len(names) else '?'}: {text}")
        del said[:-LOBBY_CHAT_LINES]
        show_lobby()

    def on_driver(peer) -> None:
        session.attach(peer)
        ui.show(session)

    async def accept(proposal) -> bool:
        names[:] = [s.name for s in proposal.seats]
        shown_now[:] = _proposal_lines(proposal)
        return await ui.ask(screen())

    async def on_update(view) -> None:
        names[:] = [s.name for s in view.seats]
        show_lobby([*(pinned or []), *_lobby_lines(view)])

    if config.accept is None:
        config.accept = accept
    config.on_update = on_update
    config.lobby_chat = LobbyChat(heard)
    ui.lobby_chat = config.lobby_chat.say
    try:
        async with background_tasks() as nursery:
            if extra_tasks is not None:
                nursery.start_soon(extra_tasks, nursery)
            result = await run_seat(config, decide=session.decide, on_driver=on_driver, on_change=session.changed)
    except RunError as exc:
        await _stopped(ui, session, _("The game could not go on: {reason}").format(reason=exc), exc)
    session.changed()
    if on_finish is not None and result.driver.machine.finished:
        on_finish()
    ui.match_logged(result.log_path)
    # The score sheet names the log and how to audit it; the message line stays short for small screens.
    ui.say(_("The log is kept in {path}. Type quit to leave.").format(path=result.log_path), "class:label")
    await trio.sleep_forever()  # the screen stays until the player quits


def play(args) -> int:
    """You against bot peers over loopback: every bot its own process and key."""
    from p2pcards.cli.args import parse_options
    from p2pcards.peer.seating import split_options

    game = get_game(args.game)
    bots = args.bots if args.bots is not None else game.max_players - 1
    players = bots + 1
    if not game.min_players <= players <= game.max_players:
        # Translators: --bots is the option as typed; the players counted include the person.
        raise CliError(_("{game} is played by {min_players} to {max_players} players: --bots takes {low} to {high} "
                         "(the bots besides you)").format(game=game.id, min_players=game.min_players,
                                                          max_players=game.max_players, low=game.min_players - 1,
                                                          high=game.max_players - 1))
    options = parse_options(args.option)
    if args.turn_timeout is not None:
        options["table.turn_timeout"] = args.turn_timeout
    try:
        rules = split_options(options)[0]
        game.options(players, rules)
    except Exception as exc:
        raise CliError(shown(exc)) from None
    ident = load_identity()
    offered = _offer_resume(args, lambda r: r.state.origin == "play" and r.game == args.game
                            and len(r.names) == players and r.state.seat == 0)
    if offered is not None:
        return resume_interactive(args, offered)
    # The bots' keys, logs and state files (their deal seeds among them) are
    # kept beside yours until the game is over, so an unfinished game can be
    # resumed with them; your own log holds the same signed game.
    bots_home = play_bots_dir()
    bots_home.mkdir(parents=True, exist_ok=True, mode=0o700)
    work = tempfile.mkdtemp(prefix="play-", dir=bots_home)
    hangup = signal.signal(signal.SIGHUP, _exit_on_signal)  # a closed terminal window stops the bots too
    terminate = signal.signal(signal.SIGTERM, _exit_on_signal)
    finished: list[bool] = []
    try:
        return _play(args, game, bots, players, options, ident, work, finished)
    finally:
        signal.signal(signal.SIGHUP, hangup)
        signal.signal(signal.SIGTERM, terminate)
        if finished or not any(Path(work).glob("bot*/*.state")):  # over, or it never started
            shutil.rmtree(work, ignore_errors=True)


def play_bots_dir() -> Path:
    """Where ``play`` keeps its bots' files until their game is over."""
    from p2pcards.identity import data_dir

    return data_dir() / "play-bots"


def _exit_on_signal(signum, _frame) -> None:
    raise SystemExit(128 + signum)


def _play(args, game, bots: int, players: int, options: dict, ident, work: str, finished: list) -> int:
    from p2pcards.peer.seating import SeatConfig

    port_box: list[int] = []
    port_ready = trio.Event()

    async def always(_proposal) -> bool:
        return True  # you chose the game and options on the command line

    config = SeatConfig(name=args.name or default_name(), private_key=ident.private_key,
                        game=args.game, players=players, options=options, bind="127.0.0.1", port=0,
                        accept=always, on_port=lambda p: (port_box.append(p), port_ready.set()),
                        key_path=str(ident.path), origin="play")

    async def start_bots(nursery) -> None:
        await port_ready.wait()
        for i in range(bots):
            command = [sys.executable, "-m", "p2pcards", "bot", f"127.0.0.1:{port_box[0]}",
                       "--strategy", args.strategy, "--name", BOT_NAMES[i % len(BOT_NAMES)],
                       "--key", os.path.join(work, f"bot{i}.pem"), "--log-dir", os.path.join(work, f"bot{i}")]
            if args.seed is not None:
                command += ["--seed", f"{args.seed}:{i}"]
            if getattr(args, "think", None) is not None:
                command += ["--think", str(args.think)]
            nursery.start_soon(_run_bot, command, os.path.join(work, f"bot{i}.err"))
            await trio.sleep(0.2)  # seats in order: Ada, Bolek, ...

    async def main(ui) -> None:
        ui.set_status(ngettext("Opening a {game} table on this machine for you and {n} bot…",
                               "Opening a {game} table on this machine for you and {n} bots…", bots)
                      .format(game=args.game, n=bots))
        await _run_with_ui(ui, config, args.game, extra_tasks=start_bots, on_finish=lambda: finished.append(True))

    return _run_and_report(main, args.ascii)


async def _run_bot(command: list[str], errfile: str) -> None:
    """A bot peer in its own process; its errors go to a file, not the screen."""
    with open(errfile, "wb") as err:
        await trio.run_process(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, check=False)


def host_interactive(args) -> int:
    from p2pcards.cli.args import parse_options
    from p2pcards.peer.seating import SeatConfig, split_options

    options = parse_options(args.option)
    if args.turn_timeout is not None:
        options["table.turn_timeout"] = args.turn_timeout
    try:
        rules = split_options(options)[0]
        get_game(args.game).options(args.players, rules)
    except Exception as exc:
        raise CliError(shown(exc)) from None
    ident = load_identity(args.key)
    offered = _offer_resume(args, lambda r: r.state.origin == "host" and r.state.seat == 0 and r.game == args.game
                            and len(r.names) == args.players and r.state.key_path == str(ident.path))
    if offered is not None:
        return resume_interactive(args, offered)
    port = args.port or _("(any)")
    pinned = [_("Hosting {game} for {players}: opening port {port}…").format(
                  game=args.game, players=args.players, port=port),
              _("Your key fingerprint: {fingerprint}").format(fingerprint=ident.fingerprint), ""]

    def on_port(port: int) -> None:
        # The real port (also with --port 0), known once the listener is up.
        addresses = join_addresses(args.bind, port)
        words = dict(game=args.game, players=args.players, address=addresses[0])
        pinned[0] = (_("Hosting {game} for {players}. Others join with: p2pcards join {address}  (or {others})")
                     .format(others=", ".join(addresses[1:]), **words) if addresses[1:] else
                     _("Hosting {game} for {players}. Others join with: p2pcards join {address}").format(**words))
        for ui in screen:
            ui.set_status(*pinned, _("Waiting for players…"))

    screen: list = []  # the UI, once it runs
    config = SeatConfig(name=args.name or default_name(), private_key=ident.private_key, game=args.game,
                        players=args.players, options=options, bind=args.bind, port=args.port,
                        out=args.out, log_dir=args.log_dir, advertise=not args.internet, on_port=on_port,
                        key_path=str(ident.path), origin="host")
    if args.internet:
        from p2pcards.cli.internet import servers

        config.mailbox, config.relay = servers(args)

        def on_codes(codes: list[str]) -> None:
            pinned[0] = _("Hosting {game} for {players} across the internet. Invite codes, one per person: "
                          "{codes}; they join with: p2pcards join CODE").format(
                game=args.game, players=args.players, codes=", ".join(codes) or _("(making them…)"))
            for ui in screen:
                ui.set_status(*pinned, _("Waiting for players…"))

        def on_notice(text: str) -> None:
            from p2pcards.net import WORDS

            for ui in screen:
                ui.set_status(*pinned, known(text, WORDS))

        def on_watch_code(codes: list[str]) -> None:
            for ui in screen:
                for code in codes:
                    ui.say(_("Whoever wants to watch: p2pcards join --watch {code}").format(code=code), "class:label")

        config.on_port = None
        config.on_codes, config.on_notice, config.on_watch_code = on_codes, on_notice, on_watch_code
        on_codes([])

    async def main(ui) -> None:
        screen.append(ui)
        ui.set_status(*pinned)
        await _run_with_ui(ui, config, args.game, pinned=pinned)

    return _run_and_report(main, args.ascii)


def join_interactive(args) -> int:
    from p2pcards.peer.seating import SeatConfig

    address = args.address
    if address is None:
        address = _pick_table()
    if args.watch:
        from p2pcards.cli.internet import InviteCode
        from p2pcards.ui.spectator import watch

        key = load_identity(args.key).private_key if getattr(args, "key", None) else None
        if isinstance(address, InviteCode):
            from p2pcards.cli.internet import servers
            from p2pcards.net.invite import watch_by_code

            mailbox = servers(args)[0]
            name = (getattr(args, "name", None) or "spectator")[:32]
            return watch((str(address), 0), args, private_key=key, run=run_table_app, label=str(address),
                         connect=lambda: watch_by_code(mailbox, address, private_key=key, name=name))
        return watch(address, args, private_key=key, run=run_table_app)
    ident = load_identity(args.key)
    from p2pcards.cli.internet import InviteCode, servers

    code = address if isinstance(address, InviteCode) else None
    # The host's lobby port is the table's address; the host's name for
    # itself may differ from the one typed here, so the port and the key decide.
    offered = None if code else _offer_resume(
        args, lambda r: r.state.origin == "join" and r.state.key_path == str(ident.path)
        and r.seats[0].port == address[1])
    if offered is not None:
        return resume_interactive(args, offered)
    config = SeatConfig(name=args.name or default_name(), private_key=ident.private_key,
                        join=None if code else address, code=code, mailbox=servers(args)[0] if code else None,
                        out=args.out, log_dir=args.log_dir, key_path=str(ident.path), origin="join")

    async def main(ui) -> None:
        ui.set_status(_("Joining with the invite code {code}…").format(code=code) if code else
                      _("Joining the table at {address}…").format(address=f"{address[0]}:{address[1]}"),
                      _("Your key fingerprint: {fingerprint}").format(fingerprint=ident.fingerprint))
        # The game id comes with the table; the session is made once it is known.
        await _run_with_ui(ui, config, None)

    return _run_and_report(main, args.ascii)


def _pick_table() -> tuple[str, int]:
    tables = _browse(3.0)
    if not tables:
        raise CliError(_("no table found on the LAN; join one by address: p2pcards join ADDR:PORT"))
    for i, t in enumerate(tables, 1):
        print(f"{i}. {t.describe()}")
    choice = input(_("Join which table? (number) ")).strip()
    if not choice.isdigit() or not 1 <= int(choice) <= len(tables):
        raise CliError(_("no table chosen"))
    t = tables[int(choice) - 1]
    return t.address, t.port


def _browse(seconds: float):
    try:
        from p2pcards.net.discovery import WORDS, browse_blocking
    except ImportError as exc:
        raise CliError(_("LAN discovery is not available: {reason}").format(reason=exc)) from None
    from p2pcards.net import DiscoveryUnavailable

    try:
        return browse_blocking(seconds)
    except DiscoveryUnavailable as exc:
        raise CliError(known(str(exc), WORDS)) from None


def list_tables(args) -> int:
    tables = _browse(args.seconds)
    if not tables:
        print(_("no table found on the LAN (tables are found over mDNS; join one by address with "
                "p2pcards join ADDR:PORT)"))
        return 0
    for t in tables:
        print(t.describe())
    return 0


def _offer_resume(args, fits) -> str | None:
    """An unfinished game of this table, if the person wants it back: its
    state file; None for a fresh game (``--new``, no such game, or no)."""
    from p2pcards.peer.seating import default_log_dir
    from p2pcards.peer.statefile import resumable_games

    if getattr(args, "new", False) or not sys.stdin.isatty():
        return None
    directory = getattr(args, "log_dir", None) or default_log_dir()
    games = [g for g in resumable_games(directory) if fits(g)]
    if not games:
        return None
    offer = _("You have an unfinished game of this table: {game}.").format(game=games[0].describe())
    # Wrapped at the terminal's width between words (a word cut in two reads badly in Polish).
    print(textwrap.fill(offer, width=max(20, shutil.get_terminal_size().columns - 1)))
    return str(games[0].state_file) if _yes(_("Resume it? (yes/no; no starts a new game) ")) else None


def _yes(question: str) -> bool:
    while True:
        try:
            answer = input(question)
        except EOFError:
            raise CliError(_("no answer given")) from None
        said = i18n.answer(answer)
        if said is not None:
            return said
        print(_("Please answer yes or no."))


def pick_game_to_resume() -> str | None:
    """``p2pcards resume`` alone: the unfinished games, one to pick."""
    from p2pcards.peer.seating import default_log_dir
    from p2pcards.peer.statefile import resumable_games

    directory = default_log_dir()
    games = resumable_games(directory)
    if not games:
        print(_("There is no unfinished game to come back to (games are kept in {directory}).").format(
            directory=directory))
        return None
    for i, g in enumerate(games, 1):
        print(f"{i}. {g.describe()}")
    if not sys.stdin.isatty():
        print(_("Come back to one with: p2pcards resume STATEFILE (the games' state files are in "
                "{directory})").format(directory=directory))
        return None
    try:
        choice = input(_("Come back to which game? (number; Enter: none) ")).strip()
    except EOFError:
        choice = ""
    if not choice:
        return None
    if not choice.isdigit() or not 1 <= int(choice) <= len(games):
        raise CliError(_("no game numbered {choice}").format(choice=repr(choice)))
    return str(games[int(choice) - 1].state_file)


def _companion_bots(state_file: str) -> list[str]:
    """The state files of the bots ``play`` sat at this game, if it was one."""
    name = Path(state_file).name  # GAME-SESSION-seatN.p2plog.state
    prefix = name.rsplit("-seat", 1)[0]
    return sorted(str(p) for p in play_bots_dir().glob(f"play-*/bot*/{prefix}-seat*.p2plog.state")
                  if p.name != name)


async def _resume_bot(state_file: str, errfile: str) -> None:
    """A bot of ``play`` back at its game (if its old process still runs, the
    port it held refuses this one, which then ends)."""
    command = [sys.executable, "-m", "p2pcards", "resume", state_file, "--bot"]
    await _run_bot(command, errfile)


def resume_interactive(args, state_file: str | None = None) -> int:
    """A person back at the table after a crash or a lost connection."""
    from p2pcards.ui.network_session import NetworkSession
    from p2pcards.peer.seating import RunError, resume_seat

    state_file = state_file or args.statefile
    bots = _companion_bots(state_file)

    async def main(ui) -> None:
        session = NetworkSession(None)
        ui.set_status(_("Coming back to the game of {path}…").format(path=state_file),
                      _("Reconnecting to the other players."))

        def on_driver(peer) -> None:
            session.attach(peer)
            ui.show(session)

        try:
            async with background_tasks() as nursery:
                for bot in bots:  # play's bots come back with you
                    nursery.start_soon(_resume_bot, bot, bot + ".err")
                result = await resume_seat(state_file, decide=session.decide, on_driver=on_driver,
                                           on_change=session.changed)
        except RunError as exc:
            await _stopped(ui, session, _("Cannot come back: {reason}").format(reason=exc), exc)
        session.changed()
        if result.driver.machine.finished:
            finished.append(True)
        ui.match_logged(result.log_path)
        ui.say(_("The log is kept in {path}. Type quit to leave.").format(path=result.log_path), "class:label")
        await trio.sleep_forever()

    finished: list[bool] = []
    try:
        return _run_and_report(main, args.ascii)
    finally:
        if finished:  # play's bots' files have done their job
            for work in {Path(bot).parent.parent for bot in bots}:
                shutil.rmtree(work, ignore_errors=True)
