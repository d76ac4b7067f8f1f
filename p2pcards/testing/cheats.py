"""Deliberate cheating, for ``p2pcards selfplay --cheat KIND``: a bot that
commits one cheat so that its detection can be tested (CONTRACT.md).

Each cheat is committed once, at the first chance; the seat is honest
before and after. Who must catch it:

    bad-shuffle   duplicates a card in its shuffle         the others (proof fails)
    wrong-key     a wrong per-card key for another's card  everybody, against its commitment
    rekey-peek    re-keys its own hand positions with a    the others, at the re-key proof
                  victim's cards, to read the victim's hand  (before any card is shown)
    frame-accuser a wrong per-card key for a victim's card, the victim (and everybody) at once:
                  then withholds its final reveal          the key does not match its commitment
    phantom-card  plays a card it does not hold            the others at once
    illegal-move  a move the rules forbid                  the others at once
    out-of-turn   signs a move when it is not its turn     the others at once
    whisper-out-of-turn  the same, sent only to the seat    that seat, which moves on and passes the
                  due, which is not the cheater's referee   entry to the referee, who writes the abort
    false-pass    (warkocz) passes holding the needed rank only the audit
    equivocate    two different entries for one place     the others, and the audit
    withhold-key  falls silent when a key is due           the others after the timeout (a majority attests)
    false-timeout as referee, never acknowledges a player's   the others hold that entry and refuse the
                  entry and accuses it of silence there       abort; the referee is blamed
    forged-evidence keeps one shuffle in its own log, shows  the others refuse the evidence (it does not
                  another, accuses the next seat of a bad     chain onto their log); its own log, audited
                  shuffle with that seat's entry as evidence  alone or beside theirs, blames the forger
    rewrite-end   after the game, replaces the end all        the audit of both logs: it signed two
                  signed with an abort blaming another and    versions of that place; its log alone
                  an end only it signs (in its own file)      convicts nobody

Baseless accusations (table.md §6): as referee, an abort against an honest
seat (the first it referees for that has an entry in the log) whose evidence
proves nothing. Every peer refuses it and the referee is blamed, never the victim:

    baseless-abort     bad-shuffle, no evidence
    own-entry-abort    illegal-move, the victim's own valid entry as evidence
    unrelated-abort    bad-shuffle, another seat's valid entry as evidence
    empty-equivocate   equivocate, no entries
    chained-false-accusation  false-accusation, the victim's entry, which chains onto the log
    own-place-abort    illegal-move, at the place of the victim's valid entry, which it takes as
                       "evidence" (never acknowledging it)

    huge-abort         bad-shuffle, junk for evidence, the abort as big as the log allows (log.md §8)
    deep-abort         bad-shuffle, its evidence an abort of its own quoting a huge-abort: three deep,
                       the innermost as big as the log allows: the answer quoting it still fits

    huge-out-of-turn   out-of-turn, padded to the most an entry quoting nothing may be: the others
                       accuse it at once, and the abort quoting it fits in an entry

Floods (table.md §6, §5):

    nobody-abort-flood  60 aborts naming nobody, each with about 1 MB of junk evidence: refused,
                        the flooder blamed, the match ends
    flood-ahead         2,000 signed entries for places ahead, built on an entry of the log:
                        misplaced, the flooder blamed
    flood-ahead-unbound 2,000 signed entries for places ahead, built on nothing the log holds:
                        no proof against anybody (they could be another table's), kept within
                        bounds; the match ends
"""

from __future__ import annotations

import secrets
from pathlib import Path

import trio

from p2pcards.cards import deck_for, is_code
from p2pcards.games import IllegalAction, NeedReveal
from p2pcards.mental.deal import rekey_values
from p2pcards.mental.group import N, scalar_to_bytes
from p2pcards.protocol import ack, silence
from p2pcards.protocol.knowledge import public_form
from p2pcards.files import write_atomically
from p2pcards.limits import MAX_EVIDENCE_DEPTH
from p2pcards.protocol.log import GameLog, LogError, assemble, make_entry, sign_body, size_limit, write_log
from p2pcards.protocol.machine import ABORT, ACTION, KEYS, REKEY, REVEAL, SHUFFLE, Violation

