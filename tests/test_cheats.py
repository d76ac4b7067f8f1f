"""Every cheat of CONTRACT.md, committed by a real peer over loopback: the
party the contract names catches it, the honest peers' logs agree, and the
audit exits 1 naming the cheater and nobody else."""

import pytest

from p2pcards.audit import audit_file
from tests.helpers import play_network_match

# (cheat, game, players, options, who catches it live)
CASES = [
    ("bad-shuffle", "bura", 3, {"rounds": 1}, "abort"),
    ("wrong-key", "bura", 3, {"rounds": 1}, "abort"),
    ("phantom-card", "bura", 3, {"rounds": 1}, "abort"),
    ("illegal-move", "warkocz", 3, {"target": 4}, "abort"),
    ("out-of-turn", "bura", 3, {"rounds": 1}, "abort"),
    ("false-pass", "warkocz", 3, {"target": 4}, "audit"),
    ("equivocate", "bura", 3, {"rounds": 1}, "abort"),
    ("withhold-key", "bura", 3, {"rounds": 1}, "abort"),
    ("rekey-peek", "bura", 3, {"rounds": 1}, "abort"),
    ("rekey-peek", "kanasta", 4, {"target": 1}, "abort"),
    ("frame-accuser", "bura", 3, {"rounds": 1}, "abort"),
]
# The kind of the abort each cheat must draw (the first is the one every peer sees).
ABORT_KINDS = {"bad-shuffle": "bad-shuffle", "wrong-key": "wrong-key", "rekey-peek": "bad-rekey",
               "frame-accuser": "wrong-key"}


@pytest.mark.parametrize("cheat,game,players,options,caught", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
async def test_cheat_is_caught_and_blamed(cheat, game, players, options, caught, tmp_path):
    cheater = 1
    results = await play_network_match(game, players, options, tmp_path, cheat=cheat, cheater=cheater,
                                       turn_timeout=3)
    honest = [r for r in results if r.seat != cheater]
    logs = [open(r.log_path, "rb").read() for r in honest]
    assert all(log == logs[0] for log in logs), "honest peers' logs differ"
    machine = honest[0].driver.machine
    assert machine.finished
    if caught == "abort":
        assert [v.seat for _, v in machine.aborts] == [cheater]
        if cheat in ABORT_KINDS:
            assert machine.aborts[0][1].kind == ABORT_KINDS[cheat], machine.aborts
        if cheat == "rekey-peek":  # caught before any card was shown to anybody
            assert not any(deal.keys for deal in machine.deals), "keys were published after a false re-key"
    elif caught == "no-card":
        assert machine.aborts and machine.aborts[0][1].seat is None
        assert {v.seat for _, v in machine.findings} == {cheater}
    else:
        assert not machine.aborted
    report = audit_file(honest[0].log_path)
    assert report.exit_code == 1, report.as_json()
    assert {v["seat"] for v in report.violations} == {cheater}, report.violations


def _logs_of(results, seats):
    return [open(results[s].log_path, "rb").read() for s in seats]


def _blamed(report):
    return {v["seat"] for v in report.violations}


async def test_false_timeout_the_referee_is_blamed_not_the_responsive_player(tmp_path):
    """Item 2: the referee never acknowledges seat 1's entry and accuses it of
    silence at once. The others hold that entry: they refuse the abort, send
    the entry round, and the referee is blamed for a false accusation."""
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="false-timeout", cheater=0,
                                       turn_timeout=3)
    logs = _logs_of(results, [1, 2])
    assert logs[0] == logs[1], "honest peers' logs differ"
    machine = results[1].driver.machine
    assert machine.finished
    assert [(v.seat, v.kind) for _, v in machine.aborts] == [(0, "false-accusation")]
    report = audit_file(results[1].log_path)
    assert report.exit_code == 1, report.as_json()
    assert _blamed(report) == {0}, report.violations


async def test_forged_evidence_that_does_not_chain_blames_the_forger(tmp_path):
    """Item 3: seat 0 keeps one shuffle in its own log and shows the others
    another; it accuses seat 1, whose shuffle built on the shown one, of a bad
    shuffle. The honest log, the forger's own log, and both together blame
    only the forger."""
    from p2pcards.audit import audit_pair
    from p2pcards.testing.cheats import forged_path

    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="forged-evidence", cheater=0,
                                       turn_timeout=3)
    logs = _logs_of(results, [1, 2])
    assert logs[0] == logs[1], "honest peers' logs differ"
    assert results[1].driver.machine.finished
    report = audit_file(results[1].log_path)
    assert report.exit_code == 1 and _blamed(report) == {0}, report.as_json()
    forged = forged_path(results[0].log_path)
    alone = audit_file(forged)
    assert alone.exit_code == 1 and _blamed(alone) == {0}, alone.as_json()
    assert any(v["kind"] == "false-accusation" for v in alone.violations), alone.violations
    both = audit_pair(results[1].log_path, forged)
    assert both.exit_code == 1 and _blamed(both) == {0}, both.as_json()
    assert both.fork is not None and both.fork["entry"] == 1


