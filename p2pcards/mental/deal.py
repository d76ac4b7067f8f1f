"""The other steps of a deal (commit, re-key, per-card keys, final reveal),
showing cards, and the audit of a whole deal from public data.

Order of one deal among n seats (the caller publishes every message as a
signed log entry):
  1. every seat: ``commit_step``                      -> {"commit"}
  2. seat 0..n-1 in turn: ``shuffle_step`` (shuffle.py) -> {"deck", "key", ... proof}
  3. seat 0..n-1 in turn: ``rekey_step`` (rekey.py)     -> {"deck", "commits", ... proof}
  4. to show positions: ``card_keys_step``             -> {"keys"}; ``open_card``
  5. at the end (or on abort), every seat: ``reveal_step`` -> {"seed"}; ``check_deal``
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from p2pcards.i18n import N_, message_of
from p2pcards.mental.encoding import EncodedDeck, encode_deck
from p2pcards.mental.group import (
    HASH_LEN, N, SEED_LEN, BadMessage, MentalError, inverse, points, products, raw_points, raw_products,
    scalar_from_bytes, scalar_to_bytes, strip,
)
from p2pcards.mental.keys import DealSecrets, seed_commitment
from p2pcards.mental.rekey import card_key_commitment, parse_rekey, verify_rekey
from p2pcards.mental.shuffle import parse_shuffle, verify_shuffle


def _exact_map(msg: object, keys: set[str], what: str) -> dict:
    if not isinstance(msg, dict) or set(msg) != keys:
        names = ", ".join(f'"{k}"' for k in sorted(keys))
        raise BadMessage(N_("a {what} message must be a map with exactly {names}", what=what, names=names))
    return msg


# -- 1. commitment --------------------------------------------------------

def commit_step(secrets: DealSecrets) -> dict:
    return {"commit": secrets.commitment}


def parse_commit(msg: object) -> bytes:
    c = _exact_map(msg, {"commit"}, "commit")["commit"]
    if not isinstance(c, bytes) or len(c) != HASH_LEN:
        raise BadMessage(N_("a seed commitment must be {n} bytes", n=HASH_LEN))
    return c


# -- 3. re-keying (rekey.py) ---------------------------------------------

def rekey_values(secrets: DealSecrets, deck_in: Sequence[bytes],
                 source: Sequence[int] | None = None) -> list[bytes]:
    """What a re-key from ``secrets`` makes of ``deck_in`` (no proof): the
    audit's recomputation from a revealed seed. ``source`` (cheat tests
    only): position j takes the card at ``source[j]``."""
    k_inv = inverse(secrets.deck_key)
    pts = points(deck_in, "input deck")
    source = range(len(pts)) if source is None else source
    keys = secrets.card_keys(len(pts))
    return products([keys[j] * k_inv % N for j in range(len(source))], [pts[i] for i in source])


def card_key_commitments(secrets: DealSecrets, size: int) -> list[bytes]:
    return products(secrets.card_keys(size))


def check_card_key(key: int, commitment: bytes) -> bool:
    """A published per-card key matches its publisher's commitment."""
    return card_key_commitment(key) == commitment


# -- 4. per-card keys and showing -----------------------------------------

def card_keys_step(secrets: DealSecrets, positions: Iterable[int]) -> dict:
    """Publish this seat's per-card keys of ``positions`` (ascending, no repeats)."""
    ps = sorted(set(positions))
    if not ps:
        raise MentalError(N_("a key message needs at least one position"))
    return {"keys": [[p, scalar_to_bytes(secrets.card_key(p))] for p in ps]}


def parse_card_keys(msg: object, size: int) -> dict[int, int]:
    """{position: key} of an untrusted key message for a deck of ``size``."""
    items = _exact_map(msg, {"keys"}, "card keys")["keys"]
    if not isinstance(items, (list, tuple)) or not 1 <= len(items) <= size:
        raise BadMessage(N_("keys must be a list of 1..{size} [position, key] pairs", size=size))
    out: dict[int, int] = {}
    for item in items:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise BadMessage(N_("each published key must be a [position, key] pair"))
        p, k = item
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < size:
            raise BadMessage(N_("key position {position} is not in 0..{last}", position=repr(p), last=size - 1))
        if p in out:
            raise BadMessage(N_("position {position} is published twice in one message", position=p))
        out[p] = scalar_from_bytes(k, f"key of position {p}")
    return out


