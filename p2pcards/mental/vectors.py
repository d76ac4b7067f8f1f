"""Test vectors of the dealing cryptography: a small deal with fixed seeds and
every intermediate value, as JSON (``protocol/vectors/dealing.json``).

    PYTHONPATH=. python -m p2pcards.mental.vectors > protocol/vectors/dealing.json

``tests/test_mental_vectors.py`` checks the file byte for byte against this
generator and re-checks its values with the primitives.
"""

from __future__ import annotations

import hashlib
import json
import sys

import msgpack

from p2pcards.mental.deal import (
    DealRecord, card_keys_step, check_deal, commit_step, open_card, rekey_step, reveal_step,
)
from p2pcards.mental.encoding import encode_deck
from p2pcards.mental.group import (
    P, deck_hash, h, is_value, scalar_to_bytes, shuffle_values, split_values, u32,
)
from p2pcards.mental.keys import DealSecrets, round_key, round_permutation
from p2pcards.mental.shuffle import challenge_bits, shuffle_step

GAME = "bura"
PLAYERS = 2
ROUNDS = 4
# Seat 0 is shown positions 0 and 2, seat 1 positions 1 and 3, everybody position 4.
PLAN = {0: 0, 1: 1, 2: 0, 3: 1, 4: None}


def vector_seed(seat: int) -> bytes:
    return hashlib.sha256(b"p2pcards dealing test vector, seat %d" % seat).digest()


def vector_context(seat: int) -> bytes:
    return b"test vector|shuffle|" + u32(seat)


def _hex(b: bytes) -> str:
    return b.hex()


def _pack(msg: object) -> str:
    return msgpack.packb(msg, use_bin_type=True).hex()


def _counter(game_id: str, code: str, copy: int, x: bytes) -> int:
    c = 0
    while True:
        y = h("card", game_id.encode(), code.encode(), u32(copy), u32(c))
        if int.from_bytes(y, "big") < P and is_value(y):
            assert y == x
            return c
        c += 1


def build() -> dict:
    enc = encode_deck(GAME)
    size = len(enc)
    copies: dict[str, int] = {}
    encoding = []
    for i, (code, x) in enumerate(zip(enc.codes, enc.values)):
        copy = copies.get(code, 0)
        copies[code] = copy + 1
        encoding.append({"index": i, "code": code, "copy": copy,
                         "counter": _counter(GAME, code, copy, x), "x": _hex(x)})

    sec = [DealSecrets(vector_seed(s)) for s in range(PLAYERS)]
    seats = [{
        "seed": _hex(s.seed),
        "commitment": _hex(s.commitment),
        "deck_key": _hex(scalar_to_bytes(s.deck_key)),
        "deck_permutation": s.deck_permutation(size),
        "card_keys": [_hex(scalar_to_bytes(s.card_key(j))) for j in range(size)],
    } for s in sec]
    record = DealRecord(GAME, PLAYERS, ROUNDS)
    commits = []
    for s in sec:
        msg = commit_step(s)
        record.commits.append(msg)
        commits.append(_pack(msg))

    deck = list(enc.values)
    shuffles = []
    for seat, s in enumerate(sec):
        context = vector_context(seat)
        input_hash = deck_hash(deck)
        rounds = []
        for i in range(ROUNDS):
            rs = s.round_seed(input_hash, context, i)
            mid = shuffle_values(round_key(rs), round_permutation(rs, size), deck)
            rounds.append({"seed": _hex(rs), "key": _hex(scalar_to_bytes(round_key(rs))),
                           "permutation": round_permutation(rs, size),
                           "deck": [_hex(x) for x in mid], "commit": _hex(deck_hash(mid))})
        msg = shuffle_step(s, deck, context, ROUNDS)
        out = split_values(msg["deck"], size)
        commit_list = [bytes.fromhex(r["commit"]) for r in rounds]
        packed = msgpack.packb(msg, use_bin_type=True)
        shuffles.append({
            "seat": seat, "context": _hex(context), "input_hash": _hex(input_hash),
            "rounds": rounds,
            "challenge_bits": challenge_bits(context, input_hash, deck_hash(out), commit_list, ROUNDS),
            "output": [_hex(x) for x in out], "output_hash": _hex(deck_hash(out)),
            "message": packed.hex(), "message_sha256": hashlib.sha256(packed).hexdigest(),
        })
        record.shuffles.append((context, msg))
        deck = out

    rekeys = []
    for seat, s in enumerate(sec):
        msg = rekey_step(s, deck)
        deck = split_values(msg["deck"], size)
        rekeys.append({"seat": seat, "output": [_hex(x) for x in deck], "message": _pack(msg)})
        record.rekeys.append(msg)

    card_keys = []
    for seat, s in enumerate(sec):
        positions = [p for p, who in PLAN.items() if who is None or who != seat]
        msg = card_keys_step(s, positions)
        card_keys.append({"seat": seat, "positions": positions, "message": _pack(msg)})
        record.card_keys.append((seat, msg))
    shown = {str(p): open_card(enc, deck[p], [t.card_key(p) for t in sec]) for p in PLAN}

    reveals = []
    for s in sec:
        msg = reveal_step(s)
        record.reveals.append(msg)
        reveals.append(_pack(msg))
    audit = check_deal(record)
    return {
        "about": "p2pcards dealing test vector (protocol/dealing.md); hex strings are bytes, "
                 "messages are their msgpack encoding",
        "game": GAME, "players": PLAYERS, "rounds": ROUNDS,
        "plan": {str(p): who for p, who in PLAN.items()},
        "encoding": encoding,
        "example_hash": {"tag": "deck", "parts": [""],
                         "framed": _hex(b"\x00\x00\x00\x17p2pcards/mental/v1/deck\x00\x00\x00\x00"),
                         "sha256": _hex(h("deck", b""))},
        "seats": seats,
        "commit_messages": commits,
        "shuffles": shuffles,
        "rekeys": rekeys,
        "card_keys": card_keys,
        "shown": shown,
        "reveal_messages": reveals,
        "audit": {"findings": [f.as_dict() for f in audit.findings], "cards": audit.cards,
                  "physical": audit.physical},
    }


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
