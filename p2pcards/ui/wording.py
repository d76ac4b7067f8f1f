"""Small pieces of wording for the table: who "You" is, and a log line as
its own author may read it."""

from __future__ import annotations

from p2pcards.cards import is_code
from p2pcards.i18n import _
from p2pcards.ui.commands import split_cards


def you() -> str:
    """The name of the player at a local table, in the player's language."""
    # Translators: the player's own name at a table of bots ("You lead", "Ty wychodzisz").
    return _("You")


def is_you(name: str) -> bool:
    """Whether ``name`` is the player addressed as "you": sentences about them
    take the second person ("You lead", not "You leads")."""
    return name in ("You", you())


def with_own_cards(line: str, seat: int | None, author: int, action: dict | None, new_cards=()) -> str:
    """A log line as its author reads it: the card one drew, and the cards of
    one's own face-down throw, which only the author may see. Others' lines,
    and tokens of cards not yet seen (``?33``), are left as they are.

    ``action`` None stands for a draw whose card came later (``new_cards``).
    Whatever the language of the line, a face-down line is the one that names
    none of the action's cards."""
    if seat is None or author != seat:
        return line
    known = [c for c in new_cards if is_code(c)]
    if known and (action is None or action.get("type") == "draw"):
        return f"{line} {' '.join(known)}"
    cards = [c for c in (action or {}).get("cards") or [] if is_code(c)]
    shown = {piece for piece, card in split_cards(line) if card}
    if cards and not shown & set(cards):
        return f"{line}: {' '.join(cards)}"
    return line
