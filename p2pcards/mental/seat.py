"""One seat's side of one deal, driven by the messages in log order.

The network table keeps one ``SeatDeal`` per deal. It asks it for this
seat's messages when the protocol says it is this seat's turn (``commit``,
``shuffle``, ``rekey``, ``keys``, ``reveal``), publishes each as a signed log
entry, and feeds *every* published entry, its own included, back through
the matching ``receive_*`` in log order. Every received message goes into
``record`` (the deal as the log holds it, for ``audit``) even when it is
bad; a ``receive_*`` that raises (``BadMessage``, ``BadProof``, or
``MentalError`` for a message out of turn) names a step the sender must be
blamed for: the deal is then ``broken``, abort and reveal.
"""

from __future__ import annotations

from p2pcards.mental.deal import (
    DealAudit, DealRecord, card_keys_step, check_deal, commit_step, open_physical,
    parse_card_keys, parse_commit, parse_rekey, parse_reveal, rekey_step, reveal_step,
)
from p2pcards.mental.encoding import encode_deck
from p2pcards.mental.group import MentalError, NoCard, split_values
from p2pcards.mental.keys import DealSecrets, seed_commitment
from p2pcards.mental.shuffle import DEFAULT_ROUNDS, shuffle_step, verify_shuffle


class SeatDeal:
    """What one seat knows of one deal: its secrets and all public messages."""

    def __init__(self, game_id: str, players: int, seat: int, rounds: int = DEFAULT_ROUNDS,
                 secrets: DealSecrets | None = None):
        if not isinstance(players, int) or players < 2:
            raise MentalError("a deal needs at least 2 players")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise MentalError(f"seat {seat!r} is not a seat of {players}")
        self.encoding = encode_deck(game_id)
        self.size = len(self.encoding)
        self.players, self.seat, self.rounds = players, seat, rounds
        self.secrets = secrets or DealSecrets.fresh()
        self.record = DealRecord(game_id, players, rounds, commits=[None] * players,
                                 reveals=[None] * players)
        self.deck: list[bytes] = list(self.encoding.values)  # the current public deck
        self.published: dict[int, dict[int, int]] = {}      # position -> {seat: key}
        self.broken: str | None = None                       # why the deal cannot go on
        self.opened: dict[int, int] = {}                     # physical index -> position

    def _fail(self, error: MentalError, seat: int) -> None:
        self.broken = f"seat {seat}: {error}"
        raise error

    # -- whose turn ------------------------------------------------------
    @property
    def stage(self) -> str:
        """"commit", "shuffle", "rekey", then "play" (showing cards)."""
        if any(c is None for c in self.record.commits):
            return "commit"
        if len(self.record.shuffles) < self.players:
            return "shuffle"
        if len(self.record.rekeys) < self.players:
            return "rekey"
        return "play"

    @property
    def next_seat(self) -> int | None:
        """The seat whose shuffle or re-key comes next (None outside those stages)."""
        stage = self.stage
        if stage == "shuffle":
            return len(self.record.shuffles)
        if stage == "rekey":
            return len(self.record.rekeys)
        return None

    def _expect(self, stage: str, seat: int) -> None:
        if self.broken:
            raise MentalError(f"the deal is aborted ({self.broken})")
        if self.stage != stage or self.next_seat != seat:
            raise MentalError(f"a {stage} from seat {seat} is out of turn (stage {self.stage}, "
                              f"next seat {self.next_seat})")

    # -- this seat's messages -----------------------------------------------
    def commit(self) -> dict:
        return commit_step(self.secrets)

    def shuffle(self, context: bytes) -> dict:
        self._expect("shuffle", self.seat)
        return shuffle_step(self.secrets, self.deck, context, self.rounds)

    def rekey(self) -> dict:
        self._expect("rekey", self.seat)
        return rekey_step(self.secrets, self.deck)

    def keys(self, positions) -> dict:
        """This seat's per-card keys of ``positions`` (to show them to others)."""
        for p in positions:
            if not isinstance(p, int) or not 0 <= p < self.size:
                raise MentalError(f"position {p!r} is not in 0..{self.size - 1}")
        return card_keys_step(self.secrets, positions)

    def reveal(self) -> dict:
        return reveal_step(self.secrets)

    # -- every published message, in log order ----------------------------------
    def _check_seat(self, seat: object) -> int:
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise MentalError(f"seat {seat!r} is not a seat of {self.players}")
        return seat

    def _uses_next(self, seat: int) -> bool:
        """Whether the deck ``seat`` publishes now is one this seat will
        multiply: the input of its own next step, or the final deck. Those it
        checks for curve membership at once, so a bad value is blamed on its
        sender, not found later inside this seat's own step."""
        if self.stage == "shuffle":
            return seat == self.seat - 1 or (seat == self.players - 1 and self.seat == 0)
        return seat == self.seat - 1 or seat == self.players - 1

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
        """Check the proof (unless it is this seat's own, or ``verify`` is off)
        and take the shuffled deck as the current deck."""
        self._expect("shuffle", self._check_seat(seat))
        if not isinstance(context, bytes):  # the caller's own value: not the sender's fault
            raise MentalError("the proof context must be bytes")
        self.record.shuffles.append((context, msg))
        try:
            if verify and seat != self.seat:
                self.deck = verify_shuffle(self.deck, msg, context, self.rounds, self._uses_next(seat))
            else:
                self.deck = split_values(msg.get("deck") if isinstance(msg, dict) else None,
                                         self.size, "shuffled deck", self._uses_next(seat))
        except MentalError as e:
            self._fail(e, seat)

    def receive_rekey(self, seat: int, msg: object) -> None:
        self._expect("rekey", self._check_seat(seat))
        self.record.rekeys.append(msg)
        try:
            self.deck = parse_rekey(msg, self.size, self._uses_next(seat))
        except MentalError as e:
            self._fail(e, seat)

    def receive_keys(self, seat: int, msg: object) -> list[int]:
        """Store a seat's published per-card keys; returns their positions."""
        self._check_seat(seat)
        if self.stage != "play":
            raise MentalError("per-card keys before the re-keying is over")
        self.record.card_keys.append((seat, msg))
        try:
            keys = parse_card_keys(msg, self.size)
            for p, k in keys.items():
                if self.published.get(p, {}).get(seat, k) != k:
                    raise MentalError(f"seat {seat} published two different keys for position {p}")
        except MentalError as e:
            self._fail(e, seat)
        for p, k in keys.items():
            self.published.setdefault(p, {})[seat] = k
        return sorted(keys)

    def receive_reveal(self, seat: int, msg: object) -> bool:
        """Record a final reveal; False if it is malformed or does not match
        the seat's commitment (``audit`` then blames the seat)."""
        self._check_seat(seat)
        self.record.reveals[seat] = msg
        try:
            seed = parse_reveal(msg)
            return seed_commitment(seed) == parse_commit(self.record.commits[seat])
        except MentalError:
            return False

    # -- showing cards ------------------------------------------------------
    def missing_keys(self, position: int) -> list[int]:
        """The other seats whose key of ``position`` this seat still lacks."""
        have = self.published.get(position, {})
        return [t for t in range(self.players) if t != self.seat and t not in have]

    def can_open(self, position: int) -> bool:
        return self.stage == "play" and not self.missing_keys(position)

    def open_index(self, position: int) -> int:
        """The physical index of the card at ``position``; NoCard if the keys
        strip it to no card (abort the deal and reveal)."""
        if self.stage != "play":
            raise MentalError("cards are shown only after the re-keying")
        if not isinstance(position, int) or not 0 <= position < self.size:
            raise MentalError(f"position {position!r} is not in 0..{self.size - 1}")
        missing = self.missing_keys(position)
        if missing:
            raise MentalError(f"position {position} still lacks the keys of seats {missing}")
        have = self.published[position]
        keys = [self.secrets.card_key(position)] + [have[t] for t in range(self.players) if t != self.seat]
        try:
            index = open_physical(self.encoding, self.deck[position], keys)
        except NoCard as e:
            self.broken = f"position {position}: {e}"
            raise NoCard(f"position {position} decrypts to no card: abort the deal and reveal") from None
        other = self.opened.setdefault(index, position)
        if other != position:
            # A re-key that copied one position over another: the audit names it.
            self.broken = f"positions {other} and {position} hold the same physical card"
            raise NoCard(f"positions {other} and {position} decrypt to the same physical card: "
                         "abort the deal and reveal")
        return index

    def open(self, position: int) -> str:
        """The code of the card at ``position`` (see open_index)."""
        return self.encoding.codes[self.open_index(position)]

    def audit(self) -> DealAudit:
        """check_deal over everything received (after all reveals)."""
        return check_deal(self.record)
