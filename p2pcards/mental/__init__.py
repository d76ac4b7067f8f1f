"""Dealing without a dealer: mental poker on secp256k1, version 2 (see
protocol/dealing.md).

Pure functions and plain msgpack-able messages; the network table publishes
each message as a signed log entry and decides who acts when. Every step is
proved when it is made:

    commit_step(secrets)                      {"commit"}        every seat, first
    shuffle_step(secrets, deck, ctx)          {"deck", "key", ...proof}   verify_shuffle
    rekey_step(secrets, deck, ctx)            {"deck", "commits", ...proof}  verify_rekey
    card_keys_step(secrets, positions)        {"keys"}  each key checked: check_card_key
    reveal_step(secrets)                      {"seed"}
    check_deal(DealRecord(...)) -> DealAudit(findings=[Finding(seat, kind, detail, position)], cards, physical)

Every ``parse_*``/``verify_*`` raises a ``MentalError`` (a ValueError) naming
what is wrong; the sender of that message is to blame. An in-memory deal for
tests and benchmarks is in ``p2pcards.testing.mental_sim``.
"""

from p2pcards.mental.deal import (
    KINDS, DealAudit, DealRecord, Finding, card_key_commitments, card_keys_step, check_card_key,
    check_deal, commit_step, expect_deal, layers_match, open_card, open_physical, parse_card_keys, parse_commit,
    parse_reveal, rekey_values, reveal_step,
)
from p2pcards.mental.encoding import EncodedDeck, encode_card, encode_deck
from p2pcards.mental.group import (
    N, P, BadMessage, BadProof, MentalError, NoCard, deck_hash, encrypt, encrypt_all,
    inverse, points_valid, shuffle_values, split_points, strip,
)
from p2pcards.mental.keys import DealSecrets, seed_commitment
from p2pcards.mental.rekey import RekeyMessage, card_key_commitment, parse_rekey, rekey_encodings, rekey_step, verify_rekey
from p2pcards.mental.shuffle import (
    SOUNDNESS_BITS, ShuffleMessage, parse_shuffle, shuffle_encodings, shuffle_step, verify_shuffle,
)

__all__ = [name for name in dir() if not name.startswith("_")]
