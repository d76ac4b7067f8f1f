"""What every subcommand shares: the user's error, argument types, ``-o``
options and the identity key. Light on imports so ``--help`` starts fast."""

from __future__ import annotations

import argparse


class CliError(Exception):
    """A problem the user can fix: printed without a traceback, exit 2."""


def game_id(text: str) -> str:
    """A game id as typed (``Kanasta`` too): ids are matched without case."""
    from p2pcards.games import GAME_IDS

    game = text.strip().lower()
    if game not in GAME_IDS:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; the games are {', '.join(GAME_IDS)}")
    return game


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


def load_identity(key_path=None):
    """The user's identity (``--key FILE``, else the default one, made if missing)."""
    from p2pcards import identity

    try:
        return identity.load_or_create(key_path)
    except identity.IdentityError as exc:
        raise CliError(str(exc)) from None
