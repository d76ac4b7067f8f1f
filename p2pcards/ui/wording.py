"""Small pieces of English for the table: a verb for "You", plurals, and a
log line as its own author may read it."""

from __future__ import annotations

from p2pcards.cards import is_code

_IRREGULAR = {"is": "are", "has": "have", "does": "do", "goes": "go"}


def verb(who: str, third_person: str) -> str:
    """The verb as ``who`` takes it: "Ada leads", "You lead"; "passes" →
    "pass", "has" → "have". Only the first word of ``third_person`` changes."""
    if who != "You":
        return third_person
    word, space, rest = third_person.partition(" ")
    if word in _IRREGULAR:
        word = _IRREGULAR[word]
    elif word.endswith(("sses", "shes", "ches", "xes")):
        word = word[:-2]
    elif word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word + space + rest


def plural(n: int, word: str) -> str:
    """``1 legal move``, ``2 legal moves``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def with_own_cards(line: str, seat: int | None, author: int, action: dict | None, new_cards=()) -> str:
    """A log line as its author reads it: the cards of one's own face-down
    throw, and the card one drew, which only the author may see. Others'
    lines, and tokens of cards not yet seen (``?33``), are left as they are.
    Decided by the move, not by its words (the line may be in any language):
    a draw (``action`` None: a draw named later) gets its card, a move whose
    line does not name its cards (face down) gets them after a colon."""
    if seat is None or author != seat:
        return line
    known = [c for c in new_cards if is_code(c)]
    if known and (action is None or action.get("type") == "draw"):
        return f"{line} {' '.join(known)}"
    cards = [c for c in (action or {}).get("cards") or [] if is_code(c)]
    if cards and not any(c in line.split() for c in cards):
        return f"{line}: {' '.join(cards)}"
    return line
