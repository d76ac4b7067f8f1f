"""An in-memory deal: every seat's ``SeatDeal`` in one process, for tests and
the benchmark. Every message goes to every seat in the order the network
table uses; it counts the bytes each seat sends (msgpack of its messages)
and the CPU time each seat spends, and can make one seat cheat, to test that
the cheat is caught and blamed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

import msgpack

from p2pcards.mental.deal import DealAudit, DealRecord, check_deal
from p2pcards.mental.encoding import encode_deck
from p2pcards.mental.group import (
    N, MentalError, clear_caches, deck_bytes, encrypt, shuffle_values, split_values,
)
from p2pcards.mental.keys import DealSecrets
from p2pcards.mental.seat import SeatDeal
from p2pcards.mental.shuffle import DEFAULT_ROUNDS, prove_shuffle

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
    record: DealRecord                  # the deal as an honest seat's log holds it
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
    (only the next seat checks it) or "none". ``cheat``: (kind, seat) with
    kind in CHEATS. ``seeds``: fixed deal seeds (else fresh ones)."""
    size = len(encode_deck(game_id))
    if plan is None:
        plan = {p: p % players for p in range(size)}
    for p, who in plan.items():
        if not isinstance(p, int) or not 0 <= p < size:
            raise ValueError(f"plan position {p!r} is not in 0..{size - 1}")
        if who is not None and (not isinstance(who, int) or not 0 <= who < players):
            raise ValueError(f"plan shows position {p} to {who!r}, not a seat of {players}")
    if cheat is not None and cheat[0] not in CHEATS:
        raise ValueError(f"unknown cheat {cheat[0]!r}; known: {', '.join(CHEATS)}")
    if verify not in ("all", "once", "none"):
        raise ValueError('verify must be "all", "once" or "none"')
    kind, cheater = cheat if cheat else (None, None)
    sec = [DealSecrets(s) for s in seeds] if seeds else [DealSecrets.fresh() for _ in range(players)]
    seats = [SeatDeal(game_id, players, s, rounds, sec[s]) for s in range(players)]
    res = SimResult(seats[0].record, [0] * players, [0.0] * players,
                    [{} for _ in range(players)], [{} for _ in range(players)])

    class clock:
        def __init__(self, seat: int):
            self.seat = seat

        def __enter__(self):
            clear_caches()  # each seat validates the points it uses itself
            self.t = time.process_time()

        def __exit__(self, *exc):
            res.cpu[self.seat] += time.process_time() - self.t

    def publish(seat: int, what: str, msg: object, deliver) -> None:
        """Send to all; ``deliver(t)`` hands it to seat t. Raises the first
        rejection as an abort reason."""
        res.sent[seat] += wire_size(msg)
        res.messages.append((seat, what, msg))
        failure = None
        for t in range(players):
            try:
                with clock(t):
                    deliver(t)
            except MentalError as e:
                failure = failure or f"seat {t} rejected the {what} of seat {seat}: {e}"
        if failure:
            raise _Abort(failure)

    def run() -> None:
        for s in range(players):
            with clock(s):
                msg = seats[s].commit()
            publish(s, "commit", msg, lambda t: seats[t].receive_commit(s, msg))
        for s in range(players):
            context = shuffle_context(s, context_tag)
            with clock(s):
                if s == cheater and kind in ("bad-shuffle", "substitute"):
                    msg = cheating_shuffle(sec[s], seats[s].deck, context, rounds, kind)
                else:
                    msg = seats[s].shuffle(context)
            checks = {"all": set(range(players)), "once": {(s + 1) % players}, "none": set()}[verify]
            publish(s, "shuffle", msg,
                    lambda t: seats[t].receive_shuffle(s, context, msg, verify=t in checks))
        for s in range(players):
            with clock(s):
                msg = seats[s].rekey()
                if s == cheater and kind == "bad-rekey":
                    vals = split_values(msg["deck"], size)
                    vals[0] = encrypt(2, vals[0])
                    msg = {"deck": deck_bytes(vals)}
            publish(s, "rekey", msg, lambda t: seats[t].receive_rekey(s, msg))
        # Each seat publishes its key of every position shown to someone else or to all.
        for s in range(players):
            positions = [p for p, who in plan.items() if who is None or who != s]
            if not positions:
                continue
            with clock(s):
                msg = seats[s].keys(positions)
                if s == cheater and kind == "wrong-key":
                    item = next(it for it in msg["keys"] if plan[it[0]] not in (None, s))
                    item[1] = (sec[s].card_key(item[0]) % (N - 1) + 1).to_bytes(32, "big")
            publish(s, "keys", msg, lambda t: seats[t].receive_keys(s, msg))
        for r in range(players):
            with clock(r):
                for p, who in sorted(plan.items()):
                    if who is None or who == r:
                        try:
                            i = seats[r].open_index(p)
                        except MentalError as e:
                            raise _Abort(f"seat {r}: {e}")
                        res.seen[r][p], res.physical[r][p] = seats[r].encoding.codes[i], i

    try:
        run()
    except _Abort as e:
        res.aborted = str(e)
    for s in range(players):
        with clock(s):
            msg = seats[s].reveal() if not (s == cheater and kind == "bad-reveal") \
                else {"seed": DealSecrets.fresh().seed}
        res.sent[s] += wire_size(msg)
        res.messages.append((s, "reveal", msg))
        for t in range(players):
            with clock(t):
                seats[t].receive_reveal(s, msg)  # a mismatch is the audit's finding
    honest = next(t for t in range(players) if t != cheater)
    res.record = seats[honest].record
    if audit:
        res.audit = check_deal(res.record)
    return res


class _Abort(Exception):
    pass


def cheating_shuffle(secrets: DealSecrets, deck: list[bytes], context: bytes,
                     rounds: int = DEFAULT_ROUNDS, kind: str = "bad-shuffle") -> dict:
    """For cheat tests (``selfplay --cheat bad-shuffle``): a shuffle message
    whose deck duplicates one card over another ("bad-shuffle") or holds a
    card from outside the deck ("substitute"), with the best proof the
    honest prover can make for it."""
    if kind not in ("bad-shuffle", "substitute"):
        raise ValueError('kind must be "bad-shuffle" or "substitute"')
    out = shuffle_values(secrets.deck_key, secrets.deck_permutation(len(deck)), deck)
    if kind == "bad-shuffle":
        out[1] = out[0]
    else:
        foreign = encode_deck("bura" if len(deck) != 36 else "warkocz").values[0]
        out[0] = encrypt(secrets.deck_key, foreign)
    commits, openings = prove_shuffle(secrets, deck, out, context, rounds)
    return {"deck": deck_bytes(out), "commits": commits, "open": openings}
