"""Baseless accusations and floods against real peers over loopback (issue 23,
items 2, 3 and 5): every honest peer refuses what proves nothing, the victim
is never blamed, the honest logs agree, and the audit of every log (the
cheater's own included) gives the live verdict."""

from __future__ import annotations

import os

import pytest

from p2pcards.audit import audit_file
from tests.helpers import play_network_match

# (cheat, the kind of the abort that answers it at the live table)
BASELESS = [("baseless-abort", "false-accusation"), ("own-entry-abort", "false-accusation"),
            ("unrelated-abort", "false-accusation"), ("empty-equivocate", "false-accusation"),
            ("chained-false-accusation", "false-accusation"), ("own-place-abort", "false-accusation")]
# The flooder sends from its own turn loop, a few hundred entries while others
# are to play: a turn time it does not miss on a loaded machine.
FLOOD_TURN_TIMEOUT = 10


def _check(results, cheater: int, kind: str | None):
    """The honest seats' logs are one; the live verdict blames the cheater
    alone (of ``kind``), or nobody (None); the audit of every seat's log says
    the same."""
    honest = [r for r in results if r.seat != cheater]
    logs = [open(r.log_path, "rb").read() for r in honest]
    assert all(log == logs[0] for log in logs), "honest peers' logs differ"
    machine = honest[0].driver.machine
    assert machine.finished
    live = [(v.seat, v.kind) for _, v in machine.aborts]
    assert live == ([] if kind is None else [(cheater, kind)]), live
    for r in results:
        report = audit_file(r.log_path)
        blamed = {v["seat"] for v in report.violations}
        if kind is None:
            assert report.exit_code == 0, report.as_json()
        else:
            assert report.exit_code == 1 and blamed == {cheater}, (r.seat, report.as_json())


@pytest.mark.parametrize("cheat,kind", BASELESS, ids=[c for c, _ in BASELESS])
async def test_a_baseless_abort_blames_the_referee_never_the_victim(cheat, kind, tmp_path):
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat=cheat, cheater=0, turn_timeout=3)
    _check(results, 0, kind)


async def test_aborts_naming_nobody_cannot_flood_the_log(tmp_path):
    """Item 3: sixty aborts naming nobody, each with about 1 MB of junk
    evidence: the first is refused (evidence that is no entry), its author
    blamed; none reaches a log, and the match ends."""
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="nobody-abort-flood", cheater=2,
                                       turn_timeout=3)
    _check(results, 2, "bad-entry")
    for r in results:
        assert os.path.getsize(r.log_path) < 2_000_000, os.path.getsize(r.log_path)  # one quoted abort at most


async def test_a_flood_ahead_built_on_the_log_convicts_the_flooder(tmp_path):
    """Item 5: two thousand signed entries for places ahead, built on the
    log's last entry (so they are this table's): misplaced, the flooder is
    convicted and the others finish."""
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="flood-ahead", cheater=1,
                                       turn_timeout=FLOOD_TURN_TIMEOUT)
    _check(results, 1, "misplaced")


async def test_a_flood_ahead_built_on_nothing_known_is_dropped_and_the_match_ends(tmp_path):
    """Item 5: entries for places ahead built on nothing the log holds prove
    nothing (they could be another table's, signed with the same key): they
    are kept within bounds, nobody is convicted, and the match ends."""
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="flood-ahead-unbound", cheater=1,
                                       turn_timeout=FLOOD_TURN_TIMEOUT)
    _check(results, 1, None)


async def test_an_accusation_for_another_referee_does_not_stop_the_seat_due(tmp_path):
    """Seat 1 signs a move out of turn and sends it to seat 2 alone, whose
    move is due; seat 1's referee is seat 0, which never saw it. Seat 2 holds
    the accusation but does not write it: it moves on (an honest seat that
    waited for an abort only the referee may write was blamed for timeout)
    and passes the entry to the referee, which convicts seat 1."""
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="whisper-out-of-turn", cheater=1,
                                       turn_timeout=3)
    _check(results, 1, "out-of-turn")


# (cheat, cheater, the kind of the abort that answers it at the live table)
HUGE = [("huge-abort", 0, "bad-entry"), ("deep-abort", 0, "false-accusation"),
        ("huge-out-of-turn", 1, "out-of-turn")]


@pytest.mark.parametrize("cheat,cheater,kind", HUGE, ids=[c for c, _, _ in HUGE])
async def test_an_entry_as_big_as_the_log_allows_can_be_quoted(cheat, cheater, kind, tmp_path):
    """An abort of junk evidence, an abort nested three deep in aborts, a move
    out of turn, each as big as the log lets an entry nested so deep be
    (log.md §8): the abort answering it, one level deeper, still fits in an
    entry, so the cheater is convicted, and nobody else."""
    from p2pcards.protocol.log import Entry, evidence_depth, size_limit

    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat=cheat, cheater=cheater,
                                       turn_timeout=5)
    _check(results, cheater, kind)
    driver = results[(cheater + 1) % 3].driver
    answer = driver.log[driver.machine.aborts[0][0]]
    quoted = Entry.from_wire(answer.payload["evidence"][0])
    assert len(quoted.raw) > 1_000_000 and evidence_depth(answer) == 1 + evidence_depth(quoted)
    if cheat != "deep-abort":
        assert len(quoted.raw) == size_limit(evidence_depth(quoted))
    else:
        assert evidence_depth(quoted) == 3


def test_the_answer_to_any_entry_the_log_takes_fits_in_an_entry():
    """For every nesting the log allows short of the deepest, an entry of the
    most bytes it may be, quoted by an abort with the longest detail and kind
    there are (characters of four bytes), makes an entry the log takes."""
    import random

    from fuzz.kit import make_genesis
    from p2pcards.limits import MAX_ABORT_DETAIL, MAX_ABORT_KIND, MAX_EVIDENCE_DEPTH
    from p2pcards.protocol.log import GameLog, check_size, make_entry, size_limit

    genesis, signers = make_genesis("bura", 3, {"rounds": 1}, {}, random.Random(1))
    log = GameLog()
    log.append(genesis)
    for depth in range(MAX_EVIDENCE_DEPTH):
        def quoted(n, depth=depth):
            inner = {"evidence": [bytes(n)]} if depth else {"pad": bytes(n)}
            for _ in range(depth):
                e = make_entry(1, log.head_hash, 1, "abort", dict(culprit=2, kind="x", detail="y", **inner), signers[1])
                inner = {"evidence": [e.raw]}
            return e if depth else make_entry(1, log.head_hash, 1, "action", inner, signers[1])

        from p2pcards.testing.cheats import _of_size
        refused = _of_size(quoted, size_limit(depth))
        check_size(refused)
        answer = log.make_next(0, "abort", {"culprit": 1, "kind": "\U0001F0A1" * MAX_ABORT_KIND,
                                            "detail": "\U0001F0A1" * MAX_ABORT_DETAIL,
                                            "evidence": [refused.raw]}, signers[0])
        check_size(answer)
