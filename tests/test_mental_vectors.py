"""protocol/vectors/dealing.json: byte for byte what the code produces, and
its values re-checked one by one with the primitives."""

import hashlib
import json
from pathlib import Path

import msgpack

from p2pcards.mental import (
    DealRecord, DealSecrets, check_deal, encode_deck, encrypt, open_card, verify_shuffle,
)
from p2pcards.mental.group import N, deck_hash, h
from p2pcards.mental.shuffle import challenge_bits
from p2pcards.mental.vectors import render

PATH = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "dealing.json"
V = json.loads(PATH.read_text())
B = bytes.fromhex


def test_file_is_byte_for_byte_what_the_code_makes():
    assert PATH.read_text() == render(), "regenerate: python -m p2pcards.mental.vectors"


def test_hash_framing_example():
    ex = V["example_hash"]
    assert hashlib.sha256(B(ex["framed"])).hexdigest() == ex["sha256"] == h("deck", b"").hex()


def test_encoding_entries():
    enc = encode_deck(V["game"])
    assert [B(e["x"]) for e in V["encoding"]] == list(enc.values)
    for e in V["encoding"]:
        x = h("card", V["game"].encode(), e["code"].encode(), e["copy"].to_bytes(4, "big"),
              e["counter"].to_bytes(4, "big"))
        assert x.hex() == e["x"]


def test_seat_derivations():
    for seat in V["seats"]:
        s = DealSecrets(B(seat["seed"]))
        assert s.commitment.hex() == seat["commitment"]
        assert s.deck_key == int(seat["deck_key"], 16)


def test_shuffles_chain_and_verify():
    deck = [B(e["x"]) for e in V["encoding"]]
    for sh, seat in zip(V["shuffles"], V["seats"]):
        assert deck_hash(deck).hex() == sh["input_hash"]
        k, perm = int(seat["deck_key"], 16), seat["deck_permutation"]
        out = [encrypt(k, deck[p]) for p in perm]
        assert [x.hex() for x in out] == sh["output"]
        for r in sh["rounds"]:
            mid = [encrypt(int(r["key"], 16), deck[p]) for p in r["permutation"]]
            assert [x.hex() for x in mid] == r["deck"] and deck_hash(mid).hex() == r["commit"]
        bits = challenge_bits(B(sh["context"]), B(sh["input_hash"]), B(sh["output_hash"]),
                              [B(r["commit"]) for r in sh["rounds"]], V["rounds"])
        assert bits == sh["challenge_bits"]
        packed = B(sh["message"])
        assert hashlib.sha256(packed).hexdigest() == sh["message_sha256"]
        msg = msgpack.unpackb(packed, raw=False)
        assert verify_shuffle(deck, msg, B(sh["context"]), V["rounds"]) == out
        deck = out


def test_rekeys_shown_cards_and_audit():
    deck = [B(x) for x in V["shuffles"][-1]["output"]]
    for rk, seat in zip(V["rekeys"], V["seats"]):
        k = int(seat["deck_key"], 16)
        keys = [int(c, 16) for c in seat["card_keys"]]
        deck = [encrypt(keys[j] * pow(k, -1, N) % N, x) for j, x in enumerate(deck)]
        assert [x.hex() for x in deck] == rk["output"]
    enc = encode_deck(V["game"])
    for p, code in V["shown"].items():
        keys = [int(seat["card_keys"][int(p)], 16) for seat in V["seats"]]
        assert open_card(enc, deck[int(p)], keys) == code
    unpack = lambda hexmsg: msgpack.unpackb(B(hexmsg), raw=False)  # noqa: E731
    record = DealRecord(V["game"], V["players"], V["rounds"],
                        commits=[unpack(m) for m in V["commit_messages"]],
                        shuffles=[(B(s["context"]), unpack(s["message"])) for s in V["shuffles"]],
                        rekeys=[unpack(r["message"]) for r in V["rekeys"]],
                        card_keys=[(c["seat"], unpack(c["message"])) for c in V["card_keys"]],
                        reveals=[unpack(m) for m in V["reveal_messages"]])
    audit = check_deal(record)
    assert audit.ok and audit.cards == V["audit"]["cards"] and audit.physical == V["audit"]["physical"]