CHEATS = ("bad-shuffle", "wrong-key", "phantom-card", "illegal-move", "out-of-turn", "whisper-out-of-turn",
          "false-pass",
          "equivocate", "withhold-key", "rekey-peek", "frame-accuser", "false-timeout", "forged-evidence",
          "rewrite-end", "baseless-abort", "own-entry-abort", "unrelated-abort", "empty-equivocate",
          "chained-false-accusation", "own-place-abort", "nobody-abort-flood", "flood-ahead",
          "flood-ahead-unbound", "huge-abort", "huge-out-of-turn", "deep-abort")
# The baseless accusations: (kind of the abort, what its evidence is).
BASELESS = {"baseless-abort": ("bad-shuffle", "none"), "own-entry-abort": ("illegal-move", "own"),
            "unrelated-abort": ("bad-shuffle", "unrelated"), "empty-equivocate": ("equivocate", "none"),
            "chained-false-accusation": ("false-accusation", "own"), "huge-abort": ("bad-shuffle", "huge"),
            "deep-abort": ("bad-shuffle", "deep")}
DEEP_ABORT = MAX_EVIDENCE_DEPTH - 1  # aborts nested in a deep-abort (the answer nests one more)
FLOOD_AHEAD = 2000  # entries a flood-ahead cheater sends
FLOOD_CHUNK = 200  # of those, sent each time it is idle
NOBODY_ABORTS = 60  # aborts a nobody-abort-flood cheater sends
FORGED_SUFFIX = ".forged.p2plog"  # forged-evidence: the log the forger would show an auditor