def open_card(deck: EncodedDeck, value: bytes, keys: Iterable[int]) -> str:
    """The code of a final-deck value once every seat's per-card key of its
    position is known (others' published, plus one's own); NoCard if it
    strips to no card: abort the deal and reveal."""
    return deck.decode(strip(value, keys))[0]


def open_physical(deck: EncodedDeck, value: bytes, keys: Iterable[int]) -> int:
    """Like open_card, but the physical index in the canonical deck (tells twins apart)."""
    return deck.decode(strip(value, keys))[1]


# -- 5. final reveal ------------------------------------------------------

def reveal_step(secrets: DealSecrets) -> dict:
    return {"seed": secrets.seed}


def parse_reveal(msg: object) -> bytes:
    s = _exact_map(msg, {"seed"}, "reveal")["seed"]
    if not isinstance(s, bytes) or len(s) != SEED_LEN:
        raise BadMessage(N_("a revealed seed must be {n} bytes", n=SEED_LEN))
    return s


# -- the audit ------------------------------------------------------------

@dataclass
class DealRecord:
    """Everything public about one deal, as the log holds it. Per-seat lists
    are indexed by seat; None where the seat has not (yet) sent the message.
    ``card_keys`` lists every per-card key message as (publisher seat, message)."""

    game_id: str
    players: int
    commits: list = field(default_factory=list)
    shuffles: list = field(default_factory=list)   # (context bytes, message) or None
    rekeys: list = field(default_factory=list)     # (context bytes, message) or None
    card_keys: list = field(default_factory=list)
    reveals: list = field(default_factory=list)


@dataclass(frozen=True)
class Finding:
    """A step that is wrong, and the seat to blame for it."""

    seat: int
    kind: str         # see KINDS
    detail: str
    position: int | None = None

    def as_dict(self) -> dict:
        return {"seat": self.seat, "kind": self.kind, "detail": self.detail, "position": self.position}


KINDS = {
    "bad-commit": "the seed commitment is missing or malformed",
    "missing-reveal": "the seat did not reveal its seed",
    "bad-reveal": "the revealed seed is malformed or does not match the commitment",
    "bad-proof": "a shuffle message is malformed or its proof fails",
    "bad-shuffle": "the shuffled deck is not the input encrypted and permuted with the revealed keys",
    "bad-rekey": "a re-key message is malformed, its proof fails, or it is not the input with the "
                 "deck key swapped for the committed card keys",
    "bad-keys": "a per-card key message is malformed",
    "wrong-key": "a published per-card key does not match its publisher's commitment",
}


@dataclass
class DealAudit:
    findings: list[Finding]
    cards: list[str | None]        # position of the final deck -> code (None: unknown / no card)
    physical: list[int | None]     # position -> index in the canonical deck

    @property
    def ok(self) -> bool:
        return not self.findings

    def blamed(self) -> set[int]:
        return {f.seat for f in self.findings}


def _at(seq: Sequence, i: int):
    return seq[i] if i < len(seq) else None


