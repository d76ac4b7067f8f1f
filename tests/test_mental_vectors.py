"""protocol/vectors/dealing.json: byte for byte what the code produces, and
its values re-derived one by one from the spec's formulas (coincurve
directly, not the package's helpers, where it matters)."""

import hashlib
import json
from pathlib import Path

import msgpack
from coincurve import PublicKey

from p2pcards.mental import DealRecord, DealSecrets, check_deal, encode_deck, open_card, verify_shuffle
from p2pcards.mental.group import N, frame, h
from p2pcards.mental.rekey import verify_rekey
from p2pcards.mental.vectors import render

PATH = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "dealing.json"
V = json.loads(PATH.read_text())
B = bytes.fromhex


def I(x: str) -> int:  # noqa: E743
    return int(x, 16)


def mul(point: bytes, k: int) -> bytes:
    return PublicKey(point).multiply((k % N).to_bytes(32, "big")).format()


def gmul(k: int) -> bytes:
    return PublicKey.from_secret((k % N).to_bytes(32, "big")).format()


def add(*pts: bytes) -> bytes:
    return PublicKey.combine_keys([PublicKey(p) for p in pts]).format()


def unpack(hexmsg: str):
    return msgpack.unpackb(B(hexmsg), raw=False)


def test_file_is_byte_for_byte_what_the_code_makes():
    assert PATH.read_text() == render(), "regenerate: python -m p2pcards.mental.vectors"


def test_hash_framing_example():
    ex = V["example_hash"]
    assert B(ex["framed"]) == b"\x00\x00\x00\x17p2pcards/mental/v2/deck\x00\x00\x00\x00"
    assert hashlib.sha256(B(ex["framed"])).hexdigest() == ex["sha256"] == h("deck", b"").hex()


def test_encoding_and_generators_are_try_and_increment():
    enc = encode_deck(V["game"])
    assert [B(e["point"]) for e in V["encoding"]] == list(enc.values)
    for e in V["encoding"]:
        x = h("card", V["game"].encode(), e["code"].encode(), e["copy"].to_bytes(4, "big"),
              e["counter"].to_bytes(4, "big"))
        assert e["point"] == "02" + x.hex()
    for i, g in enumerate(V["generators"]):
        assert g[2:] in {h("generator", i.to_bytes(4, "big"), c.to_bytes(4, "big")).hex() for c in range(8)}


def test_seat_derivations():
    for seat in V["seats"]:
        s = DealSecrets(B(seat["seed"]))
        assert s.commitment.hex() == seat["commitment"]
        assert s.deck_key == I(seat["deck_key"])
        assert gmul(s.deck_key).hex() == seat["deck_key_point"]


def test_shuffles_chain_verify_and_follow_the_spec():
    deck = [B(e["point"]) for e in V["encoding"]]
    gens = [B(g) for g in V["generators"]]
    size = len(deck)
    for sh, seat in zip(V["shuffles"], V["seats"]):
        assert [x.hex() for x in deck] == sh["input"]
        k, perm = I(seat["deck_key"]), seat["deck_permutation"]
        out = [mul(deck[p], k) for p in perm]
        assert [x.hex() for x in out] == sh["output"]
        msg = unpack(sh["message"])
        assert hashlib.sha256(B(sh["message"])).hexdigest() == sh["message_sha256"]
        assert verify_shuffle(deck, msg, B(sh["context"])) == out
        pr = sh["prover"]
        inv = [perm.index(j) for j in range(size)]
        commits = [add(gens[1 + inv[j]], gmul(I(pr["r"][j]))) for j in range(size)]
        assert b"".join(commits) == msg["commits"]
        state = h("shuffle-u", B(sh["context"]), b"p2pcards/mental/v2/generator", size.to_bytes(4, "big"),
                  b"".join(deck), b"".join(out), msg["key"], msg["commits"])
        assert state.hex() == pr["u_state"]
        u = [I(x) for x in pr["u"]]
        assert u[5] == int.from_bytes(hashlib.sha512(frame("shuffle-u-i", [state, (5).to_bytes(4, "big")]))
                                      .digest(), "big") % (N - 1) + 1
        chain, prev = [], gens[0]
        for i in range(size):
            prev = add(mul(prev, u[perm[i]]), gmul(I(pr["r_hat"][i])))
            chain.append(prev)
        assert b"".join(chain) == msg["chain"]
        digest = hashlib.sha256(frame("shuffle-challenge", [state, msg["chain"]]) +
                                b"".join(B(t) for t in pr["t"] + pr["t_hat"])).digest()
        assert digest == msg["challenge"] and int.from_bytes(digest, "big") % N == I(pr["c"])
        c = I(pr["c"])
        assert int.from_bytes(msg["responses"][96:], "big") == (I(pr["w"][3]) - c * k) % N
        deck = out


def test_rekeys_shown_cards_and_audit():
    deck = [B(x) for x in V["shuffles"][-1]["output"]]
    for rk, seat in zip(V["rekeys"], V["seats"]):
        k = I(seat["deck_key"])
        keys = [I(c) for c in seat["card_keys"]]
        msg = unpack(rk["message"])
        parsed = verify_rekey(deck, B(seat["deck_key_point"]), msg, B(rk["context"]))
        deck = [mul(x, keys[j] * pow(k, -1, N)) for j, x in enumerate(deck)]
        assert [x.hex() for x in deck] == rk["output"] == [x.hex() for x in parsed.deck]
        assert parsed.commits == [gmul(x) for x in keys]
        pr = rk["prover"]
        assert B(pr["t_key"]) == gmul(I(pr["a"]))
        zs = msg["responses"]
        assert int.from_bytes(zs[:32], "big") == (I(pr["a"]) - I(pr["c"]) * k) % N
    enc = encode_deck(V["game"])
    for p, code in V["shown"].items():
        keys = [I(seat["card_keys"][int(p)]) for seat in V["seats"]]
        assert open_card(enc, deck[int(p)], keys) == code
    record = DealRecord(V["game"], V["players"],
                        commits=[unpack(m) for m in V["commit_messages"]],
                        shuffles=[(B(s["context"]), unpack(s["message"])) for s in V["shuffles"]],
                        rekeys=[(B(r["context"]), unpack(r["message"])) for r in V["rekeys"]],
                        card_keys=[(c["seat"], unpack(c["message"])) for c in V["card_keys"]],
                        reveals=[unpack(m) for m in V["reveal_messages"]])
    for proofs_verified in (False, True):
        audit = check_deal(record, proofs_verified)
        assert audit.ok and audit.cards == V["audit"]["cards"] and audit.physical == V["audit"]["physical"]
