"""The ``p2pcards`` command.

Each subcommand is a small function that parses nothing itself: argparse does
the parsing, the function calls into the package and turns its errors into a
clear message and an exit code. Heavy imports (trio, prompt-toolkit, the
crypto) happen inside the subcommands so ``p2pcards --help`` starts fast.
"""

from __future__ import annotations

import argparse
import sys

from p2pcards import __version__, i18n
from p2pcards.cli import argparse_words
from p2pcards.cli.args import CliError, add_language_option, game_id, language_flag
from p2pcards.i18n import _, shown


def games_epilog() -> str:
    """The games, for ``--help``."""
    from p2pcards.games import GAME_IDS, get_game

    lines = [_("games:")]
    for gid in GAME_IDS:
        game = get_game(gid)
        players = (f"{game.min_players}" if game.min_players == game.max_players
                   else f"{game.min_players}-{game.max_players}")
        # Translators: one game in p2pcards --help; {players} is "4" or "2-4".
        lines.append(f"  {gid:<10} " + _("{players} players").format(players=players))
    # Translators: the last lines of p2pcards --help (at most 79 columns each).
    lines.append(_("p2pcards rules GAME prints a game's rules;\np2pcards play GAME starts one against bots."))
    return "\n".join(lines)


# ----- subcommands ---------------------------------------------------------------


def cmd_rules(args) -> int:
    from p2pcards import rules as rules_text

    width = rules_text.terminal_width()
    if args.original:
        text = rules_text.reflow(rules_text.original_text(args.game), width)
    else:
        text = rules_text.render(rules_text.player_rules(args.game, i18n.language()), width,
                                 styled=rules_text.styled_output(sys.stdout))
    rules_text.show(text)
    return 0


def cmd_keygen(args) -> int:
    from p2pcards import identity

    try:
        ident = identity.keygen(force=args.force)
        note = _("a new key")
    except identity.IdentityExists as exc:
        if exc.identity is None:
            raise CliError(shown(exc)) from None
        # Asking again for your key is no error: show the one you have.
        ident, note = exc.identity, _("you already have this key; --force replaces it with a new one")
    except identity.IdentityError as exc:
        raise CliError(shown(exc)) from None
    print(_("your key: {path}\nfingerprint: {fingerprint}\n({note})").format(
        path=ident.path, fingerprint=ident.fingerprint, note=note))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pcards",
        # Translators: lines of at most 79 columns (the help is not re-wrapped).
        description=_("Card games between terminals on a LAN: no server, no trusted dealer,\n"
                      "a signed log anyone can audit."),
        epilog=games_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}",
                        help=_("show the program's version number and exit"))
    add_language_option(parser)
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"))
    sub.required = True

    p = sub.add_parser("rules", help=_("print the rules of a game"))
    p.add_argument("game", type=game_id, metavar=_("GAME"), help=_("the game (the games: p2pcards --help)"))
    p.add_argument("--original", action="store_true",
                   help=_("the original Polish or Hungarian text the rules come from"))
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("keygen", help=_("create your identity key (if you have none) and show its fingerprint"))
    p.add_argument("--force", action="store_true", help=_("replace an existing key"))
    p.set_defaults(func=cmd_keygen)

    from p2pcards.cli import subcommands  # tables, bots, selfplay, audit, replay

    subcommands.register(sub)
    for subparser in sub.choices.values():
        add_language_option(subparser)
    return parser


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of the subcommand ``command`` (the top level's if none)."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if command in getattr(action, "choices", {}):
            return action.choices[command]
    return parser


def main(argv: list[str] | None = None) -> int:
    import os

    argv = sys.argv[1:] if argv is None else list(argv)
    # The language first: argparse words the help and its errors as the parser is built and used.
    i18n.set_language(i18n.choose_language(language_flag(argv)))
    argparse_words.install()
    level = os.environ.get("P2PCARDS_LOG")
    if level:
        import logging

        logging.basicConfig(level=level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # said by the command's own parser: its usage, not the top level's ("p2pcards play bura --bogus")
        _command_parser(parser, args.command).error(_("unrecognized arguments: %s") % " ".join(unknown))
    from p2pcards.cards import set_rank_style

    set_rank_style(getattr(args, "ranks", "local"))  # each run as asked, or the default
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"p2pcards: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("p2pcards: " + _("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, like other tools.
        sys.stderr.close()
        return 0
