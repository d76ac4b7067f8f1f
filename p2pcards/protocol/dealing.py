"""The dealing cryptography as the table uses it.

``p2pcards.mental`` holds the cryptography as pure functions over its own
messages; this module fits those messages into the table's log entries (see
``protocol/table.md``) and turns its errors into one ``DealingError``.
"""

from __future__ import annotations

import struct

from p2pcards import mental
from p2pcards.mental.group import h, scalar_from_bytes, scalar_to_bytes
from p2pcards.i18n import N_, message_of
from p2pcards.protocol.violation import Violation


class DealingError(ValueError):
    """A dealing message is malformed or its proof fails."""


NoCard = mental.NoCard


def context(session: bytes, deal_index: int, seat: int, step: str, prev_hash: bytes) -> bytes:
    """The Fiat-Shamir context of a shuffle or re-key proof: session, deal,
    seat, step and the hash of the log entry before it."""
    return h("table-context", session, struct.pack(">I", deal_index), struct.pack(">I", seat),
             step.encode("ascii"), prev_hash)


def initial_deck(game_id: str) -> list[bytes]:
    return list(mental.encode_deck(game_id).values)


# ----- what a seat publishes ----------------------------------------------------------


def shuffle_payload(secrets: mental.DealSecrets, deck_in: list[bytes], ctx: bytes) -> dict:
    return {"commit": secrets.commitment, "shuffle": mental.shuffle_step(secrets, deck_in, ctx)}


def rekey_payload(secrets: mental.DealSecrets, deck_in: list[bytes], ctx: bytes) -> dict:
    return {"rekey": mental.rekey_step(secrets, deck_in, ctx)}


def key_list(secrets: mental.DealSecrets, positions) -> list[list]:
    """[[position, key bytes], ...] of this seat's per-card keys."""
    return [[p, scalar_to_bytes(secrets.card_key(p))] for p in sorted(set(positions))]


def reveal_payload(secrets: mental.DealSecrets) -> dict:
    return {"seed": secrets.seed}


# ----- checking what others publish -------------------------------------------------


def check_shuffle(deck_in: list[bytes], payload: dict, ctx: bytes, verify: bool = True, points: bool = True
                  ) -> tuple[list[bytes], bytes, bytes]:
    """(output deck, seed commitment, deck-key commitment K) of a shuffle
    entry; its proof is checked unless ``verify`` is off (one's own entry, or
    an audit that recomputes the deal from its seeds), its encodings parsed
    unless ``points`` is off too (the caller has them checked:
    ``mental.shuffle_encodings``)."""
    try:
        commitment = mental.parse_commit({"commit": payload.get("commit")})
        msg = payload.get("shuffle")
        if verify:
            deck = mental.verify_shuffle(deck_in, msg, ctx)
            return deck, commitment, msg["key"]
        parsed = mental.parse_shuffle(msg, len(deck_in), points)
    except mental.MentalError as exc:
        raise DealingError(message_of(exc)) from None
    return parsed.deck, commitment, parsed.key


def check_rekey(deck_in: list[bytes], deck_key: bytes, payload: dict, ctx: bytes, verify: bool = True,
                points: bool = True) -> tuple[list[bytes], list[bytes]]:
    """(output deck, per-card key commitments) of a re-key entry, its proof
    checked against the seat's deck-key commitment unless ``verify`` is off,
    its encodings parsed unless ``points`` is off too (``check_shuffle``)."""
    try:
        msg = payload.get("rekey")
        if verify:
            parsed = mental.verify_rekey(deck_in, deck_key, msg, ctx)
        else:
            parsed = mental.parse_rekey(msg, len(deck_in), points)
    except mental.MentalError as exc:
        raise DealingError(message_of(exc)) from None
    return parsed.deck, parsed.commits


def key_matches(key: int, commitment: bytes) -> bool:
    """A published per-card key is the one its publisher committed to."""
    return mental.check_card_key(key, commitment)


def parse_key(raw) -> int:
    try:
        return scalar_from_bytes(raw)
    except mental.MentalError as exc:
        raise DealingError(message_of(exc)) from None


def parse_seed(raw, commitment: bytes | None) -> bytes:
    try:
        seed = mental.parse_reveal({"seed": raw})
    except mental.MentalError as exc:
        raise DealingError(message_of(exc)) from None
    if commitment is not None and mental.seed_commitment(seed) != commitment:
        raise DealingError(N_("the revealed seed does not match the seat's commitment"))
    return seed


def open_value(game_id: str, value: bytes, keys: list[int]) -> str:
    """The card under every seat's per-card key; raises NoCard."""
    return mental.open_card(mental.encode_deck(game_id), value, keys)


# ----- the final check ----------------------------------------------------------------


def check_deal(machine, deal) -> tuple[list, list[str] | None]:
    """Every layer of ``deal`` recomputed from the log and the revealed seeds:
    (violations naming the seat whose step is wrong, every position's code or
    None if the deal cannot be opened)."""
    n = machine.players
    committed = sorted(deal.commitments)
    record = mental.DealRecord(
        game_id=machine.game.id,
        players=n,
        commits=[{"commit": deal.commitments[s]} if s in deal.commitments else None for s in range(n)],
        shuffles=list(deal.shuffle_messages),
        rekeys=list(deal.rekey_messages),
        card_keys=[(seat, {"keys": keys}) for seat, keys in deal.key_messages],
        reveals=[{"seed": deal.seeds[s]} if s in deal.seeds else None for s in range(n)],
    )
    # The machine verified each proof as it took the entry, unless it defers
    # them to this check (the audit: recomputing from the seeds is cheaper).
    audit = (machine.deal_checker or mental.check_deal)(record, machine.verify_proofs)
    violations = []
    for finding in audit.findings:
        # A seat that never got to commit, or was blamed already and did not
        # reveal, is not at fault for the missing data.
        if finding.kind in ("bad-commit", "missing-reveal") and (
            finding.seat not in committed or finding.seat in machine.excluded
        ):
            continue
        violations.append(Violation(finding.seat, finding.kind, finding.detail))
    complete = len(deal.seeds) == n and len(deal.rekey_messages) == n
    codes = list(audit.cards) if complete and all(c is not None for c in audit.cards) else None
    if complete and codes is None and not violations:
        violations.append(Violation(None, "no-card", N_("some positions open to no card")))
    return violations, codes
