"""The audit says exactly what it said before it was made faster: its JSON and
exit code, byte for byte, on every log in replays/, on the logs of every cheat
of ``selfplay --cheat`` (alone and beside the cheater's own log), and on
hostile logs made by the fuzzers' forgers (forged and re-chained, damaged,
forged aborts). The answers were written by tools/audit_golden.py with the
code before the speed work (issue 26)."""

import json

import pytest

from tools import audit_golden

GOLDEN = json.loads(audit_golden.GOLDEN.read_text(encoding="utf-8"))


def _compare(answers: dict, names) -> None:
    for name in names:
        want = GOLDEN[name]
        got = answers[name]
        assert got["sha256"] == want["sha256"], f"{name}: the case itself changed (regenerate its golden answer)"
        assert audit_golden.canonical(got) == audit_golden.canonical(want), name


@pytest.mark.parametrize("source", ["replays", "cheats"])
def test_the_audit_says_what_it_said_on_real_logs(source, tmp_path):
    cases = audit_golden.replay_cases() if source == "replays" else audit_golden.cheat_cases()
    pairs = audit_golden.pair_cases() if source == "cheats" else []
    assert cases and (source == "replays" or pairs)
    answers = audit_golden.answers(cases, pairs, tmp_path)
    _compare(answers, [*cases, *(name for name, _, _ in pairs)])


def test_the_audit_says_what_it_said_on_hostile_logs(tmp_path):
    cases = audit_golden.hostile_cases()
    assert set(cases) == {name for name in GOLDEN if name.startswith("fuzz/")}
    # Every kind of answer is among them: clean, violations, unverifiable, unfinished.
    assert {GOLDEN[name]["exit"] for name in cases} == {0, 1, 2, 3}
    _compare(audit_golden.answers(cases, [], tmp_path), cases)


def test_the_audit_with_its_deals_checked_in_other_processes_says_the_same(tmp_path):
    """The deals' final checks in a worker process, on every log however short
    (by default only long logs have them): where a worker finds a layer the
    walk took to be right (a re-keyed deck changed, a forged log), the audit
    walks again in place and says what the sequential audit says."""
    cases = {**audit_golden.cheat_cases(), **audit_golden.hostile_cases()}
    cases["replays/warkocz-3p-false-pass.p2plog"] = audit_golden.replay_cases()["replays/warkocz-3p-false-pass.p2plog"]
    _compare(audit_golden.answers(cases, [], tmp_path, workers=1), cases)


def test_a_replay_walked_again_after_a_worker_found_a_wrong_layer(tmp_path, monkeypatch):
    """A re-keyed deck with two positions swapped, re-signed and re-chained by
    a forger: only the recomputation of the layers shows it. With the deals
    checked in a worker, the replay's walk is done again in place; its frames,
    moves and verdict are those of the walk without workers."""
    from p2pcards.audit import VIOLATIONS, deals
    from p2pcards.audit.replay import load_replay

    path = tmp_path / "rekey.p2plog"
    path.write_bytes(audit_golden.hostile_cases()["fuzz/bura3-rekey-0"])
    calls = []
    confirmed = deals.DealChecks.confirmed
    monkeypatch.setattr(deals.DealChecks, "confirmed", lambda self: calls.append(confirmed(self)) or calls[-1])

    def replay(workers: int):
        monkeypatch.setattr(deals, "PARALLEL_MIN_ENTRIES", 0 if workers else 10**9)
        monkeypatch.setattr(deals, "workers_for", lambda entries: workers)
        r = load_replay(path)
        return r.report.as_json(), [(f.index, f.kind, f.deal, f.text) for f in r.frames], \
            [(m.kind, m.deal, m.seat, m.text, m.first, m.last) for m in r.moves], r.deal_codes, r.findings

    alone, parallel = replay(0), replay(1)
    # The worker found the swapped positions: the first pass walked again; then
    # the forged re-key's proof fails in the worker too: the second pass as well.
    assert calls == [False, False], calls
    assert parallel == alone
    assert alone[0] == GOLDEN["fuzz/bura3-rekey-0"]["report"] and alone[0]["violations"]
    assert GOLDEN["fuzz/bura3-rekey-0"]["exit"] == VIOLATIONS


def test_a_signature_that_fails_in_the_worker_gives_the_sequential_reads_error(tmp_path):
    """The signatures of a long log are checked by a worker while the walk
    goes on; one that fails there makes the audit read the file in place,
    and its verdict is the sequential read's (exit 2, naming the entry)."""
    from p2pcards.audit import UNVERIFIABLE, audit_file
    from p2pcards.audit.replay import ReplayError, load_replay
    from p2pcards.protocol.log import HEADER

    data = bytearray((audit_golden.ROOT / "replays" / "warkocz-3p.p2plog").read_bytes())
    pos, index = len(HEADER), 0
    while index < 40:  # to entry 40; its last byte is its signature's
        pos += 4 + int.from_bytes(data[pos:pos + 4], "big")
        index += 1
    size = int.from_bytes(data[pos:pos + 4], "big")
    data[pos + 4 + size - 1] ^= 1
    path = tmp_path / "bad-signature.p2plog"
    path.write_bytes(bytes(data))
    alone, parallel = audit_file(path, workers=0), audit_file(path, workers=1)
    assert parallel.as_json() == alone.as_json()
    assert alone.exit_code == UNVERIFIABLE and "40" in alone.error, alone.error
    with pytest.raises(ReplayError, match="40"):
        load_replay(path)
