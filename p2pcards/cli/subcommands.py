"""The subcommands beyond ``rules`` and ``keygen``: tables, bots, selfplay,
audit and replay. ``p2pcards.cli`` adds them to its parser through ``register``."""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
import re
from functools import partial

from p2pcards.cli.args import CliError, game_id, load_identity, parse_options, rank_options
from p2pcards import i18n
from p2pcards.i18n import N_, _, shown

DEFAULT_SELFPLAY_TIMEOUT = 10


DEFAULT_PORT = 7531  # net.endpoint.DEFAULT_PORT: a table's port when none is typed (not imported: --help starts fast)


# HOST:PORT, HOST, [IPv6]:PORT, [IPv6], or an IPv6 address without brackets (it has two colons or more).
_ADDRESS = re.compile(r"\[(?P<v6>[^\[\]\s/]+)\](?::(?P<v6port>\d{1,5}))?"
                      r"|(?P<host>[^\[\]\s/:]+)(?::(?P<port>\d{1,5}))?"
                      r"|(?P<bare>[^\[\]\s/]*:[^\[\]\s/]*:[^\[\]\s/]*)")


def _address(text: str) -> tuple[str, int]:
    """Where a table is, as typed after ``join``/``bot``; with no port, 7531.
    The one place an address is read from the command line."""
    m = _ADDRESS.fullmatch(text.strip())
    port = int((m.group("v6port") or m.group("port") or DEFAULT_PORT) if m else 0)
    if not m or not 0 < port < 65536:
        raise argparse.ArgumentTypeError(
            _("{text} is not an address: HOST or HOST:PORT (e.g. 192.168.1.20 or 192.168.1.20:7531)").format(
                text=repr(text)))
    return m.group("v6") or m.group("host") or m.group("bare"), port


def _address_or_code(text: str):
    """An invite code (an internet table) or ADDR:PORT."""
    import re

    from p2pcards.cli.internet import InviteCode
    from p2pcards.net.rendezvous import BAD_CODE, is_code

    if is_code(text):
        return InviteCode(text.strip())
    if re.fullmatch(r"[\d\s]+-[\d\s-]*", text):  # meant as a code, mistyped
        raise argparse.ArgumentTypeError(_(BAD_CODE).format(code=repr(text)))
    return _address(text)


def _seat_entry(text: str) -> tuple[int, int]:
    seat, sep, entry = text.partition(":")
    if not sep or not seat.isdigit() or not entry.isdigit():
        raise argparse.ArgumentTypeError(_("{text} is not SEAT:ENTRY (e.g. 1:40)").format(text=repr(text)))
    return int(seat), int(entry)


def _strategy(text: str) -> str:
    from p2pcards.bots import STRATEGIES

    if text not in STRATEGIES:
        raise argparse.ArgumentTypeError(_("unknown bot {name}; the bots are {bots}").format(
            name=repr(text), bots=", ".join(STRATEGIES)))
    return text


def _seat_strategy(text: str) -> tuple[int | None, str]:
    """``NAME`` (every seat) or ``SEAT=NAME``."""
    seat, sep, name = text.rpartition("=")
    if sep and not seat.isdigit():
        raise argparse.ArgumentTypeError(_("{text} is not SEAT=NAME (e.g. 0=strong) nor a bot name").format(
            text=repr(text)))
    return (int(seat) if sep else None), _strategy(name)