async def test_rewritten_end_is_caught_beside_the_honest_log(tmp_path):
    """Item 5: after a finished 2-player game seat 1 replaces, in its own file,
    the end both signed with an abort blaming seat 0 and an end only it signs.
    That log alone convicts nobody (seat 0's silence is attested by seat 1
    alone); beside the honest log it shows seat 1 signing two versions of the
    end's place."""
    from p2pcards.audit import UNFINISHED, audit_pair

    results = await play_network_match("warkocz", 2, {"target": 2}, tmp_path, cheat="rewrite-end", cheater=1,
                                       turn_timeout=3)
    honest = audit_file(results[0].log_path)
    assert honest.exit_code == 0, honest.as_json()
    rewritten = open(results[1].log_path, "rb").read()
    assert rewritten != open(results[0].log_path, "rb").read()
    alone = audit_file(results[1].log_path)
    assert 0 not in _blamed(alone), alone.as_json()
    assert alone.exit_code == UNFINISHED, alone.as_json()
    assert [(s["seat"], s["attested_by"], s["stands"]) for s in alone.silences] == [(0, [1], False)]
    for pair in ((results[0].log_path, results[1].log_path), (results[1].log_path, results[0].log_path)):
        both = audit_pair(*pair)
        assert both.exit_code == 1 and _blamed(both) == {1}, both.as_json()
    from p2pcards.cli.subcommands import format_report

    text = format_report(both)
    assert "part at entry" in text and "only a minority attests it" in text, text
    assert "NOT FINISHED" in format_report(alone)


async def test_withheld_key_silence_stands_on_a_majority(tmp_path):
    """withhold-key in a 3-player game: both other seats attest the silence,
    so it stands (a 2-player game could not convict anyone of silence)."""
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="withhold-key", cheater=1,
                                       turn_timeout=3)
    report = audit_file(results[0].log_path)
    assert report.exit_code == 1 and _blamed(report) == {1}, report.as_json()
    assert [(s["seat"], s["attested_by"], s["stands"]) for s in report.silences] == [(1, [0, 2], True)]


@pytest.mark.parametrize("cut", [2, 0], ids=["a-guest-cut-off", "the-host-cut-off"])
async def test_partition_convicts_no_seat_of_the_majority(tmp_path, monkeypatch, cut):
    """Item 7: one seat is cut off for far longer than the turn and rejoin
    timeouts. The other two agree, attest its silence (a majority) and finish;
    the isolated seat cannot get a majority, stops, and its log convicts nobody."""
    monkeypatch.setenv("P2PCARDS_DROP", f"{cut}:6:60")
    results = await play_network_match("bura", 3, {"rounds": 1, "table.rejoin_timeout": 2}, tmp_path,
                                       turn_timeout=2)
    connected = [s for s in range(3) if s != cut]
    logs = _logs_of(results, connected)
    assert logs[0] == logs[1], "the connected seats' logs differ"
    majority = audit_file(results[connected[0]].log_path)
    assert _blamed(majority) == {cut}, majority.as_json()
    assert [(s["seat"], s["attested_by"], s["stands"]) for s in majority.silences] == [(cut, connected, True)]
    isolated = audit_file(results[cut].log_path)
    assert isolated.exit_code == 3 and not isolated.violations, isolated.as_json()
    assert not results[cut].driver.machine.finished


async def test_partition_of_two_players_convicts_nobody(tmp_path, monkeypatch):
    """Item 7 with two players: each side's own clock runs out, but one
    attestation of two is no majority: both stop, neither log convicts, and
    the two logs together show no fork and blame nobody."""
    from p2pcards.audit import audit_pair

    monkeypatch.setenv("P2PCARDS_DROP", "1:6:60")
    results = await play_network_match("warkocz", 2, {"target": 2, "table.rejoin_timeout": 2}, tmp_path,
                                       turn_timeout=2)
    for r in results:
        report = audit_file(r.log_path)
        assert report.exit_code == 3 and not report.violations, report.as_json()
        assert not r.driver.machine.finished
    both = audit_pair(results[0].log_path, results[1].log_path)
    assert both.exit_code == 3 and not both.violations, both.as_json()


def test_a_table_stopped_without_a_verdict_keeps_the_honest_log(tmp_path):
    """Issue 23, item 7: at two players a seat that withholds its key cannot be
    convicted (one attestation of two is no majority): the table stops. The
    honest seat's unfinished log is kept all the same, and its audit (exit 3,
    nobody blamed) says whose entry the table was waiting for."""
    from p2pcards.cli.selfplay import selfplay
    from p2pcards.cli.subcommands import format_report

    out = tmp_path / "stopped.p2plog"
    summary = selfplay("warkocz", 2, 1, str(out), cheat="withhold-key", cheater=1, workdir=str(tmp_path / "work"),
                       options={"table.turn_timeout": 2, "table.rejoin_timeout": 2}, timeout=300)
    assert summary["seats_finished"] == [] and summary["seats_unfinished"] == [0], summary
    report = audit_file(out)
    assert report.exit_code == 3 and not report.violations, report.as_json()
    assert "the table was waiting for seat 1's keys to cards" in format_report(report)
