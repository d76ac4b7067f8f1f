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
from p2pcards.cli.args import CliError, game_id


def games_epilog() -> str:
    """The games, for ``--help``."""
    from p2pcards.games import GAME_IDS, get_game

    lines = ["games:"]
    for gid in GAME_IDS:
        game = get_game(gid)
        players = (f"{game.min_players}" if game.min_players == game.max_players
                   else f"{game.min_players}-{game.max_players}")
        lines.append(f"  {gid:<10} {players} players")
    lines.append("p2pcards rules GAME prints a game's rules; p2pcards play GAME starts one against bots.")
    return "\n".join(lines)


# ----- subcommands ---------------------------------------------------------------


def cmd_rules(args) -> int:
    from p2pcards import rules as rules_text

    width = rules_text.terminal_width()
    if args.original:
        text = rules_text.reflow(rules_text.original_text(args.game), width)
    else:
        lang = rules_text.choose_language(args.lang)
        text = rules_text.render(rules_text.player_rules(args.game, lang), width,
                                 styled=rules_text.styled_output(sys.stdout))
    rules_text.show(text)
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
    p.add_argument("game", type=game_id, metavar="GAME")
    p.add_argument("--lang", choices=("en", "pl", "hu"),
                   help="the language (default: P2PCARDS_LANG, else your locale's if Polish or Hungarian, else en)")
    p.add_argument("--original", action="store_true",
                   help="the original Polish or Hungarian text the rules come from")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("keygen", help="create your identity key (if you have none) and show its fingerprint")
    p.add_argument("--force", action="store_true", help="replace an existing key")
    p.set_defaults(func=cmd_keygen)

    from p2pcards.cli import subcommands  # tables, bots, selfplay, audit, replay

    subcommands.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    import os

    level = os.environ.get("P2PCARDS_LOG")
    if level:
        import logging

        logging.basicConfig(level=level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    # The player's language (P2PCARDS_LANG, else the locale) for everything shown
    # from here on. Minimal: the command-line branch adds --lang and reconciles this.
    from p2pcards import i18n

    i18n.set_language(i18n.choose_language(None))
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
