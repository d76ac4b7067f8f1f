"""Hostile entries at the entry checker (``SeatDriver.receive`` = log check +
``TableMachine.accept``), and re-signed tampered logs at the audit.

The genuine logs are real matches (``fuzz.kit``). At every place of a log, the
drivers of a spectator and of a seat are fed hostile variants of the genuine
entry before the genuine one:

* payload mutations (positions, keys, cards, deal index, action types, chat,
  maps and lists reshaped, values of other types), kinds swapped, authors
  swapped, seq and prev_hash changed; each variant unsigned (the genuine
  signature on a changed body), signed with a wrong key, or re-signed with the
  key of the seat it names as author;
* an older entry of the log replayed there, as it was and re-signed for this
  place; an entry of another match (same game, another table; another game);
* shuffle proofs of another seat, deal or table, and proofs made with the true
  secrets for a wrong context.

Property: ``LogError``/``Violation`` leaving the driver as it was (log length
and head, machine, seat knowledge: pickled and compared), after which the
genuine entry is still accepted; or the entry is byte-identical to the genuine
one. A variant re-signed by the right key may be a legitimate alternative
entry of that author (another legal move, other chat, a wrong per-card key that
only the final reveal can expose); such acceptance is allowed only where the
protocol cannot tell at once, and then every driver must agree and no card may
have been claimed that is not the one at its position (no phantom card).
Nothing else may ever be raised.

Cases run by default: see ``test_entry_campaign`` (printed with -s); a longer
campaign: ``pytest -m slow tests/test_fuzz_entries.py`` or ``fuzz/entries.py``.
"""

from __future__ import annotations

import copy
import random
import traceback

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fuzz import kit
from p2pcards import mental
from p2pcards.protocol.knowledge import shown_by
from p2pcards.protocol.log import END, Entry, LogError
from p2pcards.protocol.machine import ACTION, KEYS, REKEY, REVEAL, SHUFFLE, Violation
from p2pcards.protocol.driver import SeatDriver
from tests.helpers import frames, play_out, rebuild

# Faults this fuzzing found are listed in fuzz/README.md; all were fixed
# (ef02c0a, cd330f1) and the tests named there guard them. A class put here
# while a fix is pending is counted instead of failed.
KNOWN: dict[str, str] = {}  # all fixed (ef02c0a): every class below must now be refused