def check_deal(record: DealRecord, proofs_verified: bool = False, deferred: list | None = None) -> DealAudit:
    """Judge every step of a deal from public data and the revealed seeds.
    Every step is judged against the deck its seat actually received, so a
    wrong step blames its own seat only. A seat whose seed is revealed has
    its layers recomputed from it (its proofs are then redundant and are not
    checked); a seat without a usable seed has its proofs checked, unless
    ``proofs_verified`` says the caller did so already (the table's machine,
    entry by entry).

    With a list ``deferred``, every layer recomputed from a seed is taken to
    be its recomputation, and what would show it is appended to the list for
    ``layers_match`` (no curve arithmetic here), and the messages' encodings
    are taken to be points (the caller has them checked: ``shuffle_encodings``,
    ``rekey_encodings``): what the whole check says if that holds (``expect_deal``)."""
    deck = encode_deck(record.game_id)
    n, size = record.players, len(deck)
    if not isinstance(n, int) or n < 2:
        raise MentalError("a deal needs at least 2 players")
    findings: list[Finding] = []
    seeds = _check_seeds(record, n, findings)

    values: list[bytes] | None = list(deck.values)
    deck_keys: list[bytes | None] = [None] * n
    # While every layer so far is exactly its recomputation from the seeds,
    # position j holds the physical card ``source[j]`` (the shuffles composed):
    # the final deck is then read without stripping it.
    source: list[int] | None = list(range(size))
    for s in range(n):
        entry = _at(record.shuffles, s)
        if entry is None:
            values = None
            break
        context, msg = entry
        sec = seeds[s]
        try:
            if sec is not None or proofs_verified:
                parsed = parse_shuffle(msg, size, deferred is None)
                out, deck_keys[s] = parsed.deck, parsed.key
            else:
                out = verify_shuffle(values, msg, context)
                deck_keys[s] = msg["key"]
        except MentalError as e:
            source = None
            findings.append(Finding(s, "bad-proof", N_("shuffle of seat {seat}: {reason}",
                                                       seat=s, reason=message_of(e))))
            try:  # the next seat is judged against what it received, if that parses
                parsed = parse_shuffle(msg, size)
            except MentalError:
                values = None
                break
            out, deck_keys[s] = parsed.deck, parsed.key
        perm = sec.deck_permutation(size) if sec is not None else None
        if perm is not None and deferred is not None:
            deferred.append((SHUFFLE_LAYER, sec.seed, values, out, deck_keys[s]))
        elif perm is not None and (
            sec.deck_key_point != deck_keys[s] or _shuffled(sec.deck_key, perm, values) != out
        ):
            perm = None
            findings.append(Finding(s, "bad-shuffle", N_(
                "seat {seat}'s shuffled deck is not its input encrypted and permuted with its revealed keys",
                seat=s)))
        source = [source[i] for i in perm] if source is not None and perm is not None else None
        values = out

    commitments: list[list[bytes] | None] = [None] * n
    for s in range(n):
        entry = _at(record.rekeys, s)
        if entry is None or values is None:
            values = None
            break
        context, msg = entry
        sec = seeds[s]
        try:
            if sec is not None or proofs_verified:
                parsed = parse_rekey(msg, size, deferred is None)
            else:
                parsed = verify_rekey(values, deck_keys[s], msg, context)
        except MentalError as e:
            source = None
            findings.append(Finding(s, "bad-rekey", N_("re-key of seat {seat}: {reason}",
                                                       seat=s, reason=message_of(e))))
            try:
                parsed = parse_rekey(msg, size)
            except MentalError:
                values = None
                break
        commitments[s] = parsed.commits
        if sec is not None and deferred is not None:
            deferred.append((REKEY_LAYER, sec.seed, values, parsed.deck, parsed.commits))
        elif sec is not None:
            expect = rekey_values(sec, values)
            wrong = [j for j in range(size) if expect[j] != parsed.deck[j]]
            wrong = wrong or [j for j, c in enumerate(card_key_commitments(sec, size)) if c != parsed.commits[j]]
            if wrong:
                source = None
                findings.append(Finding(s, "bad-rekey", N_("seat {seat} re-keyed positions {positions} wrongly",
                                                                 seat=s, positions=str(wrong)),
                                        wrong[0]))
        else:
            source = None
        values = parsed.deck

    for seat, msg in record.card_keys:
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise MentalError(f"card keys attributed to seat {seat!r}, not a seat of {n}")
        try:
            keys = parse_card_keys(msg, size)
        except BadMessage as e:
            findings.append(Finding(seat, "bad-keys", N_("key message of seat {seat}: {reason}", seat=seat,
                                                                   reason=message_of(e))))
            continue
        for p, k in sorted(keys.items()):
            if seeds[seat] is not None:
                wrong = k != seeds[seat].card_key(p)
            elif commitments[seat] is not None:
                wrong = not check_card_key(k, commitments[seat][p])
            else:
                continue
            if wrong:
                findings.append(Finding(seat, "wrong-key", N_(
                    "seat {seat} published a wrong key for position {position}", seat=seat, position=p), p))

    cards: list[str | None] = [None] * size
    physical: list[int | None] = [None] * size
    if values is not None and source is not None and all(sec is not None for sec in seeds):
        # Every layer recomputed exactly: stripping every k_j from F[j] gives
        # the encoding of card source[j] (dealing.md §7.5), no need to compute it.
        for j, i in enumerate(source):
            cards[j], physical[j] = deck.codes[i], i
    elif values is not None and all(sec is not None for sec in seeds):
        for j, x in enumerate(values):
            i = deck.lookup(strip(x, (sec.card_key(j) for sec in seeds)))
            if i is not None:
                cards[j], physical[j] = deck.codes[i], i
    return DealAudit(findings, cards, physical)


