"""An in-memory deal: every seat's steps in one process, for tests and the
benchmark. It follows the order the network table follows, counts the bytes
each seat sends (msgpack of its messages) and the CPU time each seat spends,
and can make one seat cheat, to test that the cheat is caught and blamed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

import msgpack

from p2pcards.mental.deal import (
    DealAudit, DealRecord, card_keys_step, check_deal, commit_step, open_physical,
    parse_card_keys, parse_rekey, rekey_step, reveal_step,
)
from p2pcards.mental.encoding import encode_deck
from p2pcards.mental.group import (
    MentalError, NoCard, clear_caches, deck_bytes, encrypt, shuffle_values, split_values,
)
from p2pcards.mental.keys import DealSecrets
from p2pcards.mental.shuffle import DEFAULT_ROUNDS, prove_shuffle, shuffle_step, verify_shuffle

CHEATS = ("bad-shuffle", "substitute", "wrong-key", "bad-rekey", "bad-reveal")


def wire_size(msg: object) -> int:
    """Bytes a message takes on the wire: its msgpack encoding."""
    return len(msgpack.packb(msg, use_bin_type=True))


def shuffle_context(seat: int, tag: bytes = b"sim") -> bytes:
    """The proof context the simulation uses (the network table binds session,
    deal, step and the previous log hash instead)."""
    return tag + b"|shuffle|" + seat.to_bytes(2, "big")


@dataclass
class SimResult:
    record: DealRecord
    sent: list[int]                     # bytes each seat sent
    cpu: list[float]                    # CPU seconds each seat spent
    seen: list[dict[int, str]]          # per seat: position -> code it was shown
    physical: list[dict[int, int]]      # per seat: position -> physical index
    aborted: str | None = None          # why the deal stopped early, if it did
    audit: DealAudit | None = None
    messages: list[tuple[int, str, object]] = field(default_factory=list)  # (seat, kind, msg)


def simulate_deal(game_id: str, players: int, rounds: int = DEFAULT_ROUNDS,
                  plan: Mapping[int, int | None] | None = None, *,
                  seeds: list[bytes] | None = None, verify: str = "all",
                  cheat: tuple[str, int] | None = None, audit: bool = True,
                  context_tag: bytes = b"sim") -> SimResult:
    """Run one deal. ``plan`` maps a final-deck position to the seat it is
    shown to (None: to all); positions not in it stay hidden (the stock).
    Default: every position to seat ``position % players``. ``verify``:
    "all" (every other seat checks each proof, as on the network), "once"
    (checked once, charged to nobody) or "none". ``cheat``: (kind, seat)
    with kind in CHEATS."""
    enc = encode_deck(game_id)
    size = len(enc)
    if plan is None:
        plan = {p: p % players for p in range(size)}
    if cheat is not None and cheat[0] not in CHEATS:
        raise ValueError(f"unknown cheat {cheat[0]!r}; known: {', '.join(CHEATS)}")
    kind, cheater = cheat if cheat else (None, None)
    if verify not in ("all", "once", "none"):
        raise ValueError('verify must be "all", "once" or "none"')

    sec = [DealSecrets(s) for s in seeds] if seeds else [DealSecrets.fresh() for _ in range(players)]
    record = DealRecord(game_id, players, rounds)
    res = SimResult(record, [0] * players, [0.0] * players, [{} for _ in range(players)],
                    [{} for _ in range(players)])

    def send(seat: int, what: str, msg: object) -> None:
        res.sent[seat] += wire_size(msg)
        res.messages.append((seat, what, msg))

    class _Clock:
        def __init__(self, seat: int):
            self.seat = seat

        def __enter__(self):
            clear_caches()  # each seat validates the points it uses itself
            self.t = time.process_time()

        def __exit__(self, *exc):
            res.cpu[self.seat] += time.process_time() - self.t

    for s in range(players):
        with _Clock(s):
            msg = commit_step(sec[s])
        record.commits.append(msg)
        send(s, "commit", msg)

    def run_steps() -> str | None:
        deck = list(enc.values)
        for s in range(players):
            context = shuffle_context(s, context_tag)
            with _Clock(s):
                if s == cheater and kind in ("bad-shuffle", "substitute"):
                    msg = _cheating_shuffle(sec[s], deck, context, rounds, kind)
                else:
                    msg = shuffle_step(sec[s], deck, context, rounds)
            record.shuffles.append((context, msg))
            send(s, "shuffle", msg)
            checkers = [t for t in range(players) if t != s] if verify == "all" else \
                [None] if verify == "once" else []
            out = None
            for t in checkers:
                try:
                    if t is None:
                        out = verify_shuffle(deck, msg, context, rounds)
                    else:
                        with _Clock(t):
                            out = verify_shuffle(deck, msg, context, rounds)
                except MentalError as e:
                    return f"seat {t if t is not None else '?'} rejected the shuffle of seat {s}: {e}"
            if out is None:
                try:
                    out = split_values(msg["deck"], size)
                except MentalError as e:
                    return f"the shuffled deck of seat {s} is malformed: {e}"
            deck = out
        for s in range(players):
            with _Clock(s):
                msg = rekey_step(sec[s], deck)
                if s == cheater and kind == "bad-rekey":
                    vals = split_values(msg["deck"], size)
                    vals[0] = encrypt(2, vals[0])
                    msg = {"deck": deck_bytes(vals)}
            record.rekeys.append(msg)
            send(s, "rekey", msg)
            deck = parse_rekey(msg, size)
        # Show: each seat publishes its key of every position shown to someone else or to all.
        published: list[dict[int, int]] = []
        for t in range(players):
            positions = [p for p, who in plan.items() if who is None or who != t]
            with _Clock(t):
                msg = card_keys_step(sec[t], positions) if positions else None
                if msg is not None and t == cheater and kind == "wrong-key":
                    victim = next(i for i, (p, _) in enumerate(msg["keys"]) if plan[p] not in (None, t))
                    msg["keys"][victim][1] = (sec[t].card_key(msg["keys"][victim][0]) + 1).to_bytes(32, "big")
            if msg is not None:
                record.card_keys.append((t, msg))
                send(t, "keys", msg)
            published.append(parse_card_keys(msg, size) if msg is not None else {})
        for r in range(players):
            with _Clock(r):
                for p, who in sorted(plan.items()):
                    if who is not None and who != r:
                        continue
                    keys = [sec[r].card_key(p)] + [published[t][p] for t in range(players) if t != r]
                    try:
                        i = open_physical(enc, deck[p], keys)
                    except NoCard:
                        return f"seat {r}: position {p} decrypts to no card"
                    res.seen[r][p], res.physical[r][p] = enc.codes[i], i
        return None

    res.aborted = run_steps()
    for s in range(players):
        with _Clock(s):
            msg = reveal_step(sec[s] if not (s == cheater and kind == "bad-reveal")
                              else DealSecrets.fresh())
        record.reveals.append(msg)
        send(s, "reveal", msg)
    if audit:
        res.audit = check_deal(record)
    return res


def _cheating_shuffle(secrets: DealSecrets, deck: list[bytes], context: bytes, rounds: int,
                      kind: str) -> dict:
    """A shuffle that duplicates one card over another, or substitutes a card
    from outside the deck, with the best proof the honest prover can make."""
    out = shuffle_values(secrets.deck_key, secrets.deck_permutation(len(deck)), deck)
    if kind == "bad-shuffle":
        out[1] = out[0]
    else:
        foreign = encode_deck("bura" if len(deck) != 36 else "warkocz").values[0]
        out[0] = encrypt(secrets.deck_key, foreign)
    commits, openings = prove_shuffle(secrets, deck, out, context, rounds)
    return {"deck": deck_bytes(out), "commits": commits, "open": openings}
