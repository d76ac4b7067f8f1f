"""Dealing without a dealer: mental poker on P-256 (see protocol/dealing.md).

Pure functions and plain msgpack-able messages; the network table publishes
each message as a signed log entry and decides who acts when.
"""

from p2pcards.mental.deal import (
    KINDS, DealAudit, DealRecord, Finding, card_keys_step, check_deal, commit_step,
    open_card, open_physical, parse_card_keys, parse_commit, parse_rekey, parse_reveal,
    rekey_step, rekey_values, reveal_step,
)
from p2pcards.mental.encoding import EncodedDeck, encode_card, encode_deck
from p2pcards.mental.group import (
    N, P, BadMessage, BadProof, MentalError, NoCard, deck_hash, encrypt, encrypt_all,
    inverse, shuffle_values, split_values, strip,
)
from p2pcards.mental.keys import DealSecrets, seed_commitment
from p2pcards.mental.seat import SeatDeal
from p2pcards.mental.shuffle import (
    DEFAULT_ROUNDS, ShuffleMessage, challenge_bits, parse_shuffle, prove_shuffle,
    shuffle_step, verify_shuffle,
)
from p2pcards.mental.sim import CHEATS, SimResult, shuffle_context, simulate_deal, wire_size

__all__ = [name for name in dir() if not name.startswith("_")]
