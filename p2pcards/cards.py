"""Card codes and the four decks.

A card code is rank + suit (``10H``, ``KS``, ``9C``) or ``JK`` for a joker.
Two-pack games hold two identical copies of a card: hands are multisets of codes.

A card whose identity this process does not know (it lies in somebody else's
hand, in the stock, face down) is an *unknown token*: ``?`` followed by its
position in the dealt deck (``?17``). The rules engines move unknown tokens
around like any card but never look inside them; see ``p2pcards.games.base``.
"""

from __future__ import annotations

from p2pcards.i18n import language

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")
JOKER = "JK"
RED_SUITS = ("D", "H")
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
UNKNOWN_PREFIX = "?"

_VALID = {r + s for r in RANKS for s in SUITS} | {JOKER}


def is_code(card: object) -> bool:
    """True for a real card code (not an unknown token, not garbage)."""
    return isinstance(card, str) and card in _VALID


def is_unknown(card: object) -> bool:
    return isinstance(card, str) and card.startswith(UNKNOWN_PREFIX)


def unknown(position: int) -> str:
    """The unknown token for the card at ``position`` of the dealt deck."""
    return f"{UNKNOWN_PREFIX}{position}"


def unknown_position(token: str) -> int:
    return int(token[len(UNKNOWN_PREFIX):])


def rank(card: str) -> str | None:
    """The rank of a code (``"10"``, ``"K"``), ``"JK"`` for a joker, None if unknown."""
    if card == JOKER:
        return JOKER
    if not is_code(card):
        return None
    return card[:-1]


def suit(card: str) -> str | None:
    """The suit letter of a code; None for a joker or an unknown token."""
    if card == JOKER or not is_code(card):
        return None
    return card[-1]


def is_red(card: str) -> bool:
    return suit(card) in RED_SUITS


def full_pack() -> list[str]:
    """One 52-card pack, clubs to spades, 2 to A."""
    return [r + s for s in SUITS for r in RANKS]


def canasta_deck() -> list[str]:
    """108 cards: two packs and four jokers (kanasta, kanaszta)."""
    return full_pack() + full_pack() + [JOKER] * 4


def warkocz_deck() -> list[str]:
    """49 cards: all red cards but aces from two packs, plus the warkocz 9C."""
    reds = [r + s for s in RED_SUITS for r in RANKS if r != "A"]
    return reds + reds + ["9C"]


def bura_deck() -> list[str]:
    """36 cards: 6 to A in four suits."""
    return [r + s for s in SUITS for r in RANKS if r not in ("2", "3", "4", "5")]


DECKS = {
    "kanasta": canasta_deck,
    "kanaszta": canasta_deck,
    "warkocz": warkocz_deck,
    "bura": bura_deck,
}


def deck_for(game_id: str) -> list[str]:
    """The canonical (unshuffled) deck of a game; twins appear twice."""
    return DECKS[game_id]()


# The letters Polish and Hungarian players write for the face cards and the ace
# (walet, dama, król, as; bubi, dáma, király, ász); the other ranks are numbers.
# None of them is an English rank letter, so a typed code reads the same in
# every language: rank first, suit (C/D/H/S) last, "DH" the queen of hearts and
# "10D" the ten of diamonds.
LOCAL_RANKS = {
    "pl": {"J": "W", "Q": "D", "K": "K", "A": "A"},
    "hu": {"J": "B", "Q": "D", "K": "K", "A": "\u00c1"},
}
# A local letter typed (upper case) -> the rank of the card code.
LOCAL_RANK_LETTERS = {letter: r for table in LOCAL_RANKS.values() for r, letter in table.items() if letter != r}

RANK_STYLES = ("local", "en")
_rank_style = "local"


def set_rank_style(style: str) -> None:
    """``local`` (the default): cards are shown with the rank letters of the
    player's language (``W♥`` in Polish, ``B♥`` in Hungarian, ``J♥`` in
    English); ``en``: with the English letters of the codes whatever the
    language (``J♥``). What is kept or sent is always the code."""
    global _rank_style
    if style not in RANK_STYLES:
        raise ValueError(f"rank style must be one of {RANK_STYLES}, not {style!r}")
    _rank_style = style


def rank_label(r: str, lang: str | None = None) -> str:
    """A rank (``"Q"``) as shown: the local letter (in ``lang`` when given,
    else in the player's language unless ``--ranks en``), else the code's."""
    if lang is None:
        if _rank_style != "local":
            return r
        lang = language()
    return LOCAL_RANKS.get(lang, {}).get(r, r)


class Rank(str):
    """A rank in a message: its code as a ``str`` (what the log keeps), its
    local letter where a player reads it (``i18n.shown``)."""

    def translated(self) -> str:
        return rank_label(str(self))


def display(card: str, ascii_only: bool = False, lang: str | None = None) -> str:
    """A card for people: ``K♥`` (or ``KH`` with ascii_only); ``JK``; ``??``;
    the rank in the player's (or ``lang``'s) letter unless ``--ranks en``."""
    if is_unknown(card):
        return "??"
    if card == JOKER or not is_code(card):
        return card
    shown = rank_label(card[:-1], lang)
    return shown + (card[-1] if ascii_only else SUIT_SYMBOLS[card[-1]])