def _think(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(_("--think takes seconds between 0 and 600, not {text}").format(
            text=repr(text)))
    return value


# play --level: how strong the bots are
LEVELS = {"easy": "random", "normal": "greedy", "hard": "strong"}


def _players(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(_("{text} is not a number of players").format(text=repr(text)))
    return int(text)


def _table_options(args) -> dict:
    options = parse_options(args.option)
    timeout = getattr(args, "turn_timeout", None)
    if timeout is not None:
        options["table.turn_timeout"] = timeout
    deals = getattr(args, "deals", None)
    if deals is not None:
        options["table.deals"] = deals
    return options


def _check_table_options(game: str, players: int, options: dict) -> None:
    from p2pcards.games import IllegalAction, get_game
    from p2pcards.peer.seating import split_options

    try:
        rules, _ = split_options(options)
        get_game(game).options(players, rules)
    except IllegalAction as exc:
        raise CliError(shown(exc)) from None


def _run_bot_seat(args, join=None) -> int:
    """A seat played by a bot: host (join=None) or join a table."""
    from p2pcards.peer.seating import SeatConfig, run_seat
    from p2pcards.testing import seat_hooks

    ident = load_identity(getattr(args, "key", None))
    from p2pcards.cli.internet import InviteCode, servers

    options = {}
    if join is None:
        options = _table_options(args)
        _check_table_options(args.game, args.players, options)
    internet = join is None and getattr(args, "internet", False)
    mailbox, relay = servers(args) if internet or isinstance(join, InviteCode) else (None, None)

    def on_port(port: int) -> None:
        if args.print_port:
            print(f"PORT {port}", flush=True)

    config = SeatConfig(
        name=args.name or f"bot-{ident.fingerprint[:4]}",
        private_key=ident.private_key,
        game=getattr(args, "game", None),
        players=getattr(args, "players", None),
        options=options,
        join=None if isinstance(join, InviteCode) else join,
        code=join if isinstance(join, InviteCode) else None,
        mailbox=mailbox,
        relay=relay if internet else None,
        # Each change of the open codes in one line, for whoever reads this bot's output.
        on_codes=lambda codes: print("CODES " + " ".join(codes), flush=True) if codes else None,
        on_watch_code=lambda codes: print("WATCH " + " ".join(codes), flush=True) if codes else None,
        bind=getattr(args, "bind", "0.0.0.0"),
        port=getattr(args, "port", 0) or 0,
        out=args.out,
        log_dir=args.log_dir,
        strategy=args.strategy,
        seat_strategies=dict(getattr(args, "seat_strategy", None) or []),
        think=getattr(args, "think", None),
        bot_seed=args.seed,
        hooks=seat_hooks(args.cheat, args.cheater),  # selfplay's cheat and faults, if any
        on_port=on_port,
        key_path=str(ident.path) if ident.path else None,
        origin="bot",
        on_state=lambda path: print(f"STATE {path}", flush=True) if args.print_port else None,
        # A hosted table is announced on the LAN, but not a selfplay one on loopback nor an internet one.
        advertise=join is None and not args.print_port and not internet,
    )
    return _run_and_report(run_seat, config)


def _run_and_report(run, *args) -> int:
    """Run a bot seat to the end; print one JSON line: seat, log, result
    (selfplay reads it)."""
    import trio

    from p2pcards.peer.seating import RunError

    try:
        result = trio.run(_while_parent_lives, run, *args)
    except RunError as exc:
        raise CliError(shown(exc)) from None
    machine = result.driver.machine
    summary = machine.end_payload() if machine.finished else {"unfinished": True}
    print(json.dumps({"seat": result.seat, "log": result.log_path, "result": summary}), flush=True)
    return 0


async def _while_parent_lives(run, *args):
    """``run(*args)``, given up if the process that started this one (selfplay,
    named in P2PCARDS_PARENT) is gone."""
    import trio

    from p2pcards.peer.seating import RunError

    parent = os.environ.get("P2PCARDS_PARENT")
    if not parent or not parent.isdigit():
        return await run(*args)
    result = []

    async def main(cancel):
        result.append(await run(*args))
        cancel.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(main, nursery.cancel_scope)
        while os.getppid() == int(parent):
            await trio.sleep(1)
        nursery.cancel_scope.cancel()
    if not result:
        raise RunError(_("the selfplay that started this peer is gone"))
    return result[0]


def cmd_host(args) -> int:
    if args.bot:
        args.strategy = args.bot
        return _run_bot_seat(args)
    from p2pcards.cli.play import host_interactive

    return host_interactive(args)


def cmd_bot(args) -> int:
    return _run_bot_seat(args, join=args.address)


def cmd_join(args) -> int:
    from p2pcards.cli.play import join_interactive

    return join_interactive(args)


def cmd_play(args) -> int:
    from p2pcards.cli.play import play

    args.strategy = args.strategy or LEVELS[args.level]
    return play(args)


def cmd_selfplay(args) -> int:
    from p2pcards.cli.selfplay import SelfplayError, selfplay

    options = _table_options(args)
    _check_table_options(args.game, args.players, options)
    if (args.cheat is None) != (args.cheater is None):
        raise CliError(_("--cheat and --cheater go together"))
    if args.cheater is not None and not 0 <= args.cheater < args.players:
        raise CliError(_("--cheater must be a seat 0..{last}").format(last=args.players - 1))
    strategy, per_seat = "greedy", {}
    for seat, name in args.strategy or []:
        if seat is None:
            strategy = name
        elif not 0 <= seat < args.players:
            raise CliError(_("--strategy {seat}={name}: the seats are 0..{last}").format(
                seat=seat, name=name, last=args.players - 1))
        else:
            per_seat[seat] = name
    try:
        summary = selfplay(args.game, args.players, args.seed, args.out, options=options,
                           cheat=args.cheat, cheater=args.cheater, strategy=strategy,
                           seat_strategies=per_seat, think=args.think, crash=args.crash, drop=args.drop,
                           drop_seconds=args.drop_for)
    except SelfplayError as exc:
        raise CliError(shown(exc)) from None
    print(json.dumps(summary))
    return 0


def _readable(*paths) -> None:
    """A file that cannot be opened at all (a wrong name) is a plain error in
    one line, not an audit's verdict nor a replay's."""
    from p2pcards.files import unreadable

    for path in paths:
        why = unreadable(path) if path is not None else None
        if why is not None:
            raise CliError(shown(why))


def cmd_audit(args) -> int:
    from p2pcards.audit import audit_file, audit_pair

    if args.json:  # for tools: English and identifiers, whatever the reader's language
        i18n.set_language("en")
    else:
        _readable(args.file, args.other)
    report = audit_pair(args.file, args.other) if args.other else audit_file(args.file)
    if args.json:
        print(json.dumps(report.as_json()))
    else:
        print(format_report(report))
    return report.exit_code


# What each kind of fault is, for the audit's text (the JSON keeps the kind).
KIND_WORDS = {
    "bad-shuffle": N_("a shuffle that does not keep the deck"),
    "wrong-key": N_("a wrong key for another player's card"),
    "no-card": N_("a card that opens to no card"),
    "phantom-card": N_("a card played that is not in the hand"),
    "illegal-move": N_("a move the rules forbid"),
    "out-of-turn": N_("a move out of turn"),
    "hidden-rule": N_("a move illegal with every card known"),
    "equivocate": N_("two different entries for one place in the log"),
    "bad-rekey": N_("a re-key that does not keep the cards"),
    "bad-reveal": N_("a final reveal that does not match"),
    "bad-entry": N_("an entry the table must refuse"),
    "bad-end": N_("a wrong end of the game"),
    "finished": N_("an entry after the game was over"),
    "bad-deal": N_("a deal the rules cannot start"),
    "bad-score": N_("a wrong score"),
    "false-accusation": N_("a false accusation"),
    "timeout": N_("no answer in time"),
    "silent": N_("stopped answering"),
    "left": N_("left the table"),
    "bad-pause": N_("a pause the table's rules do not allow"),
    "misplaced": N_("an entry signed for another place than the one after the entry it follows"),
}


def kind_in_words(kind: str) -> str:
    """``illegal-move`` as "a move the rules forbid (illegal-move)"; a kind
    this version does not know (a peer may write any) as it is."""
    words = KIND_WORDS.get(kind)
    return f"{_(words)} ({kind})" if words else kind


def format_report(report) -> str:
    from p2pcards.audit import NOTES
    from p2pcards.i18n import known, ngettext, printable, worded
    from p2pcards.ui.scoresheet import shell_text

    if report.error:
        return _("NOT A VERIFIABLE LOG: {reason}").format(reason=worded(report.error, NOTES))
    names = {p["seat"]: printable(p["name"], 32) for p in report.players}
    clash = {name for name, count in Counter(names.values()).items() if count > 1}

    def seat(number) -> str:
        """A player by name (two players of one name: with their seats)."""
        name = names.get(number, "?")
        return _("seat {seat} ({name})").format(seat=number, name=name) if name in clash or name == "?" else name

    def side(key: str) -> str:
        """A scores key of the JSON ("1", a pair's "0+2") as its players' names."""
        return " + ".join(seat(int(s)) if s.isdigit() else s for s in key.split("+"))

    lines = [_("{game}: {players}, {entries}, {deals}").format(
        game=report.game,
        players=ngettext("{n} player", "{n} players", len(report.players)).format(n=len(report.players)),
        entries=ngettext("{n} entry", "{n} entries", report.entries).format(n=report.entries),
        deals=ngettext("{n} deal", "{n} deals", report.deals).format(n=report.deals))]
    for p in report.players:
        lines.append(_("  seat {seat}: {name}  key {fingerprint}").format(
            seat=p["seat"], name=names[p["seat"]], fingerprint=p["fingerprint"]))
    if report.ok:
        lines.append(_("CLEAN: every signature, shuffle, key, move and score checks out."))
    elif report.violations:
        n = len(report.violations)
        lines.append(ngettext("{n} VIOLATION:", "{n} VIOLATIONS:", n).format(n=n))
        for v in report.violations:
            who = seat(v["seat"]) if v["seat"] is not None else _("nobody identified")
            lines.append(_("  entry {entry}: {kind} by {who}: {detail}").format(
                entry=v["entry"], kind=kind_in_words(v["kind"]), who=who,
                detail=shell_text([worded(v["detail"], NOTES)])))
    else:
        why = "; ".join(known(note, NOTES) for note in report.notes) or _(
            "the log has no end signed by every player")
        lines.append(_("NOT FINISHED: the game did not finish ({why}). No fault found as far as the log goes.")
                     .format(why=why))
    for s in report.silences:
        attesters = ", ".join(seat(a) for a in s["attested_by"])
        verdict = _("a majority attests it") if s["stands"] else _("only a minority attests it: no conviction")
        lines.append(_("  silence: {who} stopped answering at entry {entry} ({kind}), attested by {attesters}; "
                       "{verdict}").format(who=seat(s["seat"]), entry=s["entry"], kind=kind_in_words(s["kind"]),
                                           attesters=attesters, verdict=verdict))
    if report.fork is not None:
        f = report.fork

        def signers(side) -> str:
            return ", ".join(seat(a) for a in side["signed_by"])

        lines.append(_("  the two logs part at entry {entry}: {first} signed by {first_signers} against "
                       "{second} signed by {second_signers}").format(
            entry=f["entry"], first=f["first"]["kind"], first_signers=signers(f["first"]),
            second=f["second"]["kind"], second_signers=signers(f["second"])))
    # A game that did not finish is counted as far as its finished deals:
    # the one it stopped in (an ante in the bank, say) is not settled.
    scores = ", ".join(f"{side(k)}: {v}" for k, v in report.scores.items())
    lines.append(_("scores: {scores}").format(scores=scores) if report.complete
                 else _("scores after the finished deals: {scores}").format(scores=scores))
    if report.chips is not None:
        bank = _("bank")
        chips = ", ".join(f"{bank if k == 'bank' else side(k)}: {v}" for k, v in report.chips.items())
        lines.append(_("chips: {chips}").format(chips=chips) if report.complete
                     else _("chips after the finished deals: {chips}").format(chips=chips))
    return "\n".join(lines)


def cmd_replay(args) -> int:
    from p2pcards.audit.replay import ReplayError, load_replay, open_replay

    if args.json:  # for tools: English and identifiers, whatever the reader's language
        i18n.set_language("en")
    _readable(args.file)
    try:
        replay = (load_replay if args.text or args.json else open_replay)(args.file)
    except ReplayError as exc:
        raise CliError(shown(exc)) from None
    if args.as_seat is not None and not 0 <= args.as_seat < replay.players:
        raise CliError(_("--as must be a seat 0..{last}").format(last=replay.players - 1))
    if args.json:
        from p2pcards.ui.replay_record import json_moves

        for line in json_moves(replay):
            print(line)
        return 0
    if args.text:
        from p2pcards.ui.replay_record import game_record

        for line in game_record(replay, seat=args.as_seat, show_all=args.all):
            print(line)
        return 0
    from p2pcards.ui.replay_viewer import run_viewer

    run_viewer(replay, seat=args.as_seat, show_all=args.all)
    if replay.error:
        raise CliError(replay.error)
    return 0


def cmd_resume(args) -> int:
    """Back to a game after a crash or a lost connection."""
    from p2pcards.peer.seating import resume_seat
    from p2pcards.peer.statefile import StateError, load

    if args.statefile is None:
        from p2pcards.cli.play import pick_game_to_resume

        args.statefile = pick_game_to_resume()
        if args.statefile is None:
            return 0
    try:
        state = load(args.statefile)
    except StateError as exc:
        raise CliError(shown(exc)) from None
    if state.strategy is None and not args.bot:
        from p2pcards.cli.play import resume_interactive

        return resume_interactive(args)
    from p2pcards.testing import seat_hooks

    return _run_and_report(partial(resume_seat, hooks=seat_hooks()), args.statefile)


def cmd_server(args) -> int:
    from p2pcards.cli.server import cmd_server as run

    return run(args)


def cmd_tables(args) -> int:
    from p2pcards.cli.play import list_tables

    return list_tables(args)


def register(sub) -> None:
    from p2pcards.cli.internet import add_server_options

    def seat_options(p, bot_flags=True, name_help=None):
        p.add_argument("--name", metavar=_("NAME"), help=name_help or _("your name at the table"))
        p.add_argument("--key", metavar=_("FILE"), help=_("identity key file (default: your own, in the data directory)"))
        p.add_argument("--out", metavar=_("FILE"), help=_("also write the finished log here"))
        p.add_argument("--log-dir", metavar=_("DIR"), help=_("where finished logs are kept (default: data directory/games)"))
        if bot_flags:
            p.add_argument("--seed", metavar=_("SEED"), help=_("the bot's random seed (repeatable decisions)"))
            p.add_argument("--cheat", metavar=_("KIND"), help=argparse.SUPPRESS)
            p.add_argument("--cheater", type=int, metavar=_("SEAT"), help=argparse.SUPPRESS)

    p = sub.add_parser("host", help=_("open a table, advertise it on the LAN, wait for players, play"))
    p.add_argument("game", type=game_id, metavar=_("GAME"), help=_("the game (the games: p2pcards --help)"))
    p.add_argument("--players", type=_players, required=True, metavar="N",
                   help=_("how many seats the table has, you included (see p2pcards --help for each game's range)"))
    p.add_argument("--bind", default="0.0.0.0", metavar=_("ADDR"), help=_("address to listen on (default 0.0.0.0)"))
    p.add_argument("--port", type=int, default=7531, metavar="P", help=_("port to listen on (default 7531; 0: any)"))
    p.add_argument("-o", dest="option", action="append", metavar=_("KEY=VALUE"), help=_("a rules option"))
    p.add_argument("--turn-timeout", type=int, metavar="S", help=_("seconds a player may take (default 120)"))
    p.add_argument("--bot", metavar=_("STRATEGY"), type=_strategy, help=_("let a bot play this seat (greedy, random or strong)"))
    p.add_argument("--think", type=_think, metavar="S", help=_("the strong bot's seconds per decision (default 1)"))
    p.add_argument("--seat-strategy", type=_seat_strategy, action="append", help=argparse.SUPPRESS)
    p.add_argument("--print-port", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ascii", action="store_true", help=_("plain letters for suits"))
    rank_options(p)
    p.add_argument("--new", action="store_true", help=_("start a new game even if one of this table is unfinished"))
    seat_options(p, name_help=_("your name at the table (default: your login name)"))
    add_server_options(p, host=True)
    p.set_defaults(func=cmd_host, strategy=None)

    p = sub.add_parser("join", help=_("join a table; with no address, list LAN tables and pick one"))
    p.add_argument("address", type=_address_or_code, nargs="?", metavar=_("ADDR:PORT|CODE"),
                   help=_("the table's address, as its host shows it; with no port, 7531"))
    p.add_argument("--watch", action="store_true", help=_("follow the table as a spectator (public cards only)"))
    p.add_argument("--ascii", action="store_true", help=_("plain letters for suits"))
    rank_options(p)
    p.add_argument("--new", action="store_true", help=_("start a new game even if one of this table is unfinished"))
    seat_options(p, bot_flags=False, name_help=_("your name at the table (default: your login name)"))
    add_server_options(p, host=False)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser("bot", help=_("a bot peer takes a seat at a table"))
    p.add_argument("address", type=_address_or_code, metavar=_("ADDR:PORT|CODE"))
    p.add_argument("--strategy", default="greedy", type=_strategy, metavar=_("STRATEGY"), help=_("greedy, random or strong (default greedy)"))
    p.add_argument("--think", type=_think, metavar="S", help=_("the strong bot's seconds per decision (default 1)"))
    p.add_argument("--seat-strategy", type=_seat_strategy, action="append", help=argparse.SUPPRESS)
    p.add_argument("--print-port", action="store_true", help=argparse.SUPPRESS)
    seat_options(p)
    add_server_options(p, host=False)
    p.set_defaults(func=cmd_bot)

    p = sub.add_parser("server", help=_("run the mailbox server and transit relay for internet tables "
                                        "(needs the server extra)"))
    p.add_argument("--mailbox-port", type=int, default=4000, metavar="P", help=_("the mailbox server's port (default 4000)"))
    p.add_argument("--relay-port", type=int, default=4001, metavar="P", help=_("the relay's port (default 4001)"))
    p.add_argument("--bind", default="0.0.0.0", metavar=_("ADDR"), help=_("address to listen on (default 0.0.0.0)"))
    p.add_argument("--public", metavar=_("HOST"), help=_("this machine's public name or address, for the line printed"))
    p.add_argument("--state-dir", default=".", metavar=_("DIR"), help=_("where the mailbox keeps its database (default: here)"))
    p.set_defaults(func=cmd_server)

    p = sub.add_parser("tables", help=_("list tables advertised on the LAN"))
    p.add_argument("--seconds", type=float, default=3.0, metavar=_("SECONDS"), help=_("how long to listen (default 3)"))
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("play", help=_("you against bot peers on this machine, full-screen"))
    p.add_argument("game", type=game_id, metavar=_("GAME"), help=_("the game (the games: p2pcards --help)"))
    p.add_argument("--bots", type=int, metavar="N", help=_("how many bots (default: fill the table)"))
    p.add_argument("--name", default=None, metavar=_("NAME"), help=_("your name at the table (default: your login name)"))
    p.add_argument("--seed", metavar=_("SEED"), help=_("the bots' random seed"))
    p.add_argument("--level", choices=tuple(LEVELS), default="normal",
                   help=_("the bots: easy (random moves), normal (greedy heuristics, the default: they answer "
                          "at once), hard (a search that thinks up to --think seconds a move)"))
    p.add_argument("--strategy", type=_strategy, metavar=_("STRATEGY"), help=_("the bots' strategy by name (overrides --level)"))
    p.add_argument("--think", type=_think, metavar="S", help=_("the hard bots' seconds per decision (default 1)"))
    p.add_argument("-o", dest="option", action="append", metavar=_("KEY=VALUE"), help=_("a rules option"))
    p.add_argument("--turn-timeout", type=int, metavar="S", help=_("seconds a player may take (default 120)"))
    p.add_argument("--ascii", action="store_true", help=_("plain letters for suits"))
    rank_options(p)
    p.add_argument("--new", action="store_true", help=_("start a new game even if one of this table is unfinished"))
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("selfplay", help=_("a whole match between bot peers over loopback; writes the signed log"))
    p.add_argument("game", type=game_id, metavar=_("GAME"), help=_("the game (the games: p2pcards --help)"))
    p.add_argument("--players", type=_players, required=True, metavar="N",
                   help=_("how many bot peers sit at the table (see p2pcards --help for each game's range)"))
    p.add_argument("--seed", required=True, metavar=_("SEED"), help=_("the bots' random seed"))
    p.add_argument("--out", required=True, metavar=_("FILE"))
    p.add_argument("--deals", type=int, metavar="K", help=_("stop after K deals"))
    p.add_argument("--cheat", metavar=_("KIND"), help=_("the cheater bot commits this cheat once"))
    p.add_argument("--cheater", type=int, metavar=_("SEAT"))
    p.add_argument("--strategy", type=_seat_strategy, action="append", metavar=_("[SEAT=]NAME"),
                   help=_("the bot of every seat (NAME) or of one seat (SEAT=NAME, repeatable): greedy, random, strong"))
    p.add_argument("--think", type=_think, metavar="S", help=_("the strong bots' seconds per decision (default 1)"))
    p.add_argument("--crash", type=_seat_entry, metavar=_("SEAT:ENTRY"),
                   help=_("kill that peer abruptly when its log reaches ENTRY, then resume it"))
    p.add_argument("--drop", type=_seat_entry, metavar=_("SEAT:ENTRY"),
                   help=_("cut that peer's connections for a few seconds when its log reaches ENTRY"))
    p.add_argument("--drop-for", type=float, default=3.0, metavar="S",
                   help=_("how long --drop cuts the peer off (default 3; longer than the timeouts: a partition)"))
    p.add_argument("--turn-timeout", type=int, default=DEFAULT_SELFPLAY_TIMEOUT, metavar="S",
                   help=_("seconds before a peer attests another's silence (default {seconds})").format(
                       seconds=DEFAULT_SELFPLAY_TIMEOUT))
    p.add_argument("-o", dest="option", action="append", metavar=_("KEY=VALUE"), help=_("a rules option"))
    p.set_defaults(func=cmd_selfplay)

    p = sub.add_parser("resume", help=_("come back to a game after a crash or a lost connection"))
    p.add_argument("statefile", metavar=_("STATEFILE"), nargs="?",
                   help=_("the .state file beside the game's log (none: list the games to come back to)"))
    p.add_argument("--bot", action="store_true", help=_("let a bot play the rest"))
    p.add_argument("--ascii", action="store_true", help=_("plain letters for suits"))
    rank_options(p)
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("audit", help=_("verify a log (exit 0 clean, 1 violations, 2 not verifiable, 3 did not finish)"))
    p.add_argument("file", metavar=_("FILE"))
    p.add_argument("other", nargs="?", metavar=_("FILE2"), help=_("a second log of the same game, to compare"))
    p.add_argument("--json", action="store_true", help=_("print one JSON object"))
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("replay", help=_("step through a game again (also one somebody left)"))
    p.add_argument("file", metavar=_("FILE"))
    who = p.add_mutually_exclusive_group()
    who.add_argument("--as", dest="as_seat", type=int, metavar=_("SEAT"), help=_("what that seat saw"))
    who.add_argument("--all", action="store_true", help=_("every hand shown"))
    form = p.add_mutually_exclusive_group()
    form.add_argument("--text", action="store_true", help=_("print the game record (moves, results, score sheets)"))
    form.add_argument("--json", action="store_true", help=_("print one JSON object a move, for tools (protocol/replay-json.md)"))
    rank_options(p)
    p.set_defaults(func=cmd_replay)
