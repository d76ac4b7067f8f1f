"""An in-memory deal for tests and the benchmark (never imported by a peer).

``SeatDeal`` is one seat's side of one deal, driven by the messages in log
order; ``simulate_deal`` runs every seat's ``SeatDeal`` in one process, in
the order the network table uses, counts the bytes each seat sends (msgpack
of its messages) and the CPU time each seat spends, and can make one seat
cheat, to test that the cheat is caught and blamed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

import msgpack

from p2pcards.mental.deal import (
    DealAudit, DealRecord, card_keys_step, check_card_key, check_deal, commit_step, open_physical,
    parse_card_keys, parse_commit, parse_reveal, rekey_values, reveal_step,
)
from p2pcards.mental.encoding import encode_deck
from p2pcards.mental.group import (
    N, MentalError, NoCard, deck_bytes, point_cache, split_points, use_point_cache,
)
from p2pcards.mental.keys import DealSecrets, seed_commitment
from p2pcards.mental.rekey import parse_rekey, rekey_step, verify_rekey
from p2pcards.mental.shuffle import parse_shuffle, shuffle_step, verify_shuffle

CHEATS = ("bad-shuffle", "substitute", "wrong-key", "bad-rekey", "rekey-peek", "bad-reveal")


def wire_size(msg: object) -> int:
    """Bytes a message takes on the wire: its msgpack encoding."""
    return len(msgpack.packb(msg, use_bin_type=True))


def context_for(step: str, seat: int, tag: bytes = b"sim") -> bytes:
    """The proof context the simulation uses (the network table binds session,
    deal, step and the previous log hash instead)."""
    return tag + b"|" + step.encode() + b"|" + seat.to_bytes(2, "big")


class SeatDeal:
    """What one seat knows of one deal: its secrets and all public messages.
    A ``receive_*`` that raises names a step its sender is to blame for."""

    def __init__(self, game_id: str, players: int, seat: int, secrets: DealSecrets | None = None):
        if not isinstance(players, int) or players < 2:
            raise MentalError("a deal needs at least 2 players")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise MentalError(f"seat {seat!r} is not a seat of {players}")
        self.encoding = encode_deck(game_id)
        self.size = len(self.encoding)
        self.players, self.seat = players, seat
        self.secrets = secrets or DealSecrets.fresh()
        self.record = DealRecord(game_id, players, commits=[None] * players, reveals=[None] * players)
        self.deck: list[bytes] = list(self.encoding.values)
        self.deck_keys: list[bytes | None] = [None] * players
        self.commitments: list[list[bytes] | None] = [None] * players
        self.published: dict[int, dict[int, int]] = {}
        self.broken: str | None = None
        self.opened: dict[int, int] = {}

    def _fail(self, error: MentalError, seat: int) -> None:
        self.broken = f"seat {seat}: {error}"
        raise error

    @property
    def stage(self) -> str:
        if any(c is None for c in self.record.commits):
            return "commit"
        if len(self.record.shuffles) < self.players:
            return "shuffle"
        if len(self.record.rekeys) < self.players:
            return "rekey"
        return "play"

    @property
    def next_seat(self) -> int | None:
        return {"shuffle": len(self.record.shuffles), "rekey": len(self.record.rekeys)}.get(self.stage)

    def _expect(self, stage: str, seat: int) -> None:
        if self.broken:
            raise MentalError(f"the deal is aborted ({self.broken})")
        if self.stage != stage or self.next_seat != seat:
            raise MentalError(f"a {stage} from seat {seat} is out of turn (stage {self.stage}, "
                              f"next seat {self.next_seat})")

    def _check_seat(self, seat: object) -> int:
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise MentalError(f"seat {seat!r} is not a seat of {self.players}")
        return seat

    # -- this seat's messages
    def commit(self) -> dict:
        return commit_step(self.secrets)

    def shuffle(self, context: bytes) -> dict:
        self._expect("shuffle", self.seat)
        return shuffle_step(self.secrets, self.deck, context)

    def rekey(self, context: bytes) -> dict:
        self._expect("rekey", self.seat)
        return rekey_step(self.secrets, self.deck, context)

    def keys(self, positions) -> dict:
        return card_keys_step(self.secrets, positions)

    def reveal(self) -> dict:
        return reveal_step(self.secrets)

    # -- every published message, in log order
    def receive_commit(self, seat: int, msg: object) -> None:
        self._check_seat(seat)
        if self.record.commits[seat] is not None:
            raise MentalError(f"seat {seat} has already committed")
        self.record.commits[seat] = msg
        try:
            parse_commit(msg)
        except MentalError as e:
            self._fail(e, seat)

    def receive_shuffle(self, seat: int, context: bytes, msg: object, verify: bool = True) -> None:
        """Check the proof (unless it is this seat's own or ``verify`` is off)."""
        self._expect("shuffle", self._check_seat(seat))
        self.record.shuffles.append((context, msg))
        try:
            if verify and seat != self.seat:
                self.deck = verify_shuffle(self.deck, msg, context)
                self.deck_keys[seat] = msg["key"]
            else:
                parsed = parse_shuffle(msg, self.size)
                self.deck, self.deck_keys[seat] = parsed.deck, parsed.key
        except MentalError as e:
            self._fail(e, seat)

    def receive_rekey(self, seat: int, context: bytes, msg: object, verify: bool = True) -> None:
        self._expect("rekey", self._check_seat(seat))
        self.record.rekeys.append((context, msg))
        try:
            if verify and seat != self.seat:
                parsed = verify_rekey(self.deck, self.deck_keys[seat], msg, context)
            else:
                parsed = parse_rekey(msg, self.size)
        except MentalError as e:
            self._fail(e, seat)
        self.deck, self.commitments[seat] = parsed.deck, parsed.commits

    def receive_keys(self, seat: int, msg: object) -> list[int]:
        """Store a seat's per-card keys, each checked against its commitment."""
        self._check_seat(seat)
        if self.stage != "play":
            raise MentalError("per-card keys before the re-keying is over")
        self.record.card_keys.append((seat, msg))
        try:
            keys = parse_card_keys(msg, self.size)
            for p, k in keys.items():
                if not check_card_key(k, self.commitments[seat][p]):
                    raise MentalError(f"seat {seat}'s key for position {p} does not match its commitment")
        except MentalError as e:
            self._fail(e, seat)
        for p, k in keys.items():
            self.published.setdefault(p, {})[seat] = k
        return sorted(keys)

    def receive_reveal(self, seat: int, msg: object) -> bool:
        self._check_seat(seat)
        self.record.reveals[seat] = msg
        try:
            return seed_commitment(parse_reveal(msg)) == parse_commit(self.record.commits[seat])
        except MentalError:
            return False

    # -- showing cards
    def missing_keys(self, position: int) -> list[int]:
        have = self.published.get(position, {})
        return [t for t in range(self.players) if t != self.seat and t not in have]

    def open_index(self, position: int) -> int:
        if self.stage != "play":
            raise MentalError("cards are shown only after the re-keying")
        missing = self.missing_keys(position)
        if missing:
            raise MentalError(f"position {position} still lacks the keys of seats {missing}")
        have = self.published[position]
        keys = [self.secrets.card_key(position)] + [have[t] for t in range(self.players) if t != self.seat]
        try:
            index = open_physical(self.encoding, self.deck[position], keys)
        except NoCard:
            self.broken = f"position {position} decrypts to no card"
            raise NoCard(f"position {position} decrypts to no card: abort the deal and reveal") from None
        if self.opened.setdefault(index, position) != position:
            self.broken = "two positions hold the same physical card"
            raise NoCard("two positions decrypt to the same physical card: abort the deal and reveal")
        return index

    def audit(self) -> DealAudit:
        return check_deal(self.record)


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


class _Abort(Exception):
    pass


def simulate_deal(game_id: str, players: int, plan: Mapping[int, int | None] | None = None, *,
                  seeds: list[bytes] | None = None, verify: str = "all",
                  cheat: tuple[str, int] | None = None, audit: bool = True,
                  context_tag: bytes = b"sim") -> SimResult:
    """Run one deal. ``plan`` maps a final-deck position to the seat it is
    shown to (None: to all); default every position to seat ``position %
    players``. ``verify``: "all" (every other seat checks each proof, as on
    the network) or "none". ``cheat``: (kind, seat) with kind in CHEATS."""
    size = len(encode_deck(game_id))
    if plan is None:
        plan = {p: p % players for p in range(size)}
    if cheat is not None and cheat[0] not in CHEATS:
        raise ValueError(f"unknown cheat {cheat[0]!r}; known: {', '.join(CHEATS)}")
    if verify not in ("all", "none"):
        raise ValueError('verify must be "all" or "none"')
    kind, cheater = cheat if cheat else (None, None)
    sec = [DealSecrets(s) for s in seeds] if seeds else [DealSecrets.fresh() for _ in range(players)]
    seats = [SeatDeal(game_id, players, s, sec[s]) for s in range(players)]
    res = SimResult(seats[0].record, [0] * players, [0.0] * players,
                    [{} for _ in range(players)], [{} for _ in range(players)])

    # Each seat parses the points it uses itself, as a process of its own
    # would: its own cache of parsed points, none shared with the others.
    caches: list[dict] = [{} for _ in range(players)]
    outer = point_cache()

    class clock:
        def __init__(self, seat: int):
            self.seat = seat

        def __enter__(self):
            use_point_cache(caches[self.seat])
            self.t = time.process_time()

        def __exit__(self, *exc):
            res.cpu[self.seat] += time.process_time() - self.t
            use_point_cache(outer)

    def publish(seat: int, what: str, msg: object, deliver) -> None:
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
            context = context_for("shuffle", s, context_tag)
            with clock(s):
                msg = seats[s].shuffle(context)
                if s == cheater and kind in ("bad-shuffle", "substitute"):
                    msg = cheating_shuffle(sec[s], seats[s].deck, context, kind)
            publish(s, "shuffle", msg,
                    lambda t: seats[t].receive_shuffle(s, context, msg, verify=verify == "all"))
        for s in range(players):
            context = context_for("rekey", s, context_tag)
            with clock(s):
                msg = seats[s].rekey(context)
                if s == cheater and kind == "bad-rekey":
                    vals = split_points(msg["deck"], size)
                    vals[0], vals[1] = vals[1], vals[0]
                    msg = dict(msg, deck=deck_bytes(vals))
                elif s == cheater and kind == "rekey-peek":
                    msg = peeking_rekey(sec[s], seats[s].deck, context, plan, s)
            publish(s, "rekey", msg, lambda t: seats[t].receive_rekey(s, context, msg, verify=verify == "all"))
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
                seats[t].receive_reveal(s, msg)
    honest = next(t for t in range(players) if t != cheater)
    res.record = seats[honest].record
    if audit:
        res.audit = check_deal(res.record)
    return res


def cheating_shuffle(secrets: DealSecrets, deck: list[bytes], context: bytes,
                     kind: str = "bad-shuffle") -> dict:
    """A shuffle whose deck duplicates one card over another ("bad-shuffle")
    or holds a card from outside the deck ("substitute"), with the proof the
    honest prover makes for the true shuffle (it cannot make a valid one)."""
    msg = shuffle_step(secrets, deck, context)
    vals = split_points(msg["deck"], len(deck))
    if kind == "bad-shuffle":
        vals[1] = vals[0]
    else:
        from p2pcards.mental.group import encrypt
        foreign = encode_deck("bura" if len(deck) != 36 else "warkocz").values[0]
        vals[0] = encrypt(secrets.deck_key, foreign)
    return dict(msg, deck=deck_bytes(vals))


def peeking_rekey(secrets: DealSecrets, deck: list[bytes], context: bytes,
                  plan: Mapping[int, int | None], seat: int) -> dict:
    """The re-key of issue 11 item 1: at its own hand positions the seat puts a
    victim's cards (with its own per-card keys), so that when the others show
    it "its" cards it reads the victim's. The proof is the honest one of the
    true re-key: no valid proof exists for this deck."""
    mine = [p for p, who in plan.items() if who == seat]
    victim = next(w for w in plan.values() if w is not None and w != seat)
    theirs = [p for p, who in plan.items() if who == victim]
    source = list(range(len(deck)))
    for own, other in zip(mine, theirs):
        source[own] = other
    msg = rekey_step(secrets, deck, context)
    vals = rekey_values(secrets, deck, source)
    return dict(msg, deck=deck_bytes(vals))
