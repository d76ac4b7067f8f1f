"""The ``strong`` bot: information-set MCTS over the rules engines
(``p2pcards.strong.ismcts``), deciding from its own seat's state only."""

from __future__ import annotations

import random

from p2pcards.strong.ismcts import Decision, search

DEFAULT_THINK = 1.0  # seconds per decision


class StrongBot:
    """A seeded searcher: ``iterations`` fixes the work per decision
    (deterministic, for tests and benchmarks), else ``think`` seconds."""

    def __init__(self, seed=None, think: float = DEFAULT_THINK, iterations: int | None = None):
        self.rng = random.Random(seed)
        self.think = think
        self.iterations = iterations

    def decide(self, game, state) -> Decision:
        return search(game, state, self.rng, iterations=self.iterations, seconds=self.think)

    def choose(self, game, state) -> dict:
        return self.decide(game, state).action


__all__ = ["DEFAULT_THINK", "Decision", "StrongBot", "search"]
