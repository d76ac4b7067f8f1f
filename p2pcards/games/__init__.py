"""The rules engines: pure, deterministic, usable without network or crypto.

    from p2pcards.games import GAME_IDS, get_game, IllegalAction
    game = get_game("kanasta")
    state = game.start(players=4, seed=7)
"""

from __future__ import annotations

import importlib

from p2pcards.games.base import Game, IllegalAction, Match, NeedReveal, substitute
from p2pcards.i18n import N_

GAME_IDS = ("kanasta", "kanaszta", "warkocz", "bura")

_MODULES = {
    "kanasta": "p2pcards.games.kanasta",
    "kanaszta": "p2pcards.games.kanaszta",
    "warkocz": "p2pcards.games.warkocz",
    "bura": "p2pcards.games.bura",
}


def get_game(game_id: str) -> Game:
    """The engine of ``game_id``; an unknown id raises IllegalAction naming the games."""
    if game_id not in _MODULES:
        raise IllegalAction(N_("unknown game {game_id}; the games are {games}",
                               game_id=repr(game_id), games=', '.join(GAME_IDS)))
    return importlib.import_module(_MODULES[game_id]).GAME


__all__ = ["GAME_IDS", "Game", "IllegalAction", "Match", "NeedReveal", "get_game", "substitute"]
