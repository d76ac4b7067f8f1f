"""What every subcommand shares: the user's error, argument types, ``-o``
options and the identity key. Light on imports so ``--help`` starts fast."""

from __future__ import annotations

import argparse

from p2pcards.i18n import LANGUAGES, _, shown


class CliError(Exception):
    """A problem the user can fix: printed without a traceback, exit 2."""


def default_name() -> str:
    """A person's name at the table when ``--name`` gives none (``play``,
    ``host`` and ``join`` alike): their login name, else "player"."""
    import getpass

    try:
        login = getpass.getuser()
    except Exception:  # no login name in the environment nor the user database (OSError, KeyError)
        login = ""
    # The environment is anybody's: a name the table would refuse (controls, spaces around) is cleaned.
    login = "".join(c for c in login if c.isprintable()).strip()[:32]
    # Translators: a player's name at the table when they give none and have no login name.
    return login or _("player")


def game_id(text: str) -> str:
    """A game id as typed (``Kanasta`` too): ids are matched without case."""
    from p2pcards.games import GAME_IDS

    game = text.strip().lower()
    if game not in GAME_IDS:
        raise argparse.ArgumentTypeError(_("unknown game {name}; the games are {games}").format(
            name=repr(text), games=", ".join(GAME_IDS)))
    return game


def parse_options(pairs: list[str] | None) -> dict:
    """``-o KEY=VALUE`` pairs into a dict (values: true/false, integers, text)."""
    from p2pcards.games.base import parse_option_value

    options: dict = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CliError(_("-o takes KEY=VALUE, not {text}").format(text=repr(pair)))
        options[key.strip()] = parse_option_value(value)
    return options


class _RankStyle(argparse.Action):
    """``--ranks``: takes effect as it is parsed (the cards module draws every card)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from p2pcards.cards import set_rank_style

        set_rank_style(values)
        setattr(namespace, self.dest, values)


# Other names ``--ranks`` takes for the English letters ("codes": its name before local became the default).
_ENGLISH_RANKS = ("en", "english", "codes")


def rank_style(text: str) -> str:
    """A ``--ranks`` word as its style: ``local`` or ``en``."""
    word = text.strip().lower()
    return "en" if word in _ENGLISH_RANKS else word


def rank_options(p: argparse.ArgumentParser) -> None:
    """``--ranks local|en``, for every command that shows cards."""
    p.add_argument("--ranks", choices=("local", "en"), default="local", type=rank_style, action=_RankStyle,
                   help=_("card ranks in the letters of your language (Polish W D K A, Hungarian B D K \u00c1: "
                          "the default) or in English ones (J Q K A) with en; typing either always works"))


def load_identity(key_path=None):
    """The user's identity (``--key FILE``, else the default one, made if missing)."""
    from p2pcards import identity

    try:
        return identity.load_or_create(key_path)
    except identity.IdentityError as exc:
        raise CliError(shown(exc)) from None


def language_flag(argv: list[str]) -> str | None:
    """The ``--lang`` of a command line, wherever it stands (before or after the
    subcommand; the last one counts, as argparse's), read before argparse runs
    so that its help and errors are already in that language. A value that is
    no language is left for argparse to refuse (in the language of the locale)."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else (
            arg.partition("=")[2] if arg.startswith("--lang=") else None)
        if value is not None:
            found = value if value in LANGUAGES else found
    return found


def add_language_option(parser: argparse.ArgumentParser) -> None:
    """``--lang`` for a parser (the command and each subcommand); the language
    itself is set from :func:`language_flag` before any parser is built."""
    parser.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS,
                        help=_("the language of everything shown (default: P2PCARDS_LANG, else your "
                               "locale's if Polish or Hungarian, else en)"))
