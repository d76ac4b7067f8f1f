"""The kanasta heuristic player: the shared canasta one (``p2pcards.greedy.canasta``)."""

from p2pcards.greedy.canasta import choose

__all__ = ["choose"]