class Campaign:
    """One walk through a genuine log with hostile variants at every place."""

    def __init__(self, m: kit.Match, rng: random.Random, per_place: int, other: kit.Match | None = None,
                 foreign: kit.Match | None = None):
        self.m, self.rng, self.per_place = m, rng, per_place
        self.other, self.foreign = other, foreign
        self.spectator = SeatDriver(m.genesis, None)
        self.seats = [SeatDriver(m.genesis, s, m.signers[s], seeds=m.seeds[s]) for s in range(m.players)]
        self.pool = kit.value_pool(m.entries, rng)
        self.failures: list[str] = []
        self.known: dict[str, int] = {}
        self.cases = 0
        self.accepted_alternatives = 0
        self.wrong_key = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))

    # ----- one hostile entry
    def probe(self, raw: bytes, genuine: Entry, must_refuse: str | None, why: str) -> None:
        """Feed ``raw`` at the genuine entry's place to the spectator and one seat."""
        self.cases += 1
        try:
            entry = Entry.from_wire(raw)
        except LogError:
            return  # the wire parser refuses it: nothing reaches the driver
        except Exception:
            self.failures.append(f"{why}: Entry.from_wire raised\n{traceback.format_exc()}")
            return
        if entry.raw == genuine.raw:
            return
        seat = self.seats[(max(genuine.author, 0) + 1 + self.rng.randrange(self.m.players)) % self.m.players]
        outcomes = []
        for driver in (self.spectator, seat):
            before = kit.fingerprint(driver)
            snap = None
            try:
                snap = kit.Snapshot(driver)
                driver.receive(entry)
            except kit.REFUSALS as exc:
                after = kit.fingerprint(driver)
                if after != before:
                    diff = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
                    self.failures.append(f"{why}: refused ({exc!r}) but the driver changed (fields {diff})")
                    snap.restore(driver)
                outcomes.append(("refused", type(exc).__name__))
                continue
            except Exception:
                self.failures.append(f"{why}: receive raised\n{traceback.format_exc()}")
                if snap is not None:
                    snap.restore(driver)
                outcomes.append(("crash", None))
                continue
            # Accepted.
            outcomes.append(("accepted", None))
            problem = must_refuse or self.phantom(entry, snap.machine)
            if problem:
                known = problem.split(" ")[0].rstrip(":")
                if known in KNOWN:
                    self.known[known] = self.known.get(known, 0) + 1
                else:
                    self.failures.append(f"{why}: accepted although {problem}: {entry!r} payload "
                                         f"{_short(entry.payload)}")
            else:
                self.accepted_alternatives += 1
            snap.restore(driver)
        if outcomes[0][0] != outcomes[1][0]:
            self.failures.append(f"{why}: spectator {outcomes[0]} but seat {seat.seat} {outcomes[1]}")

    def phantom(self, entry: Entry, machine) -> str | None:
        """An accepted action may not claim a card other than the one at its position."""
        if entry.kind != ACTION:
            return None
        codes = self.m.codes[machine.deal.index]
        p = entry.payload
        shown = shown_by(p["action"], p.get("positions") or [])
        for position, code in shown.items():
            if codes is not None and codes[position] != code:
                return f"phantom card: {code} claimed at position {position}, which holds {codes[position]}"
        return None

    # ----- the hostile variants of one place
    def variants(self, k: int) -> None:
        rng, m = self.rng, self.m
        genuine = m.entries[k]
        f = kit.fields(genuine)
        seq, prev, author, kind, payload = f
        if kind == END:
            self.end_variants(genuine)
            return
        right = m.signers[author]
        for _ in range(self.per_place):
            mode = rng.choice(["unsigned", "wrong-key", "other-seat", "right-key", "right-key", "right-key"])
            new = copy.deepcopy(f)
            must = None
            what = rng.random()
            if what < 0.06:
                new[0] = rng.choice([seq + 1, seq - 1, 0, seq + 2**32, -1])
                must = "seq changed"
            elif what < 0.1:
                new[1] = rng.choice([bytes(32), m.entries[k - 2].hash if k > 1 else bytes(32), kit.junk(rng, prev, [])])
                must = "prev_hash changed"
            elif what < 0.18:
                new[2] = rng.choice([s for s in range(-1, m.players + 1) if s != author])
                must = "author changed"
            elif what < 0.26:
                new[3] = rng.choice([x for x in (SHUFFLE, REKEY, KEYS, ACTION, REVEAL, "abort", "end", "table",
                                                 "Action", "chat") if x != kind])
                must = "kind changed"
            elif what < 0.34:
                d = payload.get("deal")
                new[4]["deal"] = rng.choice([d + 1, d - 1, True, float(d), str(d), None, 2**63])
                if not (type(new[4]["deal"]) is int and new[4]["deal"] == d):
                    must = "deal-not-int" if new[4]["deal"] == d else "deal changed"
            elif what < 0.40:
                chat = rng.choice([["hi"], ["gg", "wp"], [""], ["x" * 301], ["a"] * 5, "hi", [1], [None], None,
                                   ["ok"] * 4, ["\x00\u202e"], [b"bin"]])
                new[4]["chat"] = chat
                if not kit.valid_chat(chat):
                    must = "invalid chat"
            else:
                new[4], path = kit.mutate_payload(rng, payload, self.pool)
                must = self.classify(kind, payload, new[4], path)
                if must:
                    must = f"{must} (at {path})"
            signer = {"unsigned": None, "wrong-key": self.wrong_key,
                      "other-seat": m.signers[(author + 1) % m.players],
                      "right-key": m.signers[new[2]] if 0 <= new[2] < m.players else right}[mode]
            if mode == "unsigned":
                body = msgpack.packb(new, use_bin_type=True)
                raw = msgpack.packb([body, genuine.signature], use_bin_type=True)
                if body != genuine.body:
                    must = "body changed under the genuine signature"
            else:
                raw = kit.raw_entry(*new, signer)
                if mode != "right-key" or not 0 <= new[2] < m.players:
                    must = must or f"signed with a key ({mode}) not the author's"
            self.probe(raw, genuine, must, f"entry {k} ({kind}) {mode} {_short(new[4]) if must is None else must}")

        # (b) an older entry replayed here, as it was and re-signed for this place
        j = rng.randrange(1, k) if k > 1 else 0
        old = m.entries[j]
        self.probe(old.raw, genuine, "an old entry replayed", f"entry {j} replayed at {k}")
        if j:
            self.probe(kit.raw_entry(seq, prev, old.author, old.kind, old.payload, m.signers[old.author]), genuine,
                       self.replaced_must(old, genuine), f"entry {j} re-signed at {k}")
        # (c) the same place in another match of the same game, and of another game
        for src in (self.other, self.foreign):
            if src is None or k >= len(src.entries) - 1:
                continue
            e = src.entries[k]
            self.probe(e.raw, genuine, "an entry of another table", f"entry {k} of {src.name}")
            if 0 <= e.author < m.players:
                self.probe(kit.raw_entry(seq, prev, e.author, e.kind, e.payload, m.signers[e.author]), genuine,
                           self.foreign_must(e, genuine, src), f"entry {k} of {src.name} re-signed")
        # (d) shuffle proofs from elsewhere
        if kind == SHUFFLE:
            self.shuffle_variants(genuine)

    def classify(self, kind: str, old: dict, new: dict, path: tuple) -> str | None:
        """Must the re-signed payload change at ``path`` be refused at once?"""
        quiet = kind == ACTION and not shown_by(old["action"], old.get("positions") or [])
        if not path:
            if quiet and isinstance(new, dict) and {k: v for k, v in new.items() if k not in ("keys", "positions")} \
                    == {k: v for k, v in old.items() if k not in ("keys", "positions")} \
                    and any(_strict(new.get(f)) != _strict(old.get(f)) for f in ("keys", "positions")):
                return "lax-type"  # an action showing no card without its empty keys/positions
            if kind == ACTION and isinstance(new, dict) and type(new.get("deal")) is int \
                    and new["deal"] == old["deal"] and set(new) <= {"action", "positions", "keys", "deal", "chat"}:
                return None  # another action altogether (e.g. another entry's): the phantom check applies
            if not isinstance(new, dict) or not set(old) <= set(new):
                return "payload replaced"
            if any(new[k] != old[k] for k in old):
                return "payload reshaped"
            added = set(new) - set(old)
            if added == {"chat"}:
                return None if kit.valid_chat(new["chat"]) else "invalid chat"
            return "extra-field" if added else None  # else: the same map re-ordered
        top = path[0]
        if top == "chat" and top not in old and isinstance(new, dict) and top in new:
            return None if kit.valid_chat(new["chat"]) else "invalid chat"
        if top not in old:
            return "extra-field"
        if top == "deal":
            nd = new.get("deal") if isinstance(new, dict) else None
            if type(nd) is int and nd == old["deal"]:
                return None
            return "deal-not-int" if nd == old["deal"] and "deal" in new else "deal changed"
        if top not in new:
            # A field dropped: every field but chat is needed (an action without
            # keys or positions is only valid when it shows no card).
            if top == "chat":
                return None
            if kind == ACTION and top in ("keys", "positions") and not shown_by(old["action"], old["positions"]):
                return None
            if kind == SHUFFLE and top == "commit":
                return "shuffle without commit"
            return f"field {top} dropped"
        if top == "chat":
            return None if kit.valid_chat(new["chat"]) else "invalid chat"
        if new[top] == old[top] and type(new[top]) is type(old[top]):
            return None  # the same value (a map re-ordered)
        if top == "keys" and _same_pairs(new[top], old[top]):
            return None  # the same keys in another order
        if kind == SHUFFLE:
            return None if top == "commit" and isinstance(new[top], bytes) and len(new[top]) == 32 else \
                f"shuffle {top} changed"
        if kind == REVEAL:
            return "reveal seed changed"
        if kind == KEYS:
            return "keys changed"  # every key is checked against its publisher's commitment at once
        if kind == REKEY:
            return "re-key changed"  # its proof covers every byte
        if kind == ACTION:
            if quiet and top in ("positions", "keys") and not new[top] and new[top] is not None:
                return "lax-type"  # {}, 0, "" or false where [] belongs, for an action showing no card
            if top == "positions" and len(path) == 2 and get(new, path) is None and isinstance(old[top], list) \
                    and len(old[top]) == len(new[top]) and isinstance(old["action"].get("cards"), list) \
                    and old["action"]["cards"][path[1]] == f"?{old[top][path[1]]}":
                return "lax-position"  # the engine still checks that the token is in the hand
            if top in ("positions", "keys"):
                return f"action {top} changed"
            return None  # another action: legal or not, the phantom check applies
        return None

    def replaced_must(self, old: Entry, genuine: Entry) -> str | None:
        """An older entry's payload re-signed for this place."""
        if old.kind != genuine.kind or old.author != genuine.author:
            return "an old entry re-signed out of turn"
        if old.payload.get("deal") != genuine.payload.get("deal"):
            return "an old entry of another deal"
        if old.kind == SHUFFLE:
            return self.unfit(genuine, old.payload, "an old shuffle re-signed at a later place")
        if old.kind in (REKEY, REVEAL, KEYS):
            return f"an old {old.kind} entry re-signed at a later place"
        return None  # an action said twice: legal only if it is a legal move again

    def foreign_must(self, e: Entry, genuine: Entry, src: kit.Match) -> str | None:
        if e.kind != genuine.kind or e.author != genuine.author:
            return "another table's entry out of turn"
        if e.kind == SHUFFLE:
            return self.unfit(genuine, e.payload, "another table's shuffle entry")
        if e.kind == REVEAL:
            return "another table's reveal entry"
        if e.payload.get("deal") != genuine.payload.get("deal"):
            return "another table's entry of another deal"
        if e.kind == KEYS and sorted(p for p, _ in e.payload["keys"]) != sorted(p for p, _ in genuine.payload["keys"]):
            return "another table's keys for other positions"
        if e.kind in (KEYS, REKEY):
            return f"another table's {e.kind} entry (proof and commitments of another deal)"
        return None

    def shuffle_variants(self, genuine: Entry) -> None:
        m, rng = self.m, self.rng
        seat, deal = genuine.author, genuine.payload["deal"]
        machine = self.spectator.machine
        shuffles = [e for e in m.entries if e.kind == SHUFFLE and e.raw != genuine.raw]
        for e in rng.sample(shuffles, min(3, len(shuffles))):
            payload = dict(genuine.payload, shuffle=e.payload["shuffle"])
            self.probe(kit.raw_entry(genuine.seq, genuine.prev_hash, seat, SHUFFLE, payload, m.signers[seat]),
                       genuine, self.unfit(genuine, payload, "a shuffle proof of another seat or deal"),
                       f"shuffle of seat {e.author} deal {e.payload['deal']} as seat {seat}'s in deal {deal}")
        for src in (self.other,):
            if src is None:
                continue
            for e in [x for x in src.entries if x.kind == SHUFFLE and x.author == seat][:1]:
                payload = dict(genuine.payload, shuffle=e.payload["shuffle"])
                self.probe(kit.raw_entry(genuine.seq, genuine.prev_hash, seat, SHUFFLE, payload, m.signers[seat]),
                           genuine, self.unfit(genuine, payload, "a shuffle proof of another table"), f"shuffle of {src.name} seat {seat}")
        # Proofs made with the true secrets for the wrong context; the right one is a control.
        secrets = mental.DealSecrets(m.seeds[seat][deal])
        good = machine.proof_context(seat, SHUFFLE, genuine.prev_hash)
        session = machine.table.session
        from p2pcards.protocol import dealing
        contexts = {
            "another seat": dealing.context(session, deal, (seat + 1) % m.players, SHUFFLE, genuine.prev_hash),
            "another deal": dealing.context(session, deal + 1, seat, SHUFFLE, genuine.prev_hash),
            "another place": dealing.context(session, deal, seat, SHUFFLE, m.entries[genuine.seq - 1].prev_hash),
            "another table": dealing.context(bytes(16), deal, seat, SHUFFLE, genuine.prev_hash),
            "another step": dealing.context(session, deal, seat, REKEY, genuine.prev_hash),
        }
        for name, ctx in rng.sample(sorted(contexts.items()), 2):
            machine = self.spectator.machine
            msg = mental.shuffle_step(secrets, machine.deck_in(), ctx)
            payload = dict(genuine.payload, shuffle=msg)
            self.probe(kit.raw_entry(genuine.seq, genuine.prev_hash, seat, SHUFFLE, payload, m.signers[seat]),
                       genuine, self.unfit(genuine, payload, f"a shuffle proof for {name}"),
                       f"shuffle proved for {name}")
        # Control: a proof for the true context must be accepted.
        machine = self.spectator.machine
        msg = mental.shuffle_step(secrets, machine.deck_in(), good)
        control = Entry.from_wire(kit.raw_entry(genuine.seq, genuine.prev_hash, seat, SHUFFLE,
                                                dict(genuine.payload, shuffle=msg), m.signers[seat]))
        copy.deepcopy(self.spectator.machine).accept(control)

    def unfit(self, genuine: Entry, payload: dict, problem: str) -> str | None:
        """``problem``: a proof made for another place never verifies here
        (the argument's soundness is 2^-128; no option weakens it)."""
        return problem

    def end_variants(self, genuine: Entry) -> None:
        m, rng = self.m, self.rng
        body_fields = kit.fields(genuine)
        for _ in range(max(2, self.per_place // 3)):
            new = copy.deepcopy(body_fields)
            new[4], path = kit.mutate_payload(rng, genuine.payload, self.pool)
            body = msgpack.packb(new, use_bin_type=True)
            same = _strict(msgpack.unpackb(body, raw=False)) == _strict(msgpack.unpackb(genuine.body, raw=False))
            sigs = [k.sign(body) for k in m.signers]
            if rng.random() < 0.3:
                sigs[rng.randrange(len(sigs))] = None
            raw = msgpack.packb([body, sigs], use_bin_type=True)
            must = None if same else "a changed end entry"
            if not same and msgpack.unpackb(body, raw=False) == msgpack.unpackb(genuine.body, raw=False):
                must = "end-type-confusion: the end payload with false/0/0.0 swapped"
            if must is None and None in sigs:
                must = "unsigned-end: an end entry without the signature of a seat not blamed"
            self.probe(raw, genuine, must, f"end payload {path} changed")
        # The genuine end body with a signature missing or wrong.
        sigs = list(genuine.signature)
        sigs[rng.randrange(len(sigs))] = self.wrong_key.sign(genuine.body)
        self.probe(msgpack.packb([genuine.body, sigs], use_bin_type=True), genuine, "a forged end signature",
                   "end with a forged signature")

    # ----- the walk
    def run(self, places: list[int] | None = None) -> "Campaign":
        todo = set(places if places is not None else range(1, len(self.m.entries)))
        for k, genuine in enumerate(self.m.entries[1:], start=1):
            if k in todo:
                self.variants(k)
            for d in [self.spectator, *self.seats]:
                try:
                    d.receive(genuine)
                except Exception as exc:
                    raise AssertionError(f"the genuine entry {k} was refused after the probes: {exc!r}\n"
                                         + "\n".join(self.failures[:5])) from exc
        assert all(d.machine.finished for d in [self.spectator, *self.seats])
        return self


def _strict(v):
    """A value with its msgpack type made part of it (so False != 0 != 0.0)."""
    if isinstance(v, dict):
        return ("map", tuple(sorted((repr(k), _strict(x)) for k, x in v.items())))
    if isinstance(v, list):
        return ("list", tuple(_strict(x) for x in v))
    return (type(v).__name__, v)


def _same_pairs(a, b) -> bool:
    try:
        return isinstance(a, list) and sorted(map(tuple, a)) == sorted(map(tuple, b)) and \
            all(isinstance(x, list) for x in a)
    except TypeError:
        return False


def get(value, path):
    return kit.get_path(value, path)


def _abbrev(v):
    if isinstance(v, dict):
        return {k: _abbrev(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_abbrev(x) for x in v[:6]] + (["…"] if len(v) > 6 else [])
    if isinstance(v, bytes) and len(v) > 6:
        return f"b{len(v)}:{v[:3].hex()}"
    return v


def _short(v, n: int = 240) -> str:
    s = repr(_abbrev(v))
    return s if len(s) <= n else s[:n] + "…"


def _report(c: Campaign) -> str:
    return f"{c.m.name}: {c.cases} hostile entries, {c.accepted_alternatives} legit alternatives, known {c.known}"


@pytest.mark.parametrize("name,per_place,stride", [
    ("bura2", 4, 2), ("bura3", 5, 1), ("warkocz3", 4, 2), ("kanasta2", 3, 3), ("kanaszta2", 3, 4),
])
def test_entry_campaign(name, per_place, stride):
    m = kit.match(name)
    other = kit.match(name, 1)
    foreign = kit.match("bura2" if m.game != "bura" else "warkocz3")
    rng = random.Random(f"campaign/{name}")
    c = Campaign(m, rng, per_place, other, foreign).run(list(range(1, len(m.entries), stride)))
    print(_report(c))
    assert not c.failures, f"{len(c.failures)} failures; first:\n" + "\n".join(c.failures[:8])
    assert c.cases > 100


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(kit.MATCHES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_entry_campaign_long(name, seed):
    m = kit.match(name, seed)
    other = kit.match(name, seed + 10)
    foreign = kit.match("bura2" if m.game != "bura" else "warkocz3", seed)
    c = Campaign(m, random.Random(f"long/{name}/{seed}"), 25, other, foreign).run()
    print(_report(c))
    assert not c.failures, f"{len(c.failures)} failures; first:\n" + "\n".join(c.failures[:8])


# ------------------------------------------------------------------ pinned findings


def _deal_one_entry(m: kit.Match) -> Entry:
    return next(e for e in m.entries if e.kind != "table" and isinstance(e.payload, dict)
                and e.payload.get("deal") == 1)


def _match_of_two_deals(name: str) -> kit.Match:
    # How many deals a small match lasts depends on its cards (and so on the dealing).
    for seed in range(20):
        m = kit.match(name, seed)
        if any(isinstance(e.payload, dict) and e.payload.get("deal") == 1 for e in m.entries[1:]):
            return m
    raise AssertionError(f"no {name} match of two deals in 20 seeds")


@pytest.mark.parametrize("fake", [True, 1.0])
def test_deal_index_must_be_an_integer(fake):
    m = _match_of_two_deals("bura2")
    genuine = _deal_one_entry(m)
    d = SeatDriver(m.genesis, None)
    for e in m.entries[1:genuine.seq]:
        d.receive(e)
    f = kit.fields(genuine)
    f[4]["deal"] = fake
    entry = Entry.from_wire(kit.raw_entry(*f, m.signers[genuine.author]))
    with pytest.raises(Violation):
        d.receive(entry)


def test_end_payload_types_are_checked():
    m = kit.match("bura3")
    d = SeatDriver(m.genesis, None)
    for e in m.entries[1:-1]:
        d.receive(e)
    f = kit.fields(m.entries[-1])
    f[4]["aborted"] = 0  # was false
    body = msgpack.packb(f, use_bin_type=True)
    with pytest.raises((LogError, Violation)):
        d.receive(Entry.from_wire(msgpack.packb([body, [k.sign(body) for k in m.signers]], use_bin_type=True)))


def test_end_entry_needs_every_unblamed_signature():
    m = kit.match("bura3")
    d = SeatDriver(m.genesis, 0, m.signers[0], seeds=m.seeds[0])
    for e in m.entries[1:-1]:
        d.receive(e)
    end = m.entries[-1]
    # One dishonest seat alone ends the game: its own signature, nil for the others.
    sigs = [end.signature[0], None, None]
    with pytest.raises((LogError, Violation)):
        d.receive(Entry.from_wire(msgpack.packb([end.body, sigs], use_bin_type=True)))


# ------------------------------------------------------------------ the audit and the log reader
#
# A forger who holds every key (or all the players together) can re-sign any
# change and re-chain everything after it, the end entry included. The audit
# must then judge the game itself: exit 0 only for a change that leaves the
# game as it was (chat, the byte encoding of a payload) or is a legitimate
# alternative the rules allow; a change of cryptographic material, turn order,
# deal index or result is a violation (exit 1). One re-signed entry without
# re-chaining is an unverifiable log (exit 2). Never a traceback.

from p2pcards.audit import CLEAN, UNFINISHED, UNVERIFIABLE, VIOLATIONS, audit_file  # noqa: E402
from p2pcards.protocol.log import HEADER, parse_log  # noqa: E402



def _audit(tmp_path, data: bytes, tag: str):
    path = tmp_path / f"{tag}.p2plog"
    path.write_bytes(data)
    return audit_file(path)


def _pick(m: kit.Match, rng: random.Random, kinds) -> int:
    return rng.choice([i for i, e in enumerate(m.entries) if e.kind in kinds])


def forge(m: kit.Match, how: str, rng: random.Random) -> tuple[bytes, set[int], int | None]:
    """(file bytes, the exit codes allowed, the seat that must be blamed or None;
    -1 - s: seat s must not be blamed)."""
    entries = [kit.fields(e) for e in m.entries]
    n = len(entries)
    if how == "chat":
        k = _pick(m, rng, (SHUFFLE, REKEY, KEYS, ACTION, REVEAL))
        entries[k][4]["chat"] = rng.choice([["gg"], ["hello", "é ✓"], ["x" * 300] * 4])
        return rebuild(m, entries, k), {CLEAN}, None
    if how == "reorder":
        k = _pick(m, rng, (SHUFFLE, REKEY, KEYS, ACTION, REVEAL))
        entries[k][4] = dict(reversed(list(entries[k][4].items())))
        return rebuild(m, entries, k), {CLEAN}, None
    if how == "bad-chat":
        k = _pick(m, rng, (SHUFFLE, REKEY, KEYS, ACTION, REVEAL))
        entries[k][4]["chat"] = rng.choice([[""], ["x" * 301], ["a"] * 5, "hi", [7]])
        return rebuild(m, entries, k), {VIOLATIONS}, entries[k][2]
    if how == "deal":
        k = _pick(m, rng, (SHUFFLE, REKEY, KEYS, ACTION, REVEAL))
        entries[k][4]["deal"] += rng.choice([1, -1, 7])
        return rebuild(m, entries, k), {VIOLATIONS}, entries[k][2]
    if how == "key":
        k = _pick(m, rng, (KEYS,))
        pair = rng.choice(entries[k][4]["keys"])
        pair[1] = rng.randrange(1, mental.N).to_bytes(32, "big")
        # If the card opens to nobody's card in public, an abort is due and the
        # forged log goes on without it: the audit stops there and blames the
        # referee who did not abort; otherwise the final reveal shows the key.
        return rebuild(m, entries, k), {VIOLATIONS}, None
    if how == "commit":
        k = _pick(m, rng, (SHUFFLE,))
        entries[k][4]["commit"] = rng.randbytes(32)
        return rebuild(m, entries, k), {VIOLATIONS}, entries[k][2]
    if how == "rekey":
        k = _pick(m, rng, (REKEY,))
        deck = entries[k][4]["rekey"]["deck"]
        i, j = sorted(rng.sample(range(len(deck) // 33), 2))
        a, b = deck[33 * i:33 * i + 33], deck[33 * j:33 * j + 33]
        entries[k][4]["rekey"]["deck"] = deck[:33 * i] + b + deck[33 * i + 33:33 * j] + a + deck[33 * j + 33:]
        return rebuild(m, entries, k), {VIOLATIONS}, None  # as for "key"
    if how == "action":
        k = _pick(m, rng, (ACTION,))
        entries[k][4]["action"], _ = kit.mutate_payload(rng, entries[k][4]["action"], [])
        return rebuild(m, entries, k), {CLEAN, VIOLATIONS}, None
    if how == "end":
        payload = entries[-1][4]
        key = rng.choice(sorted(payload))
        payload[key] = kit.junk(rng, payload[key], [])
        same = _strict(payload) == _strict(m.entries[-1].payload)  # false for 0 is a change
        return rebuild(m, entries, n - 1), {CLEAN} if same else {VIOLATIONS}, None
    if how == "unsigned-end":
        seat = rng.randrange(m.players)
        mask = [s != seat for s in range(m.players)]
        # A missing end signature is silence, not proof: the game did not finish,
        # and that seat must NOT be blamed.
        return rebuild(m, entries, n - 1, mask), {UNFINISHED}, -1 - seat
    if how == "early-end":
        k = rng.randrange(2, n - 1)
        return rebuild(m, entries[:k] + [entries[-1]], k), {VIOLATIONS}, None
    if how == "drop":
        k = rng.randrange(1, n - 1)
        return rebuild(m, entries[:k] + entries[k + 1:], k), {VIOLATIONS}, None
    if how == "swap":
        k = rng.randrange(1, n - 2)
        if entries[k][2:] == entries[k + 1][2:]:
            return rebuild(m, entries, n - 1), {CLEAN}, None
        # Two moves of one seat in a row may commute (kanaszta: two "add"s):
        # then the swapped log is another valid game.
        commute = entries[k][2:4] == entries[k + 1][2:4] == [entries[k][2], ACTION]
        entries[k], entries[k + 1] = entries[k + 1], entries[k]
        return rebuild(m, entries, k), {CLEAN, VIOLATIONS} if commute else {VIOLATIONS}, None
    if how == "abort":
        k = rng.randrange(1, n - 1)
        accuser = rng.randrange(m.players)
        culprit = rng.choice([None] + [s for s in range(m.players) if s != accuser])
        payload = {"culprit": culprit, "kind": rng.choice(["illegal-move", "timeout", "equivocate", "bad-shuffle"]),
                   "detail": "forged"}
        if rng.random() < 0.5:
            payload["evidence"] = [rng.choice(m.entries[1:k + 1]).raw, rng.randbytes(40)]
        forged = entries[:k] + [[k, b"", accuser, "abort", payload]]
        # What follows an abort: the reveals and the end as the machine computes them are
        # beyond a forger's script; end the log right away, which the audit must refuse or blame.
        return rebuild(m, forged + [entries[-1]], k), {VIOLATIONS}, None
    if how == "resign-one":
        k = rng.randrange(1, n - 1)
        entries[k][4] = kit.mutate_payload(rng, entries[k][4], [])[0]
        raws = [e.raw for e in m.entries]
        raws[k] = kit.raw_entry(*entries[k], m.signers[entries[k][2]])
        data = HEADER + b"".join(len(r).to_bytes(4, "big") + r for r in raws)
        return data, {UNVERIFIABLE} if raws[k] != m.entries[k].raw else {CLEAN}, None
    raise AssertionError(how)


FORGERIES = ["chat", "reorder", "bad-chat", "deal", "key", "commit", "rekey", "action", "end", "unsigned-end",
             "early-end", "drop", "swap", "abort", "resign-one"]


def _forgery_case(tmp_path, name: str, how: str, seed: int) -> int:
    m = kit.match(name)
    rng = random.Random(f"forge/{name}/{how}/{seed}")
    data, allowed, blamed = forge(m, how, rng)
    report = _audit(tmp_path, data, f"{name}-{how}-{seed}")
    assert report.exit_code in allowed, (how, seed, allowed, report.as_json(), report.error)
    if report.exit_code == VIOLATIONS:
        assert report.violations and not report.ok
        if blamed is not None and blamed >= 0:
            assert blamed in {v["seat"] for v in report.violations}, (how, report.violations)
        if blamed is not None and blamed < 0:  # the seat whose end signature a forger stripped
            assert -1 - blamed not in {v["seat"] for v in report.violations}, (how, report.violations)
    if report.exit_code == CLEAN:
        genuine = audit_file(_write(tmp_path, m.raw_file(), f"{name}-genuine"))
        if how in ("chat", "reorder"):
            assert report.scores == genuine.scores and report.chips == genuine.chips
    return report.exit_code


def _write(tmp_path, data: bytes, tag: str):
    path = tmp_path / f"{tag}.p2plog"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("how", FORGERIES)
def test_forged_and_rechained_logs_at_the_audit(tmp_path, how):
    _forgery_case(tmp_path, "bura3", how, 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bura3", "warkocz3", "bura2", "kanaszta2"])
@pytest.mark.parametrize("how", FORGERIES)
def test_forged_and_rechained_logs_at_the_audit_long(tmp_path, name, how):
    codes = [_forgery_case(tmp_path, name, how, seed) for seed in range(10)]
    print(name, how, codes)


def _byte_mutation(rng: random.Random, data: bytes, m: kit.Match) -> bytes:
    """Byte-level and frame-level damage, plus grafts from another log."""
    parts = frames(data)
    op = rng.randrange(9)
    if op == 0:  # flip bits
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b)
    if op == 1:  # overwrite a run
        i = rng.randrange(len(data))
        return data[:i] + rng.randbytes(rng.randint(1, 40)) + data[i + rng.randint(0, 40):]
    if op == 2:  # a frame length changed
        k = rng.randrange(len(parts))
        f = parts[k]
        n = rng.choice([0, 1, len(f) - 5, len(f) - 3, 2**32 - 1, 4 * 2**20, 4 * 2**20 + 1])
        parts[k] = n.to_bytes(4, "big") + f[4:]
        return HEADER + b"".join(parts)
    if op == 3:  # a frame from another log
        other = frames(kit.match(m.name, 1).raw_file())
        k = rng.randrange(1, min(len(parts), len(other)))
        parts[k] = other[k]
        return HEADER + b"".join(parts)
    if op == 4:  # garbage frames appended
        return data + b"".join(len(x).to_bytes(4, "big") + x for x in
                               [rng.randbytes(rng.randint(0, 60)) for _ in range(rng.randint(1, 3))])
    if op == 5:  # an entry's outer array in a longer msgpack encoding
        k = rng.randrange(len(parts))
        body, sig = msgpack.unpackb(parts[k][4:], raw=False)
        raw = b"\x92" + b"\xc6" + len(body).to_bytes(4, "big") + body + msgpack.packb(sig, use_bin_type=True)
        parts[k] = len(raw).to_bytes(4, "big") + raw
        return HEADER + b"".join(parts)
    if op == 6:  # the header
        return rng.choice([b"", HEADER[:-1], b"P2PCLOG\n\x02", b"p2pclog\n\x01", HEADER]) + data[len(HEADER):]
    if op == 7:  # an end signature replaced by nil: still a valid entry, not agreed
        body, sigs = msgpack.unpackb(parts[-1][4:], raw=False)
        sigs[rng.randrange(len(sigs))] = None
        raw = msgpack.packb([body, sigs], use_bin_type=True)
        parts[-1] = len(raw).to_bytes(4, "big") + raw
        return HEADER + b"".join(parts)
    cut = rng.randrange(len(data))  # truncation
    return data[:cut]


def test_log_reader_and_audit_on_damaged_files(tmp_path):
    """parse_log (strict and recovery) and the audit on damaged files: LogError
    only; a recovery read keeps only genuine entries; the audit never passes a
    changed file (exit 2, or 1 where the change is a valid entry: a stripped end signature)."""
    m = kit.match("bura3")
    data = m.raw_file()
    rng = random.Random("damage")
    codes: dict[int, int] = {}
    for i in range(80):
        bad = _byte_mutation(rng, data, m)
        if bad == data:
            continue
        try:
            parse_log(bad)
        except LogError:
            pass
        try:
            log = parse_log(bad, strict=False)
        except LogError as exc:
            assert exc.index is None, exc  # only the header can make a recovery read fail
        else:
            for e, g in zip(log.entries, m.entries):
                assert e.raw == g.raw or (e.kind == END and e.body == g.body), (i, e)
        if i % 4 == 0:
            report = _audit(tmp_path, bad, f"damage-{i}")
            codes[report.exit_code] = codes.get(report.exit_code, 0) + 1
            # A log cut at an entry boundary (or its end signatures stripped) did not finish: exit 3.
            assert report.exit_code in (VIOLATIONS, UNVERIFIABLE, UNFINISHED), (i, report.as_json())
    assert codes.get(UNVERIFIABLE)


@pytest.mark.parametrize("seed", range(2))
def test_log_reader_on_structured_nonsense(seed):
    """Frames whose entries are valid msgpack of the right shape with hostile fields."""
    m = kit.match("bura3")
    rng = random.Random(f"nonsense/{seed}")
    pool = kit.value_pool(m.entries, rng)
    for _ in range(150):
        k = rng.randrange(1, len(m.entries))
        f = kit.fields(m.entries[k])
        i = rng.randrange(5)
        f[i] = kit.junk(rng, f[i], pool) if i < 4 else kit.mutate_payload(rng, f[4], pool)[0]
        try:
            raw = kit.raw_entry(*f, m.signers[rng.randrange(m.players)])
        except (TypeError, ValueError, OverflowError):
            continue
        frames = [e.raw for e in m.entries[:k]] + [raw]
        blob = HEADER + b"".join(len(r).to_bytes(4, "big") + r for r in frames)
        try:
            log = parse_log(blob)
        except LogError:
            continue
        assert log.entries[-1].raw == raw  # accepted: then it is really a valid entry of that seat
        log.entries[-1].verify_signature(log.public_keys)


def test_only_the_referee_may_abort_naming_a_culprit():
    m = kit.match("bura3")
    k = next(i for i, e in enumerate(m.entries) if e.kind == ACTION)
    d = SeatDriver(m.genesis, None)
    for e in m.entries[1:k]:
        d.receive(e)
    # Seat 2 accuses seat 1; the referee for seat 1 is seat 0, which saw nothing wrong.
    raw = kit.raw_entry(k, d.log.head_hash, 2, "abort", {"culprit": 1, "kind": "illegal-move", "detail": "x"},
                        m.signers[2])
    with pytest.raises(Violation):
        d.receive(Entry.from_wire(raw))


def _finish_after(m: kit.Match, entries: list[Entry]) -> list[SeatDriver]:
    """Every seat takes ``entries`` in, then the seats play on as honest drivers
    would (reveals and the end) until the log is finished."""
    seats = [SeatDriver(m.genesis, s, m.signers[s], seeds=m.seeds[s]) for s in range(m.players)]
    for s in seats:
        for e in entries[1:]:
            s.receive(e)
    # After an abort nobody plays a move: no bots are needed, only reveals and the end.
    return play_out(seats, bots=[], max_entries=4 * m.players + 4)


@pytest.mark.parametrize("name,stride", [("bura3", 1), pytest.param("warkocz3", 1, marks=pytest.mark.slow),
                                         pytest.param("bura2", 1, marks=pytest.mark.slow)])
def test_forged_aborts_anywhere(name, stride):
    """An abort by any seat, naming anybody, with junk or genuine evidence, at
    any place: refused for its author's fault, never the accused's (no entry
    of the log proves a fault: table.md §6); or, a "no card" naming nobody and
    carrying nothing, taken in, and then, once the others have revealed and
    ended, the audit blames its author (the reveal shows no fault)."""
    from p2pcards.audit import audit_log

    m = kit.match(name)
    rng = random.Random(f"aborts/{name}")
    d = SeatDriver(m.genesis, None)
    taken = refused = 0
    for k in range(1, len(m.entries) - 1):
        if k % stride == 0:
            culprit = rng.choice([None] + list(range(m.players)))
            author = d.machine.referee(culprit) if rng.random() < 0.8 else rng.randrange(m.players)
            kinds = ["no-card", "x"] if culprit is None else ["timeout", "illegal-move", "phantom-card", "equivocate"]
            kind = rng.choice(kinds)
            payload = {"culprit": culprit, "kind": kind, "detail": "forged"}
            if rng.random() < 0.5:
                payload["evidence"] = rng.choice([[m.entries[k].raw], [b"junk"], "no", [1, 2],
                                                  [m.entries[k - 1].raw, m.entries[k].raw]])
            raw = kit.raw_entry(k, d.log.head_hash, author, "abort", payload, m.signers[author])
            snap = kit.Snapshot(d)
            before = kit.fingerprint(d)
            try:
                d.receive(Entry.from_wire(raw))
            except Violation as v:
                assert v.seat in (author, None), (payload, author, v)  # the accuser, never the accused
                assert kit.fingerprint(d) == before
                refused += 1
            else:
                assert culprit is None and kind == "no-card" and "evidence" not in payload, payload
                taken += 1
                report = audit_log(_finish_after(m, list(d.log.entries))[0].log)
                blamed = {v["seat"] for v in report.violations}
                assert report.exit_code == VIOLATIONS and blamed == {author}, report.as_json()
                snap.restore(d)
        d.receive(m.entries[k])
    assert taken >= 1 and refused >= 10
