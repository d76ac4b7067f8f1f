"""Every cheat of CONTRACT.md, committed by a real peer over loopback: the
party the contract names catches it, the honest peers' logs agree, and the
audit exits 1 naming the cheater and nobody else."""

import pytest

from p2pcards.audit import audit_file
from tests.netsim import play_network_match

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