SHUFFLE_LAYER, REKEY_LAYER = "shuffle", "rekey"


def expect_deal(record: DealRecord, proofs_verified: bool = False) -> tuple[DealAudit, list] | None:
    """(what ``check_deal`` says of the deal if every layer is its
    recomputation from the revealed seeds, the layers to recompute to know:
    ``layers_match``), at no cost in curve arithmetic; None if the deal is not
    like that as far as can be seen without it (a seed missing or wrong, a
    message malformed, a wrong key): then only the whole check can say."""
    n = record.players
    if (not isinstance(n, int) or n < 2 or len(record.shuffles) != n or len(record.rekeys) != n
            or len(record.reveals) < n or any(r is None for r in record.reveals[:n])):
        return None
    layers: list = []
    audit = check_deal(record, proofs_verified, deferred=layers)
    if audit.findings or any(c is None for c in audit.cards):
        return None
    return audit, layers


def layers_match(layers: list, made_set: set[bytes] | None = None) -> bool:
    """Every layer ``check_deal(deferred=...)`` set aside is exactly its
    recomputation from its seat's seed: a shuffle, its input encrypted with the
    deck key and permuted, the key's commitment K = k*G; a re-key, its input
    with the deck key swapped for each position's card key, and the card keys'
    commitments k_j*G. The curve arithmetic of a deal's final check.

    A layer's input is the layer before's output, which matched its
    recomputation: the points computed for it are the next layer's, unparsed.
    Every encoding computed (so a point) is added to ``made_set``."""
    raw = made = None  # the last layer's output as points, and as encodings
    secrets: dict[bytes, DealSecrets] = {}
    for kind, seed, deck_in, deck_out, extra in layers:
        sec, size = secrets.setdefault(seed, DealSecrets(seed)), len(deck_in)
        if made is None or (deck_in is not made and deck_in != made):
            raw = raw_points(deck_in)
            if raw is None:
                return False
        if kind == SHUFFLE_LAYER:
            if sec.deck_key_point != extra:
                return False
            made, raw = raw_products([sec.deck_key] * size, raw, sec.deck_permutation(size))
            if made != deck_out:
                return False
        else:
            k_inv = inverse(sec.deck_key)
            made, raw = raw_products([key * k_inv % N for key in sec.card_keys(size)], raw)
            if made != deck_out or card_key_commitments(sec, size) != extra:
                return False
            if made_set is not None:
                made_set.update(extra)
        if made_set is not None:
            made_set.update(deck_out)
        made = deck_out
    return True


def _shuffled(k: int, perm: Sequence[int], values: Sequence[bytes]) -> list[bytes]:
    """What a shuffle with deck key ``k`` and ``perm`` makes of ``values``
    (``group.shuffle_values``, a deck at a time)."""
    pts = points(values, "input deck")
    return products([k] * len(perm), [pts[i] for i in perm])


def _check_seeds(record: DealRecord, n: int, findings: list[Finding]) -> list[DealSecrets | None]:
    seeds: list[DealSecrets | None] = []
    for s in range(n):
        commit = None
        try:
            if _at(record.commits, s) is None:
                raise BadMessage(N_("no commitment"))
            commit = parse_commit(record.commits[s])
        except BadMessage as e:
            findings.append(Finding(s, "bad-commit", N_("seat {seat}: {reason}", seat=s, reason=message_of(e))))
        reveal = _at(record.reveals, s)
        if reveal is None:
            findings.append(Finding(s, "missing-reveal", N_("seat {seat} did not reveal its seed", seat=s)))
            seeds.append(None)
            continue
        try:
            seed = parse_reveal(reveal)
        except BadMessage as e:
            findings.append(Finding(s, "bad-reveal", N_("seat {seat}: {reason}", seat=s, reason=message_of(e))))
            seeds.append(None)
            continue
        if commit is not None and seed_commitment(seed) != commit:
            findings.append(Finding(s, "bad-reveal", N_(
                "seat {seat} revealed a seed that does not match its commitment", seat=s)))
            seeds.append(None)
            continue
        seeds.append(DealSecrets(seed) if commit is not None else None)
    return seeds