class Cheater:
    def __init__(self, kind: str):
        if kind not in CHEATS:
            raise ValueError(f"unknown cheat {kind!r}; the cheats are {', '.join(CHEATS)}")
        self.kind = kind
        self.done = False
        self.shown = None  # forged-evidence: the entry shown to the others instead of the one kept
        self.sent = 0  # floods: what was sent so far

    # ----- hooks called by TablePeer
    async def write(self, peer, due, action) -> bool:
        """Write this seat's due entry dishonestly if this is the chance;
        True if it did (or chose to stay silent)."""
        if self.done:
            if self.kind == "frame-accuser" and due.kind == REVEAL:
                return await self._stay_silent(peer)  # its seed would show the key was wrong
            return False
        method = getattr(self, "_" + self.kind.replace("-", "_"), None)
        if method is None:
            return False
        return await method(peer, due, action)

    async def on_entry(self, peer, entry) -> bool:
        """Called for every entry that comes in; True if the cheat took it."""
        if self.kind == "false-timeout" and not self.done:
            return await self._accuse_of_silence(peer, entry)
        if self.kind == "forged-evidence" and self.shown is not None and not self.done:
            return await self._forge_evidence(peer, entry)
        if self.kind == "own-place-abort" and not self.done:
            return await self._accuse_at_its_place(peer, entry)
        return False

    def after_game(self, peer) -> None:
        """Called when the peer is done and its log file written."""
        if self.kind == "rewrite-end" and not self.done and peer.machine.finished:
            self.done = True
            _rewrite_end(peer)

    async def idle(self, peer) -> None:
        """Called while another seat is to act."""
        if self.done:
            return
        if self.kind in BASELESS:
            await self._accuse_baselessly(peer)
            return
        if self.kind == "nobody-abort-flood":
            await self._flood_nobody_aborts(peer)
            return
        if self.kind in ("flood-ahead", "flood-ahead-unbound"):
            await self._flood_places_ahead(peer, bound=self.kind == "flood-ahead")
            return
        if self.kind not in ("out-of-turn", "whisper-out-of-turn", "huge-out-of-turn"):
            return
        machine = peer.machine
        want = machine.expect()
        if want.kind != ACTION or want.author == peer.seat or not peer.head_final():
            return
        if self.kind == "whisper-out-of-turn" and want.author == peer.referee(peer.seat):
            return  # told to the seat due only, which must not be the one to write the abort
        payload = {"action": {"type": "pass"}, "positions": [], "keys": [], "deal": machine.deal.index}
        entry = peer.driver.log.make_next(peer.seat, ACTION, payload, peer.driver.signer)
        if self.kind == "huge-out-of-turn":  # as big as an entry quoting nothing may be
            def padded(n):
                return peer.driver.log.make_next(peer.seat, ACTION, dict(payload, pad=bytes(n)), peer.driver.signer)
            entry = _of_size(padded, size_limit(0))
        self.done = True
        if self.kind == "whisper-out-of-turn":
            await peer.mesh.send(want.author, {"t": "entry", "raw": entry.raw})
        else:
            await peer.mesh.broadcast({"t": "entry", "raw": entry.raw})

    # ----- the cheats
    async def _send(self, peer, kind: str, payload: dict) -> bool:
        """Sign and send an entry without checking it, as a cheater would."""
        self.done = True
        payload.setdefault("deal", peer.machine.deal.index)
        entry = peer.driver.log.make_next(peer.seat, kind, payload, peer.driver.signer)
        await peer.mesh.broadcast({"t": "entry", "raw": entry.raw})
        # A cheat the table cannot see at once (a wrong key, a false pass) is
        # in everybody's log, so it must be in the cheater's own too.
        try:
            peer.driver.receive(entry)
        except Violation:
            return True
        await peer._ack(entry)
        return True

    async def _bad_shuffle(self, peer, due, action) -> bool:
        if due.kind != SHUFFLE:
            return False
        payload = peer.driver.me.payload(peer.machine, due)
        deck = bytearray(payload["shuffle"]["deck"])
        deck[33:66] = deck[0:33]  # the first card twice, the second gone
        payload["shuffle"]["deck"] = bytes(deck)
        return await self._send(peer, SHUFFLE, payload)

    async def _rekey_peek(self, peer, due, action) -> bool:
        """At its own hand positions, a victim's cards re-keyed with its own
        per-card keys: once the others show it "its" hand, it reads the
        victim's (issue 11, item 1). The proof is the honest re-key's."""
        if due.kind != REKEY:
            return False
        hands = _hand_positions(peer.machine)
        mine = hands.get(peer.seat, [])
        victim = next((s for s in sorted(hands) if s != peer.seat and hands[s]), None)
        if not mine or victim is None:
            return False
        source = list(range(peer.machine.deal_size))
        for own, theirs in zip(mine, hands[victim]):
            source[own] = theirs
        payload = peer.driver.me.payload(peer.machine, due)
        secrets = peer.driver.me.secrets(peer.machine.deal.index)
        forged = rekey_values(secrets, peer.machine.deck_in(), source)
        payload["rekey"]["deck"] = b"".join(forged)
        return await self._send(peer, REKEY, payload)

    async def _frame_accuser(self, peer, due, action) -> bool:
        """A wrong key for a victim's card (and later no final reveal, so that
        in protocol version 1 the victim's abort was judged a false accusation)."""
        return await self._wrong_key(peer, due, action)

    async def _stay_silent(self, peer) -> bool:
        seq = peer.driver.log.next_seq
        while peer.driver.log.next_seq == seq:  # silent until the others go on without us
            await trio.sleep(0.05)
        return True

    async def _wrong_key(self, peer, due, action) -> bool:
        if due.kind != KEYS:
            return False
        # A position shown to one other player only: its hand card.
        private = [p for p in due.positions if not _public_position(peer, p)]
        if not private:
            return False
        payload = peer.driver.me.payload(peer.machine, due)
        for item in payload["keys"]:
            if item[0] == private[0]:
                item[1] = scalar_to_bytes(secrets.randbelow(N - 1) + 1)
        return await self._send(peer, KEYS, payload)

    async def _phantom_card(self, peer, due, action) -> bool:
        if due.kind != ACTION or not action or not action.get("cards"):
            return False
        payload = peer.driver.me.action_payload(peer.machine, action, check=False)
        cards = payload["action"]["cards"]
        shown = [i for i, p in enumerate(payload["positions"]) if p is not None and is_code(cards[i])]
        if not shown:
            return False
        held = set(peer.driver.game.hand(peer.driver.my_state(), peer.seat))
        fake = next((c for c in deck_for(peer.machine.game.id) if c not in held and c != cards[shown[0]]), None)
        if fake is None:
            return False
        cards[shown[0]] = fake
        return await self._send(peer, ACTION, payload)

    async def _illegal_move(self, peer, due, action) -> bool:
        if due.kind != ACTION:
            return False
        bad = _find_illegal(peer)
        if bad is None:
            return False
        payload = peer.driver.me.action_payload(peer.machine, bad, check=False)
        return await self._send(peer, ACTION, payload)

    async def _false_pass(self, peer, due, action) -> bool:
        if due.kind != ACTION:
            return False
        if peer.machine.game.id != "warkocz" or {"type": "pass"} in peer.driver.legal_actions():
            return False
        # Only a pass the others cannot refuse: one that needs the hidden hand to judge.
        try:
            peer.machine.game.apply(peer.machine.state, {"type": "pass"})
        except (IllegalAction, NeedReveal):
            return False
        payload = peer.driver.me.action_payload(peer.machine, {"type": "pass"}, check=False)
        return await self._send(peer, ACTION, payload)

    async def _equivocate(self, peer, due, action) -> bool:
        if due.kind != ACTION:
            return False
        legal = peer.driver.legal_actions()
        if len(legal) < 2:
            return False
        first = peer.driver.me.action_payload(peer.machine, legal[0])
        second = peer.driver.me.action_payload(peer.machine, legal[1])
        for payload in (first, second):
            payload["deal"] = peer.machine.deal.index
        log = peer.driver.log
        a = log.make_next(peer.seat, ACTION, first, peer.driver.signer)
        b = log.make_next(peer.seat, ACTION, second, peer.driver.signer)
        others = peer.others()
        half = max(1, len(others) // 2)
        self.done = True
        for i, seat in enumerate(others):
            await peer.mesh.send(seat, {"t": "entry", "raw": (a if i < half else b).raw})
        return True

    async def _accuse_of_silence(self, peer, entry) -> bool:
        """As referee: take a player's genuine entry, never acknowledge it, and
        abort at its place, blaming that player for silence."""
        driver = peer.driver
        if not _next_of_a_refereed_seat(peer, entry, (SHUFFLE, REKEY, KEYS, ACTION)):
            return False
        self.done = True
        culprit, place, head = entry.author, driver.log.next_seq, driver.log.head_hash
        att = silence.attest(driver.signer, peer.machine.table, peer.seat, culprit, place, head, "timeout")
        abort = driver.write_abort(Violation(culprit, "timeout", f"seat {culprit} sent nothing in time"), [],
                                   [att.raw])
        await peer.mesh.broadcast({"t": "entry", "raw": abort.raw})
        return True

    async def _forged_evidence(self, peer, due, action) -> bool:
        """Keep one shuffle in its own log and show everybody another one,
        acknowledging that one as if it were the one kept."""
        if due.kind != SHUFFLE or self.shown is not None:
            return False
        from p2pcards.protocol.seat import Seat

        driver = peer.driver
        kept = driver.log.make_next(peer.seat, SHUFFLE, driver.me.payload(peer.machine, due), driver.signer)
        other = Seat(peer.seat).payload(peer.machine, due)  # a fresh seed: another valid shuffle
        shown = driver.log.make_next(peer.seat, SHUFFLE, other, driver.signer)
        driver.receive(kept)
        peer.acks.setdefault(kept.seq, {})[peer.seat] = kept.hash  # acknowledged in its own book only
        self.shown = shown
        await peer.mesh.broadcast({"t": "entry", "raw": shown.raw})
        await peer.mesh.broadcast({"t": "ack", "ack": ack.make(driver.signer, peer.machine.table, peer.seat,
                                                                shown.seq, shown.hash).raw})
        return True

    async def _forge_evidence(self, peer, entry) -> bool:
        """The next seat's entry, built on the shown shuffle, becomes the
        "evidence" of a bad shuffle in an abort at that place of the kept log."""
        if entry.prev_hash != self.shown.hash or entry.author == peer.seat:
            return False
        driver = peer.driver
        if driver.log.next_seq != entry.seq or peer.referee(entry.author) != peer.seat:
            return False
        self.done = True
        payload = {"culprit": entry.author, "kind": "bad-shuffle", "detail": "the shuffle proof fails",
                   "evidence": [entry.raw]}
        abort = driver.log.make_next(peer.seat, ABORT, payload, driver.signer)
        await peer.mesh.broadcast({"t": "entry", "raw": abort.raw})
        forged = GameLog()
        for e in list(driver.log.entries) + [abort]:
            forged.append(e)
        write_log(forged_path(driver.file.path), forged)
        return True

    async def _withhold_key(self, peer, due, action) -> bool:
        if due.kind != KEYS:
            return False
        self.done = True
        return await self._stay_silent(peer)


    async def _accuse_baselessly(self, peer) -> None:
        """As referee, accuse an honest seat with evidence that proves nothing."""
        driver, machine = peer.driver, peer.machine
        if not peer.head_final() or machine.aborted:
            return
        entries = driver.log.entries
        victim = next((s for s in range(machine.players) if s != peer.seat and machine.referee(s) == peer.seat
                       and any(e.author == s for e in entries[1:])), None)
        if victim is None:
            return
        kind, what = BASELESS[self.kind]
        payload = {"culprit": victim, "kind": kind, "detail": "made up"}
        if what == "own":
            payload["evidence"] = [next(e for e in reversed(entries) if e.author == victim).raw]
        elif what == "unrelated":
            payload["evidence"] = [next(e for e in reversed(entries) if e.author not in (victim, -1)).raw]
        self.done = True
        abort = driver.log.make_next(peer.seat, ABORT, payload, driver.signer)
        if what in ("huge", "deep"):
            # An abort with junk for evidence, as big as the log lets it be; "deep":
            # quoted by an abort of its own, quoted by another, DEEP_ABORT in all.
            def junk(n):
                return driver.log.make_next(peer.seat, ABORT, dict(payload, evidence=[bytes(n)]), driver.signer)

            abort = _of_size(junk, size_limit(1))
            for _ in range(DEEP_ABORT - 1 if what == "deep" else 0):
                abort = driver.log.make_next(peer.seat, ABORT, dict(payload, evidence=[abort.raw]), driver.signer)
        await _not_overflowing(peer)
        await peer.mesh.broadcast({"t": "entry", "raw": abort.raw})

    async def _accuse_at_its_place(self, peer, entry) -> bool:
        """As referee: a seat's valid entry, never acknowledged, called an
        illegal move by an abort at its place with itself as the evidence."""
        driver = peer.driver
        if not _next_of_a_refereed_seat(peer, entry, (KEYS, ACTION)):
            return False
        self.done = True
        payload = {"culprit": entry.author, "kind": "illegal-move", "detail": "made up", "evidence": [entry.raw]}
        abort = driver.log.make_next(peer.seat, ABORT, payload, driver.signer)
        await peer.mesh.broadcast({"t": "entry", "raw": abort.raw})
        return True

    async def _flood_nobody_aborts(self, peer) -> None:
        """Aborts naming nobody, each with about 1 MB of junk, a few each time
        this seat is idle (a hook that blocked would hold up its own turns)."""
        driver = peer.driver
        junk = secrets.token_bytes(900_000)
        for _ in range(4):
            payload = {"culprit": None, "kind": "no-card", "detail": f"flood {self.sent}", "evidence": [junk]}
            abort = driver.log.make_next(peer.seat, ABORT, payload, driver.signer)
            await peer.mesh.broadcast({"t": "entry", "raw": abort.raw})
            await _not_overflowing(peer)
            self.sent += 1
        self.done = self.sent >= NOBODY_ABORTS

    async def _flood_places_ahead(self, peer, bound: bool) -> None:
        """Signed entries for places ahead of the log, built on its last entry
        (so they belong to this table) or on nothing it holds; FLOOD_CHUNK
        each time this seat is idle (a hook that blocked would hold up its own turns)."""
        driver = peer.driver
        start = driver.log.next_seq
        payload = {"deal": peer.machine.deal.index, "action": {"type": "pass"}, "positions": [], "keys": []}
        for _ in range(FLOOD_CHUNK):
            prev = driver.log.head_hash if bound else secrets.token_bytes(32)
            raw = make_entry(start + 1 + self.sent % 300, prev, peer.seat, ACTION, payload, driver.signer).raw
            await peer.mesh.broadcast({"t": "entry", "raw": raw})
            await _not_overflowing(peer)
            self.sent += 1
        self.done = self.sent >= FLOOD_AHEAD


def _of_size(make, size: int):
    """``make(n)`` (an entry with n bytes of padding) of exactly ``size`` bytes."""
    n = size // 2
    for _ in range(8):
        entry = make(n)
        if len(entry.raw) == size:
            return entry
        n += size - len(entry.raw)
    raise AssertionError(f"no entry of {size} bytes")


def _next_of_a_refereed_seat(peer, entry, kinds) -> bool:
    """``entry`` is another seat's next entry, of one of ``kinds``, that fits
    the log, and this seat referees that seat in a game still going."""
    driver = peer.driver
    if (entry.author == peer.seat or entry.seq != driver.log.next_seq or entry.kind not in kinds
            or peer.machine.aborted or peer.referee(entry.author) != peer.seat):
        return False
    try:
        driver.log.check(entry)
    except LogError:
        return False
    return True


async def _not_overflowing(peer) -> None:
    """A flooder keeps its own connections: it sends as fast as they carry
    (its own send queue, bounded in frames and in bytes, would otherwise
    overflow and cut it off: silence)."""
    while any(status.queued > 64 or status.queued_bytes > 2 * 1024 * 1024
              for status in peer.mesh.peer_status().values()):
        await trio.sleep(0.005)


def forged_path(log_path) -> Path:
    return Path(str(log_path) + FORGED_SUFFIX)


def _rewrite_end(peer) -> None:
    """Replace, in this seat's own file, the end every player signed with an
    abort blaming another player for silence there, and an end only this seat
    signs."""
    driver, machine = peer.driver, peer.machine
    victim = next((s for s in range(machine.players) if s != peer.seat and machine.referee(s) == peer.seat), None)
    if victim is None or driver.file is None:
        return
    end = driver.log[len(driver.log) - 1]
    forged = GameLog()
    for e in driver.log.entries[:-1]:
        forged.append(e)
    place, head = forged.next_seq, forged.head_hash
    att = silence.attest(driver.signer, machine.table, peer.seat, victim, place, head, "silent")
    detail = f"seat {victim} did not sign the end"
    abort = forged.make_next(peer.seat, ABORT, {"culprit": victim, "kind": "silent", "detail": detail,
                                                "attestations": [att.raw]}, driver.signer)
    forged.append(abort)
    payload = dict(end.payload)
    payload["aborted"] = True
    payload["blame"] = [{"seat": victim, "entry": place, "kind": "silent", "detail": detail}]
    body = forged.end_body(payload)
    signatures = [None] * machine.players
    signatures[peer.seat] = sign_body(body, driver.signer)
    forged.append(assemble(body, signatures))
    write_atomically(driver.file.path, forged.to_bytes())


def _public_position(peer, position: int) -> bool:
    from p2pcards.protocol.knowledge import reveal_audiences

    if peer.machine.state is None:
        return True  # before the deal starts, what is shown is shown to all (the upcard)
    audiences = reveal_audiences(peer.machine.game, peer.machine.state, peer.machine.players, peer.machine.book)
    return audiences.get(position, None) is None


def _hand_positions(machine) -> dict[int, list[int]]:
    """Seat -> the final-deck positions the deal will put in its hand (from
    the engine's deal of a deck of tokens, before any card is known)."""
    from p2pcards.cards import is_unknown, unknown_position
    from p2pcards.protocol.knowledge import token_deck

    game, match = machine.game, machine.match
    deck, codes = token_deck(machine.deal_size), iter(deck_for(game.id))
    while True:
        try:
            state = game.start_deal(match, deck=deck)
            break
        except NeedReveal as need:  # a card turned face up: any card will do to see the hands
            deck = [next(codes) if t in need.tokens else t for t in deck]
    return {s: [unknown_position(t) for t in game.hand(state, s) if is_unknown(t)]
            for s in range(machine.players)}


def _find_illegal(peer) -> dict | None:
    """A move the rules refuse with every card it shows known: a legal move
    with one card swapped for another card of the hand."""
    game = peer.machine.game
    mine = peer.driver.my_state()
    hand = [c for c in game.hand(mine, peer.seat) if is_code(c)]
    for legal in game.legal_actions(mine):
        if legal.get("type") in game.face_down_actions or not legal.get("cards"):
            continue
        for i in range(len(legal["cards"])):
            for card in hand:
                if card in legal["cards"]:
                    continue
                candidate = dict(legal)
                candidate["cards"] = list(legal["cards"])
                candidate["cards"][i] = card
                try:
                    game.apply(mine, candidate)
                except IllegalAction:
                    try:
                        public_form(game, peer.machine.state, candidate, peer.seat, peer.driver.me.known)
                    except IllegalAction:
                        continue
                    return candidate
                except NeedReveal:
                    continue
    return None
