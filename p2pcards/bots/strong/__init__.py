"""The ``strong`` bot: information-set MCTS over the rules engines
(``p2pcards.bots.strong.ismcts``), deciding from its own seat's state only.
``p2pcards.bots.Bot("strong", seed, think=..., iterations=...)`` plays it."""

from __future__ import annotations

from p2pcards.bots.strong.ismcts import Decision, search

DEFAULT_THINK = 1.0  # seconds per decision

__all__ = ["DEFAULT_THINK", "Decision", "reason", "search"]


def reason(decision: Decision) -> str | None:
    """Why, in a few words for a player: how the move fared in the search."""
    if decision.forced:
        return "the only move"
    if not decision.visits or decision.win_rate is None:
        return None
    return (f"came out ahead in {round(100 * decision.win_rate)}% of {decision.visits} "
            f"deals played out from here")
