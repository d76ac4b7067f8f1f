"""Bot players over the rules-engine API.

A bot sees what a player sees: the state it is given may hold unknown tokens
for every card its seat cannot see (on the network it is exactly the seat's
own state), and it decides from ``legal_actions`` and ``view`` only.

Strategies: ``random`` (any legal action, uniformly), ``greedy`` (the
game's heuristic player in ``p2pcards.bots.greedy.<game>``) and ``strong``
(information-set tree search over the engines, ``p2pcards.bots.strong``; its
state must be the seat's own, with unknown tokens: given the full deal it
would see every hand).
"""

from __future__ import annotations

import importlib
import random as _random

STRATEGIES = ("greedy", "random", "strong")


def _random_choice(game, state, rng: _random.Random) -> dict:
    actions = game.legal_actions(state)
    if not actions:
        raise ValueError("no legal action: it is nobody's turn")
    return rng.choice(actions)


def _greedy_module(game_id: str):
    return importlib.import_module(f"p2pcards.bots.greedy.{game_id}")


def choose(game, state, strategy: str = "greedy", rng: _random.Random | None = None,
           think: float | None = None, iterations: int | None = None) -> dict:
    """The action the bot of ``strategy`` takes for the seat to act; ``think``
    (seconds) or ``iterations`` bound the strong bot's search."""
    rng = rng or _random.Random()
    if strategy == "strong":
        from p2pcards.bots.strong import DEFAULT_THINK, search

        return search(game, state, rng, iterations=iterations,
                      seconds=DEFAULT_THINK if think is None else think).action
    if strategy == "random":
        return _random_choice(game, state, rng)
    if strategy == "greedy":
        return _greedy_module(game.id).choose(game, state, rng)
    raise ValueError(f"unknown bot strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")


class Bot:
    """A bot with its own random stream, so a seeded match is repeatable."""

    def __init__(self, strategy: str = "greedy", seed=None, think: float | None = None,
                 iterations: int | None = None):
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown bot strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
        self.strategy = strategy
        self.rng = _random.Random(seed)
        self.think = think
        self.iterations = iterations

    def choose(self, game, state) -> dict:
        return choose(game, state, self.strategy, self.rng, self.think, self.iterations)
