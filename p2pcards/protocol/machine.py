"""The table as a pure state machine over the log.

Every peer, every spectator and the audit feed the same log entries through a
``TableMachine``. It knows whose entry comes next and of what kind (the game
and the dealing protocol fix it), checks each entry against the rules engine
and the dealing cryptography, and keeps the *public* deal state: the engine's
state with an unknown token for every card not yet shown to everybody (see
``p2pcards.protocol.knowledge``). It holds no secret and does no I/O; the seat driver
(``p2pcards.protocol.driver``) adds a seat's secrets, the network and the clock.

A match in the log (``protocol/table.md`` is the normative description):

    table                                  entry 0, signed by everybody
    per deal d:
      shuffle  by seat 0, 1, ..., n-1      encrypt + permute + proof, seed commitment
      rekey    by seat 0, 1, ..., n-1      per-card keys, their commitments + proof
      then, until the deal is over:
        keys     by each seat that must publish per-card keys (seat order)
        action   by the seat to act        the move, with the actor's keys of
                                           the cards it shows
      reveal   by seat 0, 1, ..., n-1      every seat's deal seed (final reveal)
    end                                    signed by everybody: the result

An ``abort`` (kind "abort") may stand anywhere: it names a culprit (or none,
when only the final reveal can tell) and stops the game; then the seats not
blamed make their final reveal and sign the end. It is taken in only if it
proves what it says (``p2pcards.protocol.evidence``, the one rule for every
peer and the audit); otherwise it is refused, blaming its author.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from p2pcards import limits, mental
from p2pcards.i18n import N_, lazy, message_of
from p2pcards.protocol import dealing
from p2pcards.cards import is_unknown, unknown, unknown_position
from p2pcards.games import IllegalAction, NeedReveal, get_game, substitute
from p2pcards.games.base import Match
from p2pcards.protocol.knowledge import (
    KeyBook,
    check_positions,
    reveal_audiences,
    shown_by,
    token_deck,
)
from p2pcards.protocol import evidence
from p2pcards.protocol.evidence import EQUIVOCATE, FALSE_ACCUSATION, MAX_EVIDENCE, History  # noqa: F401 (re-exported)
from p2pcards.protocol.log import END, TABLE, Entry, TableInfo
from p2pcards.protocol.silence import AttestationError, majority, parse as parse_attestation
from p2pcards.protocol.violation import Violation

SHUFFLE, REKEY, KEYS, ACTION, REVEAL, ABORT = "shuffle", "rekey", "keys", "action", "reveal", "abort"
PAUSE = "pause"
ENTRY_KINDS = (SHUFFLE, REKEY, KEYS, ACTION, REVEAL, ABORT, PAUSE)
# A pause (table.md §3a): asked in place of one's own move, answered by every
# other seat in seat order, ended by the asker's "continue".
PAUSE_ASK, PAUSE_YES, PAUSE_NO, PAUSE_CONTINUE = "ask", "yes", "no", "continue"
DEFAULT_PAUSES = 2  # pauses each seat may ask for in a match (table setting ``pauses``)
DEFAULT_PAUSE_TIME = 300  # seconds a pause may last (table setting ``pause_time``)
MAX_CHAT = limits.MAX_CHAT
# The fields each kind of entry may carry (table.md §3); any other is refused.
PAYLOAD_FIELDS = {
    SHUFFLE: {"deal", "chat", "commit", "shuffle"},
    REKEY: {"deal", "chat", "rekey"},
    KEYS: {"deal", "chat", "keys"},
    ACTION: {"deal", "chat", "action", "positions", "keys", "auto"},
    REVEAL: {"deal", "chat", "seed"},
    PAUSE: {"deal", "chat", "pause", "auto"},
    ABORT: {"culprit", "kind", "detail", "evidence", "attestations"},
}
UNSIGNED_END, STOPPED = "unsigned-end", "stopped"
MAX_CHAT_LEN = limits.MAX_CHAT_LEN


@dataclasses.dataclass
class Expect:
    """What comes next: ``author`` (None: the end entry, signed by all) and ``kind``.
    For a keys entry, ``positions`` are the positions whose keys it must hold."""

    author: int | None
    kind: str
    positions: tuple[int, ...] = ()


@dataclasses.dataclass
class Pause:
    """A pause asked for at entry ``entry`` by ``asker``: the answers so far
    (seat -> yes), and whether every other seat agreed (it holds then)."""

    asker: int
    entry: int
    answers: dict[int, bool] = dataclasses.field(default_factory=dict)
    held: bool = False


@dataclasses.dataclass
class Silence:
    """A silence abort as the log holds it: who stopped answering where, who
    attests it, and whether that is a strict majority of the players (only
    then does it convict)."""

    entry: int
    seat: int
    kind: str
    attested_by: list[int]
    stands: bool

    def as_dict(self) -> dict:
        return {"seat": self.seat, "entry": self.entry, "kind": self.kind,
                "attested_by": list(self.attested_by), "stands": self.stands}


@dataclasses.dataclass
class DealRecord:
    """One deal as the log tells it; the audit replays deals from these."""

    index: int
    dealer: int
    first_entry: int
    commitments: dict[int, bytes] = dataclasses.field(default_factory=dict)
    decks: list[list[bytes]] = dataclasses.field(default_factory=list)  # after each shuffle, then each rekey
    keys: dict[int, dict[int, int]] = dataclasses.field(default_factory=dict)  # position -> seat -> key
    actions: list[tuple[int, int, dict]] = dataclasses.field(default_factory=list)  # (entry, seat, public action)
    seeds: dict[int, bytes] = dataclasses.field(default_factory=dict)
    # The dealing messages as logged, for the final check (dealing.check_deal).
    shuffle_messages: list[tuple[bytes, Any]] = dataclasses.field(default_factory=list)  # (context, message)
    rekey_messages: list[tuple[bytes, Any]] = dataclasses.field(default_factory=list)  # (context, message)
    deck_keys: dict[int, bytes] = dataclasses.field(default_factory=dict)  # seat -> K = k*G
    key_commitments: dict[int, list[bytes]] = dataclasses.field(default_factory=dict)  # seat -> [k_j*G]
    key_messages: list[tuple[int, list]] = dataclasses.field(default_factory=list)  # (seat, [[pos, key]...])
    codes: list[str] | None = None  # every position's card, after the final reveal
    match_before: Match | None = None  # the match as this deal began (what start() was given)
    final_state: Any = None  # the deal's last state with every card known (the hands a score sheet shows)
    scores: dict | None = None


class TableMachine:
    """Feeds on log entries; see the module docstring."""

    def __init__(self, table: TableInfo, verify_proofs: bool = True):
        self.table = table
        # Off only for the audit of a finished log: each deal is then
        # recomputed from its revealed seeds, and proofs are checked where a
        # seed is missing (dealing.check_deal).
        self.verify_proofs = verify_proofs
        self.skip_proof: bytes | None = None  # hash of an entry already verified (one's own)
        # Entries before this place had their proofs verified by this seat when it took
        # them in (a seat reopening its own log after a crash): not checked twice.
        self.verified_before = 0
        # The final check of a deal, (mental.DealRecord, proofs verified) -> DealAudit;
        # None: mental.check_deal. The audit has it done in other processes (audit/deals.py).
        self.deal_checker = None
        # Checks a well-formed shuffle's or re-key's proof (.shuffle(deck_in, message, context),
        # .rekey(deck_in, deck key, message, context)) in place of the machine, which goes on as
        # if it held; None: checked here. The audit's second pass has them checked by workers.
        self.proof_checker = None
        # With verify_proofs off, where each proof and key is not checked, it is noted here
        # (.shuffle and .rekey as proof_checker's, .key(key, commitments, position)): the audit's
        # first pass, which needs no second pass if every one of them holds. None: not noted.
        self.unchecked = None
        # With verify_proofs off, the encodings of the shuffles and re-keys the walk does not
        # need as points (every deck but the final one, the proofs' commitments) are not parsed
        # but handed to this (.points(blobs)) to be checked; None: parsed here.
        self.point_checker = None
        self.game = get_game(table.game)
        self.players = len(table.players)
        extra = table.extra if isinstance(table.extra, dict) else {}
        self.max_deals = int(extra.get("deals", 0))  # 0: the match decides when it ends
        self.match: Match = self.game.new_match(self.players, table.options)
        self.deal_size = self.game.deck_size()
        self.deals: list[DealRecord] = []
        self.hashes: dict[int, bytes] = {}  # seq -> hash of every entry taken in (0: the table)
        self.place_of: dict[bytes, int] = {}  # the other way round: hash -> seq
        self.seq = 1  # the next entry's index (entry 0 is the table)
        self.silences: list[Silence] = []
        # A silence abort only a minority attests stops the game and convicts
        # nobody: nothing more can be logged after it.
        self.stopped = False
        self.aborts: list[tuple[int, Violation]] = []  # (entry index, accusation)
        self.excluded: set[int] = set()  # seats blamed by an abort: they no longer have turns
        self.findings: list[tuple[int, Violation]] = []  # the dealing checks' findings
        self.chat: list[tuple[int, int, str]] = []  # (entry, seat, text)
        self.auto_moves: set[int] = set()  # entries whose action the seat's own client chose for an idle player
        self.max_pauses = _setting(extra, "pauses", DEFAULT_PAUSES)
        self.pause_time = _setting(extra, "pause_time", DEFAULT_PAUSE_TIME)
        self.pause: Pause | None = None  # asked for or holding
        self.pauses_asked: dict[int, int] = {}  # seat -> pauses it asked for in this match
        self.pending_problem: Violation | None = None  # found by a public check: abort due
        self._abort_authors: dict[int, int] = {}
        self.finished = False
        self._new_deal()

    # ------------------------------------------------------------------ reading
    @property
    def head_hash(self) -> bytes:
        return self.hashes.get(self.seq - 1, b"")

    @head_hash.setter
    def head_hash(self, value: bytes) -> None:
        self.hashes[self.seq - 1] = value
        self.place_of[value] = self.seq - 1

    def chains(self, entry: Entry) -> bool:
        """``entry`` stands at its claimed place in this log: its prev_hash is
        the hash of the entry logged before that place."""
        return 1 <= entry.seq <= self.seq and self.hashes.get(entry.seq - 1) == entry.prev_hash

    @property
    def deal(self) -> DealRecord:
        return self.deals[-1]

    @property
    def aborted(self) -> bool:
        return bool(self.aborts)

    def expect(self) -> Expect:
        """Whose entry comes next, and of what kind (kind "stopped", author
        None: nothing more, after a silence only a minority attests)."""
        if self.finished:
            raise Violation(None, "finished", N_("the log has ended"))
        if self.stopped:
            return Expect(None, STOPPED)  # nobody writes anything more
        if self.pending_problem is not None and not self.aborted:
            return Expect(self.referee(self.pending_problem.seat), ABORT)
        phase = self._phase
        if phase == SHUFFLE:
            return Expect(len(self.deal.decks), SHUFFLE)
        if phase == REKEY:
            return Expect(len(self.deal.decks) - self.players, REKEY)
        if phase == KEYS:
            seat, positions = self._queue[0]
            return Expect(seat, KEYS, tuple(positions))
        if phase == ACTION:
            if self.pause is not None:
                return Expect(self._pause_due(), PAUSE)
            return Expect(self.game.to_act(self.state), ACTION)
        if phase == REVEAL:
            return Expect(self._next_revealer(), REVEAL)
        return Expect(None, END)

    def referee(self, culprit: int | None = None) -> int:
        """Who writes an abort: the lowest seat neither blamed nor accused."""
        return min(s for s in range(self.players) if s not in self.excluded and s != culprit)

    def public_view(self, seat: int | None = None) -> dict | None:
        """The engine's view of the public deal state (tokens where hidden)."""
        if self.state is None:
            return None
        return self.game.view(self.state, seat)

    def end_payload(self) -> dict:
        """What the end entry says: the result, and whom the log blames."""
        result = self.game.match_result(self.match)
        blame = [v.as_dict(i) for i, v in self.aborts if v.seat is not None]
        blame += [v.as_dict(i) for i, v in self.findings]
        return {
            "deals": len([d for d in self.deals if d.scores is not None]),
            "scores": result["scores"],
            "chips": result["chips"],
            "bank": result["bank"],
            "winner": result["winner"],
            "aborted": self.aborted,
            "blame": blame,
        }

    # ------------------------------------------------------------------ feeding
    def accept(self, entry: Entry, history: History | None = None) -> None:
        """Check ``entry`` as the next one and take it in. A ``Violation``
        leaves the machine as it was; the entry must then not be logged.
        (Signatures and the hash chain are the log's job: ``GameLog.append``.)
        ``history(j)``, the table as it stood before an earlier entry j, is
        what judging an abort's evidence for an earlier place needs (the walk
        gives it; without it such evidence proves nothing)."""
        if entry.seq != self.seq:
            raise Violation(entry.author if entry.author >= 0 else None, "bad-entry",
                            N_("entry {entry} where {expected} was expected", entry=entry.seq, expected=self.seq))
        if entry.kind == TABLE:
            raise Violation(None, "bad-entry", N_("a second table entry"))
        if self.finished:
            raise Violation(None, "finished", N_("the log has ended"))
        if self.stopped:
            raise Violation(None, STOPPED, N_("the game stopped at a silence only a minority attests"))
        if entry.kind == ABORT:
            self._accept_abort(entry, history)
        elif entry.kind == END:
            self._accept_end(entry)
        else:
            self._accept_move(entry)
        self.hashes[entry.seq] = entry.hash
        self.place_of[entry.hash] = entry.seq
        self.seq += 1

    def _accept_move(self, entry: Entry) -> None:
        want = self.expect()
        seat = entry.author
        asks_pause = entry.kind == PAUSE and want.kind == ACTION and want.author == seat
        if not asks_pause and (want.kind == END or want.author != seat or want.kind != entry.kind):
            if want.author is None:
                detail = N_("seat {seat} sent a {kind} entry when the end was due", seat=seat, kind=entry.kind)
            else:
                detail = N_("seat {seat} sent a {kind} entry when seat {due}'s {due_kind} was due",
                            seat=seat, kind=entry.kind, due=want.author, due_kind=want.kind)
            raise Violation(seat, "out-of-turn", detail)
        payload = entry.payload
        if not isinstance(payload, dict):
            raise Violation(seat, "bad-entry", N_("a {kind} payload must be a map", kind=entry.kind))
        unknown_fields = set(payload) - PAYLOAD_FIELDS[entry.kind]
        if unknown_fields:
            raise Violation(seat, "bad-entry", N_("a {kind} entry has no field {fields}", kind=entry.kind,
                                                       fields=str(sorted(map(str, unknown_fields)))))
        chat = self._check_chat(seat, payload.get("chat"))
        deal = payload.get("deal")
        if type(deal) is not int or deal != self.deal.index:  # true and 1.0 equal 1 in Python, not on the wire
            raise Violation(seat, "bad-entry", N_("entry is for deal {deal}, this is deal {index}",
                                                       deal=repr(deal), index=self.deal.index))
        handler = {
            SHUFFLE: self._accept_shuffle,
            REKEY: self._accept_rekey,
            KEYS: self._accept_keys,
            ACTION: self._accept_action,
            REVEAL: self._accept_reveal,
            PAUSE: self._accept_pause,
        }[entry.kind]
        handler(entry, want)
        self.chat.extend((entry.seq, seat, text) for text in chat)

    @staticmethod
    def _check_chat(seat: int, chat: Any) -> list[str]:
        if chat is None:
            return []
        if (
            not isinstance(chat, list)
            or len(chat) > MAX_CHAT
            or not all(isinstance(t, str) and 0 < len(t) <= MAX_CHAT_LEN and t.isprintable() for t in chat)
        ):
            raise Violation(seat, "bad-entry", N_(
                "chat must be up to {texts} texts of up to {characters} printable characters",
                texts=MAX_CHAT, characters=MAX_CHAT_LEN))
        return list(chat)

    # ----- dealing
    def proof_context(self, seat: int, step: str, prev_hash: bytes) -> bytes:
        """What a shuffle or re-key proof is bound to: this table, deal, seat,
        step and the log so far, so a proof from anywhere else fails."""
        return dealing.context(self.table.session, self.deal.index, seat, step, prev_hash)

    def deck_in(self) -> list[bytes]:
        """The deck the next shuffle or rekey step starts from."""
        return self.deal.decks[-1] if self.deal.decks else dealing.initial_deck(self.game.id)

    def _verify(self, entry: Entry) -> bool:
        return self.verify_proofs and entry.hash != self.skip_proof and entry.seq >= self.verified_before

    def _accept_shuffle(self, entry: Entry, want: Expect) -> None:
        context = self.proof_context(entry.author, SHUFFLE, entry.prev_hash)
        verify, deferred = self._verify(entry), self.proof_checker is not None
        unparsed = not verify and self.point_checker is not None
        try:
            deck, commitment, deck_key = dealing.check_shuffle(self.deck_in(), entry.payload, context,
                                                               verify and not deferred, not unparsed)
        except dealing.DealingError as exc:
            raise Violation(entry.author, "bad-shuffle", message_of(exc)) from None
        if unparsed:
            self.point_checker.points(mental.shuffle_encodings(entry.payload["shuffle"]))
        if verify and deferred:
            self.proof_checker.shuffle(self.deck_in(), entry.payload.get("shuffle"), context)
        elif not verify and self.unchecked is not None:
            self.unchecked.shuffle(self.deck_in(), entry.payload.get("shuffle"), context)
        self.deal.decks.append(deck)
        self.deal.commitments[entry.author] = commitment
        self.deal.deck_keys[entry.author] = deck_key
        self.deal.shuffle_messages.append((context, entry.payload.get("shuffle")))

    def _accept_rekey(self, entry: Entry, want: Expect) -> None:
        context = self.proof_context(entry.author, REKEY, entry.prev_hash)
        verify, deferred = self._verify(entry), self.proof_checker is not None
        # The final deck is parsed here: the walk opens cards from it.
        unparsed = not verify and self.point_checker is not None and len(self.deal.decks) < 2 * self.players - 1
        try:
            deck, commitments = dealing.check_rekey(self.deck_in(), self.deal.deck_keys[entry.author],
                                                    entry.payload, context, verify and not deferred, not unparsed)
        except dealing.DealingError as exc:
            raise Violation(entry.author, "bad-rekey", message_of(exc)) from None
        if unparsed:
            self.point_checker.points(mental.rekey_encodings(entry.payload["rekey"]))
        if verify and deferred:
            self.proof_checker.rekey(self.deck_in(), self.deal.deck_keys[entry.author], entry.payload.get("rekey"),
                                     context)
        elif not verify and self.unchecked is not None:
            self.unchecked.rekey(self.deck_in(), self.deal.deck_keys[entry.author], entry.payload.get("rekey"),
                                 context)
        self.deal.decks.append(deck)
        self.deal.key_commitments[entry.author] = commitments
        self.deal.rekey_messages.append((context, entry.payload.get("rekey")))
        if len(self.deal.decks) == 2 * self.players:
            self._start_play()

    @property
    def final_deck(self) -> list[bytes]:
        return self.deal.decks[-1]

    def _accept_keys(self, entry: Entry, want: Expect) -> None:
        keys = self._parse_keys(entry.author, entry.payload.get("keys"))
        if sorted(keys) != sorted(want.positions):
            raise Violation(entry.author, "bad-entry",
                            N_("keys for positions {given} where {due} were due",
                               given=str(sorted(keys)), due=str(list(want.positions))))
        self._record_keys(entry.author, keys)
        self.deal.key_messages.append((entry.author, entry.payload["keys"]))
        self._queue.pop(0)
        self._open_public(keys)
        if not self._queue:
            self._settle()

    def _parse_keys(self, seat: int, raw: Any) -> dict[int, int]:
        """[[position, key], ...] -> {position: key}; refuses malformed lists."""
        if not isinstance(raw, list):
            raise Violation(seat, "bad-entry", N_("keys must be a list of [position, key]"))
        keys: dict[int, int] = {}
        for item in raw:
            if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int):
                raise Violation(seat, "bad-entry", N_("keys must be a list of [position, key]"))
            position, key = item
            if not 0 <= position < self.deal_size or position in keys:
                raise Violation(seat, "bad-entry", N_("bad or repeated position {position}", position=position))
            if seat in self.deal.keys.get(position, {}):
                raise Violation(seat, "bad-entry", N_(
                    "seat {seat} already published its key for position {position}", seat=seat, position=position))
            try:
                keys[position] = dealing.parse_key(key)
            except dealing.DealingError as exc:
                raise Violation(seat, "bad-entry", N_("position {position}: {reason}", position=position,
                                                                reason=message_of(exc))) from None
            # Checked on arrival against the publisher's own commitment: a
            # wrong key is its publisher's fault, never the receiver's. (The
            # audit's first pass defers it to the deal's final check.)
            if self.verify_proofs:
                if not dealing.key_matches(keys[position], self.deal.key_commitments[seat][position]):
                    raise Violation(seat, "wrong-key", N_(
                        "seat {seat}'s key for position {position} is not the one it committed to",
                        seat=seat, position=position))
            elif self.unchecked is not None:
                self.unchecked.key(keys[position], self.deal.key_commitments.get(seat), position)
        return keys

    def _record_keys(self, seat: int, keys: dict[int, int]) -> None:
        for position, key in keys.items():
            self.deal.keys.setdefault(position, {})[seat] = key
            self.book.publish(seat, position)

    def open_card(self, position: int, extra: dict[int, int] | None = None) -> str:
        """Decrypt a position with every published key (plus ``extra``: seat ->
        key); raises dealing.NoCard if it is no card."""
        keys = dict(self.deal.keys.get(position, {}))
        keys.update(extra or {})
        return dealing.open_value(self.game.id, self.final_deck[position], list(keys.values()))

    def _open_public(self, published) -> None:
        """Substitute every position whose keys are now all public: of the
        positions just ``published`` (a key entry's), the only ones that can
        have become so (an action's keys show the cards it plays), in the
        order of ``_unopened``."""
        mapping = {}
        for position in [p for p in self._unopened if p in published]:
            if not self.book.is_public(position):
                continue
            self._unopened.discard(position)
            try:
                code = self.open_card(position)
            except dealing.NoCard:
                # Somebody published a wrong key; only the final reveal can say who.
                self.pending_problem = Violation(None, "no-card", N_("position {position} decrypts to no card",
                                                                                position=position))
                continue
            self.public_codes[position] = code
            mapping[unknown(position)] = code
        if mapping:
            self._substitute(mapping)

    def _substitute(self, mapping: dict[str, str]) -> None:
        if self.state is not None:
            self.state = substitute(self.state, mapping)
        if self._pending_action is not None:
            seat, action, index = self._pending_action
            self._pending_action = (seat, substitute(action, mapping), index)
        self._start_deck = substitute(self._start_deck, mapping)

    # ----- play
    def _start_play(self) -> None:
        self._start_deck = token_deck(self.deal_size)
        self._unopened = set(range(self.deal_size))
        self._settle()

    def _settle(self) -> None:
        """Run the engine as far as it goes, then queue the keys the views ask for."""
        if self.pending_problem is not None:
            return
        try:
            if self.state is None:
                self.state = self.game.start_deal(self.match, deck=self._start_deck)
            if self._pending_action is not None:
                seat, action, index = self._pending_action
                try:
                    self.state = self.game.apply(self.state, action)
                except IllegalAction as exc:
                    self.pending_problem = Violation(seat, "illegal-move", message_of(exc))
                    self._pending_action = None
                    return
                self._pending_action = None
                self.deal.actions.append((index, seat, action))
        except NeedReveal as need:
            positions = sorted(unknown_position(t) for t in need.tokens if is_unknown(t))
            self._queue = self._publish_order({p: None for p in positions})
            if not self._queue:
                raise AssertionError(f"engine needs {need.tokens} but every key is public") from None
            return
        if self.game.deal_over(self.state):
            self._queue = []
            return
        audiences = reveal_audiences(self.game, self.state, self.players, self.book)
        self._queue = self._publish_order(audiences)

    def _publish_order(self, audiences: dict[int, set[int] | None]) -> list[tuple[int, list[int]]]:
        needed = self.book.keys_needed(audiences)
        return [(seat, needed[seat]) for seat in sorted(needed)]

    def _accept_action(self, entry: Entry, want: Expect) -> None:
        seat, payload = entry.author, entry.payload
        action = payload.get("action")
        positions = payload.get("positions")
        if not isinstance(action, dict) or not isinstance(positions, list) or not isinstance(payload.get("keys"), list):
            raise Violation(seat, "bad-entry", N_(
                "an action entry needs an action map and lists of positions and keys"))
        if "auto" in payload and type(payload["auto"]) is not bool:  # 1 equals True in Python, not on the wire
            raise Violation(seat, "bad-entry", N_("an action's auto field must be true or false"))
        try:
            check_positions(self.game, self.state, action, positions, seat)
        except IllegalAction as exc:
            raise Violation(seat, "phantom-card", message_of(exc)) from None
        own_keys = self._parse_keys(seat, payload["keys"])
        shown = shown_by(action, positions or [])
        if sorted(own_keys) != sorted(shown):
            raise Violation(seat, "bad-entry", N_(
                "the action must carry your key for exactly the cards it shows"))
        for position, code in shown.items():
            if not self.book.knows(seat, position):
                raise Violation(seat, "phantom-card", N_(
                    "position {position} was never shown to seat {seat}", position=position, seat=seat))
            try:
                actual = self.open_card(position, {seat: own_keys[position]})
            except dealing.NoCard:
                raise Violation(seat, "phantom-card",
                                N_("the key for position {position} opens no card, not {code}",
                                   position=position, code=code)) from None
            if actual != code:
                raise Violation(seat, "phantom-card", N_(
                    "claimed {code} at position {position}, which holds {actual}",
                    code=code, position=position, actual=actual))
        mapping = {unknown(p): c for p, c in shown.items()}
        state = substitute(self.state, mapping)
        try:
            new_state = self.game.apply(state, action)
        except IllegalAction as exc:
            raise Violation(seat, "illegal-move", message_of(exc)) from None
        except NeedReveal:
            new_state = None  # shown to all first (a declaration), then applied
        # Accepted: record the keys and take the new state.
        self._record_keys(seat, own_keys)
        if own_keys:
            self.deal.key_messages.append((seat, payload["keys"]))
        for position, code in shown.items():
            self.public_codes[position] = code
            self._unopened.discard(position)
        self.state = state
        if payload.get("auto") is True:
            self.auto_moves.add(entry.seq)
        if new_state is None:
            self._pending_action = (seat, action, entry.seq)
        else:
            self.state = new_state
            self.deal.actions.append((entry.seq, seat, action))
        self._settle()

    # ----- pauses
    def may_pause(self, seat: int) -> bool:
        """Whether ``seat`` may ask for a pause now (in place of its move)."""
        want = self.expect() if not self.finished else None
        return (want is not None and want.kind == ACTION and want.author == seat
                and self.pauses_asked.get(seat, 0) < self.max_pauses)

    def _pause_due(self) -> int:
        """Who writes the next pause entry: the next seat to answer, or the asker's continue."""
        pause = self.pause
        if pause.held:
            return pause.asker
        return next(s for s in range(self.players)
                    if s != pause.asker and s not in self.excluded and s not in pause.answers)

    def _accept_pause(self, entry: Entry, want: Expect) -> None:
        seat, op = entry.author, entry.payload.get("pause")
        if "auto" in entry.payload and type(entry.payload["auto"]) is not bool:
            raise Violation(seat, "bad-entry", N_("a pause entry's auto field must be true or false"))
        pause = self.pause
        if pause is None:
            if op != PAUSE_ASK:
                raise Violation(seat, "bad-pause", N_(
                    "a pause entry {op} where only asking for one fits", op=repr(op)))
            if self.pauses_asked.get(seat, 0) >= self.max_pauses:
                raise Violation(seat, "bad-pause", lazy.ngettext(
                    "seat {seat} asked for all its {n} pauses already",
                    "seat {seat} asked for all its {n} pauses already",
                    self.max_pauses, seat=seat))
            self.pauses_asked[seat] = self.pauses_asked.get(seat, 0) + 1
            self.pause = Pause(seat, entry.seq)
            self._check_pause_agreed()
        elif pause.held:
            if op != PAUSE_CONTINUE:
                raise Violation(seat, "bad-pause", N_(
                    "a pause entry {op} where the pause's end was due", op=repr(op)))
            self.pause = None
        else:
            if op not in (PAUSE_YES, PAUSE_NO):
                raise Violation(seat, "bad-pause", N_(
                    "a pause entry {op} where an answer (yes or no) was due", op=repr(op)))
            pause.answers[seat] = op == PAUSE_YES
            if op == PAUSE_NO:
                self.pause = None  # refused: the asker's move is due again
            else:
                self._check_pause_agreed()

    def _check_pause_agreed(self) -> None:
        pause = self.pause
        if all(pause.answers.get(s) for s in range(self.players) if s != pause.asker and s not in self.excluded):
            pause.held = True

    # ----- the end of a deal
    @property
    def _phase(self) -> str:
        if self.aborted:
            return REVEAL if self._next_revealer() is not None else END
        if len(self.deal.decks) < self.players:
            return SHUFFLE
        if len(self.deal.decks) < 2 * self.players:
            return REKEY
        if self._queue:
            return KEYS
        if self.state is not None and self._pending_action is None and not self.game.deal_over(self.state):
            return ACTION
        if self._next_revealer() is not None:
            return REVEAL
        return END

    def _next_revealer(self) -> int | None:
        """The next seat to reveal its deal seed: every seat that committed to
        one in this deal (by shuffling), in seat order, but blamed seats."""
        for seat in range(self.players):
            if seat in self.deal.commitments and seat not in self.deal.seeds and seat not in self.excluded:
                return seat
        return None

    def _judge_accusations(self) -> None:
        """An accusation only the final reveal can settle ("this card opens to
        no card for me") stands if the reveal found a culprit; otherwise the
        accuser made it up."""
        for index, accusation in self.aborts:
            if accusation.seat is None and not self.findings:
                withheld = sorted(s for s in self.deal.commitments if s not in self.deal.seeds)
                if withheld:
                    # The check needs reveals that never came: nothing is shown
                    # false; whoever withheld its reveal answers for it.
                    self.findings.extend((index, Violation(
                        seat, accusation.kind,
                        N_("withheld the reveal needed to check the accusation of {kind}", kind=accusation.kind)))
                        for seat in withheld)
                    continue
                accuser = self._abort_authors.get(index)
                self.findings.append((index, Violation(
                    accuser, "false-accusation",
                    N_("accused nobody in particular of {kind}, and the final reveal shows no fault",
                       kind=accusation.kind))))

    def _accept_reveal(self, entry: Entry, want: Expect) -> None:
        try:
            seed = dealing.parse_seed(entry.payload.get("seed"), self.deal.commitments.get(entry.author))
        except dealing.DealingError as exc:
            raise Violation(entry.author, "bad-reveal", message_of(exc)) from None
        self.deal.seeds[entry.author] = seed
        if self._next_revealer() is None:
            self._deal_closed = True
            self._close_deal()

    def _close_deal(self) -> None:
        """Every seat revealed: check every layer, score the deal, start the next."""
        deal = self.deal
        findings, codes = dealing.check_deal(self, deal)
        self.findings.extend((self.seq, violation) for violation in findings)
        deal.codes = codes
        if self.aborted:
            self._judge_accusations()
        if self.aborted or self.findings:
            return  # the match stops here; the end entry comes next
        everything = {unknown(p): c for p, c in enumerate(deal.codes)}
        final_state = deal.final_state = substitute(self.state, everything)
        deal.scores = self.game.deal_scores(final_state)
        self.match = self.game.end_deal(self.match, final_state)
        played = len([d for d in self.deals if d.scores is not None])
        if self.max_deals and played >= self.max_deals and not self.match.over:
            self.match = dataclasses.replace(self.match, over=True)  # the table agreed to stop here
        if not self.game.match_over(self.match):
            self._new_deal()

    def _new_deal(self) -> None:
        self.deals.append(DealRecord(self.match.deal_index, self.match.dealer, self.seq,
                                     match_before=copy.deepcopy(self.match)))
        self.state = None
        self.public_codes: dict[int, str] = {}
        self.book = KeyBook(self.players)
        self._queue: list[tuple[int, list[int]]] = []
        self._pending_action: tuple[int, dict, int] | None = None
        self._start_deck: list[str] = []
        self._unopened: set[int] = set()
        self._deal_closed = False

    # ----- aborts and the end
    def _accept_abort(self, entry: Entry, history: History | None = None) -> None:
        payload = entry.payload
        accuser = entry.author
        if accuser in self.excluded:
            raise Violation(accuser, "bad-entry", N_("a blamed seat cannot accuse"))
        if not isinstance(payload, dict):
            raise Violation(accuser, "bad-entry", N_("an abort payload must be a map"))
        unknown_fields = set(payload) - PAYLOAD_FIELDS[ABORT]
        if unknown_fields:
            raise Violation(accuser, "bad-entry", N_("an abort has no field {fields}",
                                                       fields=str(sorted(map(str, unknown_fields)))))
        culprit = payload.get("culprit")
        kind = payload.get("kind")
        detail = payload.get("detail", "")
        if culprit is not None and (type(culprit) is not int or not 0 <= culprit < self.players or culprit == accuser):
            raise Violation(accuser, "bad-entry", N_("abort names an impossible culprit {culprit}",
                                                       culprit=repr(culprit)))
        if culprit is not None and culprit in self.excluded:
            raise Violation(accuser, "bad-entry", N_("seat {seat} is blamed already",
                                                     seat=culprit))  # one abort per culprit
        if culprit is not None and accuser != self.referee(culprit):
            # Only the referee names a culprit (table.md §6); anyone may say "no card".
            raise Violation(accuser, "bad-entry", N_(
                "seat {accuser} is not the referee and cannot blame seat {culprit}", accuser=accuser, culprit=culprit))
        if not isinstance(kind, str) or not isinstance(detail, str):
            raise Violation(accuser, "bad-entry", N_("an abort needs a kind and a detail"))
        if (len(kind) > limits.MAX_ABORT_KIND or len(detail) > limits.MAX_ABORT_DETAIL
                or not kind.isprintable() or not detail.isprintable()):
            # Shown to people on terminals: printable, like names.
            raise Violation(accuser, "bad-entry", N_(
                "an abort's kind and detail are at most {kind} and {detail} printable characters",
                kind=limits.MAX_ABORT_KIND, detail=limits.MAX_ABORT_DETAIL))
        # The accusation must be proved here, live and in the audit alike (table.md §6).
        silence = evidence.judge(self, entry, culprit, kind, payload, history)
        if silence is not None:
            self.silences.append(silence)
            if not silence.stands:
                # Silence only a minority attests: the game stops, nobody is convicted.
                self.stopped = True
                self.pending_problem = None
                return
        self.aborts.append((entry.seq, Violation(culprit, kind, detail)))
        self._abort_authors[entry.seq] = accuser
        self.pause = None  # the game stops: no pause to answer or end
        if culprit is not None:
            self.excluded.add(culprit)  # first: a blamed seat owes no reveal, so the deal may close now
        if self._next_revealer() is None and not self._deal_closed:
            self._deal_closed = True
            self._close_deal()
        self.pending_problem = None

    def attested_silence(self, entry: Entry, culprit: int, kind: str, raw: Any) -> Silence:
        """A silence abort rests on attestations of this place: each signed for
        this table by a distinct seat still playing, about ``culprit`` at this
        abort's place after this abort's predecessor; the accuser's own among them."""
        accuser = entry.author
        if not isinstance(raw, list) or not 0 < len(raw) <= self.players:
            raise Violation(accuser, "bad-entry", N_("a silence abort needs the attestations it rests on"))
        attesters: list[int] = []
        for item in raw:
            try:
                att = parse_attestation(item, self.table)
            except AttestationError as exc:
                raise Violation(accuser, "bad-entry", N_("an attestation is not valid here: {reason}",
                                                          reason=message_of(exc))) from None
            if att.about != (culprit, entry.seq, entry.prev_hash):
                raise Violation(accuser, "bad-entry", N_("an attestation is about another seat or place"))
            if att.attester in attesters or att.attester in self.excluded:
                raise Violation(accuser, "bad-entry", N_(
                    "seat {seat} cannot attest here (twice, or blamed)", seat=att.attester))
            attesters.append(att.attester)
        if accuser not in attesters:
            raise Violation(accuser, "bad-entry", N_("the accuser must attest the silence itself"))
        return Silence(entry.seq, culprit, kind, sorted(attesters), majority(attesters, self.players))

    def _accept_end(self, entry: Entry) -> None:
        want = self.expect()
        if want.kind != END:
            raise Violation(None, "bad-entry", N_(
                "the end entry came while seat {seat}'s {kind} was due", seat=want.author, kind=want.kind))
        if not same_data(entry.payload, self.end_payload()):
            raise Violation(None, "bad-end", N_("the end entry's result is not what the log shows"))
        unsigned = [s for s in range(self.players) if s not in self.excluded and entry.signatures[s] is None]
        if unsigned:
            # Not a fault of anybody the log can name (silence is no proof): the game did not finish.
            raise Violation(None, UNSIGNED_END, N_(
                "the end entry lacks the signature of seat(s) {seats}, blamed by nobody", seats=str(unsigned)))
        self.finished = True


def _setting(extra: dict, name: str, default: int) -> int:
    value = extra.get(name, default)
    return value if type(value) is int and value >= 0 else default


def same_data(a: Any, b: Any) -> bool:
    """Equal as msgpack data: of the same types too (in Python 0 == False == 0.0)."""
    if isinstance(a, str) and isinstance(b, str):
        return str(a) == str(b)  # a detail may be an i18n.Text: packed as the str it is
    if type(a) is not type(b):
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            pass
        else:
            return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_data(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b))
    return a == b


def new_machine(genesis: Entry, verify_proofs: bool = True) -> TableMachine:
    machine = TableMachine(TableInfo.from_payload(genesis.payload), verify_proofs)
    machine.head_hash = genesis.hash
    return machine
