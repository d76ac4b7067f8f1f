"""The ``strong`` bot: information-set MCTS over the rules engines
(``p2pcards.bots.strong.ismcts``), deciding from its own seat's state only.
``p2pcards.bots.Bot("strong", seed, think=..., iterations=...)`` plays it."""

from __future__ import annotations

from p2pcards.bots.strong.ismcts import Decision, own_policy, search
from p2pcards.i18n import _, ngettext

DEFAULT_THINK = 1.0  # seconds per decision

__all__ = ["DEFAULT_THINK", "Decision", "reason", "search"]


def reason(game, state, decision: Decision) -> str | None:
    """Why, in a few words for a player: what the move does, where the
    seat's own heuristic can tell, else how it fared in the search."""
    if decision.forced:
        return _("the only move")
    why = getattr(own_policy(game.id), "why", None)
    words = why(game, state, decision.action) if why is not None else None
    if words:
        return words
    if not decision.visits or decision.win_rate is None:
        return None
    return ngettext("came out ahead in {percent}% of {n} deal played out from here",
                    "came out ahead in {percent}% of {n} deals played out from here",
                    decision.visits).format(percent=round(100 * decision.win_rate), n=decision.visits)
