"""Cards as points: every physical card of a game's deck hashed to secp256k1.

Hash-to-group by try-and-increment, so no two encodings have a known
relation (cards as i*G or small integers would leak the whole shuffle), and
the tag holds the game id and the card's copy index, so the two physical
copies of a card in a two-pack deck encode differently (equal encodings stay
equal under every key and would show where a pair lies).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from p2pcards.cards import DECKS, deck_for
from p2pcards.mental.group import NoCard, hash_to_point, u32


def encode_card_counter(game_id: str, code: str, copy: int) -> tuple[bytes, int]:
    """(encoding, counter) of the ``copy``-th physical copy (0, 1, ...) of ``code``."""
    return hash_to_point("card", game_id.encode("utf-8"), code.encode("ascii"), u32(copy))


def encode_card(game_id: str, code: str, copy: int) -> bytes:
    """The value of the ``copy``-th physical copy (0, 1, ...) of ``code``."""
    return encode_card_counter(game_id, code, copy)[0]


@dataclass(frozen=True)
class EncodedDeck:
    """The public encoding of one game's deck, in canonical order."""

    game_id: str
    codes: tuple[str, ...]
    values: tuple[bytes, ...]
    _index: dict[bytes, int] = field(repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.values)

    def decode(self, x: bytes) -> tuple[str, int]:
        """(code, physical index) of a plain value, or NoCard."""
        i = self._index.get(x)
        if i is None:
            raise NoCard("the value decrypts to no card of the deck")
        return self.codes[i], i

    def lookup(self, x: bytes) -> int | None:
        """The physical index of a plain value, None if it is no card."""
        return self._index.get(x)


@functools.lru_cache(maxsize=None)
def encode_deck(game_id: str) -> EncodedDeck:
    """The encoding of ``deck_for(game_id)``: deterministic, public, cached."""
    if game_id not in DECKS:
        raise ValueError(f"unknown game {game_id!r}; known: {', '.join(sorted(DECKS))}")
    codes = tuple(deck_for(game_id))
    copies: dict[str, int] = {}
    values = []
    for code in codes:
        copy = copies.get(code, 0)
        copies[code] = copy + 1
        values.append(encode_card(game_id, code, copy))
    index = {x: i for i, x in enumerate(values)}
    if len(index) != len(values):  # 2^-256 territory, but never decode ambiguously
        raise AssertionError("two cards hash to the same point")
    return EncodedDeck(game_id, codes, tuple(values), index)
