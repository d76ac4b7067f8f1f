"""The rules text shipped with the package (``p2pcards/rules/RULES.md``)."""

from __future__ import annotations

import re
from importlib import resources

from p2pcards.games import GAME_IDS, IllegalAction


def full_rules() -> str:
    return resources.files("p2pcards").joinpath("rules/RULES.md").read_text(encoding="utf-8")


def rules_for(game_id: str) -> str:
    """The section of RULES.md for one game, plus the card-code preamble."""
    if game_id not in GAME_IDS:
        raise IllegalAction(f"unknown game {game_id!r}; the games are {', '.join(GAME_IDS)}")
    text = full_rules()
    # Sections are "## N. `id` — title"; the preamble (card codes) precedes the first.
    parts = re.split(r"(?m)^(?=## )", text)
    preamble = parts[0].split("---")[0].strip()
    for part in parts[1:]:
        if part.startswith("## ") and f"`{game_id}`" in part.splitlines()[0]:
            return part.strip().rstrip("-").strip() + "\n\n" + preamble + "\n"
    raise IllegalAction(f"no rules text found for {game_id}")
