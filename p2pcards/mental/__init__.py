"""Dealing without a dealer: mental poker on P-256 (see protocol/dealing.md).

Pure functions and plain msgpack-able messages; the network table publishes
each message as a signed log entry and decides who acts when.

Live play, one seat (``SeatDeal``; feed it every log entry, its own too)::

    deal = SeatDeal(game_id, players, seat)           # fresh DealSecrets inside
    publish(deal.commit());        deal.receive_commit(s, msg)      # every seat
    publish(deal.shuffle(ctx));    deal.receive_shuffle(s, ctx, msg) # seat order; checks the proof
    publish(deal.rekey());         deal.receive_rekey(s, msg)        # seat order
    publish(deal.keys([p, ...]));  deal.receive_keys(s, msg)         # to show positions
    deal.can_open(p); deal.open(p) -> code     # NoCard: abort and reveal
    publish(deal.reveal());        deal.receive_reveal(s, msg)
    deal.audit() -> DealAudit(findings=[Finding(seat, kind, detail, position)], cards, physical)

The audit of a finished log: build a ``DealRecord`` from its entries and call
``check_deal``. Every ``receive_*``/``parse_*`` raises a ``MentalError``
(a ValueError) naming what is wrong; the sender of that message is to blame.
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
from p2pcards.mental.sim import (
    CHEATS, SimResult, cheating_shuffle, shuffle_context, simulate_deal, wire_size,
)

__all__ = [name for name in dir() if not name.startswith("_")]
