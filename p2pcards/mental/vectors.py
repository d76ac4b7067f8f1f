"""Test vectors of the dealing cryptography, protocol version 2: a small deal
with fixed seeds and every intermediate value, as JSON
(``protocol/vectors/dealing.json``).

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
    DealRecord, card_keys_step, check_deal, commit_step, open_card, reveal_step,
)
from p2pcards.mental.encoding import encode_card_counter, encode_deck
from p2pcards.mental.group import frame, generators, h, scalar_to_bytes, split_points, u32
from p2pcards.mental.keys import DealSecrets
from p2pcards.mental.rekey import rekey_step
from p2pcards.mental.shuffle import shuffle_step

GAME = "bura"
PLAYERS = 2
# Seat 0 is shown positions 0 and 2, seat 1 positions 1 and 3, everybody position 4.
PLAN = {0: 0, 1: 1, 2: 0, 3: 1, 4: None}


def vector_seed(seat: int) -> bytes:
    return hashlib.sha256(b"p2pcards dealing test vector, seat %d" % seat).digest()


def vector_context(step: str, seat: int) -> bytes:
    return b"test vector|" + step.encode("ascii") + b"|" + u32(seat)


def _hex(b: bytes) -> str:
    return b.hex()


def _sc(k: int) -> str:
    return scalar_to_bytes(k).hex()


def _pack(msg: object) -> str:
    return msgpack.packb(msg, use_bin_type=True).hex()


def _trace(t: dict) -> dict:
    """JSON form of a prover trace: scalars and bytes as hex."""
    out = {}
    for key, value in t.items():
        if isinstance(value, bytes):
            out[key] = _hex(value)
        elif isinstance(value, int):
            out[key] = _sc(value)
        else:
            out[key] = [_hex(v) if isinstance(v, bytes) else _sc(v) for v in value]
    return out


def build() -> dict:
    enc = encode_deck(GAME)
    size = len(enc)
    copies: dict[str, int] = {}
    encoding = []
    for i, (code, x) in enumerate(zip(enc.codes, enc.values)):
        copy = copies.get(code, 0)
        copies[code] = copy + 1
        point, counter = encode_card_counter(GAME, code, copy)
        assert point == x
        encoding.append({"index": i, "code": code, "copy": copy, "counter": counter, "point": _hex(x)})

    sec = [DealSecrets(vector_seed(s)) for s in range(PLAYERS)]
    seats = [{
        "seed": _hex(s.seed),
        "commitment": _hex(s.commitment),
        "deck_key": _sc(s.deck_key),
        "deck_key_point": _hex(s.deck_key_point),
        "deck_permutation": s.deck_permutation(size),
        "card_keys": [_sc(s.card_key(j)) for j in range(size)],
    } for s in sec]
    record = DealRecord(GAME, PLAYERS)
    commits = []
    for s in sec:
        msg = commit_step(s)
        record.commits.append(msg)
        commits.append(_pack(msg))

    deck = list(enc.values)
    shuffles = []
    for seat, s in enumerate(sec):
        context = vector_context("shuffle", seat)
        trace: dict = {}
        msg = shuffle_step(s, deck, context, trace)
        out = split_points(msg["deck"], size)
        packed = msgpack.packb(msg, use_bin_type=True)
        shuffles.append({"seat": seat, "context": _hex(context), "input": [_hex(x) for x in deck],
                         "output": [_hex(x) for x in out], "prover": _trace(trace),
                         "message": packed.hex(), "message_sha256": hashlib.sha256(packed).hexdigest()})
        record.shuffles.append((context, msg))
        deck = out

    rekeys = []
    for seat, s in enumerate(sec):
        context = vector_context("rekey", seat)
        trace = {}
        msg = rekey_step(s, deck, context, trace)
        deck = split_points(msg["deck"], size)
        rekeys.append({"seat": seat, "context": _hex(context), "output": [_hex(x) for x in deck],
                       "prover": _trace(trace), "message": _pack(msg)})
        record.rekeys.append((context, msg))

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
        "about": "p2pcards dealing test vector, protocol version 2 (protocol/dealing.md); hex strings "
                 "are bytes, scalars 32 bytes big-endian, points 33-byte SEC1 compressed, messages "
                 "their msgpack encoding",
        "game": GAME, "players": PLAYERS,
        "plan": {str(p): who for p, who in PLAN.items()},
        "example_hash": {"tag": "deck", "parts": [""], "framed": _hex(frame("deck", [b""])),
                         "sha256": _hex(h("deck", b""))},
        "generators": [_hex(g.format()) for g in generators(size)],
        "encoding": encoding,
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
