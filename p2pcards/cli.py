"""The ``p2pcards`` command.

Each subcommand is a small function that parses nothing itself: argparse does
the parsing, the function calls into the package and turns its errors into a
clear message and an exit code. Heavy imports (trio, prompt-toolkit, the
crypto) happen inside the subcommands so ``p2pcards --help`` starts fast.
"""

from __future__ import annotations

import argparse
import sys

from p2pcards import __version__


class CliError(Exception):
    """A problem the user can fix: printed without a traceback, exit 2."""


def _game_id(text: str) -> str:
    """A game id as typed (``Kanasta`` too): ids are matched without case."""
    from p2pcards.games import GAME_IDS

    game = text.strip().lower()
    if game not in GAME_IDS:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; the games are {', '.join(GAME_IDS)}")
    return game


def games_epilog() -> str:
    """The games, for ``--help``."""
    from p2pcards.games import GAME_IDS, get_game

    lines = ["games:"]
    for game_id in GAME_IDS:
        game = get_game(game_id)
        players = (f"{game.min_players}" if game.min_players == game.max_players
                   else f"{game.min_players}-{game.max_players}")
        lines.append(f"  {game_id:<10} {players} players")
    lines.append("p2pcards rules GAME prints a game's rules; p2pcards play GAME starts one against bots.")
    return "\n".join(lines)


def parse_options(pairs: list[str] | None) -> dict:
    """``-o KEY=VALUE`` pairs into a dict (values: true/false, integers, text)."""
    from p2pcards.games.base import parse_option_value

    options: dict = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CliError(f"-o takes KEY=VALUE, not {pair!r}")
        options[key.strip()] = parse_option_value(value)
    return options


def checked_options(game_id: str, players: int, pairs: list[str] | None) -> dict:
    """The full option set of a table, refused with the engine's message if wrong."""
    from p2pcards.games import IllegalAction, get_game

    try:
        return get_game(game_id).options(players, parse_options(pairs))
    except IllegalAction as exc:
        raise CliError(str(exc)) from None


# ----- subcommands ---------------------------------------------------------------


def cmd_rules(args) -> int:
    from p2pcards.rules_text import rules_for

    print(rules_for(args.game))
    return 0


def cmd_keygen(args) -> int:
    from p2pcards import identity

    try:
        ident = identity.keygen(force=args.force)
        note = "a new key"
    except identity.IdentityExists as exc:
        if exc.identity is None:
            raise CliError(str(exc)) from None
        # Asking again for your key is no error: show the one you have.
        ident, note = exc.identity, "you already have this key; --force replaces it with a new one"
    except identity.IdentityError as exc:
        raise CliError(str(exc)) from None
    print(f"your key: {ident.path}\nfingerprint: {ident.fingerprint}\n({note})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pcards",
        description="Card games between terminals on a LAN: no server, no trusted dealer, a signed log anyone can audit.",
        epilog=games_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("rules", help="print the rules of a game")
    p.add_argument("game", type=_game_id, metavar="GAME")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("keygen", help="create your identity key (if you have none) and show its fingerprint")
    p.add_argument("--force", action="store_true", help="replace an existing key")
    p.set_defaults(func=cmd_keygen)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


# Subcommands defined in other modules register themselves here (table,
# audit, replay...), so this file stays a thin dispatcher.
_EXTRA_COMMANDS: list = []


def main(argv: list[str] | None = None) -> int:
    import os

    level = os.environ.get("P2PCARDS_LOG")
    if level:
        import logging

        logging.basicConfig(level=level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    _load_command_modules()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"p2pcards: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("p2pcards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, like other tools.
        sys.stderr.close()
        return 0


def _load_command_modules() -> None:
    import importlib

    for name in ("p2pcards.commands",):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        if module.register not in _EXTRA_COMMANDS:
            _EXTRA_COMMANDS.append(module.register)
