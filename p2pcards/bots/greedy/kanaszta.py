"""The kanaszta heuristic player: the shared canasta one (``p2pcards.bots.greedy.canasta``)."""

from p2pcards.bots.greedy.canasta import choose, scored

__all__ = ["choose", "scored"]
